"""Memory a burst took is given back to the system once the service is idle.

Embedding a burst of long texts grows the server's memory (8,000-character messages, 8 in flight per token, took
`memadapt serve` from ~0.55 to ~1.2 GB) and, left alone, it stays at its peak: onnxruntime's arena keeps every block
it grew to (``embedders/idle_release.py``), and glibc keeps what was freed for later. Three things return it:
``limit_arenas``, at start, before any thread, keeps glibc to 2 heaps (by default each embedding thread gets its
own, and a heap's free pages in the middle are never returned); and once no request has been in flight for 2 s,
``release_memory`` (on a worker thread) shrinks the model runtimes' arenas, then ``malloc_trim(0)`` returns the free
pages. Measured: MiniLM embedding long texts on 8 threads, 256 MB -> 3.6 GB; the trim alone 3.6 GB, the shrink and
the trim 203 MB; USE-m3 alone, peak 536 -> 398 MB with 2 heaps, and back to 262 MB after the trim. Where the C
library has neither call (macOS, Windows, musl) only the arena shrink runs.
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
from collections.abc import Callable

from starlette.types import ASGIApp, Receive, Scope, Send

from memadapt_core.embedders import idle_release

__all__ = ["ReleaseWhenIdle", "limit_arenas", "release_memory"]

_QUIET_S = 2.0
_M_ARENA_MAX = -8  # mallopt's parameter (malloc.h)
_ARENAS = 2


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def limit_arenas() -> None:
    """At most ``_ARENAS`` glibc heaps for the threads to come (call before they start)."""
    libc = _libc()
    if libc is not None and hasattr(libc, "mallopt"):
        libc.mallopt(_M_ARENA_MAX, _ARENAS)


def _malloc_trim() -> Callable[[int], int] | None:
    libc = _libc()
    trim: Callable[[int], int] | None = getattr(libc, "malloc_trim", None) if libc is not None else None
    return trim


def release_memory() -> None:
    """Give back what the model runtimes' arenas and the C heap hold beyond what is in use (blocking: a thread)."""
    idle_release.release()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class ReleaseWhenIdle:
    """Calls ``release`` on a worker thread once no request has been in flight for ``quiet_s`` seconds.

    Not after every answer: between the requests of a client sending one after the other the service is not idle,
    and giving the arena back there would only make the next request grow it again.
    """

    def __init__(
        self, app: ASGIApp, *, quiet_s: float = _QUIET_S, release: Callable[[], None] = release_memory
    ) -> None:
        self.app = app
        self._quiet_s = quiet_s
        self._release = release
        self._in_flight = 0
        self._started = 0  # requests begun: a timer set before a later request began finds it changed
        self._timer: asyncio.TimerHandle | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self._in_flight += 1
        self._started += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                loop = asyncio.get_running_loop()
                if self._timer is not None:
                    self._timer.cancel()
                self._timer = loop.call_later(self._quiet_s, self._when_quiet, loop, self._started)

    def _when_quiet(self, loop: asyncio.AbstractEventLoop, started: int) -> None:
        if not self._in_flight and started == self._started:
            loop.run_in_executor(None, self._release)
