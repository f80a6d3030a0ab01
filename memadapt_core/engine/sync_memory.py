"""``Memory``: the sync twin of ``AsyncMemory``, over ``MemoryCalls`` (generated from the async calls): here only
what a thread does differently from a task: steps run inline, a consolidation thread, the views and closing.

Safe to share between threads: the embedded store serialises writes and serves reads concurrently.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from memadapt_core.api.composed import Composed
from memadapt_core.validation import parse_scope

from . import tiers
from .answering import Answering
from .calls import MemoryCalls
from .llm_notice import warn_without_llm
from .transfer.twins import Transfers

if TYPE_CHECKING:
    from memadapt_core.api import MemoryAPI
    from memadapt_core.consolidation.sync_worker import SyncConsolidationWorker

    from .async_memory import AsyncMemory

__all__ = ["Memory"]

T = TypeVar("T")


class Memory(Answering, Transfers, Composed, MemoryCalls):
    """Long-term memory for agents, sync. ``Memory()`` opens the embedded store; see ``MemorySettings``."""

    _asynchronous = False
    _llm: Any = None

    def as_sync(self) -> Memory:
        """This memory itself: adapters call ``as_sync()`` on whichever twin they were handed."""
        return self

    def as_async(self) -> AsyncMemory:
        """An async view of this same store (closing the view does not close the store)."""
        return cast("AsyncMemory", self._view(asynchronous=True))

    def _run(self, fn: Callable[..., T], *args: Any, heavy: bool = False, **kwargs: Any) -> T:
        """A store step, inline: a thread waiting on the store is what sync code expects."""
        return fn(*args, **kwargs)

    @classmethod
    def open(cls, **options: Any) -> Self:
        """``Memory(**options)``, named as its async twin's ``AsyncMemory.open`` (which builds in a thread)."""
        return cls(**options)

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _consolidator(self) -> SyncConsolidationWorker | None:
        """The background consolidation thread, when an LLM is configured (built on first use)."""
        if not self._consolidates():
            return None
        if self._worker is None:
            from memadapt_core.consolidation.sync_worker import SyncConsolidationWorker
            from memadapt_core.engine.consolidation_store import SyncEngineStore

            r = self._resources
            self._llm = r.hooks.make_llm(r.settings.llm, asynchronous=False)
            self._worker = SyncConsolidationWorker(
                SyncEngineStore(r), self._llm, options=self._worker_options(), instructions=r.instructions
            )
        return self._worker

    def close(self) -> None:
        """Wait for tracked background writes, finish queued consolidation, then flush and close the store if this
        object opened it (not a view) and no other engine of this process shares it."""
        self._resources.background.drain_blocking()
        worker, self._worker = self._worker, None
        if worker is not None:
            worker.close(drain=True)
            self._llm.close()
        if self._owner and not self._released and not self._resources.closed:
            tiers.write_visits(self._resources)
        self._give_back()

    def flush(self) -> None:
        """Wait for tracked background writes and background consolidation (resuming what was left pending) and
        make every write durable."""
        r = self._live()
        r.background.drain_blocking()
        if (worker := self._consolidator()) is not None:
            worker.start()
            worker.flush()
        tiers.write_visits(r)
        r.save_counts()
        r.backend.flush()

    def consolidate(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        """Consolidate pending messages now, in this thread (all, or those inside the scope given); returns how
        many messages were consolidated. Without an LLM configured there is nothing to do: 0. Raises
        ``LLMError`` when the LLM cannot be reached (the messages stay pending)."""
        scope = parse_scope(user_id, agent_id, session_id, required=False)
        if (worker := self._consolidator()) is None:
            warn_without_llm(self.settings, "consolidate()")
            return 0
        from .consolidation_store import SyncEngineStore

        pending = SyncEngineStore(self._resources).pending_scopes(worker.options.resume_limit)
        return sum(worker.consolidate(each).inputs for each in self._pending_within(pending, scope))


if TYPE_CHECKING:  # mypy holds the engine to the API it implements
    _door: type[MemoryAPI] = Memory
