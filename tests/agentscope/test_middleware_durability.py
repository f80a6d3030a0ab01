"""The exchange is stored when ``reply()`` returns: closing the engine right after it loses nothing."""

from __future__ import annotations

from pathlib import Path

from agentscope.message import UserMsg

from memadapt_agentscope import MemadaptMiddleware, memadapt_middleware_factory
from memadapt_core import AsyncMemory


async def stored_texts(folder: Path, user_id: str = "alice") -> list[str]:
    async with AsyncMemory(path=folder) as reopened:
        return [r.text for r in (await reopened.list(user_id=user_id)).records]


async def test_the_last_exchange_survives_closing_the_engine_right_after_the_reply(tmp_path, make_agent):
    async with AsyncMemory(path=tmp_path) as engine:
        agent, _ = make_agent(MemadaptMiddleware(engine, user_id="alice"), ["Noted, teal it is."])
        await agent.reply(UserMsg(name="alice", content="My favourite colour is teal."))

    assert await stored_texts(tmp_path) == ["My favourite colour is teal.", "Noted, teal it is."]


async def test_a_factory_built_middleware_stores_before_the_reply_returns(tmp_path, make_agent):
    async with AsyncMemory(path=tmp_path) as engine:
        [mw] = await memadapt_middleware_factory(engine)("alice", "helper", "session-1")
        agent, _ = make_agent(mw, ["Noted."])
        await agent.reply(UserMsg(name="alice", content="I am training for the Berlin marathon."))

    assert await stored_texts(tmp_path) == ["I am training for the Berlin marathon.", "Noted."]


async def test_background_writes_are_drained_when_the_middleware_closes(tmp_path, make_agent):
    engine = AsyncMemory(path=tmp_path)
    async with engine, MemadaptMiddleware(engine, user_id="alice", background=True) as mw:  # closed first
        agent, _ = make_agent(mw, ["Noted.", "Noted again."])
        await agent.reply(UserMsg(name="alice", content="My cat is called Miso."))
        await agent.reply(UserMsg(name="alice", content="My dog is called Pax."))

    assert await stored_texts(tmp_path) == ["My cat is called Miso.", "Noted.", "My dog is called Pax.", "Noted again."]


async def test_closing_the_engine_waits_for_background_writes_of_an_unclosed_middleware(tmp_path, make_agent):
    async with AsyncMemory(path=tmp_path) as engine:
        agent, _ = make_agent(MemadaptMiddleware(engine, user_id="alice", background=True), ["Noted."])
        await agent.reply(UserMsg(name="alice", content="My cat is called Miso."))

    assert await stored_texts(tmp_path) == ["My cat is called Miso.", "Noted."]


async def test_aclose_waits_for_background_writes(amemory, make_agent):
    mw = MemadaptMiddleware(amemory, user_id="alice", background=True)
    agent, _ = make_agent(mw, ["Noted."])
    await agent.reply(UserMsg(name="alice", content="My cat is called Miso."))

    await mw.aclose()

    assert await amemory.count(user_id="alice") == 2


async def test_a_76000_character_reply_is_stored_whole(amemory, make_agent):
    long_reply = ("The Berlin marathon route passes the Brandenburg Gate. " * 1400)[:76_000]
    agent, _ = make_agent(MemadaptMiddleware(amemory, user_id="alice"), [long_reply])

    await agent.reply(UserMsg(name="alice", content="Describe the Berlin marathon route in detail."))

    texts = [r.text for r in (await amemory.list(user_id="alice")).records]
    assert texts == ["Describe the Berlin marathon route in detail.", long_reply]


async def test_a_background_write_lost_to_a_closed_engine_says_how_to_avoid_it(make_agent, caplog):
    engine = AsyncMemory(location=":memory:")
    mw = MemadaptMiddleware(engine, user_id="alice", background=True)
    agent, _ = make_agent(mw, ["Noted."])
    await engine.close()  # before the write could run, whatever the scheduling
    await agent.reply(UserMsg(name="alice", content="My cat is called Miso."))

    await mw.aclose()

    assert "await middleware.aclose() before closing the engine" in caplog.text
