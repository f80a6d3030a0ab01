"""A deleted or rewritten message leaves its neighbours' word index (engine/cascade/neighbours.py): its words no longer
find the turns that were said around it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from memadapt_core import Memory

SAID = datetime(2024, 5, 4, 18, tzinfo=UTC)
TURNS = [
    "How was the trip last month?",
    "We honeymooned in Zanzibar, snorkelling every morning.",
    "That sounds wonderful, did you see turtles?",
    "Yes, and a huge manta ray near the reef.",
]


def _messages() -> list[dict[str, Any]]:
    return [{"role": "user" if i % 2 else "assistant", "content": t} for i, t in enumerate(TURNS)]


def _found(memory: Memory, query: str) -> set[str]:
    """The memories whose indexed words match ``query`` (no relevance floor: a word match alone counts)."""
    hits = memory.search(query, user_id="u1", limit=10, threshold=0.0)
    return {h.record.text for h in hits if h.scores.get("sparse", 0.0) > 0}


@pytest.mark.parametrize("observed_at", [None, SAID], ids=["own-moments", "one-moment"])
def test_a_deleted_messages_words_no_longer_find_its_neighbours(memory: Memory, observed_at: Any) -> None:
    records = memory.add(_messages(), user_id="u1", session_id="s1", observed_at=observed_at)
    assert TURNS[2] in _found(memory, "Zanzibar")  # the reply is found by the words of what it answers
    memory.delete(records[1].id, user_id="u1")
    assert _found(memory, "Zanzibar") == set()


@pytest.mark.parametrize("observed_at", [None, SAID], ids=["own-moments", "one-moment"])
def test_the_turns_either_side_of_a_deleted_message_become_neighbours(observed_at: Any) -> None:
    with Memory(location=":memory:", retrieval={"context_prev": 1, "context_next": 0}) as memory:
        records = memory.add(_messages(), user_id="u1", session_id="s1", observed_at=observed_at)
        assert _found(memory, "trip") == {TURNS[0], TURNS[1]}  # the question, and the turn after it
        memory.delete(records[1].id, user_id="u1")
        assert _found(memory, "trip") == {TURNS[0], TURNS[2]}


def test_a_rewritten_messages_old_words_no_longer_find_its_neighbours(memory: Memory) -> None:
    records = memory.add(_messages(), user_id="u1", session_id="s1")
    memory.update(records[1].id, text="We honeymooned in Lisbon, eating pastries every morning.", user_id="u1")
    assert _found(memory, "Zanzibar") == set()
    assert TURNS[2] in _found(memory, "Lisbon pastries")


async def test_the_async_twin_reindexes_too(amemory: Any) -> None:
    records = await amemory.add(_messages(), user_id="u1", session_id="s1")
    await amemory.delete(records[1].id, user_id="u1")
    hits = await amemory.search("Zanzibar", user_id="u1", threshold=0.0)
    assert [h for h in hits if h.scores.get("sparse", 0.0) > 0] == []
