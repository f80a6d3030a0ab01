"""The behaviour suite run through ``AsyncMemory``: each call of the suite is awaited to completion on a loop of
the test's own (a test-only bridge; the library itself never runs a loop)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_core.testing import MemoryContract


class _Awaited:
    """``AsyncMemory`` seen through the sync names the suite calls: each coroutine is run to its end."""

    def __init__(self, engine: AsyncMemory, loop: asyncio.AbstractEventLoop) -> None:
        self._engine, self._loop = engine, loop

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._engine, name)
        if inspect.iscoroutinefunction(found):
            return lambda *args, **kwargs: self._loop.run_until_complete(found(*args, **kwargs))
        if inspect.isasyncgenfunction(found):
            return lambda *args, **kwargs: self._loop.run_until_complete(_collect(found(*args, **kwargs)))
        return found


async def _collect(items: Any) -> list[Any]:
    return [item async for item in items]


def _bridge(factory: Callable[[], AsyncMemory]) -> Iterator[Memory]:
    loop = asyncio.new_event_loop()
    try:
        engine = factory()
        try:
            yield cast(Memory, _Awaited(engine, loop))
        finally:
            loop.run_until_complete(engine.close())
    finally:
        loop.close()


class TestAsyncTwinOnTheEmbeddedStore(MemoryContract):
    @pytest.fixture
    def memory(self, tmp_path: Path) -> Iterator[Memory]:
        yield from _bridge(lambda: AsyncMemory(path=tmp_path / "edge"))


class TestAsyncTwinOnQdrantClientLocal(MemoryContract):
    @pytest.fixture
    def memory(self) -> Iterator[Memory]:
        yield from _bridge(lambda: AsyncMemory(backend="qdrant-local", location=":memory:"))
