"""What a ReActAgent's turn stores is on disk when the turn returns: closing the engine right after it (and
reopening the folder) loses nothing, through the runtime's service and through the direct 1.x adapter."""

from __future__ import annotations

from agentscope.message import Msg
from agentscope_runtime.adapters.agentscope.long_term_memory import AgentScopeLongTermMemory

from memadapt_agentscope import MemadaptLongTermMemory, MemadaptMemoryService
from memadapt_core import AsyncMemory

LONG_REPLY = ("The Berlin marathon route passes the Brandenburg Gate. " * 1400)[:76_000]


async def stored_texts(folder) -> list[str]:
    async with AsyncMemory(path=folder) as reopened:
        return [r.text for r in (await reopened.list(user_id="alice")).records]


async def test_the_last_turn_through_the_service_survives_closing_the_engine(tmp_path, make_agent):
    async with AsyncMemory(path=tmp_path) as engine, MemadaptMemoryService(engine) as service:
        agent, _ = make_agent(AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"), ["Noted."])
        await agent(Msg("alice", "My favourite colour is teal.", "user"))

    assert await stored_texts(tmp_path) == ["My favourite colour is teal.", "Noted."]


async def test_a_service_that_opened_its_own_engine_keeps_the_last_turn_after_stop(tmp_path, make_agent, monkeypatch):
    monkeypatch.setenv("MEMADAPT_PATH", str(tmp_path))
    async with MemadaptMemoryService() as service:
        agent, _ = make_agent(AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"), ["Noted."])
        await agent(Msg("alice", "I am training for the Berlin marathon.", "user"))

    assert await stored_texts(tmp_path) == ["I am training for the Berlin marathon.", "Noted."]


async def test_the_last_turn_through_the_direct_adapter_survives_closing_the_engine(tmp_path, make_agent):
    async with AsyncMemory(path=tmp_path) as engine:
        agent, _ = make_agent(MemadaptLongTermMemory(engine, user_id="alice", session_id="s1"), ["Noted."])
        await agent(Msg("alice", "My cat is called Miso.", "user"))

    assert await stored_texts(tmp_path) == ["My cat is called Miso.", "Noted."]


async def test_a_76000_character_reply_is_stored_whole(amemory, make_agent):
    async with MemadaptMemoryService(amemory) as service:
        agent, _ = make_agent(AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"), [LONG_REPLY])
        await agent(Msg("alice", "Describe the Berlin marathon route in detail.", "user"))

    texts = [r.text for r in (await amemory.list(user_id="alice")).records]
    assert texts == ["Describe the Berlin marathon route in detail.", LONG_REPLY]


async def test_a_long_reply_through_the_direct_adapter_is_stored_whole(amemory, make_agent):
    agent, _ = make_agent(MemadaptLongTermMemory(amemory, user_id="alice", session_id="s1"), [LONG_REPLY])
    await agent(Msg("alice", "Describe the Berlin marathon route in detail.", "user"))

    texts = [r.text for r in (await amemory.list(user_id="alice")).records]
    assert texts == ["Describe the Berlin marathon route in detail.", LONG_REPLY]
