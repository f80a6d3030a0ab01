"""The no-I/O half of ``update``, ``get`` and ``history`` (shared by both twins)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from memadapt_core.backends.base import StoredPoint
from memadapt_core.engine.resources import Resources
from memadapt_core.errors import ValidationError
from memadapt_core.models import HistoryEvent, MemoryRecord, Scope
from memadapt_core.record_codec import (
    dense_text,
    history_of,
    normalised_hash,
    payload_of,
    record_from_payload,
    said_on,
    sparse_text,
    utcnow,
)
from memadapt_core.validation import parse_metadata, parse_record_id, parse_text

Imported = tuple[MemoryRecord, list[HistoryEvent]]

__all__ = [
    "HistoryWalk",
    "UpdatePlan",
    "apply_update",
    "existing",
    "plan_update",
    "point_in_scope",
    "records_found",
    "updated_point",
]


@dataclass
class UpdatePlan:
    id: str
    text: str | None
    metadata: dict[str, Any] | None
    scope: Scope


def plan_update(
    store: Resources, record_id: object, text: object, metadata: object, scope: Scope | None = None
) -> UpdatePlan:
    rid = parse_record_id(record_id)
    if rid is None:  # not a UUID: no record can have it
        field = "id"
        raise ValidationError(field, f"no memory with id {record_id!r}")
    new_text = None if text is None else parse_text("text", text, store.settings.max_text_chars)
    new_meta = None if metadata is None else parse_metadata(metadata)
    if new_text is None and new_meta is None:
        field = "text"
        raise ValidationError(field, "give text=, metadata= or both")
    return UpdatePlan(rid, new_text, new_meta, scope or Scope())


def point_in_scope(point: StoredPoint, scope: Scope) -> bool:
    """Whether a stored point belongs to ``scope`` (ids the scope leaves None are not constrained)."""
    return all(
        want is None or point.payload.get(key) == want
        for key, want in (("user_id", scope.user_id), ("agent_id", scope.agent_id), ("session_id", scope.session_id))
    )


def existing(plan: UpdatePlan, found: list[StoredPoint]) -> StoredPoint:
    """The record an update changes; "no memory with id" when it is gone or outside the scope given."""
    if not found or not point_in_scope(found[0], plan.scope):
        field = "id"
        raise ValidationError(field, f"no memory with id {plan.id!r}")
    return found[0]


def embedded_text(plan: UpdatePlan, point: StoredPoint) -> str:
    """What an update with new text embeds (the speaker's name never changes in an update)."""
    name = point.payload.get("name")
    return dense_text(plan.text or "", name if isinstance(name, str) else None)


def apply_update(plan: UpdatePlan, point: StoredPoint) -> tuple[MemoryRecord, list[HistoryEvent]]:
    old = record_from_payload(point.id, point.payload)
    now = utcnow()
    changes: dict[str, Any] = {"updated_at": now}
    if plan.text is not None:
        changes["text"] = plan.text
        changes["hash"] = normalised_hash(plan.text, role=old.role if old.kind == "message" else None, name=old.name)
    if plan.metadata is not None:
        changes["metadata"] = plan.metadata
    new = old.model_copy(update=changes)
    event = HistoryEvent(record_id=old.id, event="update", at=now, old_text=old.text, new_text=new.text)
    return new, [*history_of(point.id, point.payload), event]


def updated_point(
    store: Resources, record: MemoryRecord, history: list[HistoryEvent], dense: np.ndarray[Any, Any] | None,
    before: StoredPoint,
) -> StoredPoint:  # fmt: skip
    """The point an update writes: new vectors for new text; a metadata-only change keeps the stored ones (the
    sparse vector holds the neighbouring turns' words, which the record's own text cannot rebuild)."""
    payload = payload_of(record, history, cap=store.history_cap)
    if dense is None:
        return StoredPoint(record.id, payload, before.dense, before.sparse)
    said = said_on(payload, store.settings.retrieval.index_dates)
    sparse = store.sparse.document(sparse_text(dense_text(record.text, record.name), said=said))
    return StoredPoint(record.id, payload, dense, sparse)


def chain_ids(point: StoredPoint) -> list[str]:
    return [i for i in (point.payload.get("supersedes"), point.payload.get("superseded_by")) if isinstance(i, str)]


def collect_history(points: Iterable[StoredPoint]) -> list[HistoryEvent]:
    events = [e for p in points for e in history_of(p.id, p.payload)]
    return sorted(events, key=lambda e: e.at)


class HistoryWalk:
    """The records ``history`` reads: the one asked for, then those it superseded or was superseded by (at most
    ``limit``, only inside ``scope``). Each twin feeds it what the backend returns for ``todo``."""

    def __init__(self, record_id: object, scope: Scope, limit: int = 100) -> None:
        start = parse_record_id(record_id)
        self.todo: list[str] = [start] if start else []
        self._scope, self._limit = scope, limit
        self._seen: dict[str, StoredPoint] = {}

    def wanted(self) -> list[str]:
        """Ids to retrieve next; empty when the walk is over."""
        if len(self._seen) >= self._limit:
            return []
        return [i for i in self.todo if i not in self._seen]

    def take(self, points: list[StoredPoint]) -> None:
        self.todo = []
        for p in points:
            if point_in_scope(p, self._scope):
                self._seen[p.id] = p
                self.todo += [i for i in chain_ids(p) if i not in self._seen]

    def events(self) -> list[HistoryEvent]:
        return collect_history(self._seen.values())


def records_found(wanted: list[str], points: list[StoredPoint], scope: Scope) -> list[MemoryRecord]:
    """What ``get_many`` returns: the points found, in the order asked, each once, only inside ``scope``."""
    by_id = {p.id: p for p in points}
    found = [by_id[i] for i in dict.fromkeys(wanted) if i in by_id]
    return [record_from_payload(p.id, p.payload) for p in found if point_in_scope(p, scope)]
