"""A Chinese conversation consolidated through the real engine, with an OpenAI-compatible LLM served over real HTTP
on 127.0.0.1: Chinese facts, a move that supersedes the old address, Chinese insights and profile lines, and every
prompt the LLM received asking for the language of what it reads.

The scripted LLM answers as a model following the prompts would; what is asserted is what the LLM was asked and
what was stored, not how well the test embedder (WordLlama) ranks Chinese text."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memadapt_core import Memory
from memadapt_core.testing import ChatRequest, ScriptedLLMServer

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
LATER = T0 + timedelta(days=30)

SHANGHAI, BEIJING, GUITAR, PEANUTS = "小明住在上海", "小明现在住在北京", "小明的爱好是弹吉他", "小明对花生过敏"
STATEMENTS = {  # what a profile model writes from each fact: the section and a line in the fact's language
    SHANGHAI: ("identity", "住在上海"),
    BEIJING: ("identity", "住在北京"),
    GUITAR: ("interests", "喜欢弹吉他"),
    PEANUTS: ("constraints", "对花生过敏"),
}
INSIGHT = "小明有音乐爱好，饮食上需要避开花生"

ASKS_FOR_THE_LANGUAGE = {  # operation -> the sentence of its prompt (the LLM writes text in these)
    "extract": "Write each fact in the same language as the messages it comes from; do not translate",
    "reflect": "Write each insight in the same language as the facts it rests on; do not translate",
    "profile": "Write each statement in the same language as the knowledge it rests on; do not translate",
}
COMPARES_ACROSS_LANGUAGES = {"reconcile": "compare what they mean, not their words"}  # writes no text


def answer(request: ChatRequest) -> dict[str, Any] | None:
    """Reflection and profile answers drawn from what the request shows (extraction is pushed per test)."""
    payload = request.payload
    if request.operation == "reflect":
        sources = [f["n"] for f in payload["facts"] if f["text"] in (GUITAR, PEANUTS)]
        return {"insights": [{"text": INSIGHT, "sources": sources}] if len(sources) == 2 else [], "obsolete": []}
    if request.operation != "profile":
        return None
    written = {s["text"] for s in payload["statements"]}
    out = []
    for item in payload["knowledge"]:
        if item["text"] not in STATEMENTS:
            continue  # an insight: the facts under it already have their lines
        section, text = STATEMENTS[item["text"]]
        if text not in written:
            replaces = [s["n"] for s in payload["statements"] if s["section"] == section and s["outdated"]]
            out.append({"section": section, "text": text, "sources": [item["n"]], "replaces": replaces})
    return {"statements": out, "obsolete": []}


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=answer) as srv:
        yield srv


@pytest.fixture
def mem(server: ScriptedLLMServer) -> Iterator[Memory]:
    llm = {"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1}
    with Memory(location=":memory:", llm=llm, tiers={"profile": True}) as m:
        yield m


def said(text: str, at: datetime = T0) -> dict[str, Any]:
    return {"role": "user", "name": "小明", "content": text, "timestamp": at}


HOBBY_AND_ALLERGY = [said("我的爱好是吉他。"), said("我对花生过敏！", T0 + timedelta(minutes=1))]


def extracted(*facts: tuple[str, list[int]]) -> dict[str, Any]:
    return {"facts": [{"text": t, "sources": s} for t, s in facts]}


def moved_from_shanghai_to_beijing(mem: Memory, server: ScriptedLLMServer) -> None:
    server.push(extracted((SHANGHAI, [0])))
    mem.add(said("我住在上海。"), user_id="xiaoming", session_id="s1")
    mem.flush()
    server.push(extracted((BEIJING, [0])), {"decisions": [{"fact": 0, "action": "UPDATE", "target": 0}]})
    mem.add(said("我搬到了北京。", LATER), user_id="xiaoming", session_id="s2")
    mem.flush()


def facts(mem: Memory, *, valid_only: bool = True) -> list[str]:
    found = mem.list(user_id="xiaoming", kinds=["fact"]).records
    return sorted(r.text for r in found if r.valid_to is None or not valid_only)


def test_a_chinese_conversation_is_stored_as_chinese_facts_citing_their_messages(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    server.push(extracted((GUITAR, [0]), (PEANUTS, [1])))

    guitar, peanuts = mem.add(HOBBY_AND_ALLERGY, user_id="xiaoming")
    mem.flush()

    stored = {r.text: r.source_ids for r in mem.list(user_id="xiaoming", kinds=["fact"]).records}
    assert stored == {GUITAR: [guitar.id], PEANUTS: [peanuts.id]}
    shown = server.chat_requests("extract")[0].payload["messages"]
    assert [(m["speaker"], m["text"]) for m in shown] == [("小明", "我的爱好是吉他。"), ("小明", "我对花生过敏！")]


def test_a_move_in_chinese_supersedes_the_old_address(server: ScriptedLLMServer, mem: Memory) -> None:
    moved_from_shanghai_to_beijing(mem, server)

    everything = {r.text: r for r in mem.list(user_id="xiaoming", kinds=["fact"]).records}
    shanghai, beijing = everything[SHANGHAI], everything[BEIJING]
    assert (shanghai.valid_to, shanghai.superseded_by) == (LATER, beijing.id)
    assert beijing.supersedes == shanghai.id
    assert facts(mem) == [BEIJING]
    shown = server.chat_requests("reconcile")[0].payload
    assert [f["text"] for f in shown["existing_facts"]] == [SHANGHAI]
    assert [f["text"] for f in shown["new_facts"]] == [BEIJING]


def test_asking_where_one_lives_in_chinese_finds_the_current_address(server: ScriptedLLMServer, mem: Memory) -> None:
    moved_from_shanghai_to_beijing(mem, server)

    now = mem.search("我住在哪里？", user_id="xiaoming", kinds=["fact"])
    then = mem.search("我住在哪里？", user_id="xiaoming", kinds=["fact"], as_of=T0 + timedelta(days=1))

    assert [h.record.text for h in now] == [BEIJING]  # the superseded address is not where one lives now...
    assert [h.record.text for h in then] == [SHANGHAI]  # ...but it was


def test_the_profile_of_a_chinese_speaker_is_written_in_chinese(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(extracted((GUITAR, [0]), (PEANUTS, [1])))
    mem.add(HOBBY_AND_ALLERGY, user_id="xiaoming")
    mem.flush()

    profile = mem.profile(user_id="xiaoming")

    assert profile.lines() == ["interests: 喜欢弹吉他", "constraints: 对花生过敏"]
    (request,) = server.chat_requests("profile")
    assert ASKS_FOR_THE_LANGUAGE["profile"] in request.system
    assert {k["text"] for k in request.payload["knowledge"]} == {GUITAR, PEANUTS}


def test_a_move_in_chinese_rewrites_the_chinese_profile_line(server: ScriptedLLMServer, mem: Memory) -> None:
    moved_from_shanghai_to_beijing(mem, server)

    profile = mem.profile(user_id="xiaoming")

    assert [s.text for s in profile.statements] == ["住在北京"]
    first = mem.profile(user_id="xiaoming", as_of=profile.versions[0])
    assert [s.text for s in first.statements] == ["住在上海"]


def test_insights_drawn_from_chinese_facts_are_chinese(server: ScriptedLLMServer) -> None:
    llm = {"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1}
    with Memory(location=":memory:", llm=llm, reflect_every=2) as mem:
        server.push(extracted((GUITAR, [0]), (PEANUTS, [1])))
        mem.add(HOBBY_AND_ALLERGY, user_id="xiaoming")
        mem.flush()

        (insight,) = mem.list(user_id="xiaoming", kinds=["insight"]).records
        cited = {r.id: r.text for r in mem.list(user_id="xiaoming", kinds=["fact"]).records}

    assert insight.text == INSIGHT
    assert sorted(cited[i] for i in insight.source_ids) == sorted([GUITAR, PEANUTS])
    (request,) = server.chat_requests("reflect")
    assert ASKS_FOR_THE_LANGUAGE["reflect"] in request.system


def test_every_prompt_the_llm_received_asks_for_the_language_of_what_it_reads(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    moved_from_shanghai_to_beijing(mem, server)
    server.push(extracted((GUITAR, [0])))
    mem.add(said("我的爱好是吉他。", LATER), user_id="xiaoming")
    mem.flush()

    received = server.chat_requests()

    assert {r.operation for r in received} == {"extract", "reconcile", "profile"}
    for request in received:
        expected = {**ASKS_FOR_THE_LANGUAGE, **COMPARES_ACROSS_LANGUAGES}[request.operation or ""]
        assert expected in request.system, request.operation
