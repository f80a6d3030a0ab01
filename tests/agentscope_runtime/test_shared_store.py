"""A LangGraph item written under a user's namespace reaches that user's AgentScope 1.x long-term memory with every
default (docs/adapters.md), and no other user's."""

from __future__ import annotations

from agentscope.message import Msg

from memadapt_agentscope import MemadaptLongTermMemory
from memadapt_langchain import MemadaptStore


async def test_a_users_langgraph_item_reaches_that_users_long_term_memory(amemory):
    await MemadaptStore(amemory).aput(("memories", "maya"), "sister", {"content": "Maya's sister lives in Porto"})

    maya = await MemadaptLongTermMemory(amemory, user_id="maya").retrieve(
        Msg("maya", "Where does my sister live?", "user")
    )
    tom = await MemadaptLongTermMemory(amemory, user_id="tom").retrieve(
        Msg("tom", "Where does my sister live?", "user")
    )

    assert "Maya's sister lives in Porto" in maya
    assert "Porto" not in tom
