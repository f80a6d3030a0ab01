"""LangGraph store items <-> engine records, and namespaces <-> scope. No I/O.

An item is one ``fact`` record. Its record metadata holds, under ``"langgraph"``: the namespace (labels joined
by ``"."``, which LangGraph forbids inside a label), every prefix of it from the empty root ``""`` (so a
namespace-prefix search is one metadata match on a list, and records that are not items never match), the key,
whether it is indexed, and the value. The value is nested, so any value key round-trips. A value the record
metadata cannot hold (over ``_INLINE_BYTES`` as JSON with the rest, nested deeper than ``_INLINE_DEPTH``, or with
integers beyond 64 bits or strings UTF-8 cannot encode) is kept instead as its JSON text cut into parts, each a
record of the item's own user and agent in the session ``PARTS_SESSION`` (so erasing the user or the agent erases
them, and no other user's read meets them), named by the item and the digest of the text; the item's metadata
then says ``blob: 1`` and how many parts. The record's external id is the JSON of
``[*namespace, key]``, so a put to the same place replaces the item.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from memadapt_core import JSON, MemoryRecord, Scope, ScopeIds, SearchHit, ValidationError
from memadapt_langchain._framework import MatchCondition, SearchItem, get_text_at_path

__all__ = [
    "METADATA_KEY",
    "PARTS_SESSION",
    "VALUE_PATH",
    "NamespaceScope",
    "PutInput",
    "item_external_id",
    "item_of",
    "matches",
    "namespace_of",
    "part_external_ids",
    "prefix_filter",
    "put_input",
    "stored_value",
]

METADATA_KEY = "langgraph"
VALUE_PATH = f"{METADATA_KEY}.value"
_SEP = "."
# The engine refuses metadata over 64,000 bytes as JSON and nested over 32 levels; stay clear of both.
_INLINE_BYTES = 60_000
_INLINE_DEPTH = 24
_PART_CHARS = 30_000  # ASCII JSON: at most 60,000 bytes once its quotes and backslashes are escaped again
_INT64 = 2**63
PARTS_SESSION = "langgraph.values"
"""The session of the records holding the parts of large values: item reads (session None, filtered by namespace)
never meet them; they share their item's user and agent."""


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
        return ScopeIds(user_id=_user_id(user_id), agent_id=self.agent_id, session_id=None)

    @staticmethod
    def parts(owner: ScopeIds | MemoryRecord) -> ScopeIds:
        """Where the parts of an item's value live: the item's own user and agent, in ``PARTS_SESSION``, so a
        ``delete_all`` of the user (or of the agent) erases them with the item."""
        if isinstance(owner, MemoryRecord):
            return ScopeIds(user_id=owner.user_id, agent_id=owner.agent_id, session_id=PARTS_SESSION)
        return ScopeIds(user_id=owner["user_id"], agent_id=owner["agent_id"], session_id=PARTS_SESSION)

    @property
    def all_parts(self) -> ScopeIds:
        """The parts of every item of this agent (reads by record id, which already names the owner)."""
        return ScopeIds(user_id=None, agent_id=self.agent_id, session_id=PARTS_SESSION)


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _user_id(label: str | None) -> str | None:
    """A label as a user id; one the engine refuses as an id (blank, over 512 characters, a control character)
    leaves the item without a user, in no user's scope, where LangGraph accepts it as a label."""
    try:
        return Scope.of(user_id=label, required=False).user_id
    except ValidationError:
        return None


def _indexed_text(value: Mapping[str, Any], fields: Sequence[str] | None) -> str:
    """The text embedded for an item: the value at ``fields`` (LangGraph paths), or with ``fields=None`` its
    strings at any depth, one per line (langmem's ``{"content": ...}`` embeds just the content, and other
    adapters show just that), or its JSON when it holds no string."""
    if fields is None:
        texts = [text for text in _strings(value) if text.strip()] or get_text_at_path(value, "$")
    else:
        texts = [text for path in fields for text in get_text_at_path(value, path)]
    text = "\n".join(text for text in texts if text.strip())
    # What UTF-8 cannot encode (a lone surrogate) is kept in the value but cannot be embedded.
    return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")


