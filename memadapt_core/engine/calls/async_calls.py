"""``AsyncMemoryCalls``: the engine's public calls, each a plan (no I/O) and the store and embedder steps it takes.

Written once, as async code; ``sync_calls`` is generated from it by ``scripts/unasync.py`` (a test fails on drift),
so a new call is written here and nowhere else in the engine. What truly differs between the twins (running a
step in a thread or inline, the consolidation worker, the views, closing) is ``AsyncMemory`` / ``Memory``
(``async_memory`` / ``sync_memory``), over this; ``search_many`` and ``iter_records`` are every door's
(``api.composed``).
"""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar, Unpack

from memadapt_core.api.options import SearchOptions
from memadapt_core.engine import backend_steps, tiers, transactions
from memadapt_core.engine.base import MemoryBase
from memadapt_core.engine.llm_notice import warn_without_llm
from memadapt_core.engine.planning import reads, updates, writes
from memadapt_core.engine.tasks import recall, tool_memory
from memadapt_core.engine.tasks import trajectories as trajectories_
from memadapt_core.models import HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from memadapt_core.profile import UserProfile
from memadapt_core.record_codec import payload_scope, utcnow
from memadapt_core.tool_stats import ToolGuide, ToolStats, tool_stats
from memadapt_core.validation import parse_limit, parse_record_ids, parse_scope, parse_writable_kind

if TYPE_CHECKING:
    from memadapt_core.consolidation.worker import ConsolidationWorker

__all__ = ["AsyncMemoryCalls"]

T = TypeVar("T")
_HEAVY = 64  # points in one write above which the embedded store is written from a thread


class AsyncMemoryCalls(MemoryBase):
    """The engine's calls over the three primitives each door defines: ``_run`` (a store step, in a thread or
    inline), ``_consolidator`` (the background worker, if an LLM is configured) and ``iter_records``."""

    _worker: ConsolidationWorker | None = None

    async def _run(self, fn: Callable[..., T], *args: Any, heavy: bool = False, **kwargs: Any) -> T:
        raise NotImplementedError  # pragma: no cover - each door runs its steps

    def _consolidator(self) -> ConsolidationWorker | None:
        raise NotImplementedError  # pragma: no cover - each door builds its worker

    def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> AsyncIterator[MemoryRecord]:  # fmt: skip
        raise NotImplementedError  # pragma: no cover - each door pages in its own way

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
