"""The thread-based twin of ``ConsolidationWorker`` for the sync ``Memory`` (no event loop anywhere).

One daemon thread takes scopes from a bounded ``queue.Queue`` and runs the same steps (``sync_steps.py``,
generated from the async ones) with the sync LLM client and a ``SyncConsolidationStore``.
``close(drain=False)`` stops at the next step boundary: an LLM call under way finishes (or times out), its answer
is not applied, and a store write under way completes.
"""

from __future__ import annotations

import logging
import queue
import threading

from memadapt_core.consolidation.llm_client import LLMClient
from memadapt_core.consolidation.planning.plan import ConsolidationPlan
from memadapt_core.consolidation.store import SyncConsolidationStore
from memadapt_core.consolidation.sync_steps import SyncConsolidationSteps
from memadapt_core.consolidation.worker_base import InstructionsHook, WorkerOptions
from memadapt_core.models import Scope

__all__ = ["SyncConsolidationWorker"]

log = logging.getLogger("memadapt.consolidation")

_LIVENESS_CHECK_S = 0.5  # how often a waiting flush() checks that the thread is alive


class _Stopped(Exception):
    """close(drain=False) was called: leave the rest pending."""


class SyncConsolidationWorker(SyncConsolidationSteps):
    """Consolidates messages in a background thread; same behaviour as ``ConsolidationWorker``."""

    def __init__(
        self,
        store: SyncConsolidationStore,
        llm: LLMClient,
        *,
        options: WorkerOptions | None = None,
        instructions: InstructionsHook | None = None,
    ) -> None:
        super().__init__(store, llm, options, instructions)
        self._queue: queue.Queue[Scope | None] = queue.Queue(self.options.queue_size)
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

    def _apply(self, plan: ConsolidationPlan) -> None:
        self._store.apply(plan)

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
