"""Task memory for LangChain: the experience retriever and tools, over an engine that consolidates with a scripted
OpenAI-compatible LLM over real HTTP."""

from __future__ import annotations

from memadapt_core import AsyncMemory
from memadapt_core.testing import ScriptedLLMServer
from memadapt_langchain import MemadaptExperienceRetriever, create_experience_tool, create_trajectory_tool
from tests.conftest import DATE_LESSON, teach


async def test_the_retriever_returns_the_agents_lessons_for_a_task(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer
) -> None:
    await teach(learning_engine, scripted_llm)

    found = await MemadaptExperienceRetriever(memory=learning_engine, agent_id="travel").ainvoke("book a flight Monday")
    other = await MemadaptExperienceRetriever(memory=learning_engine, agent_id="hotels").ainvoke("book a flight Monday")

    [document] = found
    assert document.page_content == DATE_LESSON["content"]
    assert (document.metadata["when_to_use"], document.metadata["evidence"]) == (DATE_LESSON["when_to_use"], "failure")
    assert other == []


async def test_the_experience_tool_answers_with_the_guidance_block(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer
) -> None:
    await teach(learning_engine, scripted_llm)
    tool = create_experience_tool(learning_engine, agent_id="travel")

    answer = await tool.ainvoke({"task": "book a flight next Monday"})
    nothing = await create_experience_tool(learning_engine, agent_id="hotels").ainvoke({"task": "book a flight"})

    assert answer.startswith("<memadapt-experience>")
    assert DATE_LESSON["content"] in answer
    assert nothing == "No experience with similar tasks yet."


async def test_the_trajectory_tool_stores_a_scored_attempt(
    learning_engine: AsyncMemory, scripted_llm: ScriptedLLMServer
) -> None:
    scripted_llm.push({"experiences": []})
    tool = create_trajectory_tool(learning_engine, agent_id="travel", user_id="ann")

    answer = await tool.ainvoke({"task": "book a flight", "steps": ["called book_flight: error"], "score": 0.0})

    [trajectory] = (await learning_engine.list(agent_id="travel", kinds=["trajectory"])).records
    assert trajectory.id in answer
    assert (trajectory.user_id, trajectory.metadata["score"], trajectory.metadata["task"]) == (
        "ann",
        0.0,
        "book a flight",
    )
    assert "[assistant] called book_flight: error" in trajectory.text
