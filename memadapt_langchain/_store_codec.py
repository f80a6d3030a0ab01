"""LangGraph store items <-> engine records, and namespaces <-> scope. No I/O.

An item is one ``fact`` record. Its record metadata holds, under ``"langgraph"``: the namespace (labels joined
by ``"."``, which LangGraph forbids inside a label), every prefix of it from the empty root ``""`` (so a
namespace-prefix search is one metadata match on a list, and records that are not items never match), the key,
the value and whether it is indexed. The value is nested, so any value key
round-trips and a value filter is a metadata filter on ``langgraph.value.<key>``. The record's external id is
the JSON of ``[*namespace, key]``, so a put to the same place replaces the item.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from memadapt_core import JSON, MemoryRecord, ScopeIds, SearchHit, ValidationError, parse_json_object

from ._framework import Item, MatchCondition, SearchItem, get_text_at_path

__all__ = [
    "METADATA_KEY",
    "NamespaceScope",
    "hit_item",
    "item_external_id",
    "matches",
    "namespace_of",
    "put_input",
    "record_item",
    "search_filters",
    "search_item",
]

METADATA_KEY = "langgraph"
_SEP = "."


def item_external_id(namespace: tuple[str, ...], key: str) -> str:
    return json.dumps([*namespace, key], ensure_ascii=False)


@dataclass(frozen=True)
class NamespaceScope:
    """Every item is in ``agent_id``'s scope; with ``user_id_position``, the label there is also the user id."""

    agent_id: str
    user_id_position: int | None = None

    def __call__(self, namespace: tuple[str, ...]) -> ScopeIds:
        pos = self.user_id_position
        user_id = namespace[pos] if pos is not None and pos < len(namespace) else None
        return ScopeIds(user_id=user_id, agent_id=self.agent_id, session_id=None)


def _indexed_text(value: Mapping[str, JSON], fields: Sequence[str]) -> str:
    texts = [text for path in fields for text in get_text_at_path(value, path)]
    return "\n".join(text for text in texts if text.strip())


def put_input(
    namespace: tuple[str, ...],
    key: str,
    value: Mapping[str, JSON],
    index: Literal[False] | list[str] | None,
    fields: Sequence[str],
) -> dict[str, JSON]:
    """The ``add`` input for a put: the text to embed is the value at ``fields`` (a put's ``index`` overrides). The
    value is checked as JSON before anything walks it (a datetime or a set would fail there)."""
    value = parse_json_object("value", value)
    text = "" if index is False else _indexed_text(value, fields if index is None else index)
    prefixes = [_SEP.join(namespace[:depth]) for depth in range(len(namespace) + 1)]
    return {
        # The engine needs words for every record: an unindexed item is stored under its key and kept out of
        # query searches by the ``indexed`` flag.
        "content": text or key,
        "id": item_external_id(namespace, key),
        "metadata": {
            METADATA_KEY: {
                "namespace": _SEP.join(namespace),
                "prefixes": prefixes,
                "key": key,
                "value": value,
                "indexed": int(bool(text)),  # 1/0, not a bool: the edge backend cannot match booleans yet
            }
        },
    }


def namespace_of(record: MemoryRecord) -> tuple[str, ...]:
    return tuple(record.metadata[METADATA_KEY]["namespace"].split(_SEP))


def record_item(record: MemoryRecord) -> Item:
    meta = record.metadata[METADATA_KEY]
    return Item(
        value=meta["value"],
        key=meta["key"],
        namespace=namespace_of(record),
        created_at=record.created_at,
        updated_at=record.updated_at,
    )


def search_item(record: MemoryRecord, score: float | None = None) -> SearchItem:
    item = record_item(record)
    return SearchItem(item.namespace, item.key, item.value, item.created_at, item.updated_at, score)


def hit_item(hit: SearchHit) -> SearchItem:
    return search_item(hit.record, hit.score)


def search_filters(
    prefix: tuple[str, ...], value_filter: dict[str, JSON] | None, *, indexed_only: bool
) -> dict[str, JSON]:
    """Engine metadata filters for a search: the namespace prefix, the value filter, and for a query search
    only indexed items. A nested dict in a value filter (no ``$`` operator) matches field by field, as in
    LangGraph; operators and scalars go to the engine unchanged."""
    out: dict[str, JSON] = {f"{METADATA_KEY}.prefixes": _SEP.join(prefix)}
    if indexed_only:
        out[f"{METADATA_KEY}.indexed"] = 1
    pending = [(f"{METADATA_KEY}.value.{key}", cond) for key, cond in (value_filter or {}).items()]
    while pending:
        path, cond = pending.pop()
        if isinstance(cond, dict) and not any(str(k).startswith("$") for k in cond):
            pending += [(f"{path}.{key}", sub) for key, sub in cond.items()]
        else:
            out[path] = cond
    return out


def _label_match(labels: Iterable[str], pattern: Iterable[str]) -> bool:
    return all(p in ("*", label) for label, p in zip(labels, pattern, strict=False))


def matches(namespace: tuple[str, ...], conditions: Sequence[MatchCondition]) -> bool:
    """LangGraph's namespace match: each condition a prefix or a suffix, ``"*"`` matching any one label."""
    for cond in conditions:
        if len(namespace) < len(cond.path):
            return False
        if cond.match_type == "prefix" and not _label_match(namespace, cond.path):
            return False
        if cond.match_type == "suffix" and not _label_match(reversed(namespace), reversed(cond.path)):
            return False
        if cond.match_type not in ("prefix", "suffix"):
            field = "match_type"
            raise ValidationError(field, f"unsupported {cond.match_type!r}; use 'prefix' or 'suffix'")
    return True
