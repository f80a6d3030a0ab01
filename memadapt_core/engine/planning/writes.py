"""The no-I/O half of ``add``: validate the messages, derive ids and hashes, run the accept/prepare hooks, decide
what to skip or replace against what is stored, and build the points (payload, BM25 vector with the session's
neighbouring turns) to upsert."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

import numpy as np

from memadapt_core.backends.base import StoredPoint, VectorUpdate
from memadapt_core.engine.resources import Resources
from memadapt_core.errors import ValidationError
from memadapt_core.filters import FilterSpec
from memadapt_core.models import HistoryEvent, Kind, MemoryRecord, Scope
from memadapt_core.record_codec import (
    content_id,
    dense_text,
    history_of,
    normalised_hash,
    payload_of,
    record_from_payload,
    record_id,
    said_on,
    sparse_text,
    turn_texts,
    utcnow,
)
from memadapt_core.validation import parse_kind, parse_messages, parse_metadata, parse_moment, parse_scope
from memadapt_core.vectors.dense_context import mix_turns
from memadapt_core.vectors.sparse import SparseVector

__all__ = [
    "AddPlan",
    "Draft",
    "build_points",
    "context_window",
    "needs_vectors",
    "plan_add",
    "refresh_replaced",
    "resolve_existing",
    "session_filter",
    "turn_sparse",
]

Conflict = Literal["skip", "replace"]


@dataclass
class Draft:
    record: MemoryRecord
    history: list[HistoryEvent] = field(default_factory=list)

    @property
    def indexed(self) -> str:
        return dense_text(self.record.text, self.record.name)


@dataclass
class AddPlan:
    scope: Scope
    kind: Kind
    on_conflict: Conflict
    drafts: list[Draft]  # accepted, unique within the call, in input order
    order: list[str]  # the record id answering each accepted input
    to_store: list[Draft] = field(default_factory=list)
    existing: dict[str, MemoryRecord] = field(default_factory=dict)
    previous: list[StoredPoint] = field(default_factory=list)  # the session's latest stored turns, newest first

    @property
    def dense_texts(self) -> list[str]:
        return [d.indexed for d in self.to_store]

    @property
    def candidate_ids(self) -> list[str]:
        return [d.record.id for d in self.drafts]

    @property
    def context_filter(self) -> FilterSpec | None:
        """Messages in a session are indexed with their neighbours: the latest stored turns are needed."""
        if self.kind != "message" or self.scope.session_id is None or not self.to_store:
            return None
        return session_filter(self.scope)

    def result(self) -> list[MemoryRecord]:
        stored = {d.record.id: d.record for d in self.to_store}
        return [stored.get(i) or self.existing[i] for i in self.order]

    def new_records(self) -> list[MemoryRecord]:
        return [d.record for d in self.to_store]


def session_filter(scope: Scope) -> FilterSpec:
    """The messages of ``scope``'s session: the turns a message is indexed with (and re-indexed after a delete)."""
    return FilterSpec(user_id=scope.user_id, agent_id=scope.agent_id, session_id=scope.session_id, kinds=("message",))


def plan_add(
    store: Resources,
    messages: object,
    *,
    user_id: object,
    agent_id: object,
    session_id: object,
    kind: object,
    metadata: object,
    observed_at: object,
    on_conflict: object,
) -> AddPlan:
    scope = parse_scope(user_id, agent_id, session_id)
    k = parse_kind(kind)
    if on_conflict not in ("skip", "replace"):
        field = "on_conflict"
        raise ValidationError(field, "must be 'skip' or 'replace'")
    base_meta = parse_metadata(metadata)
    base_time = None if observed_at is None else parse_moment("observed_at", observed_at)
    inputs = parse_messages(messages, kind=k, max_chars=store.settings.max_text_chars)
    now = utcnow()
    scope_ids = scope.model_dump()
    drafts: dict[str, Draft] = {}
    order: list[str] = []
    for i, msg in enumerate(inputs):
        # Turns of one call are stored a microsecond apart, which keeps their order when they carry no timestamp.
        stored = now + timedelta(microseconds=i)
        when = msg.observed_at or base_time or stored
        digest = normalised_hash(msg.text, role=msg.role if k == "message" else None, name=msg.name)
        rid = record_id(scope, msg.external_id) if msg.external_id else content_id(scope, k, digest)
        record = MemoryRecord.model_validate({
            "id": rid, "text": msg.text, "kind": k, "role": msg.role, "name": msg.name,
            "external_id": msg.external_id, "observed_at": when, "created_at": stored, "updated_at": stored,
            "valid_from": when if k != "message" else None, "hash": digest,
            "metadata": {**base_meta, **msg.metadata}, **scope_ids,
        })  # fmt: skip  # validating a dict costs ~3 µs, keyword arguments ~4.7
        if not store.hooks.accept(record, scope):
            continue
        record = store.hooks.prepare_record(record)
        if record.id not in drafts:
            drafts[record.id] = Draft(record)  # its "add" event is implied by created_at (records.history_of)
        order.append(record.id)
    return AddPlan(scope, k, on_conflict, list(drafts.values()), order)


