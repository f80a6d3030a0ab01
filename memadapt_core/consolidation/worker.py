"""The background consolidation worker of ``AsyncMemory``: one asyncio task and a bounded queue of scopes.

``submit(scope)`` queues a scope (coalesced; waits while the queue is full: backpressure); the task takes
the scope's pending messages in batches, extracts and reconciles facts, applies each batch's plan in one store
call that marks the messages last, and reflects every N facts. An LLM that cannot be reached leaves the
messages pending: they are tried again after ``retry_delay``, at the next ``flush()`` or ``consolidate()``, or
at the next start. Answers that never fit the schema skip their batch (logged). ``SyncConsolidationWorker`` is the
thread-based twin.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TypeVar

from memadapt_core.consolidation.experience_plan import (
    build_experience_reconciliation,
    experience_scope,
    plan_experiences,
)
from memadapt_core.consolidation.experiences import (
    Judgement,
    build_experience_extraction,
    build_experience_validation,
)
from memadapt_core.consolidation.llm_base import AnswerParser
from memadapt_core.consolidation.llm_client import AsyncLLMClient
from memadapt_core.consolidation.parsing import MalformedAnswerError
from memadapt_core.consolidation.plan import ConsolidationPlan
from memadapt_core.consolidation.profiling import assemble_profile_update
from memadapt_core.consolidation.reconciliation import build_reconciliation, plan_facts, skip_plan
from memadapt_core.consolidation.reflection import (
    Reflection,
    assemble_reflection,
    cited_ids,
    taken,
    worth_reflecting,
)
from memadapt_core.consolidation.report import ConsolidationReport
from memadapt_core.consolidation.store import ConsolidationStore
from memadapt_core.consolidation.tool_guides import build_tool_guide, pending_by_tool, plan_tool_guide
from memadapt_core.consolidation.worker_base import InstructionsHook, WorkerBase, WorkerOptions
from memadapt_core.models import MemoryRecord, Scope
from memadapt_core.tool_stats import tool_stats

__all__ = ["ConsolidationWorker"]

log = logging.getLogger("memadapt.consolidation")

T = TypeVar("T")


class ConsolidationWorker(WorkerBase):
    """Consolidates messages in the background; see the module docstring. Use it inside one running loop."""

    def __init__(
        self,
        store: ConsolidationStore,
        llm: AsyncLLMClient,
        *,
        options: WorkerOptions | None = None,
        instructions: InstructionsHook | None = None,
    ) -> None:
        super().__init__(llm, options, instructions)
        self._store = store
        self._llm = llm
        self._queue: asyncio.Queue[Scope] | None = None
        self._queued: set[Scope] = set()
        self._locks: dict[Scope, asyncio.Lock] = {}
        self._task: asyncio.Task[None] | None = None
        self._current: Scope | None = None  # the scope the task is working on
        self._resumed = asyncio.Event()  # set once the scopes pending at start have been tried
        self._backlog: list[Scope] = []  # those not tried yet

    # -- lifecycle ------------------------------------------------------------------------------------------
    async def start(self) -> None:
        """Start the task; it first tries every scope with pending messages (resume after a restart or a crash)."""
        self._check_open()
        if self._task is not None:
            return
        self._queue = asyncio.Queue(self.options.queue_size)
        self._resumed = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(self._run(), name="memadapt-consolidation")

    async def submit(self, scope: Scope) -> None:
        """Queue ``scope`` (starts the worker if needed; waits while the queue is full)."""
        self._check_open()
        if self._task is None:
            await self.start()
        await self._enqueue(scope)

    async def flush(self) -> None:
        """Return when everything queued so far has been tried (scopes that failed: once more)."""
        if self._task is None or self._closed:
            return
        self._requeue_failures()
        await self._idle()

    async def consolidate(self, scope: Scope | None = None) -> ConsolidationReport:
        """Consolidate ``scope`` (None: every scope with pending messages) now, in the caller's task.

        Raises ``LLMError`` when the LLM cannot be reached (the messages stay pending), and ``StoreError``.
        """
        self._check_open()
        scopes = [scope] if scope is not None else await self._store.pending_scopes(self.options.resume_limit)
        report = ConsolidationReport()
        for each in scopes:
            async with self._lock(each):
                report += await self._drain(each)
            self._succeeded(each)
        return report

    async def close(self, *, drain: bool = True) -> list[Scope]:
        """Stop, after finishing the queue when ``drain``; a store write under way always completes.

        Returns the scopes left with pending messages (queued, or failed): they resume at the next start.
        """
        if self._closed:
            return []
        self._closed = True
        if self._task is None:
            return []
        if drain:
            await self._idle()
        current = self._current
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        interrupted = [] if current is None else [current]
        return list(dict.fromkeys([*interrupted, *self._backlog, *self._queued, *self.failures]))

    # -- the task -------------------------------------------------------------------------------------------
    async def _run(self) -> None:
        assert self._queue is not None
        await self._resume()
        while True:
            try:
                scope = await asyncio.wait_for(self._queue.get(), self.options.retry_delay if self.failures else None)
            except TimeoutError:
                self._requeue_failures()
                continue
            self._queued.discard(scope)
            try:
                await self._work(scope)
            finally:
                self._queue.task_done()

    async def _resume(self) -> None:
        """Try every scope left with pending messages (by a crash, an outage, a close without draining)."""
        try:
            scopes = await self._store.pending_scopes(self.options.resume_limit)
        except Exception as exc:  # the worker outlives any failure; later submits still work
            log.warning("consolidation could not list the scopes left pending: %s", exc)
            scopes = []
        self._backlog = scopes
        while self._backlog:
            await self._work(self._backlog[0])
            self._backlog.pop(0)
        self._resumed.set()

    async def _work(self, scope: Scope) -> None:
        self._current = scope
        try:
            async with self._lock(scope):
                await self._drain(scope)
        except Exception as exc:  # the worker outlives any failure: the messages stay pending
            self._failed(scope, exc)
        else:
            self._succeeded(scope)
        finally:
            self._current = None

    async def _drain(self, scope: Scope) -> ConsolidationReport:
        report = ConsolidationReport()
        done: set[str] = set()
        while messages := await self._store.pending_messages(scope, self.options.batch_size):
            if self.options.heat_threshold is not None and self._cold(scope, await self._store.heat(messages)):
                report += ConsolidationReport(cold=1)
                break
            self._check_budget(scope)
            self._first_time(done, messages, "messages")
            report += await self._batch(scope, messages)
            if self.options.reflect_every and self._tracker.needs_seed(scope):
                self._tracker.seed(scope, await self._store.unreflected_facts(scope, self.options.reflect_max_facts))
            if self._tracker.due(scope, self.options.reflect_every):
                report += await self._reflect(scope)
        for owner in self._take_profile_due(scope):
            report += await self._profile(owner)
        report += await self._experiences(scope)
        return report + await self._tool_guides(scope)

    async def _experiences(self, scope: Scope) -> ConsolidationReport:
        """Experiences from the scope's pending trajectories (they only exist where an agent is named)."""
        report = ConsolidationReport()
        done: set[str] = set()
        while trajectories := await self._store.pending_trajectories(scope, self.options.trajectory_batch):
            self._check_budget(scope)
            self._first_time(done, trajectories, "trajectories")
            home = experience_scope(scope)
            if home == scope:  # its lock is held already
                report += await self._experience_batch(scope, trajectories)
                continue
            async with self._lock(home):  # one reconciliation at a time per agent (consolidate() may run too)
                report += await self._experience_batch(scope, trajectories)
        return report

    async def _tool_guides(self, scope: Scope) -> ConsolidationReport:
        """Rewrite the guide of each tool of the agent with ``tool_guide_every`` new calls."""
        report = ConsolidationReport()
        if scope.agent_id is None or self.options.tool_guide_every <= 0:
            return report
        home = experience_scope(scope)
        calls = await self._store.pending_tool_calls(home, self.options.tool_guide_calls)
        for tool, found in pending_by_tool(calls, self.options.tool_guide_every).items():
            current = await self._store.tool_guide(home, tool)
            stats = tool_stats(tool, found).model_dump(mode="json")
            call = build_tool_guide(tool, found, current, stats)
            self._check_budget(home)
            try:
                guidelines = await self._ask("tool_guide", call.messages, call.parse)
            except MalformedAnswerError as exc:
                log.warning("skipping a guide of tool %s: the LLM's answers never fit: %s", tool, exc)
                await self._apply(skip_plan(home, found))
                continue
            plan = plan_tool_guide(home, tool, found, current, guidelines, stats)
            await self._apply(plan)
            report += self._count(ConsolidationReport(tool_guides=1))
        return report

    async def _experience_batch(self, scope: Scope, trajectories: list[MemoryRecord]) -> ConsolidationReport:
        home, skipped = experience_scope(scope), False
        extraction = build_experience_extraction(trajectories)
        try:
            found = await self._ask("extract_experience", extraction.messages, extraction.parse)
            judgements: list[Judgement] = []
            if found:
                validation = build_experience_validation(trajectories, found)
                judgements = await self._ask("validate_experience", validation.messages, validation.parse)
            valid = [e for e, j in zip(found, judgements, strict=True) if j.valid]
            limit = self.options.candidates
            neighbours = [await self._store.similar_experiences(e.when_to_use, home, limit) for e in valid]
            reconciliation = build_experience_reconciliation(valid, neighbours)
            if reconciliation.messages is None:
                decisions = reconciliation.without_llm()
            else:
                decisions = await self._ask("reconcile_experience", reconciliation.messages, reconciliation.parse)
            plan = plan_experiences(home, trajectories, found, judgements, decisions)
        except MalformedAnswerError as exc:
            log.warning(
                "skipping %d trajectories of %s: the LLM's answers never fit: %s", len(trajectories), scope, exc
            )
            plan, skipped = skip_plan(home, trajectories), True
        await self._apply(plan)
        return self._count(ConsolidationReport.of_experiences(plan, skipped=skipped))

    async def _batch(self, scope: Scope, messages: list[MemoryRecord]) -> ConsolidationReport:
        extraction = self._extraction(scope, messages)
        dropped, skipped = 0, False
        try:
            result = await self._ask("extract", extraction.messages, extraction.parse)
            dropped = result.dropped
            limit = self.options.candidates
            plans = []
            for owner, facts in self._owners(scope, result.facts):  # the agent's share first: ``scope``'s marks
                neighbours = [await self._store.similar_facts(fact.text, owner, limit) for fact in facts]
                reconciliation = build_reconciliation(facts, neighbours, [m.id for m in messages])
                if reconciliation.messages is None:
                    decisions = reconciliation.without_llm()
                else:
                    decisions = await self._ask("reconcile", reconciliation.messages, reconciliation.parse)
                plans.append(plan_facts(owner, messages if owner == scope else [], facts, decisions))
        except MalformedAnswerError as exc:
            log.warning("skipping %d messages of %s: the LLM's answers never fit: %s", len(messages), scope, exc)
            plans, skipped = [skip_plan(scope, messages)], True
        report = ConsolidationReport()
        for plan in plans:  # the messages are marked by the last: a crash before replays the batch (same ids)
            await self._apply(plan)
            last = plan is plans[-1]
            report += self._batch_done(plan, dropped=dropped if last else 0, skipped=skipped and last)
        return report

    async def _reflect(self, scope: Scope) -> ConsolidationReport:
        new_ids, ended_ids = self._tracker.take(scope)
        try:
            reflection = await self._gather(scope, new_ids, ended_ids)
            if reflection is None:
                return ConsolidationReport()
            plan = await self._ask("reflect", reflection.messages, reflection.parse)
        except MalformedAnswerError as exc:
            log.warning("skipping a reflection of %s: the LLM's answers never fit: %s", scope, exc)
            await self._apply(taken(scope, new_ids))  # not offered again, as when the answers fit
            return self._count(ConsolidationReport(skipped_reflections=1))
        except BaseException:
            self._tracker.give_back(scope, new_ids, ended_ids)
            raise
        await self._apply(taken(scope, new_ids, plan))  # the facts are marked last: a crash before offers them again
        self._knowledge_changed(plan)
        return self._count(ConsolidationReport.of(plan, reflection=True))

    async def _profile(self, owner: Scope) -> ConsolidationReport:
        """Rewrite ``owner``'s profile from its knowledge (one LLM call); on failure it stays due."""
        try:
            statements = await self._store.profile_statements(owner)
            update = assemble_profile_update(
                owner,
                recent=await self._store.recent_knowledge(owner, self.options.profile_max_facts),
                statements=statements,
                cited=await self._store.facts_by_ids(cited_ids(statements)),
                max_knowledge=self.options.profile_max_facts,
            )
            if update.messages is None:
                plan = update.without_llm()
            else:
                try:
                    plan = await self._ask("profile", update.messages, update.parse)
                except MalformedAnswerError as exc:
                    log.warning("skipping a profile update of %s: the LLM's answers never fit: %s", owner, exc)
                    plan = update.without_llm()
            await self._apply(plan)
        except BaseException:
            self._profile_failed(owner)
            raise
        return self._count(ConsolidationReport.of(plan, reflection=True))

    async def _gather(self, scope: Scope, new_ids: list[str], ended_ids: list[str]) -> Reflection | None:
        insights = await self._store.insights_citing([*new_ids, *ended_ids], scope)
        if not worth_reflecting(new_ids, ended_ids, insights, self.options.reflect_every):
            self._tracker.give_back(scope, new_ids, [])
            return None
        cited = await self._store.facts_by_ids(cited_ids(insights))
        successors = await self._store.facts_by_ids([f.superseded_by for f in cited if f.superseded_by])
        fresh = await self._store.facts_by_ids(new_ids)
        related: list[MemoryRecord] = []
        for fact in fresh[: self.options.reflect_probes]:
            related += await self._store.similar_facts(fact.text, scope, self.options.candidates)
        return assemble_reflection(
            scope,
            fresh=fresh,
            related=related,
            cited=cited,
            successors=successors,
            insights=insights,
            max_facts=self.options.reflect_max_facts,
        )

    async def _ask(self, operation: str, messages: list[dict[str, str]], parse: AnswerParser[T]) -> T:
        """Every LLM call of the worker: each counts against ``llm_calls_per_hour``."""
        self._spend()
        return await self._llm.complete_json(operation, messages, parse)

    async def _apply(self, plan: ConsolidationPlan) -> None:
        write = asyncio.ensure_future(self._store.apply(plan))
        try:
            await asyncio.shield(write)
        except asyncio.CancelledError:
            await write  # a write once started is finished: half a plan would be worse than a late close
            raise

    # -- helpers --------------------------------------------------------------------------------------------
    def _queued_count(self) -> int:
        return self._queue.qsize() if self._queue is not None else 0

    async def _enqueue(self, scope: Scope) -> None:
        assert self._queue is not None
        if scope not in self._queued:
            self._queued.add(scope)
            await self._queue.put(scope)

    def _requeue_failures(self) -> None:
        assert self._queue is not None
        for scope in self.failures:
            if scope not in self._queued and not self._queue.full():
                self._queued.add(scope)
                self._queue.put_nowait(scope)

    async def _idle(self) -> None:
        assert self._queue is not None
        assert self._task is not None
        joined = asyncio.ensure_future(self._settled())
        try:
            await asyncio.wait({joined, self._task}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            joined.cancel()
        if self._task.done() and not self._task.cancelled():
            msg = "the consolidation worker stopped unexpectedly"
            raise RuntimeError(msg) from self._task.exception()

    async def _settled(self) -> None:
        assert self._queue is not None
        await self._resumed.wait()
        await self._queue.join()

    def _lock(self, scope: Scope) -> asyncio.Lock:
        return self._locks.setdefault(scope, asyncio.Lock())
