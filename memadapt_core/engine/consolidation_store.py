"""The engine's side of consolidation: ``ConsolidationStore`` (async) and its sync twin over the backend.

Scopes: the worker reads *exactly* one scope's pending messages (ids given as None must be absent, so a user's
session and the user's unscoped messages are separate batches). Facts are knowledge about the user (or agent),
so new facts are compared with the valid facts of the scope *without* its session: "I live in Paris" in one
session is superseded by "I moved to Berlin" in the next. New facts keep the session they were learnt in, so
deleting a session forgets what it taught.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memadapt_core.backends.base import RECORD_ID, Candidate, PointKey, StoredPoint
from memadapt_core.consolidation.planning.plan import ConsolidationPlan
from memadapt_core.engine.planning import reads
from memadapt_core.engine.resources import Resources
from memadapt_core.engine.scope_guard import check_payloads, check_points
from memadapt_core.engine.tiers.archiving import archive_coldest
from memadapt_core.filters import FilterSpec, MetaCondition
from memadapt_core.models import HistoryEvent, Kind, MemoryRecord, Scope
from memadapt_core.record_codec import (
    dense_text,
    event_payload,
    history_of,
    iso,
    normalised_hash,
    payload_of,
    record_from_payload,
    utcnow,
)
from memadapt_core.redaction import redact_shared
from memadapt_core.scoring.heat import segment_heat

__all__ = ["AppliedPlan", "knowledge_scope", "pending_filter", "prepare_apply"]

_PENDING_PAGE = 1_000
_PAGE = 10_000  # statements of one profile


def knowledge_scope(scope: Scope) -> Scope:
    """Where facts are looked up: the user's (or agent's) facts across sessions; a session-only scope as it is."""
    if scope.user_id is None and scope.agent_id is None:
        return scope
    return scope.model_copy(update={"session_id": None})


def pending_filter(scope: Scope | None, kind: Kind = "message") -> FilterSpec:
    """Not consolidated yet: messages (or trajectories) of exactly ``scope``; any scope's of either kind."""
    if scope is None:
        return FilterSpec(kinds=("message", "trajectory", "tool_call"), consolidated=False)
    return reads.scope_filter(scope, kinds=(kind,), consolidated=False, exact_scope=True)


def facts_filter(scope: Scope, kind: str = "fact", cites: list[str] | None = None) -> FilterSpec:
    return reads.scope_filter(
        knowledge_scope(scope),
        kinds=(kind,),
        valid_only=True,
        source_ids_any=tuple(cites) if cites is not None else None,
    )


def tool_calls_filter(scope: Scope) -> FilterSpec:
    """The agent's tool calls, of any user or session, no guide has taken yet."""
    return FilterSpec(agent_id=scope.agent_id, kinds=("tool_call",), consolidated=False)


def guide_filter(scope: Scope, tool: str) -> FilterSpec:
    meta = (MetaCondition("tool", "eq", tool),)
    return FilterSpec(agent_id=scope.agent_id, kinds=("tool_guide",), valid_only=True, metadata=meta)


def latest(points: list[StoredPoint]) -> MemoryRecord | None:
    records = [record_from_payload(p.id, p.payload) for p in points]
    return max(records, key=lambda r: r.created_at) if records else None


def unreflected_filter(scope: Scope) -> FilterSpec:
    """Valid facts of exactly ``scope`` no reflection has taken (``consolidated`` not set)."""
    return reads.scope_filter(scope, kinds=("fact",), valid_only=True, consolidated=False, exact_scope=True)


def profile_filter(scope: Scope) -> FilterSpec:
    """The valid statements of exactly this profile scope."""
    return reads.scope_filter(scope, kinds=("profile",), valid_only=True, exact_scope=True)


def knowledge_filter(scope: Scope) -> FilterSpec:
    """What a profile rests on: a user's valid facts and insights (any agent, any session); an agent's own, about
    no user (``exact_scope``: another user's facts never reach the agent's profile)."""
    kinds = ("fact", "insight")
    return reads.scope_filter(scope, kinds=kinds, valid_only=True, exact_scope=scope.user_id is None)


def own_records(scope: Scope, records: list[MemoryRecord]) -> list[MemoryRecord]:
    """An agent's own knowledge (no user in ``scope``) is never compared with, or superseding, a user's facts."""
    if scope.user_id is not None:
        return records
    return [r for r in records if r.user_id is None]


