"""``AsyncMemory``: the engine, async, over ``MemoryBase``; its sync twin ``Memory`` is written by hand alike.

Blocking work never runs on the event loop: a server backend and big batches go to a thread; the embedded store's
sub-millisecond calls and one-query embeddings run inline, where a thread hop would cost more than them."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import AsyncGenerator, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, Self, TypeVar, Unpack, cast

from memadapt_core.api import composed
from memadapt_core.api.options import SearchOptions
from memadapt_core.models import HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from memadapt_core.profile import UserProfile
from memadapt_core.record_codec import payload_scope, utcnow
from memadapt_core.tool_stats import ToolGuide, ToolStats, tool_stats
from memadapt_core.validation import parse_limit, parse_record_ids, parse_scope, parse_writable_kind

from . import backend_steps, tiers, transactions
from .answering import AsyncAnswering
from .base import MemoryBase
from .llm_notice import warn_without_llm
from .planning import reads, updates, writes
from .tasks import recall, tool_memory
from .tasks import trajectories as trajectories_
from .transfer.twins import AsyncTransfers

if TYPE_CHECKING:
    from memadapt_core.api import AsyncMemoryAPI
    from memadapt_core.consolidation.worker import ConsolidationWorker

    from .sync_memory import Memory

__all__ = ["AsyncMemory"]

T = TypeVar("T")
_HEAVY = 64  # points in one write above which the embedded store is written from a thread


class AsyncMemory(AsyncAnswering, AsyncTransfers, MemoryBase):
    """Long-term memory for agents, async. ``AsyncMemory()`` opens the embedded store; see ``MemorySettings``."""

    _asynchronous = True
    _worker: ConsolidationWorker | None = None
    _llm: Any = None

    def as_async(self) -> AsyncMemory:
        """This engine itself: adapters call ``as_async()`` on whichever twin they were handed."""
        return self

    def as_sync(self) -> Memory:
        """A sync view of this same store (closing the view does not close the store)."""
        return cast("Memory", self._view(asynchronous=False))

    async def _run(self, fn: Callable[..., T], *args: Any, heavy: bool = False, **kwargs: Any) -> T:
        backend = self._live().backend
        if heavy or backend.blocking_io:
            return await asyncio.to_thread(fn, *args, **kwargs)
        return fn(*args, **kwargs)

    @classmethod
    async def open(cls, **options: Any) -> Self:
        """``AsyncMemory(**options)`` built in a thread: opening loads the embedder and the store (about half a
        second), which async code must not do on its event loop."""
        return await asyncio.to_thread(cls, **options)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _consolidator(self) -> ConsolidationWorker | None:
        """The background consolidation worker, when an LLM is configured (built on first use, in the loop)."""
        if not self._consolidates():
            return None
        if self._worker is None:
            from memadapt_core.consolidation.worker import ConsolidationWorker
            from memadapt_core.engine.consolidation_store import AsyncEngineStore

            r = self._resources
            self._llm = r.hooks.make_llm(r.settings.llm, asynchronous=True)
            self._worker = ConsolidationWorker(
                AsyncEngineStore(r, self._run), self._llm, options=self._worker_options(), instructions=r.instructions
            )
        return self._worker

    async def close(self) -> None:
        """Wait for tracked background writes, finish queued consolidation, then flush and close the store if this
        object opened it (not a view) and no other engine of this process shares it."""
        await self._resources.background.drain()
        worker, self._worker = self._worker, None
        if worker is not None:
            await worker.close(drain=True)
            await self._llm.close()
        if self._owner and not self._released and not self._resources.closed and len(self._resources.access):
            await asyncio.to_thread(tiers.write_visits, self._resources)
        if self._owner and not self._released and await asyncio.to_thread(self._give_back):
            await self._resources.embedder.aclose()

    async def add(
        self, messages: str | dict[str, Any] | Sequence[str | dict[str, Any]], *, user_id: str | None = None,
        agent_id: str | None = None, session_id: str | None = None, kind: Kind = "message",
        metadata: dict[str, Any] | None = None, observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Store messages (or facts, insights); returns one record per accepted input, already-stored duplicates
        included. Other kinds have their own writer (``parse_writable_kind`` names it)."""
        return await self._add(
            messages, user_id=user_id, agent_id=agent_id, session_id=session_id, kind=parse_writable_kind(kind),
            metadata=metadata, observed_at=observed_at, on_conflict=on_conflict,
        )  # fmt: skip

    async def _add(
        self, messages: object, *, user_id: str | None, agent_id: str | None, session_id: str | None, kind: Kind,
        metadata: dict[str, Any] | None, observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        r = self._live()
        plan = writes.plan_add(
            r, messages, user_id=user_id, agent_id=agent_id, session_id=session_id, kind=kind,
            metadata=metadata, observed_at=observed_at, on_conflict=on_conflict,
        )  # fmt: skip
        if not plan.drafts:
            return []
        await self._run(backend_steps.prepare_add, r, plan)
        if plan.to_store:
            dense = await r.aembed_documents(plan.dense_texts, await r.aweights(plan.scope, plan.dense_texts))
            await self._run(backend_steps.write_add, r, plan, dense, heavy=len(plan.to_store) > _HEAVY)
            r.hooks.on_added(plan.new_records())
            if plan.kind in ("message", "trajectory", "tool_call") and (worker := self._consolidator()) is not None:
                await worker.submit(plan.scope)  # the raw messages are stored: consolidation may take its time
        return plan.result()

    async def add_trajectories(
        self, trajectories: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None,
        task: str | None = None, user_id: str | None = None, session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Store scored trajectories ({messages, score}) raw, now; the consolidation worker draws experiences
        from them in the background into the agent's scope (docs/task-memory.md). One record per trajectory."""
        items = trajectories_.trajectory_inputs(trajectories, agent_id=agent_id, task=task)
        warn_without_llm(self.settings, "add_trajectories")
        return await self._add(
            items, user_id=user_id, agent_id=agent_id, session_id=session_id, kind="trajectory", metadata=metadata
        )

    async def experiences(
        self, task: str, *, agent_id: str | None, limit: int = 3, threshold: float | None = None
    ) -> builtins.list[SearchHit]:
        """The agent's experiences for ``task``, ranked by task similarity, strength of evidence and recency."""
        pool = recall.recall_pool(parse_limit(limit, self.settings.max_limit), self.settings.max_limit)
        plan = reads.plan_search(
            self._live(), task, user_id=None, agent_id=recall.agent_scope_id(agent_id), session_id=None,
            limit=pool, kinds=["experience"], threshold=threshold, time_range=None, now=None, filters=None,
            include_superseded=False, as_of=None,
        )  # fmt: skip
        hits = await self._search(reads.agent_owned(plan))
        return recall.rank_experiences(hits, self.settings.task_memory, utcnow(), limit)

    async def experience_guidance(self, task: str, *, agent_id: str | None, limit: int = 3) -> str:
        """The top experiences for ``task`` as a delimited block for a system prompt ("" when there are none)."""
        warn_without_llm(self.settings, "experience_guidance")
        return self.format_experience(await self.experiences(task, agent_id=agent_id, limit=limit))

    async def record_tool_calls(
        self, calls: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None, user_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Record tool calls ({name, arguments, result, success, duration, tokens}; ReMe's names too) cheaply: no
        LLM, one embedding each. Every ``tool_guide_every`` new calls of a tool, the worker rewrites its guide."""
        items = tool_memory.tool_call_inputs(calls)
        agent = recall.agent_scope_id(agent_id)
        return await self._add(
            items, user_id=user_id, agent_id=agent, session_id=session_id, kind="tool_call", metadata=None
        )

    async def tool_stats(self, tool_name: str, *, agent_id: str | None) -> ToolStats:
        """Success rate, latency percentiles and tokens of the agent's latest calls of ``tool_name``."""
        window = self.settings.task_memory.tool_stats_window
        agent_id = recall.agent_scope_id(agent_id)
        calls = [
            r async for r in self.iter_records(agent_id=agent_id, kinds=["tool_call"], filters={"tool": tool_name})
        ]
        return tool_stats(tool_name, calls[-window:])

    async def tool_guide(self, tool_name: str, *, agent_id: str | None) -> ToolGuide:
        """The agent's usage guide of ``tool_name``: its statistics and the LLM-written guidelines (None so far)."""
        stats = await self.tool_stats(tool_name, agent_id=agent_id)
        guides = await self.list(agent_id=agent_id, kinds=["tool_guide"], filters={"tool": tool_name}, limit=100)
        return tool_memory.guide_of(tool_name, stats, reads.agent_owned_records(guides.records))

    async def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord:  # fmt: skip
        """Change a record's text (re-embedded) or its metadata, kept in ``history``; scoped if a scope is given."""
        r = self._live()
        plan = updates.plan_update(r, id, text, metadata, parse_scope(user_id, agent_id, session_id, required=False))
        dense = None
        if plan.text is not None:
            before = updates.existing(plan, await self._run(r.backend.retrieve, [plan.id]))
            weights = await r.aweights(payload_scope(before.payload))
            dense = (await r.aembed_documents([updates.embedded_text(plan, before)], weights))[0]
        return await self._run(transactions.commit_update, r, plan, dense)

    async def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool:
        """Delete one record (and its history). False when no such record exists (in the scope, if given)."""
        return await self.delete_many([id], user_id=user_id, agent_id=agent_id, session_id=session_id) == 1

    async def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int:  # fmt: skip
        """Delete these records (those outside the scope, if given, are left alone); returns how many went."""
        r = self._live()
        wanted = parse_record_ids(ids)
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        found, derived = await self._run(transactions.delete_present, r, wanted, scope)
        if found:
            r.hooks.on_deleted([*found, *derived])
        return len(found)

    async def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        """Delete everything in exactly this scope, in one filtered operation; returns how many records went."""
        r = self._live()
        flt = reads.scope_filter(parse_scope(user_id, agent_id, session_id))
        return await self._run(backend_steps.count_and_delete, r, flt, heavy=True)

    async def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        **options: Unpack[SearchOptions],
    ) -> builtins.list[SearchHit]:  # fmt: skip
        """Hybrid, time-aware search in one scope. ``threshold=None`` applies the relevance floor; ``0.0`` none."""
        r = self._live()
        plan = reads.plan_search(r, query, user_id=user_id, agent_id=agent_id, session_id=session_id, **options)
        return await self._search(plan)

    async def _search(self, plan: reads.SearchPlan) -> builtins.list[SearchHit]:
        r = self._live()
        qvec = await r.embedder.aembed_query(plan.query, await r.aweights(plan.flt))
        hits = await self._run(backend_steps.search, r, plan, qvec)
        return tiers.noted(r, r.hooks.rerank(plan.query, hits)) if hits else []

    async def search_many(
        self, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> builtins.list[SearchHit]:  # fmt: skip
        """Several queries in one scope, merged: each record once, in query order then rank (blanks skipped)."""
        scope: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        searches = [self.search(q, **scope, limit=limit, **options) for q in composed.usable_queries(queries)]
        per_query = await asyncio.gather(*searches)
        return composed.merge_hits(per_query)

    async def get(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> MemoryRecord | None:
        """A record by id; with a scope, only if it belongs to that scope."""
        found = await self.get_many([id], user_id=user_id, agent_id=agent_id, session_id=session_id)
        return found[0] if found else None

    async def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Records by id, in the order asked (each once); with a scope, only those inside it."""
        wanted = parse_record_ids(ids)
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        return await self._run(backend_steps.records, self._live(), wanted, scope)

    async def vectors(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, builtins.list[float]]:  # fmt: skip
        """Stored dense vectors by id, in the order asked, only inside the scope if given (for MMR re-ranking)."""
        wanted = parse_record_ids(ids)
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        return await self._run(backend_steps.vectors, self._live(), wanted, scope)

    async def query_vector(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[float]:
        """The query's dense vector as ``search`` makes it in that scope (pooled by the scope's token weights when
        the store pools so): what MMR re-ranking compares with ``vectors``."""
        r = self._live()
        text, scope = reads.plan_query_vector(r, query, user_id, agent_id, session_id)
        return [float(x) for x in await r.embedder.aembed_query(text, await r.aweights(scope))]

    async def list(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, limit: int = 50, cursor: str | None = None,
        filters: dict[str, Any] | None = None, include_archived: bool = False,
    ) -> Page:  # fmt: skip
        """Records of a scope, oldest first (``observed_at``), a page at a time (archived ones on request)."""
        r = self._live()
        plan = reads.plan_list(
            r, user_id=user_id, agent_id=agent_id, session_id=session_id, kinds=kinds, limit=limit,
            cursor=cursor, filters=filters, include_archived=include_archived,
        )  # fmt: skip
        return await self._run(backend_steps.list_page, r, plan)

    async def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> AsyncGenerator[MemoryRecord, None]:  # fmt: skip
        """Every record of a scope, oldest first, a page (at most ``max_limit``) at a time."""
        size = min(page_size, self._resources.settings.max_limit)
        where: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id, "kinds": kinds}
        pages = composed.arecords(lambda cursor: self.list(**where, filters=filters, limit=size, cursor=cursor))
        async for record in pages:
            yield record

    async def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int:  # fmt: skip
        """How many records of a scope (of these kinds, matching these filters) are stored."""
        r = self._live()
        plan = reads.plan_list(
            r, user_id=user_id, agent_id=agent_id, session_id=session_id, kinds=kinds, limit=1,
            cursor=None, filters=filters, include_archived=True,
        )  # fmt: skip
        return await self._run(r.backend.count, plan.flt)

    async def recent(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        limit: int | None = None, kinds: Sequence[Kind] | None = ("message",),
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Working memory: the latest ``limit`` (``tiers.working_memory``) messages of a scope, oldest first
        (other ``kinds`` if given; None: every personal kind)."""
        flt, n = tiers.plan_recent(
            self._live(), user_id=user_id, agent_id=agent_id, session_id=session_id, limit=limit, kinds=kinds
        )
        return await self._run(tiers.recent_records, self._live(), flt, n)

    async def profile(
        self, *, user_id: str | None = None, agent_id: str | None = None, as_of: datetime | str | None = None
    ) -> UserProfile:
        """The user's profile (or, with only ``agent_id``, the agent's), as it stands now or stood at ``as_of``."""
        plan = tiers.plan_profile(user_id=user_id, agent_id=agent_id, as_of=as_of)
        return await self._run(plan.finish, self._live())

    async def history(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[HistoryEvent]:
        """The changes to a record and to the facts it superseded or was superseded by, oldest first (empty when
        no such record exists, in the scope if given); ``history_limit`` and ``history_max_chars`` cap them."""
        walk = updates.HistoryWalk(id, parse_scope(user_id, agent_id, session_id, required=False))
        return await self._run(backend_steps.history, self._live(), walk)

    async def flush(self) -> None:
        """Wait for tracked background writes and background consolidation (resuming what was left pending) and
        make every write durable."""
        r = self._live()
        await r.background.drain()
        if (worker := self._consolidator()) is not None:
            await worker.start()
            await worker.flush()
        await self._run(tiers.write_visits, r, heavy=True)
        await self._run(r.save_counts, heavy=True)
        await self._run(r.backend.flush, heavy=True)

    async def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        """Consolidate pending messages now, in this task (all, or those inside the scope given); returns how
        many messages were consolidated. Without an LLM configured there is nothing to do: 0. Raises
        ``LLMError`` when the LLM cannot be reached (the messages stay pending)."""
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        if (worker := self._consolidator()) is None:
            warn_without_llm(self.settings, "consolidate()")
            return 0
        from .consolidation_store import AsyncEngineStore

        pending = await AsyncEngineStore(self._resources, self._run).pending_scopes(worker.options.resume_limit)
        return sum([(await worker.consolidate(each)).inputs for each in self._pending_within(pending, scope)])

    async def optimize(self) -> None:
        """Maintenance, now: the embedded store rewrites its live points into one tenant-ordered segment (filtered
        search about twice as fast) and drops deleted points; writes and other threads wait meanwhile (3-4.5 s at
        100k memories). Worth it after a bulk import; see docs/storage.md. A Qdrant server needs nothing."""
        await self._run(self._live().backend.optimize, heavy=True)

    async def stats(self) -> dict[str, Any]:
        """Counts and sizes from the backend, the embedder, and the consolidation worker's totals."""
        r = self._live()
        return self._with_engine_stats(
            await self._run(r.backend.stats), None if self._worker is None else self._worker.stats
        )


if TYPE_CHECKING:  # mypy holds the engine to the API it implements
    _door: type[AsyncMemoryAPI] = AsyncMemory
