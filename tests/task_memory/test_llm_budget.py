"""One hourly budget of LLM calls (``tiers.llm_calls_per_hour``) for everything the worker asks the LLM: facts,
experience extraction and validation, and tool guides count against it, and wait once it is spent."""

from __future__ import annotations

import pytest

from memadapt_core import AsyncMemory, LLMError, Memory
from memadapt_core.testing import ScriptedLLMServer

from .conftest import FAILED_BOOKING, judged, learned, lesson, llm
from .test_tool_memory import search_call

AGENT = "travel-agent"
DATE_LESSON = lesson("booking a flight", "Convert the date to YYYY-MM-DD first.", "failure", [0])


def _budget(calls: int, **extra: object) -> dict[str, object]:
    return {"location": ":memory:", "tiers": {"llm_calls_per_hour": calls}, **extra}


def _waits(mem: Memory, record_id: str, **scope: str) -> None:
    """``record_id`` stays pending (not lost), and consolidating its scope now names the budget."""
    assert mem.get(record_id).consolidated is False  # type: ignore[union-attr]
    with pytest.raises(LLMError, match="llm_calls_per_hour"):
        mem.consolidate(**scope)


def test_past_the_hourly_budget_a_batch_waits_without_an_llm_call(server: ScriptedLLMServer) -> None:
    server.push({"facts": []}, {"facts": []})
    with Memory(**_budget(2), **llm(server)) as mem:
        for user in ("ann", "bob"):
            mem.add("I keep bees", user_id=user)
            mem.flush()
        (third,) = mem.add("I keep bees", user_id="cy")
        mem.flush()
        assert len(server.chat_requests()) == 2
        _waits(mem, third.id, user_id="cy")


def test_experience_calls_spend_the_budget_consolidation_then_waits_for(server: ScriptedLLMServer) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    with Memory(**_budget(2), **llm(server)) as mem:
        mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, task="book a flight")
        mem.flush()
        assert [r.operation for r in server.chat_requests()] == ["extract_experience", "validate_experience"]

        (message,) = mem.add("I keep bees", user_id="ann")
        mem.flush()

        assert len(server.chat_requests()) == 2
        _waits(mem, message.id, user_id="ann")


def test_past_the_budget_trajectories_wait_without_an_llm_call(server: ScriptedLLMServer) -> None:
    server.push({"facts": []})
    with Memory(**_budget(1), **llm(server)) as mem:
        mem.add("I keep bees", user_id="ann")
        mem.flush()

        (trajectory,) = mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, task="book a flight")
        mem.flush()

        assert [r.operation for r in server.chat_requests()] == ["extract"]
        _waits(mem, trajectory.id, agent_id=AGENT)


async def test_a_tool_guide_spends_the_budget_in_the_async_twin(server: ScriptedLLMServer) -> None:
    server.push({"guidelines": "- Keep max_results at 5 or less."})
    async with AsyncMemory(**_budget(1, task_memory={"tool_guide_every": 3}), **llm(server)) as mem:
        await mem.record_tool_calls([search_call(n) for n in range(3)], agent_id=AGENT)
        await mem.flush()
        assert [r.operation for r in server.chat_requests()] == ["tool_guide"]

        (message,) = await mem.add("I keep bees", user_id="ann")
        await mem.flush()

        assert len(server.chat_requests()) == 1
        assert (await mem.get(message.id)).consolidated is False  # type: ignore[union-attr]
