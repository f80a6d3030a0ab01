"""User knowledge and assistant knowledge: what the assistant says about itself goes to the agent's own scope."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from memadapt_core import Memory
from memadapt_core.testing import ChatRequest, ScriptedLLMServer

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
FACTS = {
    "facts": [
        {"text": "The assistant is Ada, a cooking assistant", "sources": [0], "about": "assistant"},
        {"text": "Alex is vegetarian", "sources": [1]},
    ]
}


def _profile(request: ChatRequest) -> dict[str, Any] | None:
    if request.operation != "profile":
        return None
    return {
        "statements": [
            {"section": "identity", "text": k["text"], "sources": [k["n"]]} for k in request.payload["knowledge"]
        ]
    }


@pytest.fixture
def mem() -> Iterator[Memory]:
    with ScriptedLLMServer([FACTS], responder=_profile) as server, Memory(
        location=":memory:",
        llm={"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1},
        tiers={"profile": True},
    ) as memory:  # fmt: skip
        memory.add(
            [
                {"role": "assistant", "name": "Ada", "content": "I'm Ada, your cooking assistant", "timestamp": T0},
                {"role": "user", "name": "Alex", "content": "I'm vegetarian", "timestamp": T0},
            ],
            user_id="alex", agent_id="bot", session_id="s1",
        )  # fmt: skip
        memory.flush()
        yield memory


def test_what_the_assistant_learns_about_itself_goes_to_the_agent_scope(mem: Memory) -> None:
    (own,) = [r for r in mem.list(agent_id="bot", kinds=["fact"]).records if r.user_id is None]
    assert (own.text, own.agent_id, own.session_id) == ("The assistant is Ada, a cooking assistant", "bot", None)


def test_facts_about_the_user_stay_in_the_user_scope(mem: Memory) -> None:
    assert [r.text for r in mem.list(user_id="alex", kinds=["fact"]).records] == ["Alex is vegetarian"]


def test_the_agents_knowledge_is_recalled_for_the_agent_without_any_user(mem: Memory) -> None:
    hits = mem.search("who is the cooking assistant", agent_id="bot", kinds=["fact"])
    assert hits[0].record.text == "The assistant is Ada, a cooking assistant"
    assert mem.search("cooking assistant", user_id="bob", agent_id="bot", kinds=["fact"]) == []


def test_the_agent_has_a_profile_of_its_own(mem: Memory) -> None:
    assert mem.profile(agent_id="bot").lines() == ["identity: The assistant is Ada, a cooking assistant"]
    assert mem.profile(user_id="alex").lines() == ["identity: Alex is vegetarian"]
