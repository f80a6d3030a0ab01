"""A LangGraph item written under a user's namespace reaches that user's AgentScope 2.x agent with every default
(docs/adapters.md), and no other user's."""

from __future__ import annotations

from agentscope.message import UserMsg

from memadapt_agentscope import MemadaptMiddleware
from memadapt_core import AsyncMemory
from memadapt_langchain import MemadaptStore


async def test_a_users_langgraph_item_reaches_that_users_agent(amemory: AsyncMemory, make_agent, memory_hints):
    await MemadaptStore(amemory).aput(("memories", "maya"), "sister", {"content": "Maya's sister lives in Porto"})
    maya, maya_model = make_agent(MemadaptMiddleware(memory=amemory, user_id="maya"), ["In Porto."])
    tom, tom_model = make_agent(MemadaptMiddleware(memory=amemory, user_id="tom", threshold=0.0), ["No idea."])

    await maya.reply(UserMsg(name="maya", content="Where does my sister live?"))
    await tom.reply(UserMsg(name="tom", content="Where does my sister live?"))

    [hint] = memory_hints(maya_model.calls[0])
    assert "Maya's sister lives in Porto" in hint
    assert memory_hints(tom_model.calls[0]) == []
