"""MemadaptLongTermMemory: AgentScope 1.x's LongTermMemoryBase on the engine, driving a real ReActAgent."""

from __future__ import annotations

import pytest
from agentscope.message import Msg

from memadapt_agentscope import MemadaptLongTermMemory
from tests._planted import aplant


async def test_two_turns_store_each_message_once(amemory, make_agent):
    memory = MemadaptLongTermMemory(amemory, user_id="alice", session_id="s1")
    agent, _ = make_agent(memory, ["Noted, teal it is.", "You like teal."])

    first = Msg("alice", "My favourite colour is teal.", "user")
    first_reply = await agent(first)
    second = Msg("alice", "Which colour do I like?", "user")
    second_reply = await agent(second)

    records = (await amemory.list(user_id="alice")).records
    assert [(r.external_id, r.role, r.name, r.text) for r in records] == [
        (first.id, "user", "alice", "My favourite colour is teal."),
        (first_reply.id, "assistant", "Friday", "Noted, teal it is."),
        (second.id, "user", "alice", "Which colour do I like?"),
        (second_reply.id, "assistant", "Friday", "You like teal."),
    ]


async def test_a_new_session_is_reminded_with_the_engines_rendering(amemory, make_agent, prompt_of):
    first, _ = make_agent(MemadaptLongTermMemory(amemory, user_id="alice", session_id="s1"), ["Noted."])
    await first(Msg("alice", "I am training for the Berlin marathon.", "user"))

    question = "Which marathon am I training for?"
    expected = amemory.format_context(question, await amemory.search(question, user_id="alice"))
    second, model = make_agent(MemadaptLongTermMemory(amemory, user_id="alice", session_id="s2"), ["Berlin."])

    await second(Msg("alice", question, "user"))

    assert "I am training for the Berlin marathon." in expected
    assert expected in prompt_of(model.prompts[0])


async def test_retrieve_returns_nothing_for_an_unrelated_message(amemory):
    await amemory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
    memory = MemadaptLongTermMemory(amemory, user_id="alice")

    assert await memory.retrieve(Msg("alice", "What is two plus two?", "user")) == ""


async def test_another_user_is_reminded_of_nothing(amemory):
    await amemory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
    memory = MemadaptLongTermMemory(amemory, user_id="bob")

    assert await memory.retrieve(Msg("bob", "Do I keep bees in my garden?", "user")) == ""


async def test_the_agent_records_facts_with_its_tool(amemory, make_agent):
    memory = MemadaptLongTermMemory(amemory, user_id="alice", agent_id="friday", session_id="s1")
    steps = [("record_to_memory", {"thinking": "a health fact", "content": ["Alice is allergic to peanuts."]}), "OK."]
    agent, _ = make_agent(memory, steps, mode="agent_control")

    await agent(Msg("alice", "Remember that I am allergic to peanuts.", "user"))

    [fact] = (await amemory.list(user_id="alice", kinds=["fact"])).records
    assert (fact.text, fact.agent_id, fact.session_id) == ("Alice is allergic to peanuts.", "friday", "s1")


async def test_the_agent_retrieves_with_its_tool(amemory, make_agent, prompt_of):
    await amemory.add("Alice is allergic to peanuts.", user_id="alice", kind="fact")
    steps = [("retrieve_from_memory", {"keywords": ["allergy", "peanuts"]}), "Peanuts."]
    agent, model = make_agent(MemadaptLongTermMemory(amemory, user_id="alice"), steps, mode="agent_control")

    await agent(Msg("alice", "What am I allergic to?", "user"))

    assert prompt_of(model.prompts[1]).count("Alice is allergic to peanuts.") == 1


async def test_the_retrieve_tool_says_when_nothing_is_found(amemory):
    memory = MemadaptLongTermMemory(amemory, user_id="alice")

    response = await memory.retrieve_from_memory(["peanuts"])

    assert response.content[0]["text"] == "No relevant memories found."


async def test_agent_control_leaves_recording_to_the_agent(amemory, make_agent):
    agent, _ = make_agent(MemadaptLongTermMemory(amemory, user_id="alice"), ["Hello."], mode="agent_control")

    await agent(Msg("alice", "Hi, I am Alice.", "user"))

    assert await amemory.count(user_id="alice") == 0


def test_a_user_or_an_agent_is_required(amemory):
    with pytest.raises(ValueError, match="user_id or an agent_id"):
        MemadaptLongTermMemory(amemory, session_id="s1")


async def test_with_profile_the_agent_is_reminded_of_the_users_profile_first(amemory, make_agent, prompt_of):
    await aplant(amemory, "Allergic to peanuts", user_id="alice", kind="profile", metadata={"section": "constraints"})
    await amemory.add("Alice is training for the Berlin marathon.", user_id="alice", kind="fact")
    memory = MemadaptLongTermMemory(amemory, user_id="alice", profile=True)
    agent, model = make_agent(memory, ["Berlin."])

    await agent(Msg("alice", "Which marathon am I training for?", "user"))

    prompt = prompt_of(model.prompts[0])
    assert prompt.index("constraints: Allergic to peanuts") < prompt.index("Alice is training for the Berlin marathon.")


async def test_without_profile_no_profile_block_is_shown(amemory):
    await aplant(amemory, "Allergic to peanuts", user_id="alice", kind="profile", metadata={"section": "constraints"})
    memory = MemadaptLongTermMemory(amemory, user_id="alice")

    assert "constraints:" not in await memory.retrieve(Msg("alice", "What am I allergic to?", "user"))
