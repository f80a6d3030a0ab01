"""Search latency with heat tracking on and off, side by side in one run (issue 21).

One embedded store of ``--size`` memories over 100 users; two engines over it in turn (``tiers.heat`` off, then
on, then off, then on ...), each timing ``--queries`` searches per round, so a slow spell of the VM falls on both.
Heat tracking adds, per search, one lock and a dict update and the heat score per hit (about 12 us for 10 hits,
timed alone); the visits are written at ``flush()``, timed apart (it is not on the search path). The order of the
two engines alternates from round to round.

    python benchmarks/heat_latency.py                  # 10k memories, 5 rounds of 300 searches each way
    python benchmarks/heat_latency.py --size 2000 --rounds 3 --queries 200
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, median, pct, question, sentence, table, write_json
from memadapt_core import Memory

USERS = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--out")
    args = parser.parse_args()
    rng = random.Random(7)
    folder = Path(tempfile.mkdtemp(prefix="memadapt-heat-")) / "store"
    with Memory(path=folder) as mem:
        for start in range(0, args.size, 1_000):
            for user in range(USERS):
                batch = [
                    f"{sentence(rng)} (note {i})" for i in range(start + user, min(start + 1_000, args.size), USERS)
                ]
                if batch:
                    mem.add(batch, user_id=f"user-{user}", kind="fact")
    asked = [(f"user-{rng.randrange(USERS)}", question(rng)) for _ in range(args.queries)]
    times: dict[str, list[float]] = {"off": [], "on": []}
    flush_ms: list[float] = []
    round_p50: dict[str, list[float]] = {"off": [], "on": []}
    for n in range(args.rounds):
        for mode in ("off", "on") if n % 2 == 0 else ("on", "off"):  # alternate which goes first
            with Memory(path=folder, tiers={"heat": mode == "on"}) as mem:
                mem.search("warm up", user_id="user-0")
                this_round = []
                for user, q in asked:
                    t = time.perf_counter()
                    mem.search(q, user_id=user, limit=10)
                    this_round.append((time.perf_counter() - t) * 1000)
                times[mode] += this_round
                round_p50[mode].append(median(this_round))
                t = time.perf_counter()
                mem.flush()
                if mode == "on":
                    flush_ms.append((time.perf_counter() - t) * 1000)
    rows = [
        [mode, f"{median(ms):.3f}", f"{min(round_p50[mode]):.3f}-{max(round_p50[mode]):.3f}", f"{pct(ms, 95):.3f}"]
        for mode, ms in times.items()
    ]
    print(machine_line(machine()))
    print(f"{args.size} memories, {args.rounds} rounds x {args.queries} searches (limit 10) each way")
    print(table(["heat tracking", "search p50 ms", "p50 range over rounds", "p95 ms"], rows))
    print(f"flush() writing the visits of {args.queries} searches: median {median(flush_ms):.1f} ms")
    summary = {mode: {"p50": median(ms), "p95": pct(ms, 95), "searches": len(ms)} for mode, ms in times.items()}
    results = {"size": args.size, "search_ms": summary, "round_p50_ms": round_p50, "flush_ms": flush_ms}
    write_json(args.out, {**results, "machine": machine()})


if __name__ == "__main__":
    main()
