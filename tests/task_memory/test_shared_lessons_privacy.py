"""No personal data in shared lessons: a lesson keeps only what the LLM wrote as general, never the trajectory's own
``task`` text, and the URLs in it lose their credentials before every user of the agent reads it (issue 35)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from memadapt_core import Memory
from memadapt_core.testing import ScriptedLLMServer

from .conftest import GOOD_BOOKING, judged, learned, lesson, llm

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