def resolve_existing(plan: AddPlan, existing: list[StoredPoint]) -> None:
    """Decide what to write: skip (or replace) what is already stored."""
    found = {p.id: p for p in existing}
    for draft in plan.drafts:
        point = found.get(draft.record.id)
        if point is None:
            plan.to_store.append(draft)
            continue
        old = record_from_payload(point.id, point.payload)
        if plan.on_conflict == "skip" or (old.text == draft.record.text and old.metadata == draft.record.metadata):
            plan.existing[old.id] = old
            continue
        _replace(draft, old, point)
        plan.to_store.append(draft)


def _replace(draft: Draft, old: MemoryRecord, point: StoredPoint) -> None:
    """``draft`` replaces ``old`` (stored as ``point``): it keeps its creation and history, plus an update event."""
    draft.record = draft.record.model_copy(update={"created_at": old.created_at})
    draft.history = history_of(point.id, point.payload)
    if old.text != draft.record.text or old.metadata != draft.record.metadata:
        at, new_text = draft.record.updated_at, draft.record.text
        draft.history.append(
            HistoryEvent(record_id=old.id, event="update", at=at, old_text=old.text, new_text=new_text)
        )


def refresh_replaced(plan: AddPlan, current: list[StoredPoint]) -> None:
    """Under the store lock, just before an ``on_conflict="replace"`` add writes: rebase what it writes on the
    records as they are now, not as they were read before embedding. An update meanwhile keeps its event; a delete
    meanwhile makes the write a fresh add (the deleted record's history stays deleted)."""
    found = {p.id: p for p in current}
    for draft in plan.to_store:
        point = found.get(draft.record.id)
        if point is not None:
            old = record_from_payload(point.id, point.payload)
            if old.updated_at >= draft.record.updated_at:  # changed since this add was planned: it comes after
                later = max(utcnow(), old.updated_at + timedelta(microseconds=1))
                draft.record = draft.record.model_copy(update={"updated_at": later})
            _replace(draft, old, point)
        elif draft.history:  # it replaced a record that is gone now
            draft.record = draft.record.model_copy(update={"created_at": draft.record.updated_at})
            draft.history = []


def build_points(
    store: Resources, plan: AddPlan, dense: np.ndarray[Any, Any], previous: list[StoredPoint]
) -> tuple[list[StoredPoint], list[VectorUpdate]]:
    """Points to upsert, and the re-indexing of the stored turns that now have a following turn (their sparse
    vectors, and the dense vector of the turn just before: vectors/dense_context.py).

    ``previous``: the latest stored messages of the session, newest first (with their vectors when
    ``needs_vectors``).
    """
    cfg = store.settings.retrieval
    new_ids = {d.record.id for d in plan.to_store}
    prev = [p for p in previous if p.id not in new_ids][::-1]  # oldest first
    prev_texts = [dense_text(p.payload.get("text", ""), p.payload.get("name")) for p in prev]
    use_context = plan.context_filter is not None
    prev_dense: np.ndarray[Any, Any] | None = None  # the turn before's new dense vector
    if use_context:
        stored = prev[-1].dense if prev else None
        dense, prev_dense = mix_turns(dense, stored, cfg.dense_context_prev, cfg.dense_context_next)
    seq = prev_texts + [d.indexed for d in plan.to_store] if use_context else [d.indexed for d in plan.to_store]
    offset = len(prev_texts) if use_context else 0
    points: list[StoredPoint] = []
    for i, draft in enumerate(plan.to_store):
        pos = offset + i
        payload = payload_of(draft.record, draft.history, cap=store.history_cap)
        said = said_on(payload, cfg.index_dates)
        if use_context:
            sparse = turn_sparse(store, seq, pos, said)
        else:
            sparse = store.sparse.document(sparse_text(draft.indexed, said=said))
        points.append(StoredPoint(draft.record.id, payload, dense[i], sparse))
    updates: list[VectorUpdate] = []
    if use_context and cfg.context_next:
        for j in range(max(0, len(prev) - cfg.context_next), len(prev)):
            sv = turn_sparse(store, seq, j, said_on(prev[j].payload, cfg.index_dates))
            updates.append((prev[j].id, sv, prev_dense if j == len(prev) - 1 else None))
    elif prev_dense is not None:
        updates.append((prev[-1].id, None, prev_dense))
    return points, updates


def turn_sparse(store: Resources, texts: Sequence[str], i: int, said: datetime | None) -> SparseVector:
    """The sparse vector of turn ``i`` of a session's ``texts`` (oldest first): its words and those of the turns
    in its context window (``context_prev`` before, ``context_next`` after)."""
    cfg = store.settings.retrieval
    before, after = texts[max(0, i - cfg.context_prev) : i], texts[i + 1 : i + 1 + cfg.context_next]
    return store.sparse.turn(*turn_texts(texts[i], before, after, said), cfg.context_weight)


def needs_vectors(store: Resources) -> bool:
    """Whether an add reads the stored turns' vectors: a message's dense vector takes in its neighbours'."""
    cfg = store.settings.retrieval
    return bool(cfg.dense_context_prev or cfg.dense_context_next)


def context_window(store: Resources) -> int:
    cfg = store.settings.retrieval
    return cfg.context_prev + cfg.context_next
