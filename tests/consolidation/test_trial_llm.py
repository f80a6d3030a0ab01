"""The trial LLM (``memadapt serve --llm scripted``) through the real engine: every consolidation step's canned
answer passes that step's own parser, so facts, the profile and a lesson appear, and ``answer`` echoes what was
recalled. Its answers are checked for shape, never for wisdom."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memadapt_core import Memory
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
