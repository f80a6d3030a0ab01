"""Deleting knowledge deletes what was derived only from it: a profile statement (current or earlier) whose every
source is deleted goes, and so does an insight, through every delete path and both twins.

The scripted LLM extracts facts from a queue; once the queue is empty a responder adds every new fact, draws one
insight from the facts it is shown, and writes one statement per piece of knowledge no statement covers yet
(rewriting the statements whose knowledge is outdated)."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_core.testing import ChatRequest, HashEmbedder, ScriptedLLMServer

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
LATER = T0 + timedelta(days=30)
Engine = Memory | AsyncMemory


def _answer(request: ChatRequest) -> dict[str, Any] | None:
    payload = request.payload
    if request.operation == "reconcile":
        return {"decisions": [{"fact": f["n"], "action": "ADD"} for f in payload["new_facts"]]}
    if request.operation == "reflect":
        return {"insights": [{"text": "Alex cares about health", "sources": [f["n"] for f in payload["facts"]]}]}
    if request.operation != "profile":
        return None
    current = payload["statements"]
    covered = {n for s in current for n in s["based_on"]}
    outdated = [s["n"] for s in current if s["outdated"] and not s["based_on"]]
    out = []
    for item in payload["knowledge"]:
        if item["n"] not in covered:
            replaces, outdated = outdated[:1], outdated[1:]
            text = f"Profile: {item['text']}"
            out.append({"section": "identity", "text": text, "sources": [item["n"]], "replaces": replaces})
    return {"statements": out, "obsolete": []}


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=_answer) as srv:
        yield srv


def _settings(server: ScriptedLLMServer, **extra: Any) -> dict[str, Any]:
    llm = {"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1}
    return {"location": ":memory:", "llm": llm, "tiers": {"profile": True}, "embedder": HashEmbedder(), **extra}


@pytest.fixture(params=["sync", "async"])
async def mem(request: pytest.FixtureRequest, server: ScriptedLLMServer) -> AsyncIterator[Engine]:
    if request.param == "sync":
        with Memory(**_settings(server)) as engine:
            yield engine
    else:
        async with AsyncMemory(**_settings(server)) as aengine:
            yield aengine


async def done(value: Any) -> Any:
    """The sync twin's result, or the async twin's awaited."""
    return await value if inspect.isawaitable(value) else value


def said(text: str, at: datetime = T0) -> dict[str, Any]:
    return {"role": "user", "name": "Alex", "content": text, "timestamp": at}


def extracted(*facts: str) -> dict[str, Any]:
    return {"facts": [{"text": t, "sources": [0]} for t in facts]}


async def _learn(mem: Engine, server: ScriptedLLMServer, session: str, *facts: str, at: datetime = T0) -> None:
    server.push(extracted(*facts))
    await done(mem.add([said(f"I say: {f}", at) for f in facts], user_id="alex", session_id=session))
    await done(mem.flush())


async def _fact(mem: Engine, text: str) -> str:
    page = await done(mem.list(user_id="alex", kinds=["fact"]))
    return next(r.id for r in page.records if r.text == text)


async def _statements(mem: Engine, as_of: datetime | None = None) -> list[str]:
    return [s.text for s in (await done(mem.profile(user_id="alex", as_of=as_of))).statements]


async def test_deleting_a_fact_removes_the_statement_resting_on_it(mem: Engine, server: ScriptedLLMServer) -> None:
    await _learn(mem, server, "s1", "Alex is allergic to peanuts", "Alex loves hiking")
    statement = next(s for s in (await done(mem.profile(user_id="alex"))).statements if "peanuts" in s.text)

    assert await done(mem.delete(await _fact(mem, "Alex is allergic to peanuts")))

    assert await _statements(mem) == ["Profile: Alex loves hiking"]
    assert await done(mem.get(statement.id)) is None


async def test_deleting_facts_by_id_removes_their_statements(mem: Engine, server: ScriptedLLMServer) -> None:
    await _learn(mem, server, "s1", "Alex is allergic to peanuts", "Alex loves hiking")
    ids = [await _fact(mem, "Alex is allergic to peanuts"), await _fact(mem, "Alex loves hiking")]

    assert await done(mem.delete_many(ids, user_id="alex")) == 2

    assert (await done(mem.profile(user_id="alex"))).is_empty()


async def test_deleting_a_session_removes_what_it_taught_the_profile_and_keeps_the_rest(
    mem: Engine, server: ScriptedLLMServer
) -> None:
    await _learn(mem, server, "s1", "Alex is allergic to peanuts")
    await _learn(mem, server, "s2", "Alex loves hiking", at=LATER)

    await done(mem.delete_all(user_id="alex", session_id="s1"))

    assert await _statements(mem) == ["Profile: Alex loves hiking"]
    hits = await done(mem.search("peanuts", user_id="alex", kinds=["profile"], include_superseded=True))
    assert hits == []


async def test_deleting_a_users_memories_leaves_no_profile(mem: Engine, server: ScriptedLLMServer) -> None:
    await _learn(mem, server, "s1", "Alex is allergic to peanuts")

    await done(mem.delete_all(user_id="alex"))

    assert (await done(mem.profile(user_id="alex"))).version == 0


@pytest.mark.parametrize("mem", ["sync"], indirect=True)
async def test_a_deleted_fact_leaves_no_earlier_version_of_the_profile_behind(
    mem: Engine, server: ScriptedLLMServer
) -> None:
    await _learn(mem, server, "s1", "Alex lives in Paris")
    server.push(extracted("Alex lives in Berlin"), {"decisions": [{"fact": 0, "action": "UPDATE", "target": 0}]})
    await done(mem.add(said("I moved to Berlin", LATER), user_id="alex", session_id="s2"))
    await done(mem.flush())
    first = (await done(mem.profile(user_id="alex"))).versions[0]
    assert await _statements(mem, as_of=first) == ["Profile: Alex lives in Paris"]

    await done(mem.delete(await _fact(mem, "Alex lives in Paris")))

    assert await _statements(mem, as_of=first) == []
    assert await _statements(mem) == ["Profile: Alex lives in Berlin"]


@pytest.mark.parametrize("mem", ["sync"], indirect=True)
async def test_a_statement_with_a_source_left_stays(mem: Engine, server: ScriptedLLMServer) -> None:
    both = {"section": "identity", "text": "Hikes, avoiding peanuts", "sources": [0, 1]}
    server.push(extracted("Alex is allergic to peanuts", "Alex loves hiking"), {"statements": [both]})
    await done(mem.add(said("peanuts and hiking"), user_id="alex", session_id="s1"))
    await done(mem.flush())

    await done(mem.delete(await _fact(mem, "Alex is allergic to peanuts")))

    assert await _statements(mem) == ["Hikes, avoiding peanuts"]


async def test_an_insight_and_its_statement_go_with_the_facts_they_rest_on(server: ScriptedLLMServer) -> None:
    async with AsyncMemory(**_settings(server, reflect_every=2)) as mem:
        await _learn(mem, server, "s1", "Alex is allergic to peanuts", "Alex avoids sugar")
        insights = await mem.list(user_id="alex", kinds=["insight"])
        assert [r.text for r in insights.records] == ["Alex cares about health"]
        assert "Profile: Alex cares about health" in await _statements(mem)

        await mem.delete_all(user_id="alex", session_id="s1")

        assert (await mem.list(user_id="alex", kinds=["insight"])).records == []
        assert (await mem.profile(user_id="alex")).is_empty()
