"""Time expressions resolve against a reference time, not against now."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memadapt_core.text.temporal import find_time_range, is_when_question, mentions_time

NOW = datetime(2023, 5, 25, 15, 30, tzinfo=UTC)  # a Thursday


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("what did I say yesterday", d(2023, 5, 24), d(2023, 5, 25)),
        ("two days ago", d(2023, 5, 23), d(2023, 5, 24)),
        ("3 weeks ago", d(2023, 5, 1), d(2023, 5, 8)),
        ("last week about hiking", d(2023, 5, 15), d(2023, 5, 22)),
        ("in May 2023", d(2023, 5, 1), d(2023, 6, 1)),
        ("last Tuesday", d(2023, 5, 23), d(2023, 5, 24)),
        ("last Thursday", d(2023, 5, 18), d(2023, 5, 19)),
        ("on 20 May 2023", d(2023, 5, 20), d(2023, 5, 21)),
        ("May 20, 2023", d(2023, 5, 20), d(2023, 5, 21)),
        ("in March", d(2023, 3, 1), d(2023, 4, 1)),
        ("in August", d(2022, 8, 1), d(2022, 9, 1)),
        ("last weekend", d(2023, 5, 20), d(2023, 5, 22)),
        ("last month", d(2023, 4, 1), d(2023, 5, 1)),
        ("in 2022", d(2022, 1, 1), d(2023, 1, 1)),
        ("the day before yesterday", d(2023, 5, 23), d(2023, 5, 24)),
        ("2023-01-15", d(2023, 1, 15), d(2023, 1, 16)),
    ],
)
def test_expression_resolves_to_a_range(text: str, start: datetime, end: datetime) -> None:
    found = find_time_range(text, NOW)
    assert found is not None
    assert (found.start, found.end) == (start, end)


def test_a_text_without_time_has_no_range() -> None:
    assert find_time_range("I may go hiking with Sam", NOW) is None


def test_relative_dates_follow_the_reference_time() -> None:
    said = datetime(2020, 1, 10, tzinfo=UTC)
    found = find_time_range("yesterday I fixed the bike", said)
    assert found is not None
    assert found.start == d(2020, 1, 9)


def test_naive_reference_times_are_utc() -> None:
    found = find_time_range("yesterday", datetime(2023, 5, 25, 12))
    assert found is not None
    assert found.start == d(2023, 5, 24)


def test_mentions_time_and_when_questions() -> None:
    assert mentions_time("we met on Saturday at 5pm")
    assert not mentions_time("we met at the cafe")
    assert is_when_question("When did Melanie paint a sunrise?")
    assert not is_when_question("Why did Melanie paint a sunrise?")


def test_the_one_scan_check_lets_through_every_text_a_pattern_matches() -> None:
    """``find_time_range`` refuses a text with one combined scan first: it must never refuse one a pattern finds."""
    import random

    from memadapt_core.text import temporal

    words = [
        "I", "met", "Sam", "on", "in", "the", "of", "a", "two", "few", "several", "12", "3", "2023", "1999", "day",
        "days", "week", "weeks", "month", "year", "ago", "last", "this", "next", "past", "previous", "weekend",
        "yesterday", "today", "tomorrow", "night", "morning", "before", "May", "march", "Sept.", "dec", "Tuesday",
        "fridays", "20th", "1st", "2023-05-20", "during", "since", "early", "mid", ",", "5pm", "10:30",
    ]  # fmt: skip
    rng = random.Random(5)
    texts = [" ".join(rng.choices(words, k=rng.randint(1, 6))) for _ in range(5000)]
    for text in texts:
        lowered = text.lower()
        matched = any(p.search(lowered) for _, p in temporal._PATTERNS)
        assert (temporal._ANY.search(lowered) is not None) == matched, text
    assert sum(find_time_range(t, NOW) is not None for t in texts) > 1000  # the sample does exercise the patterns
