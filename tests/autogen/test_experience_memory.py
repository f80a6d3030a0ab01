"""MemadaptExperienceMemory on a real AssistantAgent: experience injected before a task, a run recorded as a scored
trajectory with its tool calls. The engine consolidates with a scripted OpenAI-compatible LLM over real HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_core import FunctionCall
from autogen_core.models import CreateResult, RequestUsage
from autogen_core.tools import FunctionTool
from autogen_ext.models.replay import ReplayChatCompletionClient

from memadapt_autogen import MemadaptExperienceMemory
from memadapt_core import AsyncMemory
from memadapt_core.testing import ScriptedLLMServer
from tests.conftest import DATE_LESSON, teach

AgentFactory = Callable[..., tuple[AssistantAgent, ReplayChatCompletionClient]]
SystemTexts = Callable[[dict[str, Any]], list[str]]


async def test_experience_reaches_the_model_as_one_system_message(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer, make_agent: AgentFactory, system_texts: SystemTexts
) -> None:
    await teach(learning_engine, scripted_llm)
    agent, client = make_agent(MemadaptExperienceMemory(learning_engine, agent_id="travel"))

    await agent.run(task="Book me a flight to Rome next Monday")
    await agent.run(task="Book me a flight to Paris next Tuesday")

    assert [len(system_texts(call)) for call in client.create_calls] == [1, 1]  # replaced, not piled up
    assert "Convert the date to YYYY-MM-DD" in system_texts(client.create_calls[0])[0]


async def test_query_returns_the_lessons_and_another_agent_has_none(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer
) -> None:
    await teach(learning_engine, scripted_llm)

    found = await MemadaptExperienceMemory(learning_engine, agent_id="travel").query("book a flight next Monday")
    other = await MemadaptExperienceMemory(learning_engine, agent_id="hotels").query("book a flight next Monday")

    assert [r.content for r in found.results] == [DATE_LESSON["content"]]
    assert found.results[0].metadata["when_to_use"] == DATE_LESSON["when_to_use"]  # type: ignore[index]
    assert other.results == []


def book_flight(date: str) -> str:
    """Book a flight on a date."""
    return "error: date must be YYYY-MM-DD"


async def test_a_run_is_recorded_as_a_scored_trajectory_with_its_tool_calls(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.push({"experiences": []})
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)
    call = FunctionCall(id="c1", name="book_flight", arguments='{"date": "next Friday"}')
    client = ReplayChatCompletionClient(
        [CreateResult(finish_reason="function_calls", content=[call], usage=usage, cached=False), "Sorry."],
        model_info={"vision": False, "function_calling": True, "json_output": False, "family": "unknown",
                    "structured_output": False},
    )  # fmt: skip
    experience = MemadaptExperienceMemory(learning_engine, agent_id="travel", user_id="alice")
    agent = AssistantAgent("assistant", model_client=client, tools=[FunctionTool(book_flight, "Book a flight.")],
                           memory=[experience], system_message=None)  # fmt: skip

    result = await agent.run(task="Book a flight to Berlin next Friday")
    await experience.record(result.messages, score=0.0)

    (trajectory,) = (await learning_engine.list(agent_id="travel", kinds=["trajectory"])).records
    assert (trajectory.user_id, trajectory.metadata["score"]) == ("alice", 0.0)
    assert trajectory.metadata["task"] == "Book a flight to Berlin next Friday"
    assert '[assistant calls] book_flight({"date": "next Friday"})' in trajectory.text
    assert "[tool book_flight] error: date must be YYYY-MM-DD" in trajectory.text
