"""How cost grows with the store: search p50/p95 and add throughput at 10k, 100k and 1M memories on the embedded
edge store (1,000 users), beside a numpy floor (a brute-force top-10 over the same user's vectors, the rows found by a
precomputed index), with memory and disk used. One store grows through the sizes; the run is bounded in time and
stops, saying so, at the size it reached. A PNG plot goes to ``benchmarks/results/``. With ``--optimize``, each size
is then optimized (``optimize()``, timed) and searched again; the next size's records are then written beside the
optimized segment, so its as-written search is of an optimized store plus the newest records.

    python benchmarks/scale.py                          # 10k, 100k, 1M; at most --max-minutes (default 20)
    python benchmarks/scale.py --quick                  # 2k and 10k memories, 100 users (under a minute)
    python benchmarks/scale.py --optimize               # also search each size after optimize()
    python benchmarks/scale.py --out benchmarks/results/scale.json --plot benchmarks/results/scale.png
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import (
    engine_changed,
    machine,
    machine_line,
    pct,
    peak_rss_mib,
    progress,
    question,
    rss_mib,
    sentence,
    table,
    write_json,
)


def texts(start: int, stop: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed * 1_000_003 + start)
    return [f"{sentence(rng)} (note {i})" for i in range(start, stop)]


def disk_mib(folder: str) -> float:
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.stat(os.path.join(root, name)).st_blocks * 512
    return total / 2**20


class Floor:
    """The same vectors in one numpy array, rows of each user precomputed: the cost of the arithmetic alone."""

    def __init__(self, capacity: int, dim: int, users: int) -> None:
        self.vecs = np.zeros((capacity, dim), dtype=np.float32)
        self.owner = np.zeros(capacity, dtype=np.int32)
        self.n = 0
        self.users = users
        self.rows: dict[int, np.ndarray[Any, Any]] = {}

    def extend(self, vecs: np.ndarray[Any, Any], owners: np.ndarray[Any, Any]) -> None:
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        self.vecs[self.n : self.n + len(vecs)] = vecs / np.maximum(norms, 1e-12)
        self.owner[self.n : self.n + len(vecs)] = owners
        self.n += len(vecs)
        order = np.argsort(self.owner[: self.n], kind="stable")
        bounds = np.searchsorted(self.owner[: self.n][order], np.arange(self.users + 1))
        self.rows = {u: order[bounds[u] : bounds[u + 1]] for u in range(self.users)}

    def top10(self, user: int, q: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        idx = self.rows[user]
        scores = self.vecs[idx] @ q
        k = min(10, len(idx) - 1)
        return idx[np.argpartition(-scores, k)[:10]] if k > 0 else idx


def measure(mem: Any, floor: Floor | None, users: int, n_queries: int, budget_s: float) -> dict[str, Any]:
    rng = random.Random(17)
    qs = [(rng.randrange(users), question(rng)) for _ in range(n_queries)]
    for u, q in qs[:5]:
        mem.search(q, user_id=f"user-{u}", limit=10)  # warm-up
    e2e: list[float] = []
    deadline = time.perf_counter() + budget_s
    for u, q in qs:
        t = time.perf_counter()
        mem.search(q, user_id=f"user-{u}", limit=10)
        e2e.append((time.perf_counter() - t) * 1e3)
        if time.perf_counter() > deadline and len(e2e) >= 20:
            break
    out: dict[str, Any] = {"queries": len(e2e), "search_p50_ms": pct(e2e, 50), "search_p95_ms": pct(e2e, 95)}
    if floor is not None:
        qvecs = [(u, mem.embedder.embed_query(q)) for u, q in qs[: len(e2e)]]
        qvecs = [(u, v / max(float(np.linalg.norm(v)), 1e-12)) for u, v in qvecs]
        times = []
        for u, v in qvecs:
            t = time.perf_counter()
            floor.top10(u, v)
            times.append((time.perf_counter() - t) * 1e3)
        out.update({"floor_p50_ms": pct(times, 50), "floor_p95_ms": pct(times, 95)})
    return out


def run(sizes: Sequence[int], users: int, n_queries: int, budget_s: float, max_minutes: float,
        with_floor: bool, optimize: bool = False) -> dict[str, Any]:  # fmt: skip
    from memadapt_core import Memory

    folder = tempfile.mkdtemp(prefix="memadapt-scale-")
    deadline = time.monotonic() + max_minutes * 60
    mem = Memory(path=folder, embedder="wordllama")
    floor = Floor(max(sizes), mem.embedder.dim, users) if with_floor else None
    base_rss = rss_mib()
    results: list[dict[str, Any]] = []
    stopped: str | None = None
    have = 0
    try:
        for size in sizes:
            rate = results[-1]["add_per_s"] if results else None
            if rate and (size - have) / rate > deadline - time.monotonic():
                stopped = f"stopped before {size:,}: adding {size - have:,} more at {rate:,}/s would pass --max-minutes"
                break
            per_user = (size - have) // users
            t0 = time.perf_counter()
            added, floor_s = 0, 0.0
            for u in progress(range(users), f"add to {size:,}", unit="user"):
                start = have + u * per_user
                batch = texts(start, start + per_user)
                for i in range(0, len(batch), 1000):
                    mem.add(batch[i : i + 1000], user_id=f"user-{u}", kind="fact")
                if floor is not None:  # not part of the add figure: timed apart and subtracted
                    tf = time.perf_counter()
                    floor.extend(mem.embedder.embed_documents(batch), np.full(len(batch), u, dtype=np.int32))
                    floor_s += time.perf_counter() - tf
                added += len(batch)
                if time.monotonic() > deadline:
                    stopped = f"time limit reached while adding: measured at {have + added:,} instead of {size:,}"
                    break
            elapsed = time.perf_counter() - t0
            have += added
            row = {"memories": have, "users": users, "add_per_s": round(added / max(elapsed - floor_s, 1e-9))}
            row.update(measure(mem, floor, users, n_queries, budget_s))
            mem.flush()
            row.update({"rss_mib": round(rss_mib()), "rss_growth_mib": round(rss_mib() - base_rss),
                        "peak_rss_mib": round(peak_rss_mib()), "disk_mib": round(disk_mib(folder))})  # fmt: skip
            floor_mib = 0 if floor is None else round(floor.vecs[: floor.n].nbytes / 2**20)
            # The floor's own copy of the vectors lives in this process too: the store's share excludes it.
            row.update({"floor_vectors_mib": floor_mib, "store_rss_growth_mib": row["rss_growth_mib"] - floor_mib})
            if optimize:
                t0 = time.perf_counter()
                mem.optimize()
                row["optimize_s"] = round(time.perf_counter() - t0, 2)
                after = measure(mem, None, users, n_queries, budget_s)
                row.update({"optimized_search_p50_ms": after["search_p50_ms"],
                            "optimized_search_p95_ms": after["search_p95_ms"], "peak_rss_mib": round(peak_rss_mib()),
                            "disk_mib": round(disk_mib(folder))})  # fmt: skip
            results.append(row)
            if stopped:
                break
    finally:
        mem.close()
        shutil.rmtree(folder, ignore_errors=True)
    return {"results": results, "stopped": stopped}


def plot(results: Sequence[dict[str, Any]], path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = [r["memories"] for r in results]
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(15, 4.5))
    ax1.plot(n, [r["search_p50_ms"] for r in results], "o-", label="memadapt search p50")
    ax1.plot(n, [r["search_p95_ms"] for r in results], "o--", label="memadapt search p95")
    if "optimized_search_p50_ms" in results[0]:
        ax1.plot(n, [r["optimized_search_p50_ms"] for r in results], "^-", label="after optimize() p50")
        ax1.plot(n, [r["optimized_search_p95_ms"] for r in results], "^--", label="after optimize() p95")
    if "floor_p50_ms" in results[0]:
        ax1.plot(n, [r["floor_p50_ms"] for r in results], "s-", label="numpy floor p50")
        ax1.plot(n, [r["floor_p95_ms"] for r in results], "s--", label="numpy floor p95")
    ax1.set(
        xscale="log",
        yscale="log",
        xlabel=f"memories ({results[0]['users']:,} users)",
        ylabel="ms",
        title="search, top 10, one user",
    )
    ax1.legend()
    ax2.plot(n, [r["add_per_s"] for r in results], "o-")
    ax2.set(xscale="log", xlabel="memories", ylabel="memories / s", title="add throughput (embedding included)")
    ax2.set_ylim(bottom=0)
    ax3.plot(n, [r.get("store_rss_growth_mib", r["rss_growth_mib"]) for r in results], "o-", label="RSS growth (store)")
    ax3.plot(n, [r["disk_mib"] for r in results], "s-", label="disk")
    ax3.set(xscale="log", yscale="log", xlabel="memories", ylabel="MiB", title="memory and disk")
    ax3.legend()
    for ax in (ax1, ax2, ax3):
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="2k and 10k memories, 100 users")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--users", type=int)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--budget", type=float, default=30.0, help="seconds of searching per size at most")
    parser.add_argument("--max-minutes", type=float, default=20.0, help="stop adding when this is spent")
    parser.add_argument("--no-floor", action="store_true", help="skip the numpy floor (saves its memory)")
    parser.add_argument("--optimize", action="store_true", help="optimize() each size and search it again")
    parser.add_argument("--out", default=None)
    parser.add_argument("--plot", default=None, help="PNG path (e.g. benchmarks/results/scale.png)")
    args = parser.parse_args(argv)
    sizes = sorted(args.sizes or ([2_000, 10_000] if args.quick else [10_000, 100_000, 1_000_000]))
    users = args.users or (100 if args.quick else 1_000)
    if any(s < users for s in sizes):
        parser.error("every size needs at least one memory per user")
    info = machine()
    started = time.perf_counter()
    out = run(sizes, users, args.queries if not args.quick else 100, args.budget if not args.quick else 5.0,
              args.max_minutes, not args.no_floor, args.optimize)  # fmt: skip
    out.update({"machine": info, "wall_s": round(time.perf_counter() - started, 1), "kind": "fact"})
    out["engine_changed"] = engine_changed(info)

    def f(v: Any) -> str:
        return f"{v:.3f}" if isinstance(v, float) else str(v)

    rows = [[f"{r['memories']:,}", r["users"], r["add_per_s"], f(r["search_p50_ms"]), f(r["search_p95_ms"]),
             f(r.get("floor_p50_ms", "-")), f(r.get("floor_p95_ms", "-")), r["store_rss_growth_mib"],
             r["peak_rss_mib"], r["disk_mib"]] for r in out["results"]]  # fmt: skip
    headers = ["memories", "users", "add /s", "search p50 ms", "search p95 ms", "floor p50 ms", "floor p95 ms",
               "store RSS growth MiB", "peak RSS MiB", "disk MiB"]  # fmt: skip
    if args.optimize:
        headers += ["optimize s", "optimized p50 ms", "optimized p95 ms"]
        for row, r in zip(rows, out["results"], strict=True):
            row += [f(r["optimize_s"]), f(r["optimized_search_p50_ms"]), f(r["optimized_search_p95_ms"])]
    print(f"\n{machine_line(info)}")
    print(table(headers, rows))
    for note in (out["stopped"], out["engine_changed"]):
        if note:
            print(note)
    if args.plot and out["results"]:
        plot(out["results"], args.plot, machine_line(info).replace("machine: ", ""))
        print(f"plot: {args.plot}")
    write_json(args.out, out)
    return out


if __name__ == "__main__":
    main()
