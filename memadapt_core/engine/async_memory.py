"""``AsyncMemory``: the engine, async, over ``AsyncMemoryCalls`` (its public calls, written once: ``calls``); here
only what a task does differently from a thread (its sync twin ``Memory``, ``sync_memory``, does the same for
threads): steps in a thread or inline, the consolidation worker, the views and closing; ``search_many`` and
``iter_records`` are every door's (``api.composed``).

Blocking work never runs on the event loop: a server backend and big batches go to a thread; the embedded store's
sub-millisecond calls and one-query embeddings run inline, where a thread hop would cost more than them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from memadapt_core.api.composed import AsyncComposed
from memadapt_core.validation import parse_scope

from . import tiers
from .answering import AsyncAnswering
from .calls import AsyncMemoryCalls
from .llm_notice import warn_without_llm
from .transfer.twins import AsyncTransfers

if TYPE_CHECKING:
    from memadapt_core.api import AsyncMemoryAPI
    from memadapt_core.consolidation.worker import ConsolidationWorker

    from .sync_memory import Memory

__all__ = ["AsyncMemory"]

T = TypeVar("T")


class AsyncMemory(AsyncAnswering, AsyncTransfers, AsyncComposed, AsyncMemoryCalls):
    """Long-term memory for agents, async. ``AsyncMemory()`` opens the embedded store; see ``MemorySettings``."""

    _asynchronous = True
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


if TYPE_CHECKING:  # mypy holds the engine to the API it implements
    _door: type[AsyncMemoryAPI] = AsyncMemory