def best_keys(dense: list[Candidate], sparse: list[Candidate], limit: int) -> list[PointKey]:
    """The first ``limit`` distinct candidates, dense ones first."""
    return list(dict.fromkeys(key for key, _ in [*dense, *sparse]))[:limit]


def records_in_order(
    flt: FilterSpec, keys: list[PointKey], payloads: dict[PointKey, dict[str, Any]]
) -> list[MemoryRecord]:
    check_payloads(flt, payloads)
    return [record_from_payload(payloads[k][RECORD_ID], payloads[k]) for k in keys if k in payloads]


def records_of(flt: FilterSpec, points: list[StoredPoint]) -> list[MemoryRecord]:
    """The records of a scoped read, each checked to be inside it (scope_guard.py)."""
    check_points(flt, points)
    return [record_from_payload(p.id, p.payload) for p in points]


def scopes_of(points: list[StoredPoint], limit: int) -> list[Scope]:
    found: dict[Scope, None] = {}
    for p in points:
        found.setdefault(record_from_payload(p.id, p.payload).scope)
        if len(found) >= limit:
            break
    return list(found)


@dataclass
class AppliedPlan:
    """A plan turned into writes: new points to embed and upsert, payload updates for ended records."""

    records: list[MemoryRecord]
    histories: list[list[HistoryEvent]]
    ended: list[tuple[str, dict[str, Any]]]
    superseded: list[tuple[MemoryRecord, str]]  # (old record as ended, id of the new one)

    @property
    def dense_texts(self) -> list[str]:
        return [dense_text(r.text, r.name) for r in self.records]


def prepare_apply(
    plan: ConsolidationPlan,
    ended_points: list[StoredPoint],
    prepare: Callable[[MemoryRecord], MemoryRecord] | None = None,
) -> AppliedPlan:
    """``ended_points``: the stored ``plan.touched_ids``; new experiences and tool guides, which every user of an
    agent will see, lose the credentials of their URLs (``redact_shared``) and then pass ``prepare`` (the
    ``memadapt_prepare_record`` hook, for the deployment's own redaction)."""
    now = utcnow()
    records, histories = [], []
    for new in plan.records:
        record = MemoryRecord(
            **new.model_dump(),
            created_at=now,
            updated_at=now,
            hash=normalised_hash(new.text),
            **plan.scope.model_dump(),
        )
        if record.kind in ("experience", "tool_guide"):  # shared by every user of the agent
            record = redact_shared(record)
            if prepare is not None:
                record = prepare(record)
        records.append(record)
        histories.append([HistoryEvent(record_id=record.id, event="add", at=now, new_text=record.text)])
    by_id = {p.id: p for p in ended_points}
    ended: list[tuple[str, dict[str, Any]]] = []
    superseded: list[tuple[MemoryRecord, str]] = []
    endings: list[tuple[str, datetime, str | None]] = [(s.old_id, s.at, s.new_id) for s in plan.supersessions]
    endings += [(i.old_id, i.at, None) for i in plan.invalidations]
    for old_id, at, by in endings:
        point = by_id.get(old_id)
        if point is None:
            continue
        events = history_of(point.id, point.payload)
        kind = "supersede" if by else "delete"
        if not any(e.event == kind and e.by == by for e in events):  # a replay after a crash adds nothing twice
            events.append(HistoryEvent(record_id=old_id, event=kind, at=at, old_text=point.payload.get("text"), by=by))
        update: dict[str, Any] = {
            "valid_to": iso(at),
            "history": [event_payload(e) for e in events if e.event != "add"],
        }
        if by is not None:
            update["superseded_by"] = by
        ended.append((old_id, update))
        if by is not None:
            old = record_from_payload(point.id, {**point.payload, "valid_to": iso(at), "superseded_by": by})
            superseded.append((old, by))
    ended += _rejections(plan, by_id)
    return AppliedPlan(records, histories, ended, superseded)


def _rejections(plan: ConsolidationPlan, by_id: dict[str, StoredPoint]) -> list[tuple[str, dict[str, Any]]]:
    """History updates of the trajectories whose experiences validation refused (each event once)."""
    updates: list[tuple[str, dict[str, Any]]] = []
    for record_id in dict.fromkeys(r.record_id for r in plan.rejections):
        point = by_id.get(record_id)
        if point is None:
            continue
        events = history_of(point.id, point.payload)
        for rejection in (r for r in plan.rejections if r.record_id == record_id):
            event = HistoryEvent(
                record_id=record_id, event="reject", at=rejection.at, old_text=rejection.text,
                new_text=rejection.reason,
            )  # fmt: skip
            if event not in events:
                events.append(event)
        updates.append((record_id, {"history": [event_payload(e) for e in events if e.event != "add"]}))
    return updates


