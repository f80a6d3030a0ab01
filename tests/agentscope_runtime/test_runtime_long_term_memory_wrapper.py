"""memadapt's service behind the runtime's own ``AgentScopeLongTermMemory`` wrapper, driving a real AgentScope 1.x
``ReActAgent``: the service is called exactly as the runtime calls it."""

from __future__ import annotations

from agentscope.message import Msg
from agentscope_runtime.adapters.agentscope.long_term_memory import AgentScopeLongTermMemory

from memadapt_agentscope import MemadaptMemoryService


async def test_two_turns_store_each_message_once(amemory, make_agent):
    async with MemadaptMemoryService(amemory) as service:
        agent, _ = make_agent(
            AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"),
            ["Noted, teal it is.", "You like teal."],
        )
        first = Msg("alice", "My favourite colour is teal.", "user")
        first_reply = await agent(first)
        second = Msg("alice", "Which colour do I like?", "user")
        second_reply = await agent(second)

    records = (await amemory.list(user_id="alice")).records
    assert [(r.external_id, r.text) for r in records] == [
        (first.id, "My favourite colour is teal."),
        (first_reply.id, "Noted, teal it is."),
        (second.id, "Which colour do I like?"),
        (second_reply.id, "You like teal."),
    ]


async def test_a_new_session_is_reminded_of_the_last_one(amemory, make_agent, prompt_of):
    async with MemadaptMemoryService(amemory) as service:
        agent, _ = make_agent(AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"), ["Noted."])
        await agent(Msg("alice", "I am training for the Berlin marathon.", "user"))

        agent, model = make_agent(AgentScopeLongTermMemory(service, user_id="alice", session_id="s2"), ["Berlin."])
        await agent(Msg("alice", "Which marathon am I training for?", "user"))

    prompt = prompt_of(model.prompts[0])
    assert "<long_term_memory>" in prompt
    assert "I am training for the Berlin marathon." in prompt


async def test_another_user_is_reminded_of_nothing(amemory, make_agent, prompt_of):
    async with MemadaptMemoryService(amemory) as service:
        agent, _ = make_agent(AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"), ["Noted."])
        await agent(Msg("alice", "I am training for the Berlin marathon.", "user"))

        agent, model = make_agent(AgentScopeLongTermMemory(service, user_id="bob", session_id="s2"), ["No idea."])
        await agent(Msg("bob", "Which marathon am I training for?", "user"))

    assert "<long_term_memory>" not in prompt_of(model.prompts[0])


async def test_the_agent_retrieves_with_the_wrappers_tool(amemory, make_agent, prompt_of):
    async with MemadaptMemoryService(amemory) as service:
        agent, _ = make_agent(AgentScopeLongTermMemory(service, user_id="alice", session_id="s1"), ["Noted."])
        await agent(Msg("alice", "I am training for the Berlin marathon.", "user"))

        steps = [("retrieve_from_memory", {"keywords": ["marathon"]}), "Berlin."]
        agent, model = make_agent(
            AgentScopeLongTermMemory(service, user_id="alice", session_id="s2"), steps, mode="agent_control"
        )
        await agent(Msg("alice", "Which marathon am I training for?", "user"))

    assert "I am training for the Berlin marathon." in prompt_of(model.prompts[1])
