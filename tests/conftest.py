"""Shared fixtures: an embedded store in a temporary folder per test, with the real default embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from memadapt_core import AsyncMemory, Memory


@pytest.fixture
def memory() -> Iterator[Memory]:
    with Memory(location=":memory:") as mem:
        yield mem


@pytest.fixture
async def amemory() -> AsyncIterator[AsyncMemory]:
    async with AsyncMemory(location=":memory:") as mem:
        yield mem
