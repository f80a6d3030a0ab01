"""MemadaptExperienceMiddleware on a real AgentScope 2.x agent: experience injected into the system prompt before a
task, the scored trajectory (tool calls included) recorded after it. The engine consolidates with a scripted
OpenAI-compatible LLM over real HTTP."""

from __future__ import annotations

from typing import Any

from agentscope.message import Msg, TextBlock, UserMsg
from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.tool import FunctionTool, ToolChunk

from memadapt_agentscope import MemadaptExperienceMiddleware
from memadapt_core import AsyncMemory
from memadapt_core.testing import ScriptedLLMServer
from tests.conftest import teach


async def book_flight(date: str) -> ToolChunk:
    text = "booked" if len(date) == 10 and date[4] == "-" else "error: date must be YYYY-MM-DD"
    return ToolChunk(content=[TextBlock(text=text)])


def booking_tool() -> FunctionTool:
    schema = {"type": "object", "properties": {"date": {"type": "string"}}, "required": ["date"]}
    allow = PermissionDecision(behavior=PermissionBehavior.ALLOW, message="test tool")
    return FunctionTool(book_flight, name="book_flight", description="Book a flight.", input_schema=schema,
                        permission=allow)  # fmt: skip


def failed(task: str, reply: Msg) -> float:
    return 0.0 if "could not" in (reply.get_text_content() or "") else 1.0


async def test_a_scored_reply_is_recorded_as_a_trajectory_with_its_tool_calls(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer, make_agent: Any
) -> None:
    scripted_llm.push({"experiences": []})
    mw = MemadaptExperienceMiddleware(learning_engine, agent_id="travel", user_id="alice", score=failed)
    agent, _ = make_agent(mw, [("book_flight", {"date": "next Friday"}), "Sorry, I could not book it."],
                          tools=[booking_tool()])  # fmt: skip

    await agent.reply(UserMsg(name="alice", content="Book a flight to Berlin next Friday"))

    (trajectory,) = (await learning_engine.list(agent_id="travel", kinds=["trajectory"])).records
    assert trajectory.user_id == "alice"
    assert trajectory.metadata["score"] == 0.0
    assert trajectory.metadata["task"] == "Book a flight to Berlin next Friday"
    assert '[assistant calls] book_flight({"date": "next Friday"})' in trajectory.text
    assert "[tool book_flight] error: date must be YYYY-MM-DD" in trajectory.text


async def test_experience_reaches_the_system_prompt_of_a_similar_task(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer, make_agent: Any, system_prompt: Any
) -> None:
    await teach(learning_engine, scripted_llm)
    agent, model = make_agent(MemadaptExperienceMiddleware(learning_engine, agent_id="travel"), ["Booked."])

    await agent.reply(UserMsg(name="bob", content="Book me a flight to Rome next Monday"))

    prompt = system_prompt(model.calls[0])
    assert "Convert the date to YYYY-MM-DD before calling book_flight." in prompt
    assert prompt.startswith("You are a helpful assistant.")


async def test_without_a_score_nothing_is_recorded_and_another_agent_gets_no_experience(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer, make_agent: Any, system_prompt: Any
) -> None:
    await teach(learning_engine, scripted_llm)
    agent, model = make_agent(MemadaptExperienceMiddleware(learning_engine, agent_id="hotels"), ["Done."])

    await agent.reply(UserMsg(name="bob", content="Book me a flight to Rome next Monday"))

    assert system_prompt(model.calls[0]) == "You are a helpful assistant."
    assert (await learning_engine.list(agent_id="hotels", kinds=["trajectory"])).records == []
