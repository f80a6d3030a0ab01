"""The first search of each scope in a process, with the scopes' token counts saved beside the store and without.

With ``embedder.pooling="scope_idf"`` (MiniLM's default) a query is weighed by its scope's token counts. A process
that has not met a scope yet reads them: from the counts saved beside the store (``engine.saved_counts``), or, when
there are none, from every text of the scope (scrolled and tokenized). That happens once per scope and process,
and again for a scope that left the cache (more than ``pooling_scopes`` scopes in use). One store, ``--users``
users of ``--per-user`` synthetic memories each and one big user; closed, then opened afresh for each pass: the
first search of each user, then a second one (the steady state), with the counts file kept and with it removed.

    python benchmarks/first_search.py --quick
    python benchmarks/first_search.py --out benchmarks/results/first_search.json
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, pct, question, sentence, table, write_json


def build(folder: str, embedder: str, users: int, per_user: int, big: int) -> float:
    """The store; returns its add rate (records a second)."""
    from memadapt_core import Memory

    rng = random.Random(11)
    scopes = [(f"user-{u}", per_user) for u in range(users)] + [("big", big)]
    t, n = time.perf_counter(), 0
    with Memory(path=folder, embedder=embedder) as mem:
        for user, size in scopes:
            for start in range(0, size, 1000):
                batch = [f"{sentence(rng)} ({user} {i})" for i in range(start, min(size, start + 1000))]
                mem.add(batch, user_id=user, kind="fact")
                n += len(batch)
    return n / (time.perf_counter() - t)


def searches(folder: str, users: Sequence[str], saved: bool) -> dict[str, Any]:
    """Open the store afresh (its counts file removed unless ``saved``); each user's first and second search."""
    from memadapt_core import Memory
    from memadapt_core.engine.saved_counts import counts_file

    if not saved:
        for path in Path(folder).glob(f"{counts_file(Path('.'), '*').name}"):
            path.unlink()
    rng = random.Random(5)
    first: dict[str, float] = {}
    second: dict[str, float] = {}
    with Memory(path=folder) as mem:
        mem.search("warm the embedder", user_id="nobody")
        for user in users:
            q = question(rng)
            for into in (first, second):
                t = time.perf_counter()
                mem.search(q, user_id=user)
                into[user] = (time.perf_counter() - t) * 1e3
    small = [u for u in users if u != "big"]
    return {
        "counts_saved": saved,
        "first_p50_ms": round(pct([first[u] for u in small], 50), 2),
        "first_p95_ms": round(pct([first[u] for u in small], 95), 2),
        "second_p50_ms": round(pct([second[u] for u in small], 50), 2),
        "big_first_ms": round(first["big"], 2),
        "big_second_ms": round(second["big"], 2),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="5 users of 200, a big one of 2,000")
    parser.add_argument("--embedder", default="minilm")
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--per-user", type=int, default=1000)
    parser.add_argument("--big", type=int, default=10_000)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    users, per_user, big = (5, 200, 2000) if args.quick else (args.users, args.per_user, args.big)
    folder = tempfile.mkdtemp(prefix="memadapt-first-search-")
    try:
        rate = build(folder, args.embedder, users, per_user, big)
        names = [f"user-{u}" for u in range(users)] + ["big"]
        passes = [searches(folder, names, saved) for saved in (False, True, False, True)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report: dict[str, Any] = {
        "machine": machine(),
        "store": {
            "embedder": args.embedder,
            "users": users,
            "per_user": per_user,
            "big": big,
            "add_per_s": round(rate),
        },
        "passes": passes,
    }
    print(machine_line(report["machine"]))
    print(f"{users} users of {per_user} memories and one of {big} ({args.embedder}); the store opened afresh each pass")
    cols = ["counts_saved", "first_p50_ms", "first_p95_ms", "second_p50_ms", "big_first_ms", "big_second_ms"]
    print(table(cols, [[p[c] for c in cols] for p in passes]))
    write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
