"""Latency and throughput of memadapt's embedded store, against qdrant-client local mode and a numpy floor.

For each size (memories spread over 100 users), in a fresh subprocess so peak memory is the run's own: add
throughput (batched, one at a time; embedding included), search p50/p95 end to end and engine-only (embedding
excluded: it reuses query vectors computed before either timed loop), peak RSS. The numpy floor is a brute-force
filtered top-10 over the same vectors.

The embedded store is measured four ways. ``edge``: each user's records written in calls of 1,000, one user after
another, as a bulk import does. ``edge-interleaved``: the same records in calls of 10, the users in turn, as a live
store receives them, so each user's points lie among everyone's. ``-optimized``: the same writes, then
``optimize()`` (timed: ``optimize s``), which rewrites them into one immutable segment with each user's points
together. The ``edge-nocache`` row is the bulk-written store with ``payload_cache=0``: every search decodes its
candidates' payloads from qdrant-edge, as a search does for records the cache does not hold (written or read before
the last 100k, or not yet read since the store was opened). In the other rows all records are cached: they were just
written.

    python benchmarks/latency.py                 # 1k, 10k, 100k
    python benchmarks/latency.py --quick         # 1k, 10k, fewer queries (under a minute)
    python benchmarks/latency.py --repeat 5          # the embedded store's rows: the median of 5 runs
    python benchmarks/latency.py --out benchmarks/results/latency.json
    python benchmarks/latency.py --sizes 100000 --rows edge edge-optimized  # some rows only

Timings on a shared VM vary by up to 2x from one run to the next, so the four embedded-store rows are run ``--repeat``
times (3 by default), each in its own process, the repeats going round all sizes (a slow spell of the
VM slows one run of several rows, not every run of one row), and report the median of each figure with the range of
search p50; every run's figures are in the JSON. The reference rows (no payload cache, qdrant-client local mode,
numpy) run once.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, median, pct, question, sentence, table, write_json

USERS = 100


def corpus(n: int, seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(f"user-{i % USERS}", f"{sentence(rng)} (note {i})") for i in range(n)]


def queries(k: int, seed: int = 11) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(f"user-{rng.randrange(USERS)}", question(rng)) for _ in range(k)]


def batches(data: list[tuple[str, str]], *, interleaved: bool) -> list[tuple[str, list[str]]]:
    """The corpus as ``add`` calls: each user's records in calls of 1,000, one user after another (a bulk import); or,
    interleaved, every 1,000 records in corpus order one call a user (10 records each at 100 users), as records reach
    a live store, each user's points then lying among everyone's."""
    if not interleaved:
        by_user: dict[str, list[str]] = {}
        for user, text in data:
            by_user.setdefault(user, []).append(text)
        return [(u, texts[i : i + 1000]) for u, texts in by_user.items() for i in range(0, len(texts), 1000)]
    out: list[tuple[str, list[str]]] = []
    for start in range(0, len(data), 1000):
        chunk: dict[str, list[str]] = {}
        for user, text in data[start : start + 1000]:
            chunk.setdefault(user, []).append(text)
        out += chunk.items()
    return out


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_memadapt(backend: str, n: int, n_queries: int) -> dict[str, Any]:
    folder = tempfile.mkdtemp(prefix="memadapt-bench-")
    try:
        return _run_memadapt(backend, n, n_queries, folder)
    finally:  # a 100k store takes ~200-1,000 MB: a full run would leave tens of GB behind
        shutil.rmtree(folder, ignore_errors=True)


def _run_memadapt(backend: str, n: int, n_queries: int, folder: str) -> dict[str, Any]:
    from memadapt_core import Memory
    from memadapt_core.models import Scope

    data = corpus(n)
    if backend == "edge-nocache":
        mem = Memory(path=folder, payload_cache=0)
    elif backend.startswith("edge"):
        mem = Memory(path=folder)  # the default payload cache (100k records) holds every record written here
    else:
        mem = Memory(backend="qdrant-local", location=":memory:")
    t = time.perf_counter()
    for user, texts in batches(data, interleaved="interleaved" in backend):
        mem.add(texts, user_id=user, kind="fact")
    batched = n / (time.perf_counter() - t)
    singles = min(300, n // 10) if backend.startswith("edge") else min(50, n // 10)
    rng = random.Random(3)
    t = time.perf_counter()
    for i in range(singles):
        mem.add(f"{sentence(rng)} (single {i})", user_id=f"user-{i % USERS}", kind="fact")
    one = singles / (time.perf_counter() - t)
    optimize_s = None
    if backend.endswith("-optimized"):
        t = time.perf_counter()
        mem.optimize()
        optimize_s = round(time.perf_counter() - t, 2)

    qs = queries(n_queries)
    for user, q in qs[:5]:
        mem.search(q, user_id=user, limit=10)  # warm-up
    e2e, engine = [], []
    embedder = mem.embedder
    # for the engine-only pass, computed outside both loops (with each scope's token weights, as search does)
    vectors = {q: embedder.embed_query(q, mem._live().weights(Scope(user_id=user))) for user, q in qs}
    for user, q in qs:
        t = time.perf_counter()
        mem.search(q, user_id=user, limit=10)
        e2e.append((time.perf_counter() - t) * 1e3)
    embedder.embed_query = lambda text, weights=None: vectors[text]  # type: ignore[method-assign]  # engine-only
    for user, q in qs:
        t = time.perf_counter()
        mem.search(q, user_id=user, limit=10)
        engine.append((time.perf_counter() - t) * 1e3)
    mem.close()
    return {
        "add_batched_per_s": round(batched),
        "add_one_per_s": round(one),
        "search_p50_ms": pct(e2e, 50),
        "search_p95_ms": pct(e2e, 95),
        "engine_p50_ms": pct(engine, 50),
        "engine_p95_ms": pct(engine, 95),
        "peak_rss_mib": round(peak_mib()),
        "optimize_s": optimize_s,
    }


def run_floor(n: int, n_queries: int) -> dict[str, Any]:
    from memadapt_core.embedders.wordllama import WordLlamaEmbedder

    emb = WordLlamaEmbedder()
    data = corpus(n)
    t = time.perf_counter()
    vecs = emb.embed_documents([text for _, text in data])
    embed_rate = n / (time.perf_counter() - t)
    users = np.array([int(u.split("-")[1]) for u, _ in data])
    rows = {u: np.flatnonzero(users == u) for u in range(USERS)}
    qs = queries(n_queries)
    qvecs = {q: emb.embed_query(q) for _, q in qs}
    times = []
    for user, q in qs:
        t = time.perf_counter()
        idx = rows[int(user.split("-")[1])]
        scores = vecs[idx] @ qvecs[q]
        top = idx[np.argpartition(-scores, min(10, len(idx) - 1))[:10]]
        times.append((time.perf_counter() - t) * 1e3)
        assert len(top) > 0
    return {"engine_p50_ms": pct(times, 50), "engine_p95_ms": pct(times, 95), "embed_per_s": round(embed_rate),
            "peak_rss_mib": round(peak_mib())}  # fmt: skip


def embedder_name() -> str:
    """The embedder of the rows: the default, or the one MEMADAPT_EMBEDDER__PROVIDER names (children inherit it)."""
    from memadapt_core.config import MemorySettings

    return MemorySettings().embedder.provider


def child(argv: Sequence[str]) -> None:
    kind, n, nq = argv[0], int(argv[1]), int(argv[2])
    result = run_floor(n, nq) if kind == "numpy" else run_memadapt(kind, n, nq)
    print(json.dumps(result))


def run_child(kind: str, n: int, n_queries: int) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(n), str(n_queries)],
                         capture_output=True, text=True, check=True)  # fmt: skip
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each figure over the runs, the range of search p50, and every run's figures."""
    keys = [k for k, v in runs[0].items() if isinstance(v, int | float)]
    out: dict[str, Any] = {k: median([r[k] for r in runs]) for k in keys}
    for k in keys:
        if isinstance(runs[0][k], int):
            out[k] = round(out[k])
    if len(runs) > 1 and "search_p50_ms" in out:
        p50s = [r["search_p50_ms"] for r in runs]
        out["search_p50_range_ms"] = [min(p50s), max(p50s)]
        out["runs"] = runs
    return out


