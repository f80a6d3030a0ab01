"""What memadapt's MemoryService adds to the interface: a real subclass, one record per message however often it
is sent, and the store shared with everything else that uses the engine."""

from __future__ import annotations

import subprocess
import sys

import pytest
from agentscope.message import Msg, TextBlock, ThinkingBlock
from agentscope_runtime.adapters.agentscope.message import agentscope_msg_to_message
from agentscope_runtime.engine.schemas.agent_schemas import Message
from agentscope_runtime.engine.services.memory.memory_service import MemoryService

from memadapt_agentscope import MemadaptMemoryService
from memadapt_core import AsyncMemory, ValidationError
from tests._planted import aplant


@pytest.fixture
async def service(amemory):
    async with MemadaptMemoryService(amemory) as started:
        yield started


def test_it_is_a_runtime_memory_service(amemory):
    assert isinstance(MemadaptMemoryService(amemory), MemoryService)


def test_importing_it_prints_no_runtime_deprecation_notice():
    done = subprocess.run(
        [sys.executable, "-W", "default", "-c", "import memadapt_agentscope"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )

    assert done.stderr == ""


async def test_a_message_sent_twice_is_stored_once(service, amemory, message):
    hello = message("I love hiking in the mountains")

    await service.add_memory("alice", [hello], session_id="s1")
    await service.add_memory("alice", [hello], session_id="s1")

    assert await amemory.count(user_id="alice") == 1


async def test_a_message_resent_with_a_fresh_id_but_the_same_original_id_is_stored_once(service, amemory):
    said = Msg("alice", "I love hiking in the mountains", "user")

    for _ in range(3):  # the runtime's AgentScope adapter converts (with fresh ids) on every call
        await service.add_memory("alice", agentscope_msg_to_message([said, said]), session_id="s1")

    [record] = (await amemory.list(user_id="alice")).records
    assert record.external_id == said.id


async def test_each_text_part_of_one_agentscope_message_is_kept(service, message):
    said = Msg(
        "Friday",
        [
            TextBlock(type="text", text="Lisbon is sunny."),
            ThinkingBlock(type="thinking", thinking="the user may travel"),
            TextBlock(type="text", text="Pack sunscreen."),
        ],
        "assistant",
    )
    parts = agentscope_msg_to_message(said)

    await service.add_memory("alice", parts, session_id="s1")
    await service.add_memory("alice", agentscope_msg_to_message(said), session_id="s1")

    texts = [m.content[0].text for m in await service.list_memory("alice")]
    assert texts == ["Lisbon is sunny.", "Pack sunscreen."]


async def test_reasoning_and_tool_messages_are_not_stored(service, amemory):
    said = Msg("Friday", [ThinkingBlock(type="thinking", thinking="the user may travel")], "assistant")

    await service.add_memory("alice", agentscope_msg_to_message(said), session_id="s1")

    assert await amemory.count(user_id="alice") == 0


async def test_the_agents_own_retrieved_memory_note_is_not_stored_again(service, amemory):
    note = Msg("long_term_memory", "<long_term_memory>I love hiking</long_term_memory>", "user")

    await service.add_memory("alice", agentscope_msg_to_message(note), session_id="s1")

    assert await amemory.count(user_id="alice") == 0


async def test_stored_messages_keep_role_and_sender(service, amemory):
    said = Msg("Friday", "Rome is lovely in spring.", "assistant")

    await service.add_memory("alice", agentscope_msg_to_message(said), session_id="s1")

    [record] = (await amemory.list(user_id="alice")).records
    assert (record.role, record.name, record.session_id, record.kind) == ("assistant", "Friday", "s1", "message")


async def test_memories_stored_by_others_come_back_as_text_messages(service, amemory, message):
    [fact] = await amemory.add("Alice is allergic to peanuts.", user_id="alice", kind="fact")

    [found] = await service.search_memory("alice", [message("peanuts allergy")])

    assert isinstance(found, Message)
    assert (found.id, found.content[0].text) == (fact.id, "Alice is allergic to peanuts.")
    assert found.metadata == {
        "memadapt": {"record_id": fact.id, "kind": "fact", "observed_at": fact.observed_at.isoformat()}
    }


async def test_an_agent_id_keeps_applications_apart(amemory, message):
    async with (
        MemadaptMemoryService(amemory, agent_id="app-a") as a,
        MemadaptMemoryService(amemory, agent_id="app-b") as b,
    ):
        await a.add_memory("alice", [message("I love hiking in the mountains")], session_id="s1")

        assert await b.search_memory("alice", [message("hiking")]) == []
        assert len(await a.search_memory("alice", [message("hiking")])) == 1


async def test_something_that_is_not_a_message_is_refused(service):
    with pytest.raises(ValidationError, match=r"messages\[0\]"):
        await service.add_memory("alice", [42], session_id="s1")


async def test_stop_leaves_an_engine_it_was_given_open(amemory, message):
    async with MemadaptMemoryService(amemory) as service:
        await service.add_memory("alice", [message("I love hiking")], session_id="s1")

    assert await amemory.count(user_id="alice") == 1


async def test_deep_pages_are_reached_past_the_engines_page_limit(message):
    async with AsyncMemory(location=":memory:", max_limit=3) as small, MemadaptMemoryService(small) as service:
        stored = [message(f"note {i}: a fact about topic {i}") for i in range(9)]
        await service.add_memory("alice", stored, session_id="s1")

        assert await service.list_memory("alice", {"page_num": 4, "page_size": 2}) == stored[6:8]


async def test_with_profile_a_search_starts_with_the_users_profile_as_a_system_message(amemory, message):
    await aplant(amemory, "Allergic to peanuts", user_id="alice", kind="profile", metadata={"section": "constraints"})
    await amemory.add("Alice loves hiking in the Alps.", user_id="alice", kind="fact")
    async with MemadaptMemoryService(amemory, profile=True) as service:
        first, *rest = await service.search_memory("alice", [message("hiking")])

    assert isinstance(first, Message)
    assert first.role == "system"
    assert "constraints: Allergic to peanuts" in first.content[0].text
    assert [m.content[0].text for m in rest] == ["Alice loves hiking in the Alps."]
