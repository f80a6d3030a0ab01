"""Smoke tests of the recall runners (LongMemEval, paraphrase in English, Chinese and across, MemoryBank) on tiny
slices, so they cannot rot.

They check that the runners produce well-formed figures and keep their promises (a refused turn is counted, not a
crash; the paraphrase dataset shares no word with its answers), never what the figures are. LongMemEval is read from
``../shared/data`` when it is there (evaluation data, never shipped); those tests are skipped without it.
"""

# Chinese text is written with its own full-width punctuation, which RUF001 takes for look-alikes of ASCII.

from __future__ import annotations

import dataclasses
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks import dense_models, longmemeval, longmemeval_cv, memorybank, paraphrase

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


def test_paraphrase_zh_dataset_shares_no_character_with_its_answers_beyond_function_characters() -> None:
    for lang in ("zh", "cross"):
        data = paraphrase.load(paraphrase.ZH_DATA, lang)

        assert {"dev", "test"} <= {q["split"] for q in data["questions"]} <= set(paraphrase.SPLITS)


@pytest.mark.parametrize(
    ("lang", "groups", "has_unrelated"),
    [("zh", {"dev", "test", "later", "all"}, True), ("cross", {"en->zh all", "zh->en all"}, False)],
)
def test_dense_models_scores_a_models_cosines_per_split_and_direction(
    lang: str, groups: set[str], has_unrelated: bool
) -> None:
    from memadapt_core.testing import HashEmbedder

    embedder = HashEmbedder()

    result = dense_models.score(lambda texts, _q: embedder.embed_documents(list(texts)), paraphrase.load(
        paraphrase.ZH_DATA, lang))  # fmt: skip

    assert groups <= set(result["hit@3"])
    assert all(0.0 <= v <= 1.0 for v in result["hit@3"].values())
    assert (result["auc"] is not None) == has_unrelated
    assert result["auc"] is None or 0.0 <= result["auc"] <= 1.0
    assert result["texts_per_s"] > 0


def test_paraphrase_zh_dataset_has_the_promised_parts() -> None:
    zh, cross = paraphrase.load(paraphrase.ZH_DATA, "zh"), paraphrase.load(paraphrase.ZH_DATA, "cross")

    assert (len(zh["memories"]), len(zh["questions"]), len(zh["unrelated"])) >= (40, 40, 20)
    assert {d: sum(q["direction"] == d for q in cross["questions"]) >= 15 for d in paraphrase.DIRECTIONS} == {
        "en->zh": True,
        "zh->en": True,
    }


def test_paraphrase_check_refuses_a_chinese_question_sharing_a_character_with_its_answer() -> None:
    data = {"memories": [{"id": "m1", "text": "我对花生过敏。"}], "distractors": [], "unrelated": [],
            "questions": [{"id": "q1", "text": "我有什么食物过敏吗？", "answer": "m1", "split": "dev"}]}  # fmt: skip

    assert paraphrase.problems(data) == ["q1 shares [('敏', '敏')] with m1"]


def test_paraphrase_cross_reports_each_direction_per_split(tmp_path: Path) -> None:
    out = tmp_path / "cross.json"

    result = paraphrase.main(["--lang", "cross", "--embedder", "hash", "--quick", "--out", str(out)])

    summary = json.loads(out.read_text())["summary"]
    assert {"en->zh dev", "zh->en dev", "dev", "all"} <= set(summary)
    assert summary["en->zh dev"]["paraphrase_questions"] > 0
    assert result["data"]["lang"] == "cross"


def tiny_memorybank(path: Path, people: int = 1) -> Path:
    """People in MemoryBank's shape, each in Chinese and English: two days (one without exchanges), three questions
    (one unanswerable)."""
    said = {
        "zh": [("我养了一只猫，叫豆豆。", "好可爱！"), ("我下周去杭州出差。", "祝你顺利。")],
        "en": [("I have a cat called Doudou.", "How sweet!"), ("I'm going to Hangzhou next week.", "Good luck.")],
    }
    asked = {
        "zh": ["我的猫叫什么？", "我要去哪里出差？", "我五月五日做了什么菜？"],
        "en": ["What is my cat called?", "Where am I travelling for work?", "What did I cook on May 5th?"],
    }
    users = []
    for p in range(people):
        for lang in ("zh", "en"):
            days = {
                "2023-04-27": [
                    {"id": f"2023-04-27#{i}", "user": u, "assistant": a} for i, (u, a) in enumerate(said[lang])
                ],
                "2023-04-28": [],
            }
            questions = [
                {
                    "question": asked[lang][0],
                    "answer": "-",
                    "evidence": ["2023-04-27#0"],
                    "answerable": True,
                    "kind": "fact",
                },
                {
                    "question": asked[lang][1],
                    "answer": "-",
                    "evidence": ["2023-04-27#1"],
                    "answerable": True,
                    "kind": "dated",
                },
                {"question": asked[lang][2], "answer": "-", "evidence": [], "answerable": False, "kind": "dated"},
            ]
            users.append(
                {
                    "user": f"{lang}-{p}",
                    "lang": lang,
                    "id": f"{lang}{p}",
                    "pair": p,
                    "part": "dev",
                    "days": days,
                    "questions": questions,
                }
            )
    path.write_text(json.dumps({"source": "test", "split": "dev", "users": users}, ensure_ascii=False))
    return path  # fmt: skip


