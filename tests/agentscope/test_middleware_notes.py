"""The agent's context holds one memory note: each turn's note replaces the previous one."""

from __future__ import annotations

from agentscope.agent import Agent
from agentscope.message import UserMsg
from agentscope.state import AgentState

from memadapt_agentscope import MemadaptMiddleware

FACTS = [
    "Alice keeps bees in her garden.",
    "Alice's favourite colour is teal.",
    "Alice is training for the Berlin marathon.",
]
QUESTIONS = ["Does Alice keep bees?", "What is Alice's favourite colour?", "Which marathon is Alice training for?"]


def notes(agent: Agent) -> list[str]:
    return [m.content[0].hint for m in agent.state.context if m.name == "memory"]


async def test_context_holds_one_note_over_three_turns(amemory, make_agent, memory_hints):
    for fact in FACTS:
        await amemory.add(fact, user_id="alice", kind="fact")
    agent, model = make_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["Yes."] * 3)

    for question in QUESTIONS:
        await agent.reply(UserMsg(name="alice", content=question))

    [note] = notes(agent)
    assert "Berlin marathon" in note
    assert [len(memory_hints(call)) for call in model.calls] == [1, 1, 1]


async def test_the_note_follows_the_newest_user_message(amemory, make_agent):
    for fact in FACTS:
        await amemory.add(fact, user_id="alice", kind="fact")
    agent, _ = make_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["Yes."] * 2)

    await agent.reply(UserMsg(name="alice", content=QUESTIONS[0]))
    await agent.reply(UserMsg(name="alice", content=QUESTIONS[1]))

    assert [(m.role, m.name) for m in agent.state.context] == [
        ("user", "alice"),
        ("assistant", "assistant"),
        ("user", "alice"),
        ("assistant", "memory"),
        ("assistant", "assistant"),
    ]


async def test_a_turn_that_finds_nothing_removes_the_previous_note(amemory, make_agent):
    await amemory.add(FACTS[0], user_id="alice", kind="fact")
    agent, _ = make_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["Yes.", "4."])

    await agent.reply(UserMsg(name="alice", content=QUESTIONS[0]))
    await agent.reply(UserMsg(name="alice", content="What is two plus two?"))

    assert notes(agent) == []


async def test_a_note_restored_with_the_agents_saved_state_is_replaced(amemory, make_agent):
    for fact in FACTS:
        await amemory.add(fact, user_id="alice", kind="fact")
    first, _ = make_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["Yes."])
    await first.reply(UserMsg(name="alice", content=QUESTIONS[0]))
    saved = first.state.model_dump_json()

    restored = AgentState.model_validate_json(saved)
    second, _ = make_agent(
        MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["Teal."], state=restored
    )
    await second.reply(UserMsg(name="alice", content=QUESTIONS[1]))

    [note] = notes(second)
    assert "teal" in note


async def test_another_users_note_stays(amemory, make_agent):
    await amemory.add(FACTS[0], user_id="alice", kind="fact")
    await amemory.add("Bob keeps bees too.", user_id="bob", kind="fact")
    alice = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    bob = MemadaptMiddleware(amemory, user_id="bob", mode="static_control")
    agent, _ = make_agent(alice, ["Yes."])
    await agent.reply(UserMsg(name="alice", content="Who keeps bees?"))
    other, _ = make_agent(bob, ["Yes."], state=agent.state)  # e.g. a hand-over between two users' middlewares

    await other.reply(UserMsg(name="bob", content="Who keeps bees?"))

    assert len(notes(other)) == 2
