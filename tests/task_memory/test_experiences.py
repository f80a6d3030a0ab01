"""Experience memory through the real engine: scored trajectories in, validated and reconciled lessons out, with an
OpenAI-compatible LLM served over real HTTP on 127.0.0.1 (ScriptedLLMServer)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory, MemoryRecord, ValidationError, hookimpl
from memadapt_core.testing import Hang, ScriptedLLMServer

from .conftest import FAILED_AGAIN, FAILED_BOOKING, GOOD_BOOKING, judged, learned, lesson, llm, merged

AGENT = "travel-agent"


@pytest.fixture
def mem(server: ScriptedLLMServer) -> Iterator[Memory]:
    with Memory(location=":memory:", **llm(server)) as m:
        yield m


def experiences(mem: Memory, *, valid_only: bool = True, agent_id: str = AGENT) -> list[MemoryRecord]:
    found = mem.list(agent_id=agent_id, kinds=["experience"]).records
    return [r for r in found if r.valid_to is None or not valid_only]


DATE_LESSON = lesson(
    "booking a flight when the date is given in words",
    "Convert the date to YYYY-MM-DD before calling book_flight; it refuses words like 'next Friday'.",
    "failure",
    [0],
)


def test_trajectories_are_stored_raw_before_any_llm_call(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(Hang(seconds=10))

    (stored,) = mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, user_id="alex", task="book a flight")
    server.wait_for_requests(1, timeout=10)  # the extraction call is under way...

    kept = mem.get(stored.id)  # ...and the raw trajectory is already stored
    assert kept is not None
    assert kept.kind == "trajectory"
    assert kept.metadata["score"] == 0.0
    assert kept.metadata["task"] == "book a flight"
    assert '[assistant calls] book_flight({"date": "next Friday"})' in kept.text
    assert "[tool book_flight] error: date must be YYYY-MM-DD" in kept.text
    server.release()


def test_a_failed_trajectory_yields_a_failure_lesson_in_the_agent_scope(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(learned(DATE_LESSON), judged(True))

    (trajectory,) = mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, user_id="alex", task="book a flight")
    mem.flush()

    (experience,) = experiences(mem)
    assert experience.text == "booking a flight when the date is given in words"
    assert experience.metadata["content"].startswith("Convert the date to YYYY-MM-DD")
    assert experience.metadata["evidence"] == "failure"
    assert experience.metadata["score"] == 0.0
    assert experience.source_ids == [trajectory.id]
    assert (experience.user_id, experience.agent_id, experience.session_id) == (None, AGENT, None)
    assert mem.get(trajectory.id).consolidated  # type: ignore[union-attr]


def test_a_successful_trajectory_yields_a_success_pattern(server: ScriptedLLMServer, mem: Memory) -> None:
    pattern = lesson("booking a flight", "Check seat availability before paying.", "success", [0])
    server.push(learned(pattern), judged(True))

    mem.add_trajectories(GOOD_BOOKING, agent_id=AGENT, task="book a flight")
    mem.flush()

    (experience,) = experiences(mem)
    assert (experience.metadata["evidence"], experience.metadata["score"]) == ("success", 1.0)


def test_two_runs_of_one_task_yield_a_comparison_citing_both(server: ScriptedLLMServer, mem: Memory) -> None:
    difference = lesson(
        "booking a flight", "The run that converted the date to ISO format succeeded.", "comparison", [0, 1]
    )
    server.push(learned(difference), judged(True))

    runs = mem.add_trajectories([FAILED_BOOKING, GOOD_BOOKING], agent_id=AGENT, task="book a flight")
    mem.flush()

    shown = server.chat_requests("extract_experience")[0].payload["trajectories"]
    assert [(t["n"], t["score"], t["task"]) for t in shown] == [(0, 0.0, "book a flight"), (1, 1.0, "book a flight")]
    (experience,) = experiences(mem)
    assert experience.metadata["evidence"] == "comparison"
    assert experience.metadata["score"] == 1.0  # a comparison rests on its best run
    assert sorted(experience.source_ids) == sorted(r.id for r in runs)


def test_validation_rejects_a_bad_experience_and_keeps_it_in_the_trajectory_history(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    bad = lesson("any task", "Always apologise to Alex at alex@example.com.", "failure", [0])
    server.push(learned(DATE_LESSON, bad), judged(True, (False, "personal data, not a lesson")))

    (trajectory,) = mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, task="book a flight")
    mem.flush()

    assert [e.text for e in experiences(mem)] == ["booking a flight when the date is given in words"]
    rejected = [e for e in mem.history(trajectory.id) if e.event == "reject"]
    assert [(e.old_text, e.new_text) for e in rejected] == [
        ("any task\nAlways apologise to Alex at alex@example.com.", "personal data, not a lesson")
    ]


def test_the_validation_call_sees_each_experience_with_its_evidence(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(learned(DATE_LESSON), judged(True))

    mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT)
    mem.flush()

    payload = server.chat_requests("validate_experience")[0].payload
    assert payload["experiences"][0]["sources"] == [0]
    assert payload["trajectories"][0]["score"] == 0.0


def test_a_duplicate_experience_is_merged_into_one_citing_both_trajectories(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    (first,) = mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT)
    mem.flush()
    again = lesson("flight booking with a date in words", "Give book_flight an ISO date.", "failure", [0])
    server.push(
        learned(again),
        judged(True),
        merged(0, "MERGE", 0, when_to_use="booking a flight with a date in words", content="Use YYYY-MM-DD."),
    )
    (second,) = mem.add_trajectories(FAILED_AGAIN, agent_id=AGENT)
    mem.flush()

    (experience,) = experiences(mem)
    assert (experience.text, experience.metadata["content"]) == (
        "booking a flight with a date in words",
        "Use YYYY-MM-DD.",
    )
    assert sorted(experience.source_ids) == sorted([first.id, second.id])
    (old,) = [e for e in experiences(mem, valid_only=False) if e.valid_to is not None]
    assert old.superseded_by == experience.id
    assert server.chat_requests("reconcile_experience")[0].payload["existing_experiences"][0]["n"] == 0


def test_a_contradicted_experience_is_superseded(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT)
    mem.flush()
    newer = lesson(
        "booking a flight when the date is given in words",
        "book_flight now accepts dates in words; pass them through unchanged.",
        "success",
        [0],
    )
    server.push(learned(newer), judged(True), merged(0, "SUPERSEDE", 0))
    mem.add_trajectories(GOOD_BOOKING, agent_id=AGENT)
    mem.flush()

    (current,) = experiences(mem)
    assert current.metadata["content"].startswith("book_flight now accepts dates in words")
    assert current.supersedes is not None
    assert [e.event for e in mem.history(current.id)].count("supersede") == 1


def test_an_experience_already_stored_word_for_word_is_not_asked_about_again(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT)
    mem.flush()
    server.push(learned(DATE_LESSON), judged(True))
    mem.add_trajectories(FAILED_AGAIN, agent_id=AGENT)
    mem.flush()

    assert len(experiences(mem, valid_only=False)) == 1
    assert server.chat_requests("reconcile_experience") == []


def test_experience_is_shared_by_the_users_of_an_agent_and_hidden_from_other_agents(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, user_id="alex")
    mem.flush()

    for_bea = mem.experiences("book a flight for next Friday", agent_id=AGENT)
    for_other_agent = mem.experiences("book a flight for next Friday", agent_id="hotel-agent")

    assert [h.record.text for h in for_bea] == ["booking a flight when the date is given in words"]
    assert for_other_agent == []
    assert mem.search("book a flight", user_id="bea", agent_id=AGENT, kinds=["trajectory"]) == []


def test_search_finds_experience_for_a_new_similar_task_only_when_asked(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT)
    mem.flush()

    asked = mem.search("book a flight to Rome next Monday", agent_id=AGENT, kinds=["experience"])
    personal = mem.search("book a flight to Rome next Monday", agent_id=AGENT)

    assert [h.record.kind for h in asked] == ["experience"]
    assert personal == []  # task memory stays out of personal recall unless its kinds are named


def test_experience_guidance_is_a_delimited_block_for_a_system_prompt(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    mem.add_trajectories(FAILED_BOOKING, agent_id=AGENT)
    mem.flush()

    guidance = mem.experience_guidance("book a flight to Rome next Monday", agent_id=AGENT)

    assert guidance.startswith("<memadapt-experience>")
    assert guidance.endswith("</memadapt-experience>")
    assert "1. When: booking a flight when the date is given in words" in guidance
    assert "Lesson (failure): Convert the date to YYYY-MM-DD" in guidance
    assert mem.experience_guidance("book a flight", agent_id="hotel-agent") == ""


class Redactor:
    @hookimpl
    def memadapt_prepare_record(self, record: MemoryRecord) -> MemoryRecord:
        content = str(record.metadata.get("content", "")).replace("alex@example.com", "[email]")
        return record.model_copy(update={"metadata": {**record.metadata, "content": content}})


def test_the_redaction_hook_runs_on_experiences(server: ScriptedLLMServer) -> None:
    leaky = lesson("confirming a booking", "Send the confirmation to alex@example.com.", "success", [0])
    server.push(learned(leaky), judged(True))
    with Memory(location=":memory:", plugins=[Redactor()], **llm(server)) as mem:
        mem.add_trajectories(GOOD_BOOKING, agent_id=AGENT)
        mem.flush()
        (experience,) = experiences(mem)
    assert experience.metadata["content"] == "Send the confirmation to [email]."


def test_the_extraction_prompt_keeps_personal_data_out(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push(learned())
    mem.add_trajectories(GOOD_BOOKING, agent_id=AGENT)
    mem.flush()

    assert "No personal data" in server.chat_requests("extract_experience")[0].system


@pytest.mark.parametrize(
    ("trajectories", "field"),
    [
        ({"messages": [{"role": "user", "content": "hi"}]}, "trajectories[0].score"),
        ({"messages": [], "score": 1}, "trajectories[0].messages"),
        ({"messages": [{"content": "hi"}], "score": 1}, "trajectories[0].messages[0].role"),
        ({"messages": [{"role": "user", "content": "hi"}], "score": 1, "steps": 3}, "trajectories[0].steps"),
        ([], "trajectories"),
    ],
)
def test_bad_trajectories_are_refused_naming_the_field(mem: Memory, trajectories: Any, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        mem.add_trajectories(trajectories, agent_id=AGENT)
    assert caught.value.field == field
    assert mem.count(agent_id=AGENT) == 0


def test_trajectories_and_experiences_need_an_agent(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="agent_id"):
        mem.add_trajectories(GOOD_BOOKING, agent_id=None, user_id="alex")
    with pytest.raises(ValidationError, match="agent_id"):
        mem.experiences("book a flight", agent_id=None)


async def test_the_async_twin_learns_and_recalls_the_same_way(server: ScriptedLLMServer) -> None:
    server.push(learned(DATE_LESSON), judged(True))
    async with AsyncMemory(location=":memory:", **llm(server)) as amem:
        await amem.add_trajectories(FAILED_BOOKING, agent_id=AGENT, user_id="alex")
        await amem.flush()
        hits = await amem.experiences("book a flight next Friday", agent_id=AGENT)
        guidance = await amem.experience_guidance("book a flight next Friday", agent_id=AGENT)
    assert [h.record.text for h in hits] == ["booking a flight when the date is given in words"]
    assert "Convert the date to YYYY-MM-DD" in guidance
