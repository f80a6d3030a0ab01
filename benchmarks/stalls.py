"""Search pauses while the embedded store does its upkeep: the longest gap between searches, and their tails.

One thread searches in a loop (end to end: ``Memory.search``, a random user, a synthetic question) and records when
each search completes; the main thread runs one upkeep at a time in another thread and marks when it starts and
ends. For each upkeep kind: how long it took, the longest gap between two consecutive search completions around
it (the stall a search sees), and p50/p95/p99 of the searches that ran meanwhile. ``idle`` is the same loop with no
upkeep: the warm store's own tails (at ``--users 10``, 10k memories a user at 100k).

Upkeep kinds, run in this order on one store:

- ``flush``: after writing 5% more records in calls of 10 (an appendable segment's worth), ``Memory.flush()``;
- ``optimize``: ``Memory.optimize()`` after those writes (rewrites every live point into one segment);
- ``vacuum``: delete 30% of the users' records (``delete_all``), then the background vacuum's own work (the same
  call ``Upkeep`` makes on its thread: ``optimize`` and ``flush`` under the write lock);

    python benchmarks/stalls.py                  # 100k memories, 10 users
    python benchmarks/stalls.py --quick          # 10k memories
    python benchmarks/stalls.py --out benchmarks/results/stalls.json
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, pct, question, sentence, table, write_json

IDLE_SECONDS = 4.0


class Searcher(threading.Thread):
    """Searches until stopped; keeps (completed at, took) of every search."""

    def __init__(self, mem: Any, users: int, seed: int = 5) -> None:
        super().__init__(name="bench-searcher", daemon=True)
        self.mem, self.users, self.rng = mem, users, random.Random(seed)
        self.done: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        qs = [(f"user-{self.rng.randrange(self.users)}", question(self.rng)) for _ in range(512)]
        i = 0
        while not self.stop.is_set():
            user, q = qs[i % len(qs)]
            t = time.perf_counter()
            self.mem.search(q, user_id=user, limit=10)
            end = time.perf_counter()
            self.done.append((end, end - t))
            i += 1


def window(searcher: Searcher, kind: str, work: Callable[[], Any], *, settle: float = 0.3) -> dict[str, Any]:
    """Run ``work`` on its own thread while ``searcher`` searches; what the searches saw meanwhile."""
    time.sleep(settle)
    start_i = len(searcher.done)
    worker = threading.Thread(target=work, name=f"bench-{kind}")
    started = time.perf_counter()
    worker.start()
    worker.join()
    ended = time.perf_counter()
    time.sleep(settle)  # the search running when the work ended completes
    done = searcher.done[max(0, start_i - 1) :]
    ends = [e for e, _ in done]
    gaps = [b - a for a, b in itertools.pairwise(ends)]
    inside = [took * 1e3 for e, took in done if started <= e <= ended + settle]
    return {
        "upkeep": kind,
        "upkeep_s": round(ended - started, 3),
        "searches": len(inside),
        "longest_gap_ms": round(max(gaps) * 1e3, 1) if gaps else None,
        "search_p50_ms": round(pct(inside, 50), 3),
        "search_p95_ms": round(pct(inside, 95), 3),
        "search_p99_ms": round(pct(inside, 99), 3),
        "search_max_ms": round(max(inside), 1) if inside else None,
    }


def build(mem: Any, n: int, users: int) -> None:
    rng = random.Random(7)
    per_user = n // users
    for u in range(users):
        texts = [f"{sentence(rng)} (note {u}-{i})" for i in range(per_user)]
        for i in range(0, per_user, 1000):
            mem.add(texts[i : i + 1000], user_id=f"user-{u}", kind="fact")


def run(n: int, users: int, embedder: str) -> dict[str, Any]:
    from memadapt_core import Memory

    folder = tempfile.mkdtemp(prefix="memadapt-stalls-")
    try:
        mem = Memory(path=folder, embedder=embedder, vacuum_after_deletes=0)  # upkeep runs when the benchmark says
        t = time.perf_counter()
        build(mem, n, users)
        build_s = time.perf_counter() - t
        mem.optimize()  # the store as a long-lived one is: compacted
        backend = mem._live().backend  # the background vacuum's own entry point (benchmarks only)
        rng = random.Random(9)
        searcher = Searcher(mem, users)
        searcher.start()
        rows = [window(searcher, "idle", lambda: time.sleep(IDLE_SECONDS))]

        def write_more() -> None:
            for i in range(n // 20 // 10):
                mem.add([f"{sentence(rng)} (more {i}-{j})" for j in range(10)], user_id=f"user-{i % users}",
                        kind="fact")  # fmt: skip

        rows.append(window(searcher, "writes (5%, calls of 10)", write_more))
        rows.append(window(searcher, "flush", mem.flush))
        rows.append(window(searcher, "optimize", mem.optimize))
        doomed = max(1, users * 3 // 10)  # past the optimizer's deleted_threshold (20% of a segment)

        def delete_some() -> None:
            for u in range(doomed):
                mem.delete_all(user_id=f"user-{users - 1 - u}")

        rows.append(window(searcher, "deletes (30%)", delete_some))
        rows.append(window(searcher, "vacuum", backend.upkeep.run_now))
        searcher.stop.set()
        searcher.join()
        mem.close()
        return {"memories": n, "users": users, "embedder": embedder, "build_s": round(build_s, 1), "rows": rows}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="10k memories instead of 100k")
    parser.add_argument("--memories", type=int)
    parser.add_argument("--users", type=int, default=10)
    parser.add_argument("--embedder", default="wordllama")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    n = args.memories or (10_000 if args.quick else 100_000)
    info = machine()
    result = run(n, args.users, args.embedder)
    headers = ["upkeep", "upkeep s", "searches", "longest gap ms", "p50 ms", "p95 ms", "p99 ms", "max ms"]
    rows = [[r["upkeep"], r["upkeep_s"], r["searches"], r["longest_gap_ms"], r["search_p50_ms"], r["search_p95_ms"],
             r["search_p99_ms"], r["search_max_ms"]] for r in result["rows"]]  # fmt: skip
    print(machine_line(info))
    print(f"{n} memories, {args.users} users, embedder {args.embedder}, built in {result['build_s']} s")
    print(table(headers, rows))
    report = {"machine": info, **result}
    write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
