"""The no-I/O half of update, history, export and import (shared by both twins)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pydantic

from .backends.base import FilterSpec, StoredPoint
from .errors import ValidationError
from .inputs import (
    check_storable,
    parse_kinds,
    parse_metadata,
    parse_record_id,
    parse_scope,
    parse_text,
    refuse_surrogates,
)
from .models import KINDS, HistoryEvent, MemoryRecord, Scope
from .records import (
    dense_text,
    history_of,
    normalised_hash,
    payload_of,
    record_from_payload,
    said_on,
    sparse_text,
    utcnow,
)
from .store import Store

Imported = tuple[MemoryRecord, list[HistoryEvent]]

__all__ = ["UpdatePlan", "export_filter", "import_points", "parse_export_line", "plan_update", "record_line"]


def parse_id(value: object, field: str = "id") -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(field, "must be a non-empty record id string")
    return refuse_surrogates(field, value)


@dataclass
class UpdatePlan:
    id: str
    text: str | None
    metadata: dict[str, Any] | None
    scope: Scope


def plan_update(
    store: Store, record_id: object, text: object, metadata: object, scope: Scope | None = None
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
    store: Store, record: MemoryRecord, history: list[HistoryEvent], dense: np.ndarray[Any, Any] | None,
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


# -- export / import ---------------------------------------------------------------------------------------------------
def export_filter(user_id: object, agent_id: object, session_id: object, kinds: object) -> FilterSpec:
    scope = parse_scope(user_id, agent_id, session_id, required=False)
    ks = parse_kinds(kinds) or KINDS
    return FilterSpec(user_id=scope.user_id, agent_id=scope.agent_id, session_id=scope.session_id, kinds=ks)


def record_line(point: StoredPoint) -> str:
    record = record_from_payload(point.id, point.payload)
    data = record.model_dump(mode="json")
    data["history"] = [e.model_dump(mode="json") for e in history_of(point.id, point.payload)]
    return json.dumps(data, ensure_ascii=False)


def parse_export_line(line: str, number: int) -> tuple[MemoryRecord, list[HistoryEvent]]:
    try:
        data = json.loads(line)
        history = [HistoryEvent.model_validate(e) for e in data.pop("history", [])]
        record = MemoryRecord.model_validate(data)
    except (ValueError, pydantic.ValidationError, AttributeError, TypeError) as exc:
        msg = f"line {number}"
        raise ValidationError(msg, f"is not a memadapt export record: {exc}") from exc
    if record.scope.is_empty():
        msg = f"line {number}"
        raise ValidationError(msg, "has no user_id, agent_id or session_id")
    try:  # what the parsers refuse from a caller, an import line must not smuggle in
        check_storable("record", [record.model_dump(exclude={"metadata"}), [e.model_dump() for e in history]])
        parse_metadata(record.metadata)
    except ValidationError as exc:
        msg = f"line {number}"
        raise ValidationError(msg, f"{exc.field}: {exc.problem}") from exc
    return record, history


def import_points(
    store: Store, batch: list[tuple[MemoryRecord, list[HistoryEvent]]], dense: np.ndarray[Any, Any]
) -> list[StoredPoint]:
    """Re-index a batch; consecutive messages of one session get their neighbours' words again."""
    cfg = store.settings.retrieval
    texts = [dense_text(r.text, r.name) for r, _ in batch]
    keys = [(r.scope.key() if r.kind == "message" and r.session_id else None) for r, _ in batch]
    points = []
    for i, (record, history) in enumerate(batch):
        before = [texts[j] for j in range(max(0, i - cfg.context_prev), i) if keys[i] and keys[j] == keys[i]]
        after = [
            texts[j] for j in range(i + 1, min(len(batch), i + 1 + cfg.context_next)) if keys[i] and keys[j] == keys[i]
        ]
        payload = payload_of(record, history, cap=store.history_cap)
        sv = store.sparse.document(sparse_text(texts[i], before, after, said_on(payload, cfg.index_dates)))
        points.append(StoredPoint(record.id, payload, dense[i], sv))
    return points