def main(argv: Sequence[str] | None = None) -> dict[str, Any] | None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each embedded-store row (median reported)")
    parser.add_argument("--out", default=None)
    parser.add_argument("--rows", nargs="+", help="only these rows (edge, edge-optimized, ..., qdrant-local, numpy)")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child)
        return None
    sizes = args.sizes or ([1_000, 10_000] if args.quick else [1_000, 10_000, 100_000])
    nq = 100 if args.quick else 500
    repeat = max(1, args.repeat)
    rows, results = [], []
    repeated = ("edge", "edge-optimized", "edge-interleaved", "edge-interleaved-optimized")
    kinds = tuple(k for k in (*repeated, "edge-nocache", "qdrant-local", "numpy") if not args.rows or k in args.rows)
    # Repeats go round the sizes, not one after another: a slow spell of the VM (minutes) then slows one run of
    # several rows rather than every run of one row.
    jobs: Any = [(k, n) for rep in range(repeat) for n in sizes for k in kinds if rep == 0 or k in repeated]
    try:
        from tqdm import tqdm

        jobs = tqdm(jobs, desc="latency", unit="run")
    except ImportError:  # pragma: no cover
        pass
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}

    def queries_for(kind: str, n: int) -> int:
        return nq if kind != "qdrant-local" else max(20, nq // (n // 1000))

    for kind, n in jobs:
        runs.setdefault((kind, n), []).append(run_child(kind, n, queries_for(kind, n)))
    for n in sizes:
        for kind in kinds:
            res = combine(runs[(kind, n)])
            res.update(
                {"backend": kind, "memories": n, "queries": queries_for(kind, n), "runs_count": len(runs[(kind, n)])}
            )
            results.append(res)

    def f(v: Any) -> str:
        return f"{v:.3f}" if isinstance(v, float) else ("-" if v is None else str(v))

    def span(r: dict[str, Any]) -> str:
        lo_hi = r.get("search_p50_range_ms")
        return f"{lo_hi[0]:.3f}-{lo_hi[1]:.3f}" if lo_hi else "-"

    for r in results:
        rows.append([r["memories"], r["backend"], r["runs_count"], f(r.get("add_batched_per_s")),
                     f(r.get("add_one_per_s")), f(r.get("search_p50_ms")), span(r), f(r.get("search_p95_ms")),
                     f(r["engine_p50_ms"]), f(r["engine_p95_ms"]), r["peak_rss_mib"],
                     f(r.get("optimize_s"))])  # fmt: skip
    headers = ["memories", "backend", "runs", "add batched /s", "add one /s", "search p50 ms", "p50 range ms",
               "search p95 ms", "engine p50 ms", "engine p95 ms", "peak RSS MiB", "optimize s"]  # fmt: skip
    info = machine()
    print(f"\nmachine: {info['cores']} cores, {info['ram_gib']} GiB, {info['cpu']}; python {info['python']}, "
          f"qdrant-edge-py {info['qdrant-edge-py']}, qdrant-client {info['qdrant-client']}; "
          f"embedder {embedder_name()}")  # fmt: skip
    print(table(headers, rows))
    report = {"machine": info, "embedder": embedder_name(), "results": results}
    write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
