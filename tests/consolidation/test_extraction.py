"""Extraction's pure half: what the prompt carries and which answers are accepted."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pydantic
import pytest

from memadapt_core.consolidation import MalformedAnswerError, build_extraction
from memadapt_core.consolidation.planning.extraction import parse_when

from .conftest import ALEX, T0, DictStore


@pytest.fixture
def messages(store: DictStore) -> Any:
    return store.add_messages(ALEX, "Hi!", "I adopted a cat.", "Her name is Pixel.", step=timedelta(hours=1))


def test_facts_cite_their_messages_and_are_observed_when_the_last_was_said(messages: Any) -> None:
    answer = {"facts": [{"text": "Alex adopted a cat named Pixel", "sources": [2, 1]}]}

    [fact] = build_extraction(messages).parse(answer).facts

    assert fact.source_ids == (messages[1].id, messages[2].id)
    assert fact.observed_at == messages[2].observed_at


def test_a_fact_without_a_date_is_valid_from_when_it_was_said(messages: Any) -> None:
    [fact] = build_extraction(messages).parse({"facts": [{"text": "Alex has a cat", "sources": [1]}]}).facts

    assert fact.valid_from == messages[1].observed_at


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("2023-05-07", datetime(2023, 5, 7, tzinfo=UTC)),
        ("2023-05", datetime(2023, 5, 1, tzinfo=UTC)),
        ("2022", datetime(2022, 1, 1, tzinfo=UTC)),
        ("2023-05-07T18:30:00+00:00", datetime(2023, 5, 7, 18, 30, tzinfo=UTC)),
        (None, T0),
    ],
)
def test_dates_are_read_in_the_zone_of_the_message(given: str | None, expected: datetime) -> None:
    assert parse_when(given, T0, "valid_from") == expected


def test_hypothetical_statements_are_dropped_and_counted(messages: Any) -> None:
    answer = {
        "facts": [
            {"text": "Alex would be a pilot", "sources": [0], "hypothetical": True},
            {"text": "Alex adopted a cat", "sources": [1], "hypothetical": False},
        ]
    }

    result = build_extraction(messages).parse(answer)

    assert [f.text for f in result.facts] == ["Alex adopted a cat"]
    assert result.dropped == 1


def test_a_fact_said_twice_is_kept_once(messages: Any) -> None:
    answer = {
        "facts": [{"text": "Alex adopted a cat.", "sources": [1]}, {"text": "alex adopted a cat", "sources": [2]}]
    }

    assert len(build_extraction(messages).parse(answer).facts) == 1


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ({"facts": [{"text": "x", "sources": [3]}]}, "facts.0.sources: 3 is not a message number (0-2)"),
        ({"facts": [{"text": "x", "sources": [-1]}]}, "facts.0.sources: -1 is not a message number"),
        ({"facts": [{"text": "x", "sources": [0], "valid_from": "last week"}]}, "is not a date"),
        ({"facts": [{"text": "x", "sources": [0], "valid_from": "2023-13"}]}, "is not a date"),
    ],
)
def test_answers_that_do_not_fit_are_malformed(messages: Any, answer: dict[str, Any], problem: str) -> None:
    with pytest.raises(MalformedAnswerError, match=re.escape(problem)):
        build_extraction(messages).parse(answer)


@pytest.mark.parametrize("answer", [{"facts": [{"text": "x", "sources": []}]}, {"facts": [{"sources": [0]}]}, []])
def test_answers_that_break_the_schema_are_rejected(messages: Any, answer: Any) -> None:
    with pytest.raises(pydantic.ValidationError):  # the client reports it as a malformed answer
        build_extraction(messages).parse(answer)


def test_one_bad_fact_rejects_the_whole_answer(messages: Any) -> None:
    answer = {"facts": [{"text": "Alex adopted a cat", "sources": [1]}, {"text": "x", "sources": [9]}]}

    with pytest.raises(MalformedAnswerError):
        build_extraction(messages).parse(answer)


def test_plugin_instructions_are_added_to_the_rules(messages: Any) -> None:
    system = build_extraction(messages, ["Never store health data.", "  "]).messages[0]["content"]

    assert system.endswith("Additional instructions:\n- Never store health data.")