def new_points(store: Resources, applied: AppliedPlan, dense: Any) -> list[StoredPoint]:
    cap, texts = store.history_cap, applied.dense_texts
    return [
        StoredPoint(r.id, payload_of(r, h, cap=cap), dense[i], store.sparse.document(texts[i]))
        for i, (r, h) in enumerate(zip(applied.records, applied.histories, strict=True))
    ]


def notify(store: Resources, applied: AppliedPlan) -> None:
    store.hooks.on_added(applied.records)
    new_by_id = {r.id: r for r in applied.records}
    for old, new_id in applied.superseded:
        if new_id in new_by_id:
            store.hooks.on_superseded(old, new_by_id[new_id])


def heat_of(store: Resources, messages: list[MemoryRecord]) -> float:
    """A segment's heat with the visits search counted and not yet written."""
    counted = [(m, store.access.pending(m.id)) for m in messages]
    current = [m if v is None else m.model_copy(update={"visits": m.visits + v.count, "last_access": v.last})
               for m, v in counted]  # fmt: skip
    return segment_heat(current, utcnow(), store.settings.tiers)


class SyncEngineStore:
    """``SyncConsolidationStore`` over a ``Resources`` (used by the thread worker of ``Memory``)."""

    def __init__(self, store: Resources) -> None:
        self._s = store

    def pending_messages(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        flt = pending_filter(scope)
        return records_of(flt, self._s.backend.scroll(flt, limit))

    def pending_scopes(self, limit: int) -> list[Scope]:
        return scopes_of(self._s.backend.scroll(pending_filter(None), _PENDING_PAGE), limit)

    def similar_facts(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        s, flt = self._s, facts_filter(scope)
        qvec = s.embedder.embed_query(text, s.weights(scope))
        dense, sparse = s.backend.search(qvec, s.sparse.query(text), flt, limit)
        keys = best_keys(dense, sparse, limit)
        return own_records(scope, records_in_order(flt, keys, s.backend.points(keys)))

    def pending_trajectories(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        flt = pending_filter(scope, "trajectory")
        return records_of(flt, self._s.backend.scroll(flt, limit))

    def similar_experiences(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        s = self._s
        flt = facts_filter(scope, "experience")
        qvec = s.embedder.embed_query(text, s.weights(scope))
        dense, sparse = s.backend.search(qvec, s.sparse.query(text), flt, limit)
        keys = best_keys(dense, sparse, limit)
        return records_in_order(flt, keys, s.backend.points(keys))

    def pending_tool_calls(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        flt = tool_calls_filter(scope)
        return records_of(flt, self._s.backend.scroll(flt, limit))

    def tool_guide(self, scope: Scope, tool: str) -> MemoryRecord | None:
        return latest(self._s.backend.scroll(guide_filter(scope, tool), _PENDING_PAGE))

    def facts_by_ids(self, ids: list[str]) -> list[MemoryRecord]:
        points = {p.id: p for p in self._s.backend.retrieve(ids)}
        return [record_from_payload(i, points[i].payload) for i in ids if i in points]

    def insights_citing(self, fact_ids: list[str], scope: Scope) -> list[MemoryRecord]:
        flt = facts_filter(scope, "insight", fact_ids)
        return records_of(flt, self._s.backend.scroll(flt, _PENDING_PAGE))

    def unreflected_facts(self, scope: Scope, limit: int) -> list[str]:
        return [p.id for p in self._s.backend.scroll(unreflected_filter(scope), limit)]

    def profile_statements(self, scope: Scope) -> list[MemoryRecord]:
        return [record_from_payload(p.id, p.payload) for p in self._s.backend.scroll(profile_filter(scope), _PAGE)]

    def recent_knowledge(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        points = self._s.backend.scroll(knowledge_filter(scope), limit, descending=True)
        return [record_from_payload(p.id, p.payload) for p in points]

    def heat(self, messages: list[MemoryRecord]) -> float:
        return heat_of(self._s, messages)

    def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]:
        s = self._s
        applied = prepare_apply(plan, s.backend.retrieve(plan.touched_ids), s.hooks.prepare_record)
        if applied.records:
            dense = s.embed_documents(applied.dense_texts, s.weights(plan.scope, applied.dense_texts))
            s.backend.upsert(new_points(s, applied, dense))
        for old_id, update in applied.ended:
            s.backend.set_payload([old_id], update)
        if any(r.kind == "fact" for r in plan.records):
            archive_coldest(s, plan.scope)
        if plan.consolidated_ids:
            s.backend.set_payload(plan.consolidated_ids, {"consolidated": 1})  # last: nothing is lost
        notify(s, applied)
        return applied.records


class AsyncEngineStore:
    """``ConsolidationStore`` over a ``Resources`` (used by the asyncio worker of ``AsyncMemory``)."""

    def __init__(self, store: Resources, run: Any) -> None:
        self._s = store
        self._run = run  # AsyncMemory._run: inline for the embedded store, a thread for a server

    async def pending_messages(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        flt = pending_filter(scope)
        return records_of(flt, await self._run(self._s.backend.scroll, flt, limit))

    async def pending_scopes(self, limit: int) -> list[Scope]:
        return scopes_of(await self._run(self._s.backend.scroll, pending_filter(None), _PENDING_PAGE), limit)

    async def similar_facts(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        s, flt = self._s, facts_filter(scope)
        qvec = await s.embedder.aembed_query(text, await s.aweights(scope))
        dense, sparse = await self._run(s.backend.search, qvec, s.sparse.query(text), flt, limit)
        keys = best_keys(dense, sparse, limit)
        return own_records(scope, records_in_order(flt, keys, await self._run(s.backend.points, keys)))

    async def pending_trajectories(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        flt = pending_filter(scope, "trajectory")
        return records_of(flt, await self._run(self._s.backend.scroll, flt, limit))

    async def similar_experiences(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        s = self._s
        qvec = await s.embedder.aembed_query(text, await s.aweights(scope))
        flt = facts_filter(scope, "experience")
        dense, sparse = await self._run(s.backend.search, qvec, s.sparse.query(text), flt, limit)
        keys = best_keys(dense, sparse, limit)
        return records_in_order(flt, keys, await self._run(s.backend.points, keys))

    async def pending_tool_calls(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        flt = tool_calls_filter(scope)
        return records_of(flt, await self._run(self._s.backend.scroll, flt, limit))

    async def tool_guide(self, scope: Scope, tool: str) -> MemoryRecord | None:
        return latest(await self._run(self._s.backend.scroll, guide_filter(scope, tool), _PENDING_PAGE))

    async def facts_by_ids(self, ids: list[str]) -> list[MemoryRecord]:
        points = {p.id: p for p in await self._run(self._s.backend.retrieve, ids)}
        return [record_from_payload(i, points[i].payload) for i in ids if i in points]

    async def insights_citing(self, fact_ids: list[str], scope: Scope) -> list[MemoryRecord]:
        flt = facts_filter(scope, "insight", fact_ids)
        return records_of(flt, await self._run(self._s.backend.scroll, flt, _PENDING_PAGE))

    async def unreflected_facts(self, scope: Scope, limit: int) -> list[str]:
        return [p.id for p in await self._run(self._s.backend.scroll, unreflected_filter(scope), limit)]

    async def profile_statements(self, scope: Scope) -> list[MemoryRecord]:
        points = await self._run(self._s.backend.scroll, profile_filter(scope), _PAGE)
        return [record_from_payload(p.id, p.payload) for p in points]

    async def recent_knowledge(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        points = await self._run(self._s.backend.scroll, knowledge_filter(scope), limit, descending=True)
        return [record_from_payload(p.id, p.payload) for p in points]

    async def heat(self, messages: list[MemoryRecord]) -> float:
        return heat_of(self._s, messages)

    async def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]:
        s = self._s
        applied = prepare_apply(plan, await self._run(s.backend.retrieve, plan.touched_ids), s.hooks.prepare_record)
        if applied.records:
            dense = await s.aembed_documents(applied.dense_texts, await s.aweights(plan.scope, applied.dense_texts))
            await self._run(s.backend.upsert, new_points(s, applied, dense))
        for old_id, update in applied.ended:
            await self._run(s.backend.set_payload, [old_id], update)
        if any(r.kind == "fact" for r in plan.records):
            await self._run(archive_coldest, s, plan.scope)
        if plan.consolidated_ids:
            await self._run(s.backend.set_payload, plan.consolidated_ids, {"consolidated": 1})
        notify(s, applied)
        return applied.records
