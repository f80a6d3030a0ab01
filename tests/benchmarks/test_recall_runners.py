"""Smoke tests of the recall runners (LongMemEval, paraphrase) on tiny slices, so they cannot rot.

They check that the runners produce well-formed figures and keep their promises (a refused turn is counted, not a
crash; the paraphrase dataset shares no word with its answers), never what the figures are. LongMemEval is read from
``../shared/data`` when it is there (evaluation data, never shipped); those tests are skipped without it.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks import longmemeval, paraphrase

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
LONGMEMEVAL = DATA / "longmemeval_dev.json"
needs_longmemeval = pytest.mark.skipif(not LONGMEMEVAL.exists(), reason="../shared/data/longmemeval_dev.json absent")


def _metrics(result: dict[str, Any], part: str) -> list[float]:
    return [v for cfg in result[part].values() for group in cfg["by_type"].values() for k, v in group.items()
            if k != "questions" and v is not None]  # fmt: skip


def trimmed(q: longmemeval.Question, others: int = 3) -> longmemeval.Question:
    """The question with its evidence sessions and a few others: a haystack small enough for a test."""
    keep = [s for s in q.sessions if s.source_id in q.evidence_sessions]
    keep += [s for s in q.sessions if s.source_id not in q.evidence_sessions][:others]
    return dataclasses.replace(q, sessions=tuple(keep))


@needs_longmemeval
def test_longmemeval_core_scores_two_trimmed_questions_per_type_and_config() -> None:
    questions = [trimmed(q) for q in longmemeval.load(LONGMEMEVAL) if q.scored][:2]

    result = longmemeval.run(questions)

    assert set(result["configs"]) == set(longmemeval.CONFIGS)
    assert "overall" in result["configs"]["default floor"]["by_type"]
    assert all(0.0 <= v <= 1.0 for v in _metrics(result, "configs") + _metrics(result, "what_if"))
    ingest = result["ingest"]
    assert ingest["turns_stored"] + ingest["turns_refused"] == ingest["turns_offered"]
    assert all("diagnosis" in row for row in result["questions"])


def test_longmemeval_a_refused_turn_is_counted_and_its_session_kept() -> None:
    when = datetime(2023, 5, 20, 1, 38, tzinfo=UTC)
    turns = tuple(
        longmemeval.Turn(f"s1:{i}", role, text, i == 0, when)
        for i, (role, text) in enumerate([("user", "I adopted a grey cat called Pepper."), ("assistant", "   "),
                                          ("user", "Pepper hides under the sofa.")])
    )  # fmt: skip
    session = longmemeval.Session("s1", "s1", when, turns)
    question = longmemeval.Question("q1", "single-session-user", "What is my cat called?", when, frozenset({"s1"}),
                                    (session,))  # fmt: skip

    result = longmemeval.run([question])

    assert (result["ingest"]["turns_stored"], result["ingest"]["turns_refused"]) == (2, 1)
    assert result["ingest"]["refused"][0]["turn"] == "s1:1"
    assert result["configs"]["no floor (threshold=0.0)"]["by_type"]["overall"]["session_any@5"] == 1.0


def _hit(session: str) -> Any:
    return type("Hit", (), {"record": type("Record", (), {"session_id": session, "external_id": None})()})()


def test_longmemeval_ranked_session_metrics_read_down_to_k_distinct_sessions() -> None:
    question = longmemeval.Question("q1", "multi-session", "How many?", datetime(2023, 5, 20, tzinfo=UTC),
                                    frozenset({"s6"}), ())  # fmt: skip
    ranking = [_hit(s) for s in ("s1", "s1", "s2", "s3", "s3", "s4", "s5", "s6")]

    got = longmemeval.scores(question, ranking[:10], ranking)

    assert got["session_any@5"] == 0.0  # the top 5 hits span three sessions
    assert (got["ranked_any@5"], got["ranked_all@10"]) == (0.0, 1.0)  # s6 is the sixth distinct session


@needs_longmemeval
def test_longmemeval_main_writes_the_results_of_the_questions_asked(tmp_path: Path) -> None:
    out = tmp_path / "longmemeval.json"
    first = next(q for q in longmemeval.load(LONGMEMEVAL) if q.scored)

    result = longmemeval.main(["--questions", first.id, "--out", str(out)])

    assert result["data"]["questions"] == 1
    assert not Path(result["data"]["file"]).is_absolute()
    assert json.loads(out.read_text())["questions"][0]["id"] == first.id


def test_paraphrase_dataset_shares_no_content_word_with_its_answers() -> None:
    data = json.loads(paraphrase.DEFAULT_DATA.read_text())

    assert paraphrase.problems(data) == []
    assert {q["split"] for q in data["questions"]} == {"dev", "test"}


@pytest.mark.parametrize(
    ("question", "memory"),
    [("Where does she live?", "She lives in Leeds."), ("Do I run?", "I'm running a marathon.")],
)
def test_paraphrase_check_refuses_a_question_sharing_a_stem_with_its_answer(question: str, memory: str) -> None:
    data = {"memories": [{"id": "m1", "text": memory}], "distractors": [], "unrelated": [],
            "questions": [{"id": "q1", "text": question, "answer": "m1", "split": "dev"}]}  # fmt: skip

    assert paraphrase.problems(data) != []


def test_paraphrase_core_scores_a_few_questions_by_split() -> None:
    data = paraphrase.load(paraphrase.DEFAULT_DATA)

    result = paraphrase.run(data, questions=["q05", "q06", "u01", "u02"])

    summary = result["summary"]
    assert (summary["dev"]["paraphrase_questions"], summary["test"]["paraphrase_questions"]) == (1, 1)
    assert (summary["all"]["unrelated_questions"], result["stored"]) == (2, 80)
    for split in summary.values():
        for name in paraphrase.CONFIGS:
            assert all(0.0 <= v <= 1.0 for k, v in split[name].items() if k.startswith("hit@"))
    assert 0.0 <= summary["all"]["default floor"]["unrelated_empty_rate"] <= 1.0
