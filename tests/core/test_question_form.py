"""Two questions are near in meaning by their form: a stored one-sentence question counts less against a question
(ranking.is_question, questions_apart), and a question that passed the floor keeps memories down to
``floor_dense_kept`` (ranking.kept_floor)."""

from __future__ import annotations

import pytest

from memadapt_core.config import RetrievalSettings
from memadapt_core.ranking import is_question, kept_floor, questions_apart


@pytest.mark.parametrize(
    "text", ["光速是多少？", "Where do I live?", "你喜欢吃辣的吗", "他还在上海呢。", "  What now?  ", "“你去过吗？”"]
)
def test_a_one_sentence_question_is_a_question(text: str) -> None:
    assert is_question(text)


@pytest.mark.parametrize(
    "text",
    [
        "我对花生过敏。",
        "I moved to Berlin.",
        "我搬家了。你去过杭州吗？",  # says something, then asks: read for what it says
        "I moved. Do you like Berlin?",
        "",
    ],
)
def test_a_statement_or_a_statement_then_a_question_is_not_a_question(text: str) -> None:
    assert not is_question(text)


def test_stored_questions_are_lowered_by_the_margin_and_reranked() -> None:
    dense = [("other-question", 0.60), ("answer", 0.45), ("chatter", 0.20)]
    apart = questions_apart(dense, {"other-question"}, 0.2)
    assert [key for key, _ in apart] == ["answer", "other-question", "chatter"]
    assert dict(apart)["other-question"] == pytest.approx(0.40)


def test_the_kept_floor_defaults_to_the_floor_and_never_rises_above_it() -> None:
    cfg = RetrievalSettings(floor_dense=0.3, floor_dense_nonlatin=0.3, floor_dense_kept_nonlatin=0.25)
    assert kept_floor(cfg, "latin") == 0.3
    assert kept_floor(cfg, "other") == 0.25
    stricter = cfg.model_copy(update={"floor_dense_nonlatin": 0.2})
    assert kept_floor(stricter, "other") == 0.2
