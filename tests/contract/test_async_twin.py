"""The behaviour suite run through ``AsyncMemory``, each call awaited to completion (``_bridge``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_core.testing import MemoryContract

from ._bridge import Awaited


def _bridge(factory: Callable[[], AsyncMemory]) -> Iterator[Memory]:
    loop = asyncio.new_event_loop()
    try:
        engine = factory()
        try:
            yield cast(Memory, Awaited(engine, loop))
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
