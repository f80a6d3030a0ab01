"""No personal data in shared lessons: a lesson keeps only what the LLM wrote as general, never the trajectory's own
``task`` text, and the URLs in it lose their credentials before every user of the agent reads it; a lesson learned
only from a deleted user's runs goes with them (issue 35)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from memadapt_core import Memory
from memadapt_core.testing import ScriptedLLMServer

from .conftest import FAILED_AGAIN, FAILED_BOOKING, GOOD_BOOKING, judged, learned, lesson, llm, merged

AGENT = "travel-agent"
NAME, PASSPORT = "Ann Smith", "X1234567"
TASK = f"book a flight for {NAME}, passport {PASSPORT}"


@pytest.fixture
def mem(server: ScriptedLLMServer) -> Iterator[Memory]:
    with Memory(location=":memory:", **llm(server)) as m:
        yield m


def test_a_lesson_carries_neither_the_name_nor_the_passport_of_its_trajectory(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    server.push(learned(lesson("booking a flight", "Check the passport's expiry before paying.", "success", [0])),
                judged(True))  # fmt: skip
    personal = {**GOOD_BOOKING, "messages": [{"role": "user", "content": TASK}, *GOOD_BOOKING["messages"][1:]]}

    mem.add_trajectories(personal, agent_id=AGENT, user_id="ann", task=TASK)
    mem.flush()

    (experience,) = mem.list(agent_id=AGENT, kinds=["experience"]).records
    shared = json.dumps([experience.text, experience.metadata])
    assert NAME not in shared
    assert PASSPORT not in shared
    assert "task" not in experience.metadata


def test_a_lesson_loses_the_credentials_of_its_urls(server: ScriptedLLMServer, mem: Memory) -> None:
    leaky = "Fetch https://ann:hunter2@api.example.com/v1?api_key=sk-123 before paying."
    server.push(learned(lesson("booking a flight", leaky, "success", [0])), judged(True))

    mem.add_trajectories(GOOD_BOOKING, agent_id=AGENT, user_id="ann", task="book a flight")
    mem.flush()

    (experience,) = mem.list(agent_id=AGENT, kinds=["experience"]).records
    assert experience.metadata["content"] == "Fetch https://***@api.example.com/v1?api_key=*** before paying."


def test_deleting_a_user_deletes_the_lessons_learned_only_from_their_runs(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    date_lesson = lesson("booking a flight when the date is in words", "Convert the date first.", "failure", [0])
    server.push(learned(date_lesson), judged(True))
    mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, user_id="alex")
    mem.flush()
    assert mem.list(agent_id=AGENT, kinds=["experience"]).records

    mem.delete_all(user_id="alex")

    assert mem.list(agent_id=AGENT, kinds=["experience"]).records == []


def test_a_lesson_another_users_run_also_supports_stays_when_one_user_is_deleted(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    first = lesson("booking a flight when the date is in words", "Convert the date first.", "failure", [0])
    server.push(learned(first), judged(True))
    (alex_run,) = mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, user_id="alex")
    mem.flush()
    again = lesson("flight booking with a date in words", "Give book_flight an ISO date.", "failure", [0])
    server.push(learned(again), judged(True), merged(0, "MERGE", 0, when_to_use="a date in words", content="Use ISO."))
    (bea_run,) = mem.add_trajectories(FAILED_AGAIN, agent_id=AGENT, user_id="bea")
    mem.flush()
    (kept,) = [r for r in mem.list(agent_id=AGENT, kinds=["experience"]).records if r.valid_to is None]
    assert sorted(kept.source_ids) == sorted([alex_run.id, bea_run.id])

    mem.delete_all(user_id="alex")

    # the merged lesson stays (bea's run holds it up); the one it replaced, learned from alex's run alone, goes
    assert [r.id for r in mem.list(agent_id=AGENT, kinds=["experience"]).records] == [kept.id]
