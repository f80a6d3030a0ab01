"""What the async and the thread-based consolidation workers share, without I/O: knobs, counters, state."""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memadapt_core.config import MemorySettings
from memadapt_core.consolidation.llm_base import LLMClientBase
from memadapt_core.consolidation.planning.extraction import Extraction, Fact, build_extraction
from memadapt_core.consolidation.planning.plan import ConsolidationPlan
from memadapt_core.consolidation.planning.reflection import ReflectionTracker
from memadapt_core.consolidation.report import ConsolidationReport
from memadapt_core.errors import LLMError, StoreError
from memadapt_core.models import MemoryRecord, Scope
from memadapt_core.profile import profile_scope

__all__ = ["BudgetExhaustedError", "InstructionsHook", "WorkerBase", "WorkerOptions"]

log = logging.getLogger("memadapt.consolidation")


class BudgetExhaustedError(LLMError):
    """The budget of LLM calls per hour is spent: the batch waits, its messages stay pending."""


InstructionsHook = Callable[[Scope], Sequence[str]]
"""Extra extraction instructions for a scope (the engine passes ``memadapt_extraction_instructions``)."""


class WorkerOptions(BaseModel):
    """The knobs of the consolidation workers (``from_settings`` takes the engine's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    batch_size: int = Field(default=20, ge=1, description="messages per extraction call")
    reflect_every: int = Field(default=10, ge=0, description="new facts per scope between reflections (0: never)")
    queue_size: int = Field(default=1_000, ge=1, description="queued scopes before submit() waits (backpressure)")
    candidates: int = Field(default=5, ge=1, description="existing facts compared with each new fact")
    retry_delay: float = Field(default=30.0, gt=0, description="seconds before scopes that failed are tried again")
    resume_limit: int = Field(default=10_000, ge=1, description="scopes with pending messages picked up at start")
    reflect_probes: int = Field(default=10, ge=0, description="new facts whose neighbours join a reflection")
    reflect_max_facts: int = Field(default=60, ge=1, description="facts shown in one reflection call")
    profile: bool = Field(default=False, description="keep a profile per user (and agent) after facts change")
    profile_max_facts: int = Field(default=60, ge=1, description="facts and insights shown in one profile update")
    heat_threshold: float | None = Field(default=None, ge=0, description="consolidate only segments this hot")
    assistant_knowledge: bool = Field(default=True, description="facts about the assistant go to the agent's scope")
    llm_calls_per_hour: int | None = Field(default=None, ge=1, description="batches wait once this many calls ran")
    trajectory_batch: int = Field(default=5, ge=1, description="trajectories per experience extraction call")
    tool_guide_every: int = Field(default=10, ge=0, description="new calls of a tool before its guide is rewritten")
    tool_guide_calls: int = Field(default=200, ge=1, description="pending tool calls read per agent and drain")

    @classmethod
    def from_settings(cls, settings: MemorySettings, **overrides: Any) -> WorkerOptions:
        values = {
            "batch_size": settings.consolidation_batch,
            "reflect_every": settings.reflect_every,
            "queue_size": settings.queue_size,
            "profile": settings.tiers.profile,
            "profile_max_facts": settings.tiers.profile_max_facts,
            "heat_threshold": settings.tiers.heat_threshold,
            "assistant_knowledge": settings.tiers.assistant_knowledge,
            "llm_calls_per_hour": settings.tiers.llm_calls_per_hour,
            "trajectory_batch": settings.task_memory.trajectory_batch,
            "tool_guide_every": settings.task_memory.tool_guide_every,
        }
        return cls.model_validate(values | overrides)


class WorkerBase:
    """State both workers keep: options, the reflection tracker, failures and totals (thread-safe)."""

    def __init__(
        self, llm: LLMClientBase, options: WorkerOptions | None, instructions: InstructionsHook | None
    ) -> None:
        self._llm_base = llm
        self.options = options or WorkerOptions.model_validate({})
        self._instructions = instructions
        self._tracker = ReflectionTracker()
        self._state = threading.Lock()
        self._closed = False
        self._failures: dict[Scope, Exception] = {}
        self._totals = ConsolidationReport()
        self._calls: deque[float] = deque()  # when the LLM calls of the last hour started (monotonic)
        self._profile_due: set[Scope] = set()  # profile scopes whose knowledge changed since their last update

    @property
    def closing(self) -> bool:
        """``close()`` has been called (no new work is accepted)."""
        return self._closed

    @property
    def failures(self) -> dict[Scope, Exception]:
        """Scopes whose last run failed (their messages stay pending), with the error."""
        with self._state:
            return dict(self._failures)

    @property
    def totals(self) -> ConsolidationReport:
        """Everything consolidated since this worker was built."""
        with self._state:
            return self._totals + ConsolidationReport()

    def _queued_count(self) -> int:
        raise NotImplementedError

    @property
    def stats(self) -> dict[str, dict[str, float]]:
        """The LLM's per-operation stats plus ``"worker"``: what was consolidated, queued and failing."""
        with self._state:
            worker: dict[str, float] = {**self._totals.as_dict(), "failing_scopes": len(self._failures)}
        worker["queued"] = self._queued_count()
        return {**self._llm_base.stats, "worker": worker}

    def _extraction(self, scope: Scope, messages: list[MemoryRecord]) -> Extraction:
        return build_extraction(messages, self._instructions(scope) if self._instructions else ())

    def _count(self, report: ConsolidationReport) -> ConsolidationReport:
        with self._state:
            self._totals += report
        return report

    def _batch_done(self, plan: ConsolidationPlan, *, dropped: int, skipped: bool) -> ConsolidationReport:
        self._tracker.note(plan)
        self._knowledge_changed(plan)
        return self._count(ConsolidationReport.of(plan, dropped=dropped, skipped=skipped))

    def _knowledge_changed(self, plan: ConsolidationPlan) -> None:
        """Facts or insights of ``plan``'s scope changed: its profile is due (when profiles are kept)."""
        if plan.scope.user_id is None and plan.scope.agent_id is None:
            return  # a session alone has no profile
        if self.options.profile and (plan.records or plan.changed_ids):
            with self._state:
                self._profile_due.add(profile_scope(plan.scope))

    def _take_profile_due(self, scope: Scope) -> list[Scope]:
        """The profiles ``scope`` feeds that are due (the user's, the agent's), now forgotten (``_profile_failed``
        gives one back)."""
        if not self.options.profile:
            return []
        owners = [profile_scope(scope)] if scope.user_id is not None or scope.agent_id is not None else []
        if scope.agent_id is not None and scope.user_id is not None:
            owners.append(Scope(agent_id=scope.agent_id))
        with self._state:
            due = [o for o in owners if o in self._profile_due]
            self._profile_due.difference_update(due)
        return due

    def _owners(self, scope: Scope, facts: Sequence[Fact]) -> list[tuple[Scope, list[Fact]]]:
        """Where each fact goes: what the assistant says about itself to the agent's own scope (recalled for the
        agent across users), the rest to ``scope``; ``scope``'s share last (its plan marks the messages)."""
        mine = [f for f in facts if f.about != "assistant" or not self._agent_knowledge(scope)]
        agents = [f for f in facts if f.about == "assistant" and self._agent_knowledge(scope)]
        parts = [(Scope(agent_id=scope.agent_id), agents)] if agents else []
        return [*parts, (scope, mine)]

    def _agent_knowledge(self, scope: Scope) -> bool:
        return self.options.assistant_knowledge and scope.agent_id is not None and scope.user_id is not None

    def _profile_failed(self, owner: Scope) -> None:
        with self._state:
            self._profile_due.add(owner)

    def _cold(self, scope: Scope, heat: float | None) -> bool:
        """A segment under the heat threshold waits (no LLM call) until retrieval or more turns warm it."""
        if heat is None or self.options.heat_threshold is None or heat >= self.options.heat_threshold:
            return False
        log.debug("consolidation of %s waits: heat %.2f under %.2f", scope, heat, self.options.heat_threshold)
        self._count(ConsolidationReport(cold=1))
        return True

    def _spend(self) -> None:
        """One LLM call is about to start: it counts against ``llm_calls_per_hour``."""
        with self._state:
            self._calls.append(time.monotonic())

    def _check_budget(self, scope: Scope) -> None:
        """Before a batch: ``BudgetExhaustedError`` once the last hour's calls reached the budget (the messages stay
        pending; the worker tries again after ``retry_delay``, as after an outage)."""
        budget = self.options.llm_calls_per_hour
        if budget is None:
            return
        with self._state:
            while self._calls and self._calls[0] < time.monotonic() - 3600:
                self._calls.popleft()
            spent = len(self._calls)
        if spent >= budget:
            msg = f"consolidation of {scope} waits: {spent} LLM calls in the last hour (llm_calls_per_hour {budget})"
            raise BudgetExhaustedError(msg)

    def _failed(self, scope: Scope, exc: Exception) -> None:
        with self._state:
            self._failures[scope] = exc
        log.warning("consolidation of %s failed; its messages stay pending: %s", scope, exc)

    def _succeeded(self, scope: Scope) -> None:
        with self._state:
            self._failures.pop(scope, None)

    @staticmethod
    def _first_time(done: set[str], records: list[MemoryRecord], what: str) -> None:
        """Note ``records`` as taken; a store that lists them as pending again (after apply() marked them) would
        loop forever: ``StoreError``."""
        if done.intersection(r.id for r in records):
            msg = f"consolidation: the store lists {what} as pending after apply() marked them"
            raise StoreError(msg)
        done.update(r.id for r in records)

    def _check_open(self) -> None:
        if self._closed:
            msg = "the consolidation worker is closed"
            raise RuntimeError(msg)
