"""Cross-validation of LongMemEval's search-time settings: are the defaults chosen on the questions that judge them?

``session_diversity`` and ``assistant_weight`` were tuned on LongMemEval's 29 dev questions; on questions held out
from us they did much worse (session any@5 0.77 against 1.00). This runner judges a grid of their values the honest
way: the questions are split in two folds (by type, alternately, so each fold has every type), a value pair is chosen
on one fold (best session any@5, ties to the default) and scored on the other, and this is repeated over shuffled
splits. It reports, for the default and for "choose on one fold", the mean held-out session any@5, and how often
each pair was chosen.

The haystacks are ingested once into ``--store`` (``benchmarks/longmemeval.py --store DIR`` makes it; with the
default embedder that takes the better part of an hour on two cores), then every pair searches the same store.

    python benchmarks/longmemeval.py --store /tmp/lme-store            # once
    python benchmarks/longmemeval_cv.py --store /tmp/lme-store --out benchmarks/results/longmemeval-cv.json
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, table, write_json
from benchmarks.longmemeval import DEFAULT_DATA, Question, load, run

METRIC = "session_any@5"
CONFIG = "default floor"
GRID = {"session_diversity": (0.0, 0.05, 0.1), "assistant_weight": (0.8, 0.9, 1.0)}
DEFAULT = (0.05, 0.9)


def per_question(questions: Sequence[Question], store: str) -> dict[tuple[float, float], dict[str, float]]:
    """Each grid pair's ``METRIC`` per scored question, searching the store made before."""
    out: dict[tuple[float, float], dict[str, float]] = {}
    for pair in itertools.product(*GRID.values()):
        retrieval = dict(zip(GRID, pair, strict=True))
        rows = run(questions, diagnostics=False, retrieval=retrieval, store=store)["questions"]
        out[pair] = {r["id"]: r[CONFIG][METRIC] for r in rows if r["scored"]}
    return out


def folds(questions: Sequence[Question], rng: random.Random) -> tuple[list[str], list[str]]:
    """Two halves with every question type in each: each type's questions shuffled and dealt alternately."""
    by_type: dict[str, list[str]] = {}
    for q in questions:
        if q.scored:
            by_type.setdefault(q.type, []).append(q.id)
    halves: tuple[list[str], list[str]] = ([], [])
    dealt = 0
    for ids in by_type.values():
        rng.shuffle(ids)
        for qid in ids:
            halves[dealt % 2].append(qid)
            dealt += 1
    return halves


def _mean(scores: dict[str, float], ids: Sequence[str]) -> float:
    return sum(scores[i] for i in ids) / len(ids)


def cross_validate(scores: dict[tuple[float, float], dict[str, float]], questions: Sequence[Question],
                   repeats: int, seed: int) -> dict[str, Any]:  # fmt: skip
    rng = random.Random(seed)
    chosen: Counter[tuple[float, float]] = Counter()
    held_chosen: list[float] = []
    held_default: list[float] = []
    for _ in range(repeats):
        a, b = folds(questions, rng)
        for tune, test in ((a, b), (b, a)):
            best = max(scores, key=lambda p: (_mean(scores[p], tune), p == DEFAULT))
            chosen[best] += 1
            held_chosen.append(_mean(scores[best], test))
            held_default.append(_mean(scores[DEFAULT], test))
    every = next(iter(scores.values()))
    return {
        "repeats": repeats,
        "held_out_chosen": round(sum(held_chosen) / len(held_chosen), 3),
        "held_out_default": round(sum(held_default) / len(held_default), 3),
        "chosen": {f"{p[0]}/{p[1]}": n for p, n in chosen.most_common()},
        "all_questions": {f"{p[0]}/{p[1]}": round(_mean(s, list(every)), 3) for p, s in scores.items()},
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--store", required=True, help="a store made by longmemeval.py --store over the same data")
    parser.add_argument("--repeats", type=int, default=20, help="shuffled two-fold splits")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if not Path(args.store).exists():
        parser.error(f"no store at {args.store}: make it with benchmarks/longmemeval.py --store {args.store}")
    questions = load(args.data)
    info = machine()
    scores = per_question(questions, args.store)
    result = {"machine": info, "metric": METRIC, "grid": GRID, "default": DEFAULT,
              **cross_validate(scores, questions, args.repeats, args.seed)}  # fmt: skip
    print(f"\n{machine_line(info)}")
    print(f"{METRIC}, {sum(q.scored for q in questions)} scored questions, {args.repeats} x 2 folds")
    print(table(["session_diversity/assistant_weight", "all questions"], list(result["all_questions"].items())))
    print(f"held out: the default {result['held_out_default']}, chosen on the other fold {result['held_out_chosen']}")
    print(f"chosen: {result['chosen']}")
    write_json(args.out, result)
    return result


if __name__ == "__main__":
    main()
