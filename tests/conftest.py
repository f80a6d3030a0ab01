"""Shared fixtures: an embedded store in a temporary folder per test, on the fast profile's embedder (WordLlama).

``tests/agentscope_runtime`` needs agentscope-runtime, which cannot share the dev environment (it pins AgentScope
1.x): without it that folder is not collected, so a plain ``pytest`` works; ``make pytest-runtime`` runs it in
``.venv-runtime``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_core.testing import ScriptedLLMServer

# An fsync per write (the default durability) costs ~8 ms on the CI's disk and survives nothing more than a killed
# process here: the suite (and the writers it starts) runs with "process"; tests/core/test_durability.py checks the
# default and the sync itself.
os.environ.setdefault("MEMADAPT_DURABILITY", "process")
# The default embedder (MiniLM) takes ~10 ms a stored text where WordLlama takes ~50 µs, and nothing above the
# embedder depends on which one made the vectors: the suite runs on WordLlama. The default itself is tested where it
# matters, each test naming it or clearing this variable: tests/core/test_minilm.py (paraphrases, the floor),
# tests/core/test_embedders.py, tests/core/test_store_lifecycle.py (stores keep their embedder), and
# tests/docs/test_readme.py (the README's examples, run as printed in a clean environment).
os.environ.setdefault("MEMADAPT_EMBEDDER__PROVIDER", "wordllama")

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


DATE_LESSON: dict[str, Any] = {
    "when_to_use": "booking a flight when the date is given in words",
    "content": "Convert the date to YYYY-MM-DD before calling book_flight.",
    "evidence": "failure",
    "sources": [0],
}
"""An experience as the extraction LLM gives it (task memory)."""


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
async def learning_engine(scripted_llm: ScriptedLLMServer) -> AsyncIterator[AsyncMemory]:
    """An in-memory engine that consolidates with ``scripted_llm``."""
    settings = {"base_url": scripted_llm.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1}
    async with AsyncMemory(location=":memory:", llm=settings) as memory:
        yield memory


async def teach(engine: AsyncMemory, llm: ScriptedLLMServer, agent_id: str = "travel") -> None:
    """Give ``agent_id`` the experience ``DATE_LESSON``, drawn from a failed trajectory."""
    llm.push({"experiences": [DATE_LESSON]}, {"judgements": [{"experience": 0, "valid": True}]})
    trajectory = {"messages": [{"role": "user", "content": "Book a flight next Friday"}], "score": 0.0}
    await engine.add_trajectories(trajectory, agent_id=agent_id)
    await engine.flush()
