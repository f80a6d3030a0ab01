"""The per-turn factories handed to AgentScope's service, ``create_app(extra_agent_middlewares=...)``."""

from __future__ import annotations

import inspect

from agentscope.message import UserMsg

from memadapt_agentscope import MemadaptMiddleware, memadapt_middleware_factory, memadapt_tools_factory


def test_middleware_factory_takes_the_services_three_arguments(amemory):
    factory = memadapt_middleware_factory(amemory)

    inspect.signature(factory).bind("alice", "helper", "session-1")


async def test_middleware_factory_builds_one_middleware_for_the_turns_user_and_agent(amemory):
    factory = memadapt_middleware_factory(amemory, mode="static_control")

    [mw] = await factory("alice", "helper", "session-1")

    assert isinstance(mw, MemadaptMiddleware)
    assert (mw.user_id, mw.mode) == ("alice", "static_control")


async def test_factory_built_middlewares_share_one_users_memory(amemory, make_agent, memory_hints):
    factory = memadapt_middleware_factory(amemory, mode="static_control")
    [first] = await factory("alice", "helper", "session-1")
    agent, _ = make_agent(first, ["Noted."])
    await agent.reply(UserMsg(name="alice", content="I am training for the Berlin marathon."))

    [second] = await factory("alice", "helper", "session-2")
    agent, model = make_agent(second, ["Berlin."])
    await agent.reply(UserMsg(name="alice", content="Which marathon am I training for?"))

    [hint] = memory_hints(model.calls[0])
    assert "Berlin marathon" in hint


async def test_tools_factory_gives_the_memory_tools_of_the_turns_user(amemory):
    await amemory.add("Alice keeps bees.", user_id="alice", agent_id="helper", kind="fact")
    factory = memadapt_tools_factory(amemory)

    search, add = await factory("alice", "helper", "session-1")
    chunk = await search(keywords=["bees"])

    assert (search.name, add.name) == ("search_memory", "add_memory")
    assert "Alice keeps bees." in chunk.content[0].text
    inspect.signature(factory).bind("alice", "helper", "session-1")
