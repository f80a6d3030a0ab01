"""Consolidation of a Chinese conversation: every prompt asks for the language of its sources, answers written in
Chinese are read (their dates, their punctuation), and the Chinese text reaches the LLM as written."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memadapt_core.consolidation import (
    ConsolidationWorker,
    MalformedAnswerError,
    build_extraction,
    fact_id,
    normalise_text,
)
from memadapt_core.consolidation.planning.experience_plan import RECONCILE_PROMPT
from memadapt_core.consolidation.planning.experiences import EXTRACT_PROMPT, VALIDATE_PROMPT
from memadapt_core.consolidation.planning.extraction import SYSTEM_PROMPT as EXTRACT_FACTS_PROMPT
from memadapt_core.consolidation.planning.extraction import parse_when
from memadapt_core.consolidation.planning.profiling import SYSTEM_PROMPT as PROFILE_PROMPT
from memadapt_core.consolidation.planning.reconciliation import SYSTEM_PROMPT as RECONCILE_FACTS_PROMPT
from memadapt_core.consolidation.planning.reflection import SYSTEM_PROMPT as REFLECT_PROMPT
from memadapt_core.consolidation.planning.tool_guides import PROMPT as TOOL_GUIDE_PROMPT
from memadapt_core.testing import ScriptedLLMServer

from .conftest import ALEX, T0, DictStore, extracted

WRITERS = {
    "extract": (EXTRACT_FACTS_PROMPT, "Write each fact in the same language as the messages it comes from"),
    "reflect": (REFLECT_PROMPT, "Write each insight in the same language as the facts it rests on"),
    "profile": (PROFILE_PROMPT, "Write each statement in the same language as the knowledge it rests on"),
    "extract_experience": (EXTRACT_PROMPT, 'Write "when_to_use" and "content" in the same language as the traj'),
    "validate_experience": (
        VALIDATE_PROMPT,
        "Give a short reason either way, in the same language as the experience it judges",
    ),
    "reconcile_experience": (RECONCILE_PROMPT, 'Write a merged "when_to_use" and "content" in the same language'),
    "tool_guide": (TOOL_GUIDE_PROMPT, "Write the guidelines in the same language as the calls' own text"),
}


@pytest.mark.parametrize("operation", sorted(WRITERS))
def test_every_prompt_that_writes_text_asks_for_the_language_of_its_sources(operation: str) -> None:
    prompt, sentence = WRITERS[operation]

    assert sentence in prompt
    assert "do not translate" in prompt


@pytest.mark.parametrize("prompt", [RECONCILE_FACTS_PROMPT, RECONCILE_PROMPT, REFLECT_PROMPT])
def test_prompts_that_compare_texts_compare_their_meaning_across_languages(prompt: str) -> None:
    assert "compare what they mean" in prompt


@pytest.mark.parametrize("prompt", [EXTRACT_FACTS_PROMPT, EXTRACT_PROMPT], ids=["facts", "experiences"])
def test_the_examples_of_prompts_that_write_text_are_not_only_english(prompt: str) -> None:
    assert any("\u4e00" <= ch <= "\u9fff" for ch in prompt)  # a Chinese example beside the English one


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("2023年5月7日", datetime(2023, 5, 7, tzinfo=UTC)),
        ("2023年5月7号", datetime(2023, 5, 7, tzinfo=UTC)),
        ("２０２３年５月７日", datetime(2023, 5, 7, tzinfo=UTC)),
        ("２０２３-０５-０７", datetime(2023, 5, 7, tzinfo=UTC)),
        ("2023年5月", datetime(2023, 5, 1, tzinfo=UTC)),
        ("2023年", datetime(2023, 1, 1, tzinfo=UTC)),
    ],
)
def test_a_date_written_the_chinese_way_in_an_answer_is_read(given: str, expected: datetime) -> None:
    assert parse_when(given, T0, "facts.0.valid_from") == expected


@pytest.mark.parametrize("given", ["2023年13月7日", "五月七日", "2023年5月7"])
def test_a_chinese_date_that_is_not_a_calendar_date_is_malformed(given: str) -> None:
    with pytest.raises(MalformedAnswerError, match="is not a date"):
        parse_when(given, T0, "facts.0.valid_from")


def test_full_width_punctuation_and_digits_do_not_make_a_fact_new() -> None:
    assert normalise_text("Alex住在上海，2023年搬来的。") == normalise_text("Alex住在上海, ２０２３年搬来的")
    assert fact_id(ALEX, ["m"], "我住在上海。") == fact_id(ALEX, ["m"], "我住在上海")
    assert normalise_text("我住在上海") != normalise_text("我住在北京")


def test_a_chinese_fact_said_twice_in_one_answer_is_kept_once(store: DictStore) -> None:
    said = store.add_messages(ALEX, "我住在上海。")
    answer = extracted(("Alex住在上海。", [0]), ("Alex住在上海", [0]))

    result = build_extraction(said).parse(answer)

    assert [f.text for f in result.facts] == ["Alex住在上海。"]


def test_the_weekday_shown_to_the_llm_does_not_depend_on_the_locale(store: DictStore) -> None:
    said = store.add_messages(ALEX, "我昨天去跑步了。")

    (shown,) = build_extraction(said).messages[1]["content"].split('"weekday": "')[1:]

    assert shown.startswith('Monday"')  # 8 May 2023, whatever locale the process runs under


async def test_a_chinese_conversation_gives_chinese_facts_and_the_llm_sees_it_as_written(
    llm_server: ScriptedLLMServer, worker: ConsolidationWorker, store: DictStore
) -> None:
    _, run = store.add_messages(ALEX, "你好！", "我昨天跑了一个慈善马拉松。")
    llm_server.push(
        extracted({"text": "Alex于2023年5月7日跑了一个慈善马拉松", "sources": [1], "valid_from": "2023年5月7日"})
    )

    await worker.submit(ALEX)
    await worker.flush()

    (request,) = llm_server.chat_requests("extract")
    assert "我昨天跑了一个慈善马拉松。" in request.user  # not \\u escapes: the model reads the characters
    assert "Write each fact in the same language as the messages it comes from" in request.system
    (fact,) = store.of(ALEX, "fact")
    assert fact.text == "Alex于2023年5月7日跑了一个慈善马拉松"
    assert fact.source_ids == [run.id]
    assert fact.valid_from == datetime(2023, 5, 7, tzinfo=UTC)
