"""The trial LLM (``memadapt serve --llm scripted``) through the real engine: every consolidation step's canned
answer passes that step's own parser, so facts, the profile and a lesson appear, and ``answer`` echoes what was
recalled. Its answers are checked for shape, never for wisdom."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from memadapt_core import Memory
from memadapt_core.consolidation.planning.experience_plan import build_experience_reconciliation
from memadapt_core.consolidation.planning.experiences import Experience, build_experience_validation
from memadapt_core.consolidation.planning.extraction import Fact
from memadapt_core.consolidation.planning.reconciliation import build_reconciliation
from memadapt_core.consolidation.planning.reflection import build_reflection
from memadapt_core.consolidation.planning.tool_guides import build_tool_guide
from memadapt_core.models import JSON, Kind, MemoryRecord, Scope
from memadapt_core.testing import ChatRequest, ScriptedLLMServer, trial_llm_server, trial_responder

USER = "ann"
TOLD = [
    {"role": "user", "content": "Hi! I am allergic to peanuts. I love hiking in the Alps every summer."},
    {"role": "assistant", "content": "Noted, I will remember that."},
    {"role": "user", "content": "My sister Lea lives in Lyon. What should I cook tonight?"},
]
FAILED = {
    "messages": [
        {"role": "user", "content": "Book a flight for next Friday."},
        {"role": "assistant", "content": "The booking tool refused the date."},
    ],
    "score": 0.0,
}


@pytest.fixture
def trial() -> Iterator[ScriptedLLMServer]:
    with trial_llm_server() as server:
        yield server


@pytest.fixture
def mem(trial: ScriptedLLMServer) -> Iterator[Memory]:
    with Memory(location=":memory:", llm=trial.llm_settings(), tiers={"profile": True}) as m:
        yield m


def test_trial_facts_are_the_users_own_sentences_and_the_profile_repeats_them(
    trial: ScriptedLLMServer, mem: Memory
) -> None:
    mem.add(TOLD, user_id=USER, session_id="s1")

    mem.consolidate(user_id=USER)
    mem.flush()

    facts = {r.text for r in mem.list(user_id=USER, kinds=["fact"]).records}
    told = {"I am allergic to peanuts.", "I love hiking in the Alps every summer.", "My sister Lea lives in Lyon."}
    assert facts == told
    profile = mem.profile(user_id=USER)
    lines = profile.lines()
    assert any("allergic to peanuts" in line and line.startswith("constraints") for line in lines), lines
    assert {r.operation for r in trial.chat_requests()} >= {"extract", "profile"}


def test_trial_lesson_is_drawn_from_a_failed_trajectory(mem: Memory) -> None:
    mem.add_trajectories(FAILED, agent_id="travel", task="book a flight")

    mem.flush()

    (lesson,) = mem.list(agent_id="travel", kinds=["experience"]).records
    assert lesson.text == "book a flight"
    assert lesson.metadata["evidence"] == "failure"


def test_trial_answer_echoes_the_memories_recalled(mem: Memory) -> None:
    mem.add({"role": "user", "content": "My cat is called Pepper."}, user_id=USER)

    found = mem.answer("What is my cat called?", user_id=USER, remember=False)

    assert "My cat is called Pepper." in found.answer
    assert found.answer.startswith("(trial LLM")


def test_trial_unknown_json_step_gets_an_empty_object_and_prose_an_echo() -> None:
    unknown = ChatRequest({"messages": [{"role": "user", "content": "{}"}], "response_format": {"type": "json_object"}},
                          "a_plugin_step")  # fmt: skip
    prose = ChatRequest({"messages": [{"role": "system", "content": "no memories"}]}, "a_plugin_step")

    assert trial_responder(unknown) == {}
    assert trial_responder(prose) == "(trial LLM) I do not remember anything about that yet."


# -- the steps the engine tests above do not reach: their builders' requests, answered, through their parsers ------
WHEN = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)


def record(n: int, text: str, kind: Kind, **metadata: JSON) -> MemoryRecord:
    return MemoryRecord(id=f"r{n}", text=text, kind=kind, observed_at=WHEN, created_at=WHEN, updated_at=WHEN,
                        metadata=dict(metadata))  # fmt: skip


def answered(operation: str, messages: list[dict[str, str]] | None) -> Any:
    assert messages is not None
    body = {"messages": messages, "response_format": {"type": "json_object"}}
    return trial_responder(ChatRequest(body, operation))


def test_trial_reconciliation_adds_each_new_fact() -> None:
    fact = Fact("Ann moved to Ghent.", ("m1",), WHEN, WHEN)
    call = build_reconciliation([fact], [[record(1, "Ann lives in Lyon.", "fact")]], ["m1"])

    decisions = call.parse(answered("reconcile", call.messages))

    assert [d.action for d in decisions] == ["ADD"]


def test_trial_reflection_draws_no_insight() -> None:
    call = build_reflection(Scope.of(user_id=USER), [record(1, "Ann keeps bees.", "fact")])
    assert call is not None

    plan = call.parse(answered("reflect", call.messages))

    assert plan.records == []


def test_trial_validation_and_experience_reconciliation_keep_a_lesson() -> None:
    trajectory = record(1, "[user] book a flight", "trajectory", task="book a flight", score=1.0)
    lesson = Experience("booking a flight", "Confirm the date first.", "success", 1.0, ("r1",), WHEN)
    stored = record(2, "paying a bill", "experience", content="Check the amount.")
    validation = build_experience_validation([trajectory], [lesson])
    reconciliation = build_experience_reconciliation([lesson], [[stored]])

    judgements = validation.parse(answered("validate_experience", validation.messages))
    decisions = reconciliation.parse(answered("reconcile_experience", reconciliation.messages))

    assert [j.valid for j in judgements] == [True]
    assert [d.action for d in decisions] == ["ADD"]


def test_trial_tool_guide_names_the_tool() -> None:
    call = build_tool_guide("search_web", [record(1, "search_web(q='bees')", "tool_call", tool="search_web")], None, {})

    guide = call.parse(answered("tool_guide", call.messages))

    assert guide.startswith("- search_web: 1 recent calls")
