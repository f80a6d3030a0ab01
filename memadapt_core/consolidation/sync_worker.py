"""The thread-based twin of ``ConsolidationWorker`` for the sync ``Memory`` (no event loop anywhere).

One daemon thread takes scopes from a bounded ``queue.Queue`` and runs the same steps with the sync LLM client
and a ``SyncConsolidationStore``. ``close(drain=False)`` stops at the next step boundary: an LLM call under
way finishes (or times out), its answer is not applied, and a store write under way completes.

Why this module passes 400 lines: it mirrors ``worker.py`` step for step, without ``await``. The cure is not to split
the copy but to stop writing it: generating it from the async worker (httpcore's unasync), planned in issue 36.
"""

from __future__ import annotations

import logging
import queue
import threading
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
from memadapt_core.consolidation.llm_client import LLMClient
from memadapt_core.consolidation.parsing import MalformedAnswerError
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
from memadapt_core.consolidation.store import SyncConsolidationStore
from memadapt_core.consolidation.tool_guides import build_tool_guide, pending_by_tool, plan_tool_guide
from memadapt_core.consolidation.worker_base import InstructionsHook, WorkerBase, WorkerOptions
from memadapt_core.models import MemoryRecord, Scope
from memadapt_core.tool_stats import tool_stats

__all__ = ["SyncConsolidationWorker"]

log = logging.getLogger("memadapt.consolidation")

T = TypeVar("T")

_LIVENESS_CHECK_S = 0.5  # how often a waiting flush() checks that the thread is alive


class _Stopped(Exception):
    """close(drain=False) was called: leave the rest pending."""


