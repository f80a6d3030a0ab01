"""The newest fact wins where the question asks for the present, and near-ties go to the newer memory."""

from __future__ import annotations

from datetime import UTC, datetime

from memadapt_core import Memory
from memadapt_core.scoring.ranking import tense_of


def _said(memory: Memory, lines: list[tuple[str, int]]) -> None:
    for text, year in lines:
        memory.add(text, user_id="ann", observed_at=datetime(year, 1, 1, tzinfo=UTC))


def test_equal_matches_come_back_newest_first(memory: Memory) -> None:
    memory.add([f"message with keyword {i}" for i in range(5)], user_id="ann")
    hits = memory.search("keyword", user_id="ann", limit=3)
    assert [h.record.text for h in hits] == [f"message with keyword {i}" for i in (4, 3, 2)]


def test_where_do_i_live_now_ranks_the_newest_home_first(memory: Memory) -> None:
    _said(memory, [("I live in Leeds", 2015), ("I live in York", 2019), ("I live in Bristol", 2023)])
    hits = memory.search("Where do I live now?", user_id="ann")
    assert hits[0].record.text == "I live in Bristol"


def test_a_current_question_prefers_the_newest_of_similar_memories(memory: Memory) -> None:
    _said(memory, [("My favourite band is Muse", 2019), ("My favourite band these days is Blur", 2024)])
    hits = memory.search("What is my favourite band at the moment?", user_id="ann")
    assert hits[0].record.text == "My favourite band these days is Blur"


def test_a_past_question_is_not_pulled_to_the_newest_memory(memory: Memory) -> None:
    _said(memory, [("I bought a red bicycle in Utrecht", 2016), ("I bought a new kettle", 2024)])
    hits = memory.search("Where did I buy the red bicycle?", user_id="ann")
    assert hits[0].record.text == "I bought a red bicycle in Utrecht"


def test_questions_are_read_as_current_present_or_past() -> None:
    assert tense_of("Where is my current address?") == "current"
    assert tense_of("Do I still play tennis?") == "current"
    assert tense_of("Where do I live?") == "present"
    assert tense_of("Where did I live?") == "past"
    assert tense_of("When did Melanie paint a sunrise?") == "past"
