"""MemadaptMiddleware in static_control / both: retrieve before the reply, store the exchange after it."""

from __future__ import annotations

import asyncio
from contextlib import aclosing

import pytest
from agentscope.message import Msg, UserMsg

from memadapt_agentscope import MemadaptMiddleware
from memadapt_core import AsyncMemory, Memory
from tests._planted import aplant


async def test_second_turn_model_input_carries_first_turn_memory(amemory, make_agent, memory_hints):
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    agent, model = make_agent(mw, ["Noted, teal it is.", "Your favourite colour is teal."])

    await agent.reply(UserMsg(name="alice", content="My favourite colour is teal."))
    await agent.reply(UserMsg(name="alice", content="What is my favourite colour?"))

    assert memory_hints(model.calls[0]) == []
    [hint] = memory_hints(model.calls[1])
    assert "My favourite colour is teal." in hint


async def test_memory_reaches_a_new_session_of_the_same_user(amemory, make_agent, memory_hints):
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    first, _ = make_agent(mw, ["Noted."])
    await first.reply(UserMsg(name="alice", content="I am training for the Berlin marathon."))

    second, model = make_agent(mw, ["Good luck in Berlin!"])
    await second.reply(UserMsg(name="alice", content="Which marathon am I training for?"))

    assert second.state.session_id != first.state.session_id
    [hint] = memory_hints(model.calls[0])
    assert "Berlin marathon" in hint


async def test_injected_memories_are_rendered_by_the_engine(amemory, make_agent, memory_hints):
    await amemory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
    query = "Does Alice keep bees?"
    expected = amemory.format_context(query, await amemory.search(query, user_id="alice", limit=5))
    agent, model = make_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["Yes."])

    await agent.reply(UserMsg(name="alice", content=query))

    assert memory_hints(model.calls[0]) == [expected]


async def test_memory_note_follows_the_user_message_in_context(amemory, make_agent):
    await amemory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
    agent, _ = make_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["Yes."])

    await agent.reply(UserMsg(name="alice", content="Does Alice keep bees?"))

    user, note = agent.state.context[0], agent.state.context[1]
    assert (user.role, note.role, note.name) == ("user", "assistant", "memory")


async def test_exchange_is_stored_after_the_final_reply(amemory, make_agent):
    mw = MemadaptMiddleware(amemory, user_id="alice", agent_id="helper", mode="static_control")
    agent, _ = make_agent(mw, ["Rome is lovely in spring."])
    question = UserMsg(name="alice", content="Where should I travel in April?")

    reply = await agent.reply(question)

    page = await amemory.list(user_id="alice")
    stored = [(r.role, r.name, r.text, r.external_id) for r in page.records]
    assert stored == [
        ("user", "alice", "Where should I travel in April?", question.id),
        ("assistant", "assistant", "Rome is lovely in spring.", reply.id),
    ]
    assert {(r.agent_id, r.session_id) for r in page.records} == {("helper", agent.state.session_id)}


async def test_write_is_awaited_inline_by_default(amemory, make_agent):
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    agent, _ = make_agent(mw, ["Noted."])

    await agent.reply(UserMsg(name="alice", content="My cat is called Miso."))

    assert await amemory.count(user_id="alice") == 2


async def test_exchange_is_stored_when_the_consumer_stops_at_the_final_message(amemory, make_agent):
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    agent, _ = make_agent(mw, ["Noted."])

    async with aclosing(
        agent.reply_stream(UserMsg(name="alice", content="My cat is Miso."), yield_final_msg=True)
    ) as s:
        async for item in s:
            if isinstance(item, Msg):
                break

    async with asyncio.timeout(10):  # the event loop finalises the dropped reply generators, task by task
        while await amemory.count(user_id="alice") < 2:  # noqa: ASYNC110 - no event to wait on inside the engine
            await asyncio.sleep(0.01)


async def test_unrelated_question_injects_nothing(amemory, make_agent, memory_hints):
    await amemory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
    agent, model = make_agent(MemadaptMiddleware(amemory, user_id="alice", mode="static_control"), ["4."])

    await agent.reply(UserMsg(name="alice", content="What is two plus two?"))

    assert memory_hints(model.calls[0]) == []