def test_memorybank_reports_each_language_and_kind_with_unanswerable_and_paired_questions(tmp_path: Path) -> None:
    out = tmp_path / "memorybank.json"

    result = memorybank.main(["--data", str(tiny_memorybank(tmp_path / "mb.json")), "--embedder", "hash",
                              "--out", str(out)])  # fmt: skip

    floor = json.loads(out.read_text())["summary"]["default floor"]
    assert set(floor) == {"zh", "en", "all"}
    assert set(floor["zh"]) == {"fact", "dated", "all", "unanswerable"}
    assert set(floor["zh"]["all"]) == {"questions", "hit@1", "hit@3", "hit@5", "all@5"}
    assert (floor["zh"]["all"]["questions"], floor["zh"]["unanswerable"]["questions"]) == (2, 1)
    assert all(0.0 <= floor[lang]["all"][k] <= 1.0 for lang in ("zh", "en") for k in ("hit@1", "hit@3", "all@5"))
    assert result["paired"]["questions"] == 2
    assert result["exchanges"] == 4


def test_memorybank_limit_and_folds_keep_a_persons_two_languages_together(tmp_path: Path) -> None:
    data = str(tiny_memorybank(tmp_path / "mb.json", people=3))

    limited = memorybank.main(["--data", data, "--embedder", "hash", "--limit", "2"])
    folded = memorybank.main(["--data", data, "--embedder", "hash", "--folds", "3"])

    assert limited["data"]["users"] == ["zh0", "en0", "zh1", "en1"]
    assert [f["users"] for f in folded["folds"]] == [["zh0", "en0"], ["zh1", "en1"], ["zh2", "en2"]]
    assert all(f["summary"]["default floor"]["all"]["all"]["questions"] == 4 for f in folded["folds"])


def test_memorybank_lists_evidence_naming_no_exchange(tmp_path: Path) -> None:
    path = tiny_memorybank(tmp_path / "mb.json")
    data = json.loads(path.read_text())
    data["users"][0]["questions"][0]["evidence"] = ["2023-04-27#0", "2023-04-28#7"]
    path.write_text(json.dumps(data))

    assert memorybank.unknown_evidence(memorybank.load(path)) == ["zh0: 2023-04-28#7"]


def _question(qid: str, kind: str) -> longmemeval.Question:
    return longmemeval.Question(qid, kind, "?", datetime(2023, 5, 20, tzinfo=UTC), frozenset(), ())


def test_longmemeval_cv_folds_hold_every_question_type_in_both_halves() -> None:
    questions = [_question(f"{kind}{n}", kind) for kind in ("a", "b", "c") for n in range(4)]
    a, b = longmemeval_cv.folds(questions, random.Random(1))
    assert sorted(a + b) == sorted(q.id for q in questions)
    assert {q[0] for q in a} == {q[0] for q in b} == {"a", "b", "c"}


def test_longmemeval_cv_scores_the_choice_on_the_fold_it_was_not_chosen_on() -> None:
    questions = [_question(f"a{n}", "a") for n in range(4)]
    other = (0.0, 1.0)
    # the default finds every answer; the other pair only the first two, which a fold may see alone
    scores = {longmemeval_cv.DEFAULT: dict.fromkeys(["a0", "a1", "a2", "a3"], 1.0),
              other: {"a0": 1.0, "a1": 1.0, "a2": 0.0, "a3": 0.0}}  # fmt: skip
    result = longmemeval_cv.cross_validate(scores, questions, repeats=5, seed=0)
    assert result["held_out_default"] == 1.0
    assert result["held_out_chosen"] == 1.0  # a tie on the tuning fold goes to the default
