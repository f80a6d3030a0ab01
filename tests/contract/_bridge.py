"""An async door seen through the sync names the suite calls: each coroutine is awaited to completion on a loop of
the test's own (a test-only bridge; the library itself never runs a loop)."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any


class Awaited:
    """``AsyncMemory`` or ``AsyncRemoteMemory`` called as its sync twin would be: each coroutine run to its end."""

    def __init__(self, door: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._door, self._loop = door, loop

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._door, name)
        if inspect.iscoroutinefunction(found):
            return lambda *args, **kwargs: self._loop.run_until_complete(found(*args, **kwargs))
        if inspect.isasyncgenfunction(found):
            return lambda *args, **kwargs: self._loop.run_until_complete(_collect(found(*args, **kwargs)))
        return found


async def _collect(items: Any) -> list[Any]:
    return [item async for item in items]