async def test_nothing_leaks_across_users(amemory, make_agent, memory_hints):
    alice = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    agent, _ = make_agent(alice, ["Noted."])
    await agent.reply(UserMsg(name="alice", content="My favourite colour is teal."))

    bob = MemadaptMiddleware(amemory, user_id="bob", mode="static_control")
    agent, model = make_agent(bob, ["I don't know yet."])
    await agent.reply(UserMsg(name="bob", content="What is my favourite colour?"))

    assert memory_hints(model.calls[0]) == []


async def test_search_is_scoped_to_the_agent_by_default(amemory, make_agent, memory_hints):
    await amemory.add("The user's favourite colour is teal.", user_id="alice", agent_id="other", kind="fact")
    mw = MemadaptMiddleware(amemory, user_id="alice", agent_id="helper", mode="static_control")
    agent, model = make_agent(mw, ["I don't know."])

    await agent.reply(UserMsg(name="alice", content="What is my favourite colour?"))

    assert memory_hints(model.calls[0]) == []


async def test_agents_can_share_a_users_memories(amemory, make_agent, memory_hints):
    await amemory.add("The user's favourite colour is teal.", user_id="alice", agent_id="other", kind="fact")
    mw = MemadaptMiddleware(
        amemory, user_id="alice", agent_id="helper", mode="static_control", scope_search_by_agent=False
    )
    agent, model = make_agent(mw, ["Teal."])

    await agent.reply(UserMsg(name="alice", content="What is my favourite colour?"))

    [hint] = memory_hints(model.calls[0])
    assert "teal" in hint


async def test_static_control_offers_no_tools_and_keeps_the_system_prompt(amemory, make_agent, system_prompt):
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    agent, model = make_agent(mw, ["Hello."])

    await agent.reply(UserMsg(name="alice", content="Hi"))

    assert await mw.list_tools() == []
    assert system_prompt(model.calls[0]) == "You are a helpful assistant."


async def test_both_mode_injects_memories_and_offers_tools(amemory, make_agent, memory_hints):
    await amemory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="both")
    agent, model = make_agent(mw, ["Yes."], tools=await mw.list_tools())

    await agent.reply(UserMsg(name="alice", content="Does Alice keep bees?"))

    assert [t.name for t in await mw.list_tools()] == ["search_memory", "add_memory"]
    assert len(memory_hints(model.calls[0])) == 1


async def test_a_sync_memory_is_used_through_its_async_view(make_agent, memory_hints):
    with Memory(location=":memory:") as memory:
        memory.add("Alice keeps bees in her garden.", user_id="alice", kind="fact")
        agent, model = make_agent(MemadaptMiddleware(memory, user_id="alice", mode="static_control"), ["Yes."])

        await agent.reply(UserMsg(name="alice", content="Does Alice keep bees?"))

        assert len(memory_hints(model.calls[0])) == 1


async def test_reply_survives_a_memory_that_fails(make_agent, memory_hints):
    amemory = AsyncMemory(location=":memory:")
    await amemory.close()
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="static_control")
    agent, model = make_agent(mw, ["Hello anyway."])

    reply = await agent.reply(UserMsg(name="alice", content="Hi there"))

    assert reply.get_text_content() == "Hello anyway."
    assert memory_hints(model.calls[0]) == []


@pytest.mark.parametrize("user_id", ["", "   "])
def test_a_user_id_is_required(amemory, user_id):
    with pytest.raises(ValueError, match="user_id"):
        MemadaptMiddleware(amemory, user_id=user_id)


def test_an_unknown_mode_is_refused(amemory):
    with pytest.raises(ValueError, match="static_control"):
        MemadaptMiddleware(amemory, user_id="alice", mode="always")  # type: ignore[arg-type]


async def test_the_users_profile_goes_in_the_note_before_the_memories(amemory, make_agent, memory_hints):
    await aplant(amemory, "Allergic to peanuts", user_id="alice", kind="profile", metadata={"section": "constraints"})
    mw = MemadaptMiddleware(amemory, user_id="alice", mode="static_control", profile=True)
    agent, model = make_agent(mw, ["How about a risotto?"])

    await agent.reply(UserMsg(name="alice", content="What should I cook tonight?"))

    [hint] = memory_hints(model.calls[0])
    assert "constraints: Allergic to peanuts" in hint
