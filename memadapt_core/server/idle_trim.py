"""Memory a burst took is given back to the system once the service is idle.

Embedding a burst of long texts grows the server's heap (8,000-character messages, 8 in flight per token, took
`memadapt serve` from ~0.55 to ~1.2 GB), and glibc's allocator keeps what it freed for later instead of returning
it: the resident size stayed at its peak (benchmarks/tenant_flood.py). Two things return it: ``limit_arenas``, at
start, before any thread, keeps glibc to 2 heaps (by default each embedding thread gets its own, and a heap's free
pages in the middle are never returned), and, when the last request in flight has answered, ``malloc_trim(0)`` (on
a worker thread, at most every few seconds) returns the free pages. Measured on USE-m3 embedding long texts on 8
threads: peak 536 -> 398 MB, and back to the 262 MB it started from after the trim instead of staying at 530.
Where the C library has neither (macOS, Windows, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time
from collections.abc import Callable

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["ReleaseWhenIdle", "limit_arenas"]

_EVERY_S = 5.0
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


class ReleaseWhenIdle:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._in_flight = 0
        self._trim = _malloc_trim()
        self._last = 0.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._trim is None:
            await self.app(scope, receive, send)
            return
        self._in_flight += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self._in_flight -= 1
        if not self._in_flight and time.monotonic() - self._last > _EVERY_S:  # answered: its response is sent
            self._last = time.monotonic()
            await anyio.to_thread.run_sync(self._trim, 0)