class SyncConsolidationWorker(WorkerBase):
    """Consolidates messages in a background thread; same behaviour as ``ConsolidationWorker``."""

    def __init__(
        self,
        store: SyncConsolidationStore,
        llm: LLMClient,
        *,
        options: WorkerOptions | None = None,
        instructions: InstructionsHook | None = None,
    ) -> None:
        super().__init__(llm, options, instructions)
        self._store = store
        self._llm = llm
        self._queue: queue.Queue[Scope | None] = queue.Queue(self.options.queue_size)
        self._queued: set[Scope] = set()
        self._locks: dict[Scope, threading.Lock] = {}
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._resumed = threading.Event()  # set once the scopes pending at start have been tried
        self._starting = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the thread; it first tries every scope with pending messages (resume after a restart or a crash)."""
        self._check_open()
        with self._starting:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name="memadapt-consolidation", daemon=True)
            self._thread.start()

    def submit(self, scope: Scope) -> None:
        """Queue ``scope`` (starts the worker if needed; blocks while the queue is full)."""
        self._check_open()
        if self._thread is None:
            self.start()
        self._enqueue(scope)

    def flush(self) -> None:
        """Return when everything queued so far has been tried (scopes that failed: once more)."""
        if self._thread is None or self._closed:
            return
        self._requeue_failures()
        self._idle()

    def consolidate(self, scope: Scope | None = None) -> ConsolidationReport:
        """Consolidate ``scope`` (None: every scope with pending messages) now, in the caller's thread.

        Raises ``LLMError`` when the LLM cannot be reached (the messages stay pending), and ``StoreError``.
        """
        self._check_open()
        scopes = [scope] if scope is not None else self._store.pending_scopes(self.options.resume_limit)
        report = ConsolidationReport()
        for each in scopes:
            with self._lock(each):
                report += self._drain(each)
            self._succeeded(each)
        return report

    def close(self, *, drain: bool = True) -> list[Scope]:
        """Stop, after finishing the queue when ``drain``; a store write under way always completes.

        Returns the scopes left with pending messages (queued, or failed): they resume at the next start.
        """
        if self._closed:
            return []
        if not drain:
            self._stopping.set()  # before ``closing`` turns true: whoever sees that sees this
        self._closed = True
        if self._thread is None:
            return []
        if drain:
            self._idle()
        self._queue.put(None)
        self._thread.join()
        with self._state:
            return list(dict.fromkeys([*self._queued, *self._failures]))

    # -- the thread -----------------------------------------------------------------------------------------
    def _run(self) -> None:
        self._resume()
        while True:
            try:
                scope = self._queue.get(timeout=self.options.retry_delay if self.failures else None)
            except queue.Empty:
                self._requeue_failures()
                continue
            try:
                if scope is None:
                    return
                if self._stopping.is_set():
                    continue  # handed back: stays in _queued, its messages stay pending
                with self._state:
                    self._queued.discard(scope)
                self._work(scope)
            finally:
                self._queue.task_done()

    def _resume(self) -> None:
        """Try every scope left with pending messages (by a crash, an outage, a close without draining)."""
        try:
            scopes = self._store.pending_scopes(self.options.resume_limit)
        except Exception as exc:  # the worker outlives any failure; later submits still work
            log.warning("consolidation could not list the scopes left pending: %s", exc)
            scopes = []
        for scope in scopes:
            if self._stopping.is_set():
                with self._state:
                    self._queued.add(scope)  # handed back by close(drain=False)
            else:
                self._work(scope)
        self._resumed.set()

    def _work(self, scope: Scope) -> None:
        try:
            with self._lock(scope):
                self._drain(scope)
        except _Stopped:
            with self._state:
                self._queued.add(scope)
        except Exception as exc:  # the worker outlives any failure: the messages stay pending
            self._failed(scope, exc)
        else:
            self._succeeded(scope)

    def _drain(self, scope: Scope) -> ConsolidationReport:
        report = ConsolidationReport()
        done: set[str] = set()
        while messages := self._store.pending_messages(scope, self.options.batch_size):
            if self.options.heat_threshold is not None and self._cold(scope, self._store.heat(messages)):
                report += ConsolidationReport(cold=1)
                break
            self._check_budget(scope)
            self._first_time(done, messages, "messages")
            report += self._batch(scope, messages)
            if self.options.reflect_every and self._tracker.needs_seed(scope):
                self._tracker.seed(scope, self._store.unreflected_facts(scope, self.options.reflect_max_facts))
            if self._tracker.due(scope, self.options.reflect_every):
                report += self._reflect(scope)
        for owner in self._take_profile_due(scope):
            report += self._profile(owner)
        report += self._experiences(scope)
        return report + self._tool_guides(scope)

    def _experiences(self, scope: Scope) -> ConsolidationReport:
        """Experiences from the scope's pending trajectories (they only exist where an agent is named)."""
        report = ConsolidationReport()
        done: set[str] = set()
        while trajectories := self._store.pending_trajectories(scope, self.options.trajectory_batch):
            self._check_budget(scope)
            self._first_time(done, trajectories, "trajectories")
            home = experience_scope(scope)
            if home == scope:  # its lock is held already
                report += self._experience_batch(scope, trajectories)
                continue
            with self._lock(home):  # one reconciliation at a time per agent (consolidate() may run too)
                report += self._experience_batch(scope, trajectories)
        return report

    def _tool_guides(self, scope: Scope) -> ConsolidationReport:
        """Rewrite the guide of each tool of the agent with ``tool_guide_every`` new calls."""
        report = ConsolidationReport()
        if scope.agent_id is None or self.options.tool_guide_every <= 0:
            return report
        home = experience_scope(scope)
        calls = self._store.pending_tool_calls(home, self.options.tool_guide_calls)
        for tool, found in pending_by_tool(calls, self.options.tool_guide_every).items():
            current = self._store.tool_guide(home, tool)
            stats = tool_stats(tool, found).model_dump(mode="json")
            call = build_tool_guide(tool, found, current, stats)
            self._check_budget(home)
            self._check_stopping()
            try:
                guidelines = self._ask("tool_guide", call.messages, call.parse)
            except MalformedAnswerError as exc:
                log.warning("skipping a guide of tool %s: the LLM's answers never fit: %s", tool, exc)
                self._store.apply(skip_plan(home, found))
                continue
            plan = plan_tool_guide(home, tool, found, current, guidelines, stats)
            self._check_stopping()
            self._store.apply(plan)
            report += self._count(ConsolidationReport(tool_guides=1))
        return report

    def _experience_batch(self, scope: Scope, trajectories: list[MemoryRecord]) -> ConsolidationReport:
        home, skipped = experience_scope(scope), False
        extraction = build_experience_extraction(trajectories)
        try:
            found = self._ask("extract_experience", extraction.messages, extraction.parse)
            judgements: list[Judgement] = []
            if found:
                self._check_stopping()
                validation = build_experience_validation(trajectories, found)
                judgements = self._ask("validate_experience", validation.messages, validation.parse)
            valid = [e for e, j in zip(found, judgements, strict=True) if j.valid]
            limit = self.options.candidates
            neighbours = [self._store.similar_experiences(e.when_to_use, home, limit) for e in valid]
            reconciliation = build_experience_reconciliation(valid, neighbours)
            if reconciliation.messages is None:
                decisions = reconciliation.without_llm()
            else:
                self._check_stopping()
                decisions = self._ask("reconcile_experience", reconciliation.messages, reconciliation.parse)
            plan = plan_experiences(home, trajectories, found, judgements, decisions)
        except MalformedAnswerError as exc:
            log.warning(
                "skipping %d trajectories of %s: the LLM's answers never fit: %s", len(trajectories), scope, exc
            )
            plan, skipped = skip_plan(home, trajectories), True
        self._check_stopping()
        self._store.apply(plan)
        return self._count(ConsolidationReport.of_experiences(plan, skipped=skipped))

    def _batch(self, scope: Scope, messages: list[MemoryRecord]) -> ConsolidationReport:
        extraction = self._extraction(scope, messages)
        dropped, skipped = 0, False
        try:
            result = self._ask("extract", extraction.messages, extraction.parse)
            dropped = result.dropped
            limit = self.options.candidates
            plans = []
            for owner, facts in self._owners(scope, result.facts):  # the agent's share first: ``scope``'s marks
                neighbours = [self._store.similar_facts(fact.text, owner, limit) for fact in facts]
                reconciliation = build_reconciliation(facts, neighbours, [m.id for m in messages])
                if reconciliation.messages is None:
                    decisions = reconciliation.without_llm()
                else:
                    self._check_stopping()
                    asked = reconciliation.messages
                    decisions = self._ask("reconcile", asked, reconciliation.parse)
                plans.append(plan_facts(owner, messages if owner == scope else [], facts, decisions))
        except MalformedAnswerError as exc:
            log.warning("skipping %d messages of %s: the LLM's answers never fit: %s", len(messages), scope, exc)
            plans, skipped = [skip_plan(scope, messages)], True
        report = ConsolidationReport()
        for plan in plans:  # the messages are marked by the last: a crash before replays the batch (same ids)
            self._check_stopping()
            self._store.apply(plan)
            last = plan is plans[-1]
            report += self._batch_done(plan, dropped=dropped if last else 0, skipped=skipped and last)
        return report

    def _reflect(self, scope: Scope) -> ConsolidationReport:
        new_ids, ended_ids = self._tracker.take(scope)
        try:
            reflection = self._gather(scope, new_ids, ended_ids)
            if reflection is None:
                return ConsolidationReport()
            plan = self._ask("reflect", reflection.messages, reflection.parse)
            self._check_stopping()
        except MalformedAnswerError as exc:
            log.warning("skipping a reflection of %s: the LLM's answers never fit: %s", scope, exc)
            self._store.apply(taken(scope, new_ids))  # not offered again, as when the answers fit
            return self._count(ConsolidationReport(skipped_reflections=1))
        except BaseException:
            self._tracker.give_back(scope, new_ids, ended_ids)
            raise
        self._store.apply(taken(scope, new_ids, plan))  # the facts are marked last: a crash before offers them again
        self._knowledge_changed(plan)
        return self._count(ConsolidationReport.of(plan, reflection=True))

    def _profile(self, owner: Scope) -> ConsolidationReport:
        """Rewrite ``owner``'s profile from its knowledge (one LLM call); on failure it stays due."""
        try:
            statements = self._store.profile_statements(owner)
            update = assemble_profile_update(
                owner,
                recent=self._store.recent_knowledge(owner, self.options.profile_max_facts),
                statements=statements,
                cited=self._store.facts_by_ids(cited_ids(statements)),
                max_knowledge=self.options.profile_max_facts,
            )
            if update.messages is None:
                plan = update.without_llm()
            else:
                try:
                    plan = self._ask("profile", update.messages, update.parse)
                except MalformedAnswerError as exc:
                    log.warning("skipping a profile update of %s: the LLM's answers never fit: %s", owner, exc)
                    plan = update.without_llm()
            self._check_stopping()
            self._store.apply(plan)
        except BaseException:
            self._profile_failed(owner)
            raise
        return self._count(ConsolidationReport.of(plan, reflection=True))

    def _gather(self, scope: Scope, new_ids: list[str], ended_ids: list[str]) -> Reflection | None:
        insights = self._store.insights_citing([*new_ids, *ended_ids], scope)
        if not worth_reflecting(new_ids, ended_ids, insights, self.options.reflect_every):
            self._tracker.give_back(scope, new_ids, [])
            return None
        cited = self._store.facts_by_ids(cited_ids(insights))
        successors = self._store.facts_by_ids([f.superseded_by for f in cited if f.superseded_by])
        fresh = self._store.facts_by_ids(new_ids)
        related: list[MemoryRecord] = []
        for fact in fresh[: self.options.reflect_probes]:
            related += self._store.similar_facts(fact.text, scope, self.options.candidates)
        return assemble_reflection(
            scope,
            fresh=fresh,
            related=related,
            cited=cited,
            successors=successors,
            insights=insights,
            max_facts=self.options.reflect_max_facts,
        )

    def _ask(self, operation: str, messages: list[dict[str, str]], parse: AnswerParser[T]) -> T:
        """Every LLM call of the worker: each counts against ``llm_calls_per_hour``."""
        self._spend()
        return self._llm.complete_json(operation, messages, parse)

    # -- helpers --------------------------------------------------------------------------------------------
    def _queued_count(self) -> int:
        return self._queue.qsize()

    def _enqueue(self, scope: Scope) -> None:
        with self._state:
            if scope in self._queued:
                return
            self._queued.add(scope)
        self._queue.put(scope)

    def _requeue_failures(self) -> None:
        for scope in self.failures:
            with self._state:
                if scope in self._queued:
                    continue
                self._queued.add(scope)
            try:
                self._queue.put_nowait(scope)
            except queue.Full:
                with self._state:
                    self._queued.discard(scope)

    def _idle(self) -> None:
        assert self._thread is not None
        while not self._resumed.wait(_LIVENESS_CHECK_S):
            if not self._thread.is_alive():
                msg = "the consolidation worker stopped unexpectedly"
                raise RuntimeError(msg)
        done = self._queue.all_tasks_done
        with done:
            while self._queue.unfinished_tasks:
                if not self._thread.is_alive():
                    msg = "the consolidation worker stopped unexpectedly"
                    raise RuntimeError(msg)
                done.wait(_LIVENESS_CHECK_S)

    def _check_stopping(self) -> None:
        if self._stopping.is_set():
            raise _Stopped

    def _lock(self, scope: Scope) -> threading.Lock:
        with self._state:
            return self._locks.setdefault(scope, threading.Lock())
