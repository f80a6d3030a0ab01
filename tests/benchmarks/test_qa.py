"""``benchmarks/qa.py`` end to end against the scripted OpenAI-compatible server, on tiny slices of LoCoMo and
LongMemEval: the answerer gets memadapt's recall, the judge's verdicts (JSON, fenced, bare words) are parsed and
accuracy is computed per category. Checks what the report promises, never what the figures are. The data is read from
``../shared/data`` (evaluation data, never shipped), or, in a clone without it, from ``data/*_mini.json`` beside this
file: a conversation and three questions written by hand in the same formats.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks import _locomo_data, longmemeval, qa
from benchmarks._qa_judge import longmemeval_prompt, parse_verdict
from memadapt_core.testing import ChatRequest, Failure, ScriptedLLMServer, ScriptItem

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
MINI = Path(__file__).resolve().parent / "data"  # written by hand in the datasets' formats, for a clone without it
LOCOMO = next(p for p in (SHARED / "locomo_dev.json", MINI / "locomo_mini.json") if p.exists())
LONGMEMEVAL = next(p for p in (SHARED / "longmemeval_dev.json", MINI / "longmemeval_mini.json") if p.exists())
_GOLD = re.compile(r"(?:Gold answer|Correct Answer|Rubric|Explanation): (.*?)\n")
_GENERATED = re.compile(r"(?:Generated answer|Model Response): (.*?)\n", re.DOTALL)


def scripted(request: ChatRequest) -> ScriptItem | None:
    """The answerer echoes the first recalled memory; the judge says CORRECT when the gold answer's first word is in
    the answer, in a different format each time (JSON, fenced JSON, a bare word, yes or no)."""
    if request.operation == qa.ANSWER_OPERATION:
        recalled = [line for line in request.system.splitlines() if line[:1].isdigit()]
        return recalled[0] if recalled else "I do not remember."
    if request.operation == qa.JUDGE_OPERATION:
        prompt = request.user
        gold, said = _GOLD.search(prompt), _GENERATED.search(prompt)
        assert gold is not None
        assert said is not None
        words = re.findall(r"\w+", gold.group(1).lower())
        right = bool(words) and words[0] in said.group(1).lower()
        if "CORRECT or WRONG" in prompt:
            return {"label": "CORRECT"} if right else '```json\n{"label": "WRONG"}\n```'
        return "Yes." if right else "no"
    return None


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=scripted) as server:
        yield server


def clients(llm: ScriptedLLMServer) -> tuple[Any, Any]:
    return qa.llm_client(llm.base_url, "answerer", "NO_SUCH_KEY"), qa.llm_client(llm.base_url, "judge", "NO_SUCH_KEY")


def assert_report(result: dict[str, Any]) -> None:
    rows = result["questions"]
    assert all(r["verdict"] in ("correct", "wrong") for r in rows)  # every judge answer was parsed
    for name, m in result["by_category"].items():
        mine = [r for r in rows if name == "overall" or r["category"] == name]
        assert m["questions"] == len(mine)
        assert m["correct"] == sum(r["verdict"] == "correct" for r in mine)
        assert m["correct"] + m["wrong"] + m["unparsed"] + m["errors"] == m["questions"]
        assert m["accuracy"] == round(m["correct"] / m["questions"], 4)
        assert m["recall"] is None or 0.0 <= m["recall"] <= 1.0
    assert result["by_category"]["overall"]["questions"] == len(rows)


def test_qa_answers_and_judges_a_locomo_conversation_per_category(llm: ScriptedLLMServer) -> None:
    convs, _ = _locomo_data.load(LOCOMO, ["conv-26"])
    picked = [next(q for q in convs[0].questions if q.category == c) for c in (1, 2, 3, 4)]
    convs[0] = dataclasses.replace(convs[0], questions=[*picked, convs[0].questions[0]])
    answerer, judge = clients(llm)

    result = qa.run("locomo", convs, answerer, judge, top_k=5)

    assert_report(result)
    assert set(result["by_category"]) == {"multi-hop", "temporal", "open-domain", "single-hop", "overall"}
    assert result["by_category"]["overall"]["correct"] >= 1  # the scripted judge found a gold answer recalled
    assert all(r["recall"] is not None for r in result["questions"])
    assert len(llm.chat_requests("answer")) == len(llm.chat_requests("judge")) == 5


def test_qa_judges_longmemeval_by_question_type_and_abstention(llm: ScriptedLLMServer) -> None:
    questions = longmemeval.load(LONGMEMEVAL)
    first = [q for q in questions if q.scored][:2] + [q for q in questions if not q.scored][:1]
    trimmed = [dataclasses.replace(q, sessions=q.sessions[:4]) for q in first]
    answerer, judge = clients(llm)

    result = qa.run("longmemeval", trimmed, answerer, judge, top_k=5)

    assert_report(result)
    assert {q.type for q in first if q.scored} | {"overall"} <= set(result["by_category"])
    if any(not q.scored for q in first):
        assert result["by_category"]["abstention"]["recall"] is None  # the answer is in no haystack
        judged = [r.user for r in llm.chat_requests("judge")]
        assert any("unanswerable question" in prompt for prompt in judged)


def test_qa_counts_a_question_the_llm_fails_on_and_goes_on(llm: ScriptedLLMServer) -> None:
    convs, _ = _locomo_data.load(LOCOMO, ["conv-26"])
    convs[0] = dataclasses.replace(convs[0], sessions=convs[0].sessions[:2], questions=convs[0].questions[:3])
    answerer, judge = clients(llm)
    failing = convs[0].questions[1].text

    def refuse(request: ChatRequest) -> ScriptItem | None:
        return Failure(400, "refused") if failing in request.user else scripted(request)

    llm.responder = refuse

    result = qa.run("locomo", convs, answerer, judge, top_k=5)

    overall = result["by_category"]["overall"]
    assert (overall["questions"], overall["errors"]) == (3, 1)
    (failed,) = [r for r in result["questions"] if r["verdict"] == "error"]
    assert failed["question"] == failing
    assert "refused" in failed["judge"]


@pytest.mark.parametrize(
    ("said", "verdict"),
    [
        ('{"label": "CORRECT"}', True),
        ('{"label": "WRONG"}', False),
        ('```json\n{"label": "CORRECT"}\n```', True),
        ('<think>maybe wrong</think>{"label": "CORRECT"}', True),
        ('The answer names the same date. {"label": "CORRECT"}', True),
        ("The generated answer gives another city. WRONG", False),
        ("CORRECT", True),
        ("INCORRECT", False),
        ("Yes.", True),
        ("no", False),
        ('{"verdict": "yes"}', True),
        ('{"correct": false}', False),
        ("I cannot tell.", None),
        ("It is CORRECT in part and WRONG in part, as the response only holds a subset.", None),
    ],
)
def test_judge_verdicts_are_read_from_json_or_words(said: str, verdict: bool | None) -> None:
    assert parse_verdict(said) is verdict


def test_longmemeval_judge_prompt_follows_the_question_type() -> None:
    temporal = longmemeval_prompt("temporal-reasoning", "How many days?", "18", "19 days", abstention=False)
    abstained = longmemeval_prompt("multi-session", "Where?", "Never said", "I don't know", abstention=True)

    assert "off-by-one" in temporal
    assert "unanswerable question" in abstained
    with pytest.raises(ValueError, match="no judge prompt"):
        longmemeval_prompt("made-up", "q", "a", "r", abstention=False)
