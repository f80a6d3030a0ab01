"""Fixtures for consolidation: the scripted LLM server over real HTTP, LLM clients, and a TEST DOUBLE store.

``DictStore`` is a plain dict-backed stand-in for the engine's implementation of the consolidation store
protocol (``AsyncDictStore`` is its async face). It does what the protocol says and nothing clever (word overlap
instead of vector search); the same scenarios are meant to be re-run through the real engine.
"""

from __future__ import annotations

import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import pytest

from memadapt_core.consolidation import (
    AsyncLLMClient,
    ConsolidationPlan,
    ConsolidationWorker,
    LLMClient,
    SyncConsolidationWorker,
    WorkerOptions,
    normalise_text,
)
from memadapt_core.errors import StoreError
from memadapt_core.models import HistoryEvent, MemoryRecord, Scope
from memadapt_core.testing import ScriptedLLMServer, serve_scripted_llm

ALEX = Scope(user_id="alex")
T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower())) - {"a", "an", "the", "in", "on", "of", "to", "and", "is", "i"}


class DictStore:
    """TEST DOUBLE of the engine's consolidation store (sync); see the module docstring."""

    def __init__(self) -> None:
        self.records: dict[str, MemoryRecord] = {}
        self.history: list[HistoryEvent] = []
        self.applied: list[ConsolidationPlan] = []
        self.fail_applies = 0  # the next n apply() calls raise before writing anything
        self.crash_before_marking = 0  # the next n apply() calls write everything but the marks, then raise

    # -- arranging ----------------------------------------------------------------------------------------------
    def add_messages(
        self,
        scope: Scope,
        *texts: str,
        start: datetime = T0,
        step: timedelta = timedelta(minutes=1),
        name: str = "Alex",
        external_ids: list[str] | None = None,
    ) -> list[MemoryRecord]:
        added = []
        for n, text in enumerate(texts):
            at = start + n * step
            record = MemoryRecord(
                id=str(uuid.uuid4()),
                text=text,
                kind="message",
                role="user",
                name=name,
                observed_at=at,
                created_at=at,
                updated_at=at,
                hash=normalise_text(text),
                **scope.model_dump(),
                external_id=external_ids[n] if external_ids else None,
            )
            self.records[record.id] = record
            added.append(record)
        return added

    def add_fact(
        self,
        scope: Scope,
        text: str,
        *,
        at: datetime = T0,
        kind: Literal["fact", "insight"] = "fact",
        sources: Sequence[MemoryRecord] = (),
    ) -> MemoryRecord:
        record = MemoryRecord(
            id=str(uuid.uuid4()),
            text=text,
            kind=kind,
            source_ids=[r.id for r in sources],
            observed_at=at,
            created_at=at,
            updated_at=at,
            valid_from=at,
            hash=normalise_text(text),
            **scope.model_dump(),
        )
        self.records[record.id] = record
        return record

    # -- reading in tests ---------------------------------------------------------------------------------------
    def of(self, scope: Scope, kind: str, *, valid_only: bool = False) -> list[MemoryRecord]:
        found = [r for r in self.records.values() if r.scope == scope and r.kind == kind]
        found = [r for r in found if not valid_only or r.valid_to is None]
        return sorted(found, key=lambda r: (r.observed_at, r.text))

    def texts(self, scope: Scope, kind: str = "fact", *, valid_only: bool = False) -> list[str]:
        return [r.text for r in self.of(scope, kind, valid_only=valid_only)]

    # -- the protocol -------------------------------------------------------------------------------------------
    def pending_messages(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        return [r for r in self.of(scope, "message") if not r.consolidated][:limit]

    def pending_scopes(self, limit: int) -> list[Scope]:
        scopes = [r.scope for r in self.records.values() if r.kind == "message" and not r.consolidated]
        return list(dict.fromkeys(scopes))[:limit]

    def similar_facts(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        scored = [(len(_words(text) & _words(r.text)), r) for r in self.of(scope, "fact", valid_only=True)]
        return [r for score, r in sorted(scored, key=lambda p: -p[0]) if score > 0][:limit]

    def pending_trajectories(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        return [r for r in self.of(scope, "trajectory") if not r.consolidated][:limit]

    def similar_experiences(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        scored = [(len(_words(text) & _words(r.text)), r) for r in self.of(scope, "experience", valid_only=True)]
        return [r for score, r in sorted(scored, key=lambda p: -p[0]) if score > 0][:limit]

    def pending_tool_calls(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        calls = [r for r in self.records.values() if r.kind == "tool_call" and r.agent_id == scope.agent_id]
        return [r for r in calls if not r.consolidated][:limit]

    def tool_guide(self, scope: Scope, tool: str) -> MemoryRecord | None:
        guides = [r for r in self.of(scope, "tool_guide", valid_only=True) if r.metadata.get("tool") == tool]
        return guides[-1] if guides else None

    def facts_by_ids(self, ids: list[str]) -> list[MemoryRecord]:
        return [self.records[i] for i in ids if i in self.records]

    def insights_citing(self, fact_ids: list[str], scope: Scope) -> list[MemoryRecord]:
        wanted = set(fact_ids)
        return [r for r in self.of(scope, "insight", valid_only=True) if wanted & set(r.source_ids)]

    def unreflected_facts(self, scope: Scope, limit: int) -> list[str]:
        return [r.id for r in self.of(scope, "fact", valid_only=True) if not r.consolidated][:limit]

    def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]:
        if self.fail_applies:
            self.fail_applies -= 1
            raise StoreError("test double: the store is down")
        self.applied.append(plan)
        now = datetime.now(UTC)
        created = []
        for new in plan.records:
            record = MemoryRecord(
                **new.model_dump(),
                created_at=now,
                updated_at=now,
                hash=normalise_text(new.text),
                **plan.scope.model_dump(),
            )
            self.records[record.id] = record
            self.history.append(HistoryEvent(record_id=record.id, event="add", at=now, new_text=record.text))
            created.append(record)
        for s in plan.supersessions:
            self._end(s.old_id, s.at, s.new_id)
        for i in plan.invalidations:
            self._end(i.old_id, i.at, None)
        if self.crash_before_marking:
            self.crash_before_marking -= 1
            raise StoreError("test double: crashed before marking the messages")
        for record_id in plan.consolidated_ids:  # messages extracted, or facts reflected
            self.records[record_id] = self.records[record_id].model_copy(update={"consolidated": True})
        return created

    def _end(self, record_id: str, at: datetime, by: str | None) -> None:
        old = self.records[record_id]
        self.records[record_id] = old.model_copy(update={"valid_to": at, "superseded_by": by})
        event = "supersede" if by else "delete"
        self.history.append(HistoryEvent(record_id=record_id, event=event, at=at, old_text=old.text, by=by))


class AsyncDictStore:
    """The async face of ``DictStore`` (same data)."""

    def __init__(self, store: DictStore) -> None:
        self.sync = store

    async def pending_messages(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        return self.sync.pending_messages(scope, limit)

    async def pending_scopes(self, limit: int) -> list[Scope]:
        return self.sync.pending_scopes(limit)

    async def similar_facts(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        return self.sync.similar_facts(text, scope, limit)

    async def pending_trajectories(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        return self.sync.pending_trajectories(scope, limit)

    async def similar_experiences(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        return self.sync.similar_experiences(text, scope, limit)

    async def pending_tool_calls(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        return self.sync.pending_tool_calls(scope, limit)

    async def tool_guide(self, scope: Scope, tool: str) -> MemoryRecord | None:
        return self.sync.tool_guide(scope, tool)

    async def facts_by_ids(self, ids: list[str]) -> list[MemoryRecord]:
        return self.sync.facts_by_ids(ids)

    async def insights_citing(self, fact_ids: list[str], scope: Scope) -> list[MemoryRecord]:
        return self.sync.insights_citing(fact_ids, scope)

    async def unreflected_facts(self, scope: Scope, limit: int) -> list[str]:
        return self.sync.unreflected_facts(scope, limit)

    async def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]:
        return self.sync.apply(plan)


def wait_until(condition: Callable[[], bool], within: float = 5.0) -> None:
    """Block until ``condition()`` holds, failing at the deadline (a condition, not a fixed sleep)."""
    deadline = time.monotonic() + within
    pause = threading.Event()
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {within}s")
        pause.wait(0.005)


# -- answers the scripted LLM gives -----------------------------------------------------------------------------
def extracted(*facts: tuple[str, list[int]] | dict[str, Any]) -> dict[str, Any]:
    """An extraction answer: ``("text", [sources])`` pairs or full fact dicts."""
    items = [f if isinstance(f, dict) else {"text": f[0], "sources": f[1]} for f in facts]
    return {"facts": items}


def decided(*decisions: tuple[int, str, int | None]) -> dict[str, Any]:
    """A reconciliation answer: ``(fact, action, target)`` triples."""
    return {"decisions": [{"fact": f, "action": a, "target": t} for f, a, t in decisions]}


# -- fixtures ---------------------------------------------------------------------------------------------------
@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    yield from serve_scripted_llm()


@pytest.fixture
async def llm(llm_server: ScriptedLLMServer) -> AsyncIterator[AsyncLLMClient]:
    client = AsyncLLMClient(llm_server.llm_settings(timeout=2.0, max_retries=2), backoff=0.0, parse_retries=1)
    yield client
    await client.close()


@pytest.fixture
def sync_llm(llm_server: ScriptedLLMServer) -> Iterator[LLMClient]:
    with LLMClient(llm_server.llm_settings(timeout=2.0, max_retries=2), backoff=0.0, parse_retries=1) as client:
        yield client


@pytest.fixture
def store() -> DictStore:
    return DictStore()


@pytest.fixture
def options() -> WorkerOptions:
    return WorkerOptions(reflect_every=0)


@pytest.fixture
async def worker(store: DictStore, llm: AsyncLLMClient, options: WorkerOptions) -> AsyncIterator[ConsolidationWorker]:
    worker = ConsolidationWorker(AsyncDictStore(store), llm, options=options)
    yield worker
    await worker.close(drain=False)


@pytest.fixture
def sync_worker(store: DictStore, sync_llm: LLMClient, options: WorkerOptions) -> Iterator[SyncConsolidationWorker]:
    worker = SyncConsolidationWorker(store, sync_llm, options=options)
    yield worker
    worker.close(drain=False)
