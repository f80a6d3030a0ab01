"""End-to-end QA on LoCoMo or LongMemEval: memadapt recalls, any OpenAI-compatible model answers, an LLM judges.

What users of mem0, Zep or MemOS compare: answer accuracy judged by an LLM with the peers' published judge prompts
(``_qa_judge``), per category, beside retrieval recall (the evidence among the memories the answerer was given).
Ingest is the retrieval benchmarks' own, through the public API (``locomo.ingest``: one ``add`` per session, a
user per conversation; ``longmemeval.ingest``: a user per question); no consolidation runs. Each question is one
``Memory.search(question, user_id=..., limit=--top-k, now=...)``, the hits rendered by ``format_context`` into the
prompt ``Memory.answer`` sends (``engine.planning.chat``), asked of ``--llm-model`` through memadapt's own LLM client;
the answer, the gold answer and the question go to ``--judge-model``.

Recall: LoCoMo, the share of a question's evidence turns among the hits; LongMemEval, the share of its
``has_answer`` turns among the hits and whether an evidence session is among them (``_abs`` questions: no recall).

    export OPENAI_API_KEY=...   # or --api-key-env NAME
    python benchmarks/qa.py --dataset locomo --llm-base-url https://api.openai.com/v1 --llm-model gpt-4o-mini \\
        --judge-model gpt-4o-mini --out benchmarks/results/qa_locomo.json
    python benchmarks/qa.py --dataset longmemeval --llm-model gpt-4o-mini --judge-model gpt-4o --limit 50
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks import _locomo_data, longmemeval
from benchmarks._common import engine_changed, machine, machine_line, make_embedder, progress, table, write_json
from benchmarks._qa_judge import judge_messages, locomo_prompt, longmemeval_prompt, parse_verdict
from benchmarks.locomo import Row
from benchmarks.locomo import ingest as locomo_ingest

ANSWER_OPERATION, JUDGE_OPERATION = "answer", "judge"  # the X-Memadapt-Operation header of each request
TOP_K = 10
WORKERS = 4


@dataclass(frozen=True)
class Case:
    """One question to answer, whatever its dataset."""

    id: str
    category: str
    question: str
    gold: str
    user_id: str
    now: datetime
    judge_prompt: Callable[[str], str]  # the answer -> the judge's prompt
    evidence: frozenset[str]  # evidence turns (external ids); empty: not scored for recall
    evidence_sessions: frozenset[str] = frozenset()


def locomo_cases(convs: Sequence[_locomo_data.Conversation]) -> list[Case]:
    """Categories 1-4 (category 5 has no gold answer; mem0's evaluation skips it too)."""
    cases = []
    for conv in convs:
        for n, q in enumerate(conv.questions):
            if q.category not in _locomo_data.SCORED:
                continue
            cases.append(Case(
                f"{conv.sample_id}#{n}", _locomo_data.CATEGORIES[q.category], q.text, q.answer, conv.sample_id,
                conv.now, functools.partial(locomo_prompt, q.text, q.answer), q.evidence,
            ))  # fmt: skip
    return cases


def longmemeval_cases(questions: Sequence[longmemeval.Question]) -> list[Case]:
    """Every question; ``_abs`` ones are judged with the abstention prompt and reported as their own category."""
    cases = []
    for q in questions:
        category = "abstention" if not q.scored else q.type
        prompt = functools.partial(longmemeval_prompt, q.type, q.text, q.answer, abstention=not q.scored)
        evidence = q.evidence_turns if q.scored else frozenset()
        sessions = q.evidence_sessions if q.scored else frozenset()
        cases.append(Case(q.id, category, q.text, q.answer, q.id, q.now, prompt, evidence, sessions))
    return cases


def llm_client(base_url: str | None, model: str, key_env: str) -> Any:
    """memadapt's own LLM client (retries, backoff), pointed at the model under test or the judge."""
    from memadapt_core.consolidation import LLMClient

    return LLMClient(base_url=base_url, model=model, api_key=os.environ.get(key_env) or None, temperature=0.0)


def answer_messages(mem: Any, case: Case, hits: list[Any]) -> list[dict[str, str]]:
    """The request ``Memory.answer`` sends: its system prompt with the date and the recalled block, the question."""
    from memadapt_core.engine.planning.chat import AnswerPlan

    scope: Any = {"user_id": case.user_id, "agent_id": None, "session_id": None}
    plan = AnswerPlan(
        question=case.question, scope=scope, recall_scope=scope, limit=len(hits), remember=False, now=case.now,
        with_recent=False, with_profile=False,
    )  # fmt: skip
    return plan.messages(mem.format_context(case.question, hits))


def ask(case: Case, messages: list[dict[str, str]], answerer: Any, judge: Any) -> tuple[str, str, str]:
    """The answer, what the judge said, and the verdict. An LLM that fails after its retries makes the question an
    ``error`` (counted, scored as wrong), not the end of a run that may have cost an hour."""
    from memadapt_core.errors import LLMError

    answer = ""
    try:
        answer = answerer.complete_text(ANSWER_OPERATION, messages)
        said = judge.complete_text(JUDGE_OPERATION, judge_messages(case.judge_prompt(answer)))
    except LLMError as exc:
        return answer, f"{type(exc).__name__}: {exc}", "error"
    return answer, said, {True: "correct", False: "wrong", None: "unparsed"}[parse_verdict(said)]


def report_row(case: Case, hits: list[Any], answer: str, said: str, verdict: str) -> dict[str, Any]:
    found = {h.record.external_id for h in hits}
    row: dict[str, Any] = {
        "id": case.id, "category": case.category, "question": case.question, "gold": case.gold, "answer": answer,
        "judge": said[:500], "verdict": verdict, "recalled": [h.record.external_id for h in hits],
    }  # fmt: skip
    if case.evidence:
        row["recall"] = len(found & case.evidence) / len(case.evidence)
    if case.evidence_sessions:
        sessions = {str(h.record.session_id).split("#")[0] for h in hits}
        row["session_any"] = float(bool(sessions & case.evidence_sessions))
    return row


def answer_all(
    mem: Any, cases: Sequence[Case], answerer: Any, judge: Any, *, top_k: int, workers: int
) -> list[dict[str, Any]]:
    """Recall every question first (the store, in this thread), then answer and judge ``workers`` at a time: the
    model's latency, not memadapt's, is what a long run waits on."""
    recalled = []
    for case in progress(cases, "qa: recall", unit="q"):
        hits = mem.search(case.question, user_id=case.user_id, limit=top_k, now=case.now)
        recalled.append((case, hits, answer_messages(mem, case, hits)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        asked = pool.map(lambda item: ask(item[0], item[2], answerer, judge), recalled)
        done = list(progress(asked, "qa: answer and judge", total=len(recalled), unit="q"))
    return [report_row(case, hits, *result) for (case, hits, _), result in zip(recalled, done, strict=True)]


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per category and overall: questions, correct, wrong, unparsed, errors, accuracy (over every question: unparsed
    and errors count as wrong), recall."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(r["category"], []).append(r)
        groups.setdefault("overall", []).append(r)
    out: dict[str, Any] = {}
    for name, items in sorted(groups.items(), key=lambda kv: (kv[0] == "overall", kv[0])):
        correct = sum(r["verdict"] == "correct" for r in items)
        unparsed = sum(r["verdict"] == "unparsed" for r in items)
        errors = sum(r["verdict"] == "error" for r in items)
        recalls = [r["recall"] for r in items if "recall" in r]
        sessions = [r["session_any"] for r in items if "session_any" in r]
        out[name] = {
            "questions": len(items), "correct": correct, "wrong": len(items) - correct - unparsed - errors,
            "unparsed": unparsed, "errors": errors, "accuracy": round(correct / len(items), 4),
            "recall": round(sum(recalls) / len(recalls), 4) if recalls else None,
            "recall_scored": len(recalls),
            "session_any": round(sum(sessions) / len(sessions), 4) if sessions else None,
        }  # fmt: skip
    return out


def run(
    dataset: str, data: Any, answerer: Any, judge: Any, *, top_k: int = TOP_K, embedder: Any = None,
    workers: int = WORKERS,
) -> dict[str, Any]:  # fmt: skip
    """Ingest ``data`` (LoCoMo conversations or LongMemEval questions) into one in-memory store, answer, judge."""
    from memadapt_core import Memory

    # No LLM on the store: ingesting must not consolidate (the raw turns are what is recalled, as in locomo.py).
    no_llm = {"model": None, "base_url": None, "api_key": None}
    with Memory(location=":memory:", embedder=make_embedder(embedder), llm=no_llm) as mem:
        started = time.perf_counter()
        if dataset == "locomo":
            locomo_ingest(mem, data, Row("qa"))
            cases = locomo_cases(data)
        else:
            done = longmemeval.ingest(mem, data)
            cases = longmemeval_cases(data)
        ingest_s = time.perf_counter() - started
        rows = answer_all(mem, cases, answerer, judge, top_k=top_k, workers=workers)
    result: dict[str, Any] = {
        "dataset": dataset, "top_k": top_k, "workers": workers, "answerer": answerer.model, "judge": judge.model,
        "ingest_s": round(ingest_s, 2), "by_category": summarise(rows), "questions": rows,
        "llm_usage": {"answerer": answerer.stats, "judge": judge.stats},
    }  # fmt: skip
    if dataset == "longmemeval":
        result["turns_refused"] = len(done.refused)
    return result


def render(result: dict[str, Any]) -> str:
    def f(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    rows = [
        [name, m["questions"], m["correct"], m["wrong"], m["unparsed"], m["errors"], f(m["accuracy"]),
         f(m["recall"]), f(m["session_any"])]
        for name, m in result["by_category"].items()
    ]  # fmt: skip
    headers = ["category", "n", "correct", "wrong", "unparsed", "errors", "accuracy", "evidence recall", "session any"]
    return table(headers, rows)


def load(args: argparse.Namespace) -> Any:
    if args.dataset == "locomo":
        convs, _ = _locomo_data.load(args.data or _locomo_data.DEFAULT_DATA, args.only)
        if args.limit is not None:  # the first N scored questions, keeping only the conversations they need
            kept, left = [], args.limit
            for conv in convs:
                if left <= 0:
                    break
                asked = [q for q in conv.questions if q.category in _locomo_data.SCORED][:left]
                left -= len(asked)
                conv.questions = asked
                kept.append(conv)
            convs = kept
        return convs
    questions = longmemeval.load(args.data or longmemeval.DEFAULT_DATA, args.only)
    return questions[: args.limit] if args.limit is not None else questions


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", choices=("locomo", "longmemeval"), default="locomo")
    parser.add_argument("--data", help="the dataset's JSON (default: ../shared/data/<dataset>_dev.json)")
    parser.add_argument("--only", nargs="+", help="LoCoMo sample ids or LongMemEval question ids")
    parser.add_argument("--limit", type=int, help="answer only the first N questions")
    parser.add_argument("--llm-base-url", help="the answering model's OpenAI-compatible endpoint (default: OpenAI)")
    parser.add_argument("--llm-model", required=True, help="the answering model, e.g. gpt-4o-mini")
    parser.add_argument("--judge-model", help="the judge (default: --llm-model); peers: gpt-4o-mini, gpt-4o")
    parser.add_argument("--judge-base-url", help="the judge's endpoint (default: --llm-base-url)")
    parser.add_argument("--api-key-env", default="OPENAI_API_KEY", help="the variable holding the key")
    parser.add_argument("--top-k", type=int, default=TOP_K, help=f"memories recalled per question ({TOP_K})")
    parser.add_argument("--workers", type=int, default=WORKERS, help=f"questions asked at once ({WORKERS})")
    parser.add_argument("--embedder", help="memadapt's embedder provider (default: the engine's default)")
    parser.add_argument("--out", help="write the report (every question, answer and verdict) as JSON")
    args = parser.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be 1 or more")
    if args.workers < 1:
        parser.error("--workers must be 1 or more")

    data = load(args)
    if not data:
        parser.error("no question to run")
    answerer = llm_client(args.llm_base_url, args.llm_model, args.api_key_env)
    judge = llm_client(args.judge_base_url or args.llm_base_url, args.judge_model or args.llm_model, args.api_key_env)
    info = machine()
    with answerer, judge:
        result = {
            "machine": info,
            **run(args.dataset, data, answerer, judge, top_k=args.top_k, embedder=args.embedder, workers=args.workers),
        }
    result["engine_changed"] = engine_changed(info)
    print(f"\n{machine_line(info)}")
    print(f"{args.dataset}: answered by {answerer.model}, judged by {judge.model}, top {args.top_k} memories")
    print(render(result))
    write_json(args.out, result)
    return result


if __name__ == "__main__":
    main()
