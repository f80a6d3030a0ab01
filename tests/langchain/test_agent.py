"""LangGraph agents with a scripted model keep and recall a user's memories across threads."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from memadapt_core import Memory
from memadapt_langchain import MemadaptStore, create_save_memory_tool
from memadapt_langchain import create_search_memory_tool as search_tool

Model = Callable[[list[AIMessage]], BaseChatModel]
NAMESPACE = ("memories", "{langgraph_user_id}")


def _call(tool: str, call_id: str, **args: Any) -> AIMessage:
    return AIMessage("", tool_calls=[{"name": tool, "args": args, "id": call_id}])


def _config(thread: str, user: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, "langgraph_user_id": user, "user_id": user}}


def _tool_output(state: dict[str, Any]) -> str:
    return "\n".join(str(m.content) for m in state["messages"] if isinstance(m, ToolMessage))


def test_a_langmem_agent_recalls_a_user_memory_in_a_new_thread(
    memory: Memory, scripted_model: Model, langmem: ModuleType
) -> None:
    model = scripted_model(
        [
            _call("manage_memory", "c1", content="Alice's favourite coffee is a flat white"),
            AIMessage("Noted."),
            _call("search_memory", "c2", query="favourite coffee"),
            AIMessage("You like flat whites."),
        ]
    )
    agent = create_agent(
        model,
        tools=[langmem.create_manage_memory_tool(NAMESPACE), langmem.create_search_memory_tool(NAMESPACE)],
        store=MemadaptStore(memory, user_id_position=1),
        checkpointer=InMemorySaver(),
    )

    agent.invoke({"messages": [("user", "I love flat whites")]}, _config("thread-1", "alice"))
    later = agent.invoke({"messages": [("user", "What coffee do I like?")]}, _config("thread-2", "alice"))

    assert "flat white" in _tool_output(later)
    assert len(later["messages"]) == 4  # a new thread: nothing of thread 1's conversation came along
    assert [h.record.user_id for h in memory.search("coffee", user_id="alice")] == ["alice"]


async def test_a_langmem_agent_recalls_through_the_async_store(
    memory: Memory, scripted_model: Model, langmem: ModuleType
) -> None:
    model = scripted_model(
        [
            _call("manage_memory", "c1", content="Bob is allergic to peanuts"),
            AIMessage("Noted."),
            _call("search_memory", "c2", query="allergies"),
            AIMessage("You are allergic to peanuts."),
        ]
    )
    agent = create_agent(
        model,
        tools=[langmem.create_manage_memory_tool(NAMESPACE), langmem.create_search_memory_tool(NAMESPACE)],
        store=MemadaptStore(memory, user_id_position=1),
        checkpointer=InMemorySaver(),
    )

    await agent.ainvoke({"messages": [("user", "I'm allergic to peanuts")]}, _config("t1", "bob"))
    later = await agent.ainvoke({"messages": [("user", "Any allergies?")]}, _config("t2", "bob"))

    assert "peanuts" in _tool_output(later)


def test_memadapt_tools_save_and_recall_for_the_runs_user(memory: Memory, scripted_model: Model) -> None:
    model = scripted_model(
        [
            _call("save_memory", "c1", content="Carol's daughter is called Mia"),
            AIMessage("Saved."),
            _call("search_memory", "c2", query="what is my daughter called"),
            AIMessage("Mia."),
        ]
    )
    agent = create_agent(
        model, tools=[create_save_memory_tool(memory), search_tool(memory)], checkpointer=InMemorySaver()
    )

    agent.invoke({"messages": [("user", "My daughter is Mia")]}, _config("t1", "carol"))
    later = agent.invoke({"messages": [("user", "Who is my daughter?")]}, _config("t2", "carol"))

    assert "Carol's daughter is called Mia" in _tool_output(later)
    assert [r.text for r in memory.list(user_id="carol", kinds=["fact"]).records] == ["Carol's daughter is called Mia"]
