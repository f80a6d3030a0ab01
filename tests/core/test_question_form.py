"""Two questions are near in meaning by their form: a stored one-sentence question counts less against a question
(ranking.is_question, questions_apart), and a question that passed the floor keeps memories down to
``floor_dense_kept`` (ranking.kept_floor)."""

from __future__ import annotations

import pytest

from memadapt_core.config import RetrievalSettings
from memadapt_core.scoring.ranking import impersonal, impersonal_margin, is_question, kept_floor, questions_apart


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


@pytest.mark.parametrize(
    "text",
    ["法国的首都是哪里？", "你今天过得怎么样？", "猫一般能活多少年？", "東京タワーの高さは？", "母亲节是几月几号？"],
)
def test_a_chinese_or_japanese_question_naming_no_one_is_impersonal(text: str) -> None:
    assert impersonal(text)


@pytest.mark.parametrize(
    "text",
    [
        "我从事什么职业？",  # the user
        "家里哪位长辈最近生病了？",  # their family: Chinese drops the pronoun
        "丈夫在哪儿任教？",  # ... and the possessive: a relative named bare is the user's
        "息子は何歳ですか？",
        "上次说的那家餐厅叫什么？",  # what was said in the conversation
        "你还记得那只猫的名字吗？",
        "私の趣味は何ですか？",
        "法国的首都是巴黎。",  # not a question
        "What is the capital of France?",  # no table for spaced scripts: never impersonal
    ],
)
def test_a_question_about_the_user_or_the_conversation_is_not_impersonal(text: str) -> None:
    assert not impersonal(text)


def test_an_impersonal_question_in_a_latin_script_or_with_no_margin_is_not_lowered() -> None:
    cfg = RetrievalSettings(impersonal_margin_nonlatin=0.15)
    assert impersonal_margin(cfg, "other", "光速是多少？") == 0.15
    assert impersonal_margin(cfg, "latin", "光速是多少？") == 0.0
    assert impersonal_margin(cfg, "other", "我的生日是哪天？") == 0.0
    assert impersonal_margin(RetrievalSettings(), "other", "光速是多少？") == 0.0
