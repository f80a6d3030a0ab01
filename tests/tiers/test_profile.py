"""The user profile: built by consolidation from facts, each statement citing them, versioned as facts change.

The scripted LLM extracts facts from a queue and answers profile updates with a responder that turns each known
fact into a statement (rewriting a statement whose fact is outdated), as a real model would be asked to."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_core.testing import ChatRequest, ScriptedLLMServer

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
LATER = T0 + timedelta(days=30)

STATEMENTS = {
    "Alex is allergic to peanuts": ("constraints", "Allergic to peanuts"),
    "Alex lives in Paris": ("identity", "Lives in Paris"),
    "Alex lives in Berlin": ("identity", "Lives in Berlin"),
    "Alex loves hiking": ("interests", "Loves hiking"),
}


def _profile_answer(request: ChatRequest) -> dict[str, Any] | None:
    if request.operation != "profile":
        return None
    payload = request.payload
    current = payload["statements"]
    written = {s["text"] for s in current}
    out = []
    for item in payload["knowledge"]:
        section, text = STATEMENTS[item["text"]]
        if text in written:
            continue
        replaces = [s["n"] for s in current if s["section"] == section and s["outdated"]]
        out.append({"section": section, "text": text, "sources": [item["n"]], "replaces": replaces})
    return {"statements": out, "obsolete": []}


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=_profile_answer) as srv:
        yield srv


def _settings(server: ScriptedLLMServer) -> dict[str, Any]:
    return {
        "location": ":memory:",
        "llm": {"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1},
        "tiers": {"profile": True},
    }


def said(text: str, at: datetime) -> dict[str, Any]:
    return {"role": "user", "name": "Alex", "content": text, "timestamp": at}


def extracted(*facts: tuple[str, list[int]]) -> dict[str, Any]:
    return {"facts": [{"text": t, "sources": s} for t, s in facts]}


def _first_conversation(mem: Memory, server: ScriptedLLMServer) -> None:
    server.push(extracted(("Alex is allergic to peanuts", [0]), ("Alex lives in Paris", [1])))
    mem.add([said("I'm allergic to peanuts", T0), said("I live in Paris", T0)], user_id="alex", session_id="s1")
    mem.flush()


def test_a_conversation_builds_a_profile_whose_statements_cite_their_facts(server: ScriptedLLMServer) -> None:
    with Memory(**_settings(server)) as mem:
        _first_conversation(mem, server)

        profile = mem.profile(user_id="alex")
        facts = {r.id: r.text for r in mem.list(user_id="alex", kinds=["fact"]).records}
        assert {s.section: s.text for s in profile.statements} == {
            "constraints": "Allergic to peanuts",
            "identity": "Lives in Paris",
        }
        cited = {s.text: [facts[i] for i in s.source_ids] for s in profile.statements}
        assert cited == {
            "Allergic to peanuts": ["Alex is allergic to peanuts"],
            "Lives in Paris": ["Alex lives in Paris"],
        }
        assert profile.version == 1


def test_a_contradiction_updates_the_profile_and_keeps_the_old_version(server: ScriptedLLMServer) -> None:
    with Memory(**_settings(server)) as mem:
        _first_conversation(mem, server)
        server.push(
            extracted(("Alex lives in Berlin", [0])), {"decisions": [{"fact": 0, "action": "UPDATE", "target": 0}]}
        )
        mem.add(said("I moved to Berlin", LATER), user_id="alex", session_id="s2")
        mem.flush()

        profile = mem.profile(user_id="alex")
        assert [s.text for s in profile.sections["identity"]] == ["Lives in Berlin"]
        assert [s.text for s in profile.sections["constraints"]] == ["Allergic to peanuts"]
        assert profile.version == 2
        before = mem.profile(user_id="alex", as_of=profile.versions[0])
        assert [s.text for s in before.sections["identity"]] == ["Lives in Paris"]
        old = before.sections["identity"][0]
        assert mem.get(old.id).superseded_by == profile.sections["identity"][0].id  # type: ignore[union-attr]


def test_a_statement_goes_when_its_only_fact_is_invalidated(server: ScriptedLLMServer) -> None:
    with Memory(**_settings(server)) as mem:
        _first_conversation(mem, server)
        paris = next(r for r in mem.list(user_id="alex", kinds=["fact"]).records if "Paris" in r.text)
        server.push(
            extracted(("Alex no longer lives in Paris", [0])),
            {"decisions": [{"fact": 0, "action": "DELETE", "target": 0}]},
        )
        mem.add(said("I left Paris", LATER), user_id="alex", session_id="s2")
        mem.flush()

        assert mem.get(paris.id).valid_to is not None  # type: ignore[union-attr]
        assert [s.text for s in mem.profile(user_id="alex").statements] == ["Allergic to peanuts"]


def test_the_profile_is_searchable_as_its_own_kind(server: ScriptedLLMServer) -> None:
    with Memory(**_settings(server)) as mem:
        _first_conversation(mem, server)
        hits = mem.search("peanuts allergy", user_id="alex", kinds=["profile"])
        assert [h.record.text for h in hits] == ["Allergic to peanuts"]
        assert hits[0].record.metadata["section"] == "constraints"


def test_format_context_shows_a_short_profile_block_first(server: ScriptedLLMServer) -> None:
    with Memory(**_settings(server)) as mem:
        _first_conversation(mem, server)
        hits = mem.search("where do I live", user_id="alex", kinds=["message"])
        context = mem.format_context("where do I live", hits, profile=mem.profile(user_id="alex"))
        assert context.index("constraints: Allergic to peanuts") < context.index("I live in Paris")


def test_without_the_setting_no_profile_call_is_made(server: ScriptedLLMServer) -> None:
    settings = _settings(server) | {"tiers": {"profile": False}}
    with Memory(**settings) as mem:
        _first_conversation(mem, server)
        assert server.chat_requests("profile") == []
        assert mem.profile(user_id="alex").is_empty()


async def test_the_async_engine_builds_the_same_profile(server: ScriptedLLMServer) -> None:
    async with AsyncMemory(**_settings(server)) as mem:
        server.push(extracted(("Alex loves hiking", [0])))
        await mem.add(said("I love hiking", T0), user_id="alex", session_id="s1")
        await mem.flush()
        profile = await mem.profile(user_id="alex")
        assert [(s.section, s.text) for s in profile.statements] == [("interests", "Loves hiking")]
