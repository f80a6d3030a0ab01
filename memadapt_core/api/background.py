"""Background writes that adapters hand to an engine (``track``), so ``close()`` and ``flush()`` wait for them.

An adapter that offers a background write mode (for latency) has acknowledged the write to its framework before
it runs; closing the engine under it would lose it ("this memory is closed"). The engine keeps those pending
futures here, shared by both twins' views of one store, and waits for them before it closes: an asyncio task is
awaited on its own loop (from another thread, through a thread-safe signal), a thread's future is waited for. The
owner of each task keeps its errors; here they are only waited for.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from typing import Any

from memadapt_core.errors import ValidationError

__all__ = ["BackgroundWrites", "Pending"]

logger = logging.getLogger("memadapt_core")

Pending = asyncio.Future[Any] | concurrent.futures.Future[Any]
"""What ``track`` takes: an asyncio task or future, or a thread's ``concurrent.futures.Future``."""


class BackgroundWrites:
    """The not yet finished background writes of one open store."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: set[Pending] = set()

    def track(self, pending: object) -> None:
        if not isinstance(pending, asyncio.Future | concurrent.futures.Future):
            field = "pending"
            problem = f"must be an asyncio task or future, or a concurrent.futures.Future, not {type(pending).__name__}"
            raise ValidationError(field, problem)
        with self._lock:
            self._pending.add(pending)
        pending.add_done_callback(self._discard)

    def _discard(self, pending: Any) -> None:
        with self._lock:
            self._pending.discard(pending)

    def unfinished(self) -> list[Pending]:
        with self._lock:
            return [p for p in self._pending if not p.done()]

    async def drain(self) -> None:
        """Wait, in a coroutine, until every tracked write has finished (and those they start meanwhile)."""
        here = asyncio.get_running_loop()
        while pending := [p for p in self.unfinished() if _can_finish(p, here, blocking=False)]:
            waits = [p if _loop_of(p) is here else asyncio.wrap_future(_finished_signal(p)) for p in pending]
            await asyncio.wait(waits)  # type: ignore[type-var]
        self._warn_stuck()

    def drain_blocking(self) -> None:
        """Wait, in plain code, until every tracked write has finished. A task of the event loop running in this
        very thread cannot finish while this thread waits: those are left, with a warning to ``await`` the
        async twin's ``close()`` instead."""
        here = _running_loop()
        while pending := [p for p in self.unfinished() if _can_finish(p, here, blocking=True)]:
            concurrent.futures.wait([_finished_signal(p) for p in pending])
        self._warn_stuck()

    def _warn_stuck(self) -> None:
        if stuck := self.unfinished():
            logger.warning(
                "memadapt: %d background write(s) cannot finish before the store closes (their event loop is "
                "blocked or stopped); close the engine with `await engine.close()` on that loop",
                len(stuck),
            )


def _loop_of(pending: Pending) -> asyncio.AbstractEventLoop | None:
    return pending.get_loop() if isinstance(pending, asyncio.Future) else None


def _can_finish(pending: Pending, here: asyncio.AbstractEventLoop | None, *, blocking: bool) -> bool:
    """Whether waiting for ``pending`` can end: a thread's future can; a task can if its loop runs elsewhere, or is
    the loop we await on (not while blocking it)."""
    loop = _loop_of(pending)
    if loop is None:
        return True
    if loop is here:
        return not blocking
    return loop.is_running() and not loop.is_closed()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _finished_signal(pending: Pending) -> concurrent.futures.Future[Any]:
    """A thread-safe future that completes when ``pending`` does (or at once if its loop can never finish it)."""
    if isinstance(pending, concurrent.futures.Future):
        return pending
    signal: concurrent.futures.Future[None] = concurrent.futures.Future()

    def finished(_: object) -> None:
        if not signal.done():
            signal.set_result(None)

    pending.get_loop().call_soon_threadsafe(pending.add_done_callback, finished)
    return signal
