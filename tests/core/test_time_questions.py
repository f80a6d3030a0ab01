"""A question only about a period ("what did I tell you yesterday?") returns that period's memories, newest
first; a question about a topic in a period still searches the topic."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memadapt_core import AsyncMemory, Memory
from memadapt_core.text.temporal import is_time_only

NOW = datetime(2025, 3, 20, 18, 0, tzinfo=UTC)


def _diary(memory: Memory) -> None:
    said = [
        ("I booked a dentist appointment", NOW - timedelta(days=40)),
        ("My brother is visiting in April", NOW - timedelta(days=9)),
        ("I started reading a novel about whales", NOW - timedelta(days=1, hours=6)),
        ("The boiler broke again this morning", NOW - timedelta(days=1, hours=2)),
        ("Dinner tonight is lentil soup", NOW - timedelta(hours=1)),
    ]
    memory.add([{"role": "user", "content": t, "timestamp": at} for t, at in said], user_id="ann")


def test_what_did_i_tell_you_yesterday_returns_yesterdays_memories_newest_first(memory: Memory) -> None:
    _diary(memory)
    hits = memory.search("What did I tell you yesterday?", user_id="ann", now=NOW)
    assert [h.record.text for h in hits] == [
        "The boiler broke again this morning",
        "I started reading a novel about whales",
    ]


def test_what_did_we_talk_about_last_week_returns_last_weeks_memories(memory: Memory) -> None:
    _diary(memory)
    hits = memory.search("what did we talk about last week?", user_id="ann", now=NOW)
    assert [h.record.text for h in hits] == ["My brother is visiting in April"]


async def test_anything_from_february_returns_that_month(amemory: AsyncMemory) -> None:
    await amemory.add(
        {"role": "user", "content": "I booked a dentist appointment", "timestamp": NOW - timedelta(days=40)},
        user_id="ann",
    )
    await amemory.add("Dinner tonight is lentil soup", user_id="ann", observed_at=NOW - timedelta(hours=1))
    hits = await amemory.search("anything from February?", user_id="ann", now=NOW)
    assert [h.record.text for h in hits] == ["I booked a dentist appointment"]


def test_a_period_question_honours_the_limit(memory: Memory) -> None:
    _diary(memory)
    hits = memory.search("What did I tell you yesterday?", user_id="ann", now=NOW, limit=1)
    assert [h.record.text for h in hits] == ["The boiler broke again this morning"]


def test_a_topic_question_with_a_period_still_searches_the_topic(memory: Memory) -> None:
    _diary(memory)
    hits = memory.search("what did I say about the boiler yesterday?", user_id="ann", now=NOW)
    assert hits[0].record.text == "The boiler broke again this morning"


def test_only_words_about_talking_make_a_question_time_only() -> None:
    assert is_time_only("what did I tell you yesterday?")
    assert is_time_only("Anything from March?")
    assert not is_time_only("what did I say about hiking last week?")
    assert not is_time_only("what did I tell you?")  # no period named
