"""Ingestion of realistic chat turns: LongMemEval haystacks through ``Memory.add``, one call a session, end to end.

Each question's haystack (~50 sessions, ~500 user/assistant turns, median ~420 characters a turn) goes to a fresh
user, as ``benchmarks/longmemeval.py`` adds it (session ids, dates, message ids). Reports turns/s and characters/s
per embedder; ``--profile`` prints where the time goes (cProfile, cumulative, the top functions).

    python benchmarks/ingest.py --quick                  # 2 questions, wordllama
    python benchmarks/ingest.py --embedders wordllama minilm --out benchmarks/results/ingest.json
    python benchmarks/ingest.py --quick --profile
    python benchmarks/ingest.py --durability fsync process     # the cost of syncing each add (one per session)
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, table, write_json
from benchmarks.longmemeval import DEFAULT_DATA, Question, ingest, load


def run(questions: Sequence[Question], embedder: str, durability: str, profile: bool) -> dict[str, Any]:
    from memadapt_core import Memory

    folder = tempfile.mkdtemp(prefix="memadapt-ingest-")
    try:
        with Memory(path=folder, embedder=embedder, durability=durability) as mem:
            mem.add("warm up", user_id="warm-up")  # the embedder's first call, outside the timing
            prof = cProfile.Profile() if profile else None
            if prof is not None:
                prof.enable()
            done = ingest(mem, questions)
            if prof is not None:
                prof.disable()
                text = io.StringIO()
                pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(30)
                print(text.getvalue())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    chars = sum(len(t.content) for q in questions for s in q.sessions for t in s.turns)
    return {"embedder": embedder, "durability": durability, "questions": len(questions), "turns": done.turns,
            "refused": len(done.refused), "seconds": round(done.seconds, 1),
            "turns_per_s": round(done.turns / done.seconds), "chars_per_s": round(chars / done.seconds)}  # fmt: skip


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2 questions")
    parser.add_argument("--questions", type=int, default=6)
    parser.add_argument("--embedders", nargs="+", default=["wordllama"])
    parser.add_argument("--durability", nargs="+", default=["fsync"], help="fsync (the default), interval, process")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    questions = load(args.data)[: 2 if args.quick else args.questions]
    info = machine()
    results = [run(questions, e, d, args.profile) for e in args.embedders for d in args.durability]
    print(machine_line(info))
    print(table(["embedder", "durability", "questions", "turns", "seconds", "turns/s", "characters/s"],
                [[r["embedder"], r["durability"], r["questions"], r["turns"], r["seconds"], r["turns_per_s"],
                  r["chars_per_s"]] for r in results]))  # fmt: skip
    report = {"machine": info, "results": results}
    write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