def _storable(value: object, depth: int) -> bool:
    """Whether record metadata can hold ``value`` at this depth (see the module docstring)."""
    if isinstance(value, str):
        return value.isascii() or _encodable(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return -_INT64 <= value < _INT64
    if isinstance(value, dict):
        return depth <= _INLINE_DEPTH and all(_encodable(k) and _storable(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return depth <= _INLINE_DEPTH and all(_storable(v, depth + 1) for v in value)
    return True


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json_copy(value: object) -> tuple[dict[str, Any], str]:
    """The value as plain JSON (a deep copy) and its ASCII JSON text; refused unless it is a dict of JSON."""
    field = "value"
    if not isinstance(value, Mapping):
        raise ValidationError(field, f"must be a dict, not {type(value).__name__}")
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValidationError(field, f"must be JSON-serialisable (finite numbers, no cycles): {exc}") from exc
    copy: dict[str, Any] = json.loads(text)
    return copy, text


@dataclass(frozen=True)
class PutInput:
    """What a put writes: the item's record, and the parts of its value when metadata cannot hold it."""

    item: dict[str, JSON]
    parts: list[dict[str, JSON]]

    @property
    def part_ids(self) -> list[str]:
        return [str(part["id"]) for part in self.parts]


def put_input(
    namespace: tuple[str, ...],
    key: str,
    value: Mapping[str, Any],
    index: Literal[False] | list[str] | None,
    fields: Sequence[str] | None,
    max_text_chars: int,
) -> PutInput:
    """The ``add`` inputs for a put: the text to embed is the value at ``fields`` (a put's ``index`` overrides),
    cut to the engine's longest text. The value is checked as JSON before anything walks it (a datetime or a set
    would fail there)."""
    copy, text = _json_copy(value)
    embedded = "" if index is False else _indexed_text(copy, fields if index is None else index)
    meta: dict[str, JSON] = {
        "namespace": _SEP.join(namespace),
        "prefixes": [_SEP.join(namespace[:depth]) for depth in range(len(namespace) + 1)],
        "key": key,
        "indexed": int(bool(embedded)),  # 1/0, not a bool: a filter on it is a plain integer match
    }
    parts: list[dict[str, JSON]] = []
    if len(text) + len(json.dumps(meta)) <= _INLINE_BYTES and _storable(copy, 1):
        meta["value"] = copy
    else:
        digest = hashlib.sha256(text.encode("ascii")).hexdigest()[:16]
        chunks = [text[i : i + _PART_CHARS] for i in range(0, len(text), _PART_CHARS)]
        meta.update({"blob": 1, "digest": digest, "parts": len(chunks)})
        parts = [
            {
                "content": f"part {i + 1} of a stored value",
                "id": _part_id(namespace, key, digest, i),
                "metadata": {METADATA_KEY: {"part": chunk}},
            }
            for i, chunk in enumerate(chunks)
        ]
    item: dict[str, JSON] = {
        # The engine needs words for every record: an unindexed item is stored under its key and kept out of
        # query searches by the ``indexed`` flag.
        "content": (embedded or key)[:max_text_chars],
        "id": item_external_id(namespace, key),
        "metadata": {METADATA_KEY: meta},
    }
    return PutInput(item, parts)


def _part_id(namespace: tuple[str, ...], key: str, digest: str, i: int) -> str:
    return json.dumps([*namespace, key, digest, i], ensure_ascii=False)


def part_external_ids(record: MemoryRecord) -> list[str]:
    """The external ids (in the values scope) of the parts of an item record's value; none when it is inline."""
    meta = record.metadata[METADATA_KEY]
    if not meta.get("blob"):
        return []
    namespace = namespace_of(record)
    return [_part_id(namespace, meta["key"], meta["digest"], i) for i in range(meta["parts"])]


def stored_value(record: MemoryRecord, parts: Sequence[MemoryRecord]) -> dict[str, Any]:
    """An item record's value: inline, or joined from its parts (given in order)."""
    meta = record.metadata[METADATA_KEY]
    if not meta.get("blob"):
        value: dict[str, Any] = meta["value"]
        return value
    if len(parts) != meta["parts"]:
        field = "value"
        raise ValidationError(field, f"of item {meta['key']!r} has lost parts: rewrite the item")
    joined: dict[str, Any] = json.loads("".join(p.metadata[METADATA_KEY]["part"] for p in parts))
    return joined


def namespace_of(record: MemoryRecord) -> tuple[str, ...]:
    return tuple(record.metadata[METADATA_KEY]["namespace"].split(_SEP))


def item_of(record: MemoryRecord, value: dict[str, Any], hit: SearchHit | None = None) -> SearchItem:
    """The item of a record whose value is already read (a ``SearchItem``, which is an ``Item``; score from
    ``hit``)."""
    meta = record.metadata[METADATA_KEY]
    score = None if hit is None else hit.score
    return SearchItem(namespace_of(record), meta["key"], value, record.created_at, record.updated_at, score)


def prefix_filter(prefix: tuple[str, ...], *, indexed_only: bool) -> dict[str, JSON]:
    """Engine metadata filters for the items under a namespace prefix (for a query search, indexed ones only)."""
    out: dict[str, JSON] = {f"{METADATA_KEY}.prefixes": _SEP.join(prefix)}
    if indexed_only:
        out[f"{METADATA_KEY}.indexed"] = 1
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
