"""The background consolidation worker of ``AsyncMemory``: one asyncio task and a bounded queue of scopes.

``submit(scope)`` queues a scope (coalesced; waits while the queue is full: backpressure); the task takes
the scope's pending messages in batches, extracts and reconciles facts, applies each batch's plan in one store
call that marks the messages last, and reflects every N facts. An LLM that cannot be reached leaves the
messages pending: they are tried again after ``retry_delay``, at the next ``flush()`` or ``consolidate()``, or
at the next start. Answers that never fit the schema skip their batch (logged). The steps themselves are in
``steps.py``; this module holds only how the async worker runs, queues, locks, stops and writes.
``SyncConsolidationWorker`` is the thread-based twin.
"""

from __future__ import annotations

import asyncio
import logging

from memadapt_core.consolidation.llm_client import AsyncLLMClient
from memadapt_core.consolidation.planning.plan import ConsolidationPlan
from memadapt_core.consolidation.steps import ConsolidationSteps
from memadapt_core.consolidation.store import ConsolidationStore
from memadapt_core.consolidation.worker_base import InstructionsHook, WorkerOptions
from memadapt_core.models import Scope

__all__ = ["ConsolidationWorker"]

log = logging.getLogger("memadapt.consolidation")


class ConsolidationWorker(ConsolidationSteps):
    """Consolidates messages in the background; see the module docstring. Use it inside one running loop."""

    def __init__(
        self,
        store: ConsolidationStore,
        llm: AsyncLLMClient,
        *,
        options: WorkerOptions | None = None,
        instructions: InstructionsHook | None = None,
    ) -> None:
        super().__init__(store, llm, options, instructions)
        self._queue: asyncio.Queue[Scope] | None = None
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
