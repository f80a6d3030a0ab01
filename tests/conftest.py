"""Shared fixtures: an embedded store in a temporary folder per test, with the real default embedder.

``tests/agentscope_runtime`` needs agentscope-runtime, which cannot share the dev environment (it pins AgentScope
1.x): without it that folder is not collected, so a plain ``pytest`` works; ``make pytest-runtime`` runs it in
``.venv-runtime``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import AsyncIterator, Iterator

import pytest

from memadapt_core import AsyncMemory, Memory

# An fsync per write (the default durability) costs ~8 ms on the CI's disk and survives nothing more than a killed
# process here: the suite (and the writers it starts) runs with "process"; tests/core/test_durability.py checks the
# default and the sync itself.
os.environ.setdefault("MEMADAPT_DURABILITY", "process")

RUNTIME_AVAILABLE = importlib.util.find_spec("agentscope_runtime") is not None
collect_ignore = [] if RUNTIME_AVAILABLE else ["agentscope_runtime"]


def pytest_report_header() -> list[str]:
    if RUNTIME_AVAILABLE:
        return []
    return ["agentscope-runtime is not installed: tests/agentscope_runtime is not collected (make pytest-runtime)"]


@pytest.fixture
def memory() -> Iterator[Memory]:
    with Memory(location=":memory:") as mem:
        yield mem


@pytest.fixture
async def amemory() -> AsyncIterator[AsyncMemory]:
    async with AsyncMemory(location=":memory:") as mem:
        yield mem
