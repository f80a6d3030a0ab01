"""Search cost as one scope grows (1k, 10k, 100k memories in one user's scope, 1,000 other users present), and what
qdrant-edge's per-tenant HNSW graph would change.

``memadapt`` rows: one embedded store (today's exact search), the big user growing through the sizes; after each
size ``optimize()`` (timed), then end-to-end ``Memory.search`` p50/p95 for the big user and for a small one.

``--ann`` rows: the same vectors in a bare qdrant-edge shard configured the way Qdrant's multitenancy guide says
(``user_id`` keyword index with ``is_tenant``, HNSW ``m=0`` with ``payload_m=16``, a full-scan threshold under
which small tenants stay exact); ``optimize()`` builds the graph, timed together with the longest pause of a Python
thread meanwhile (qdrant-edge keeps the GIL); then ANN vs exact (``SearchParams(exact=True)``) p50/p95 and the
ANN's recall@10 against exact, for the big tenant, a tenant of a tenth of its size and a 10-record one. Only the
dense vector and the tenant filter: no memadapt filters, no sparse vector.

    python benchmarks/scope_scale.py --quick            # scopes of 1k and 10k
    python benchmarks/scope_scale.py --ann --out benchmarks/results/scope_scale.json
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, pct, question, sentence, table, write_json

OTHERS, PER_OTHER = 1_000, 10


def _times(fn: Any, queries: Sequence[Any]) -> list[float]:
    out = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t) * 1e3)
    return out


def memadapt_curve(sizes: Sequence[int], embedder: str, n_queries: int) -> list[dict[str, Any]]:
    from memadapt_core import Memory

    rng = random.Random(7)
    folder = tempfile.mkdtemp(prefix="memadapt-scope-")
    rows = []
    try:
        with Memory(path=folder, embedder=embedder) as mem:
            for u in range(OTHERS):
                mem.add([f"{sentence(rng)} (other {u}-{i})" for i in range(PER_OTHER)], user_id=f"other-{u}",
                        kind="fact")  # fmt: skip
            have = 0
            qs = [question(rng) for _ in range(n_queries)]
            for size in sorted(sizes):
                while have < size:
                    step = min(1000, size - have)
                    mem.add([f"{sentence(rng)} (big {have + i})" for i in range(step)], user_id="big", kind="fact")
                    have += step
                t = time.perf_counter()
                mem.optimize()
                optimize_s = time.perf_counter() - t
                for q in qs[:5]:
                    mem.search(q, user_id="big")
                big = _times(lambda q: mem.search(q, user_id="big", limit=10), qs)
                small = _times(lambda q: mem.search(q, user_id="other-7", limit=10), qs)
                row = {"scope": size, "others": OTHERS * PER_OTHER, "optimize_s": round(optimize_s, 1)}
                for name, took in (("big", big), ("small", small)):
                    row.update({f"{name}_p50_ms": round(pct(took, 50), 3), f"{name}_p95_ms": round(pct(took, 95), 3)})
                rows.append(row)
                print(rows[-1], flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def ann_probe(size: int, n_queries: int, payload_m: int = 16, full_scan_kb: int = 2_000) -> dict[str, Any]:
    import qdrant_edge as qe

    from memadapt_core.embedders.wordllama import WordLlamaEmbedder

    emb = WordLlamaEmbedder()
    rng = random.Random(3)
    groups = {
        "big": emb.embed_documents([f"{sentence(rng)} (note {i})" for i in range(size)]),
        "tenth": emb.embed_documents([f"{sentence(rng)} (tenth {i})" for i in range(size // 10)]),
    }
    others = emb.embed_documents([f"{sentence(rng)} (other {i})" for i in range(OTHERS * PER_OTHER)])
    folder = tempfile.mkdtemp(prefix="memadapt-ann-")
    hnsw = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=full_scan_kb, max_indexing_threads=1,
                              payload_m=payload_m)  # fmt: skip
    optimizers = qe.EdgeOptimizersConfig(deleted_threshold=0.2, vacuum_min_vector_number=1000,
                                         default_segment_number=1, indexing_threshold=1)  # fmt: skip
    dim = others.shape[1]
    cfg = qe.EdgeConfig(vectors={"dense": qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
                        max_search_threads=1, payload_memory=qe.Memory.Cached, hnsw_config=hnsw,
                        optimizers=optimizers)  # fmt: skip
    shard = qe.EdgeShard.create(folder, cfg)
    try:
        shard.update(qe.UpdateOperation.create_field_index("user_id", qe.KeywordIndexParams(is_tenant=True)))
        next_id = 1
        batches = [(others, lambda k: f"other-{k % OTHERS}"), *((v, lambda k, u=u: u) for u, v in groups.items())]
        for vecs, owner in batches:
            for i in range(0, len(vecs), 1000):
                pts = [qe.Point(next_id + j, {"dense": vecs[i + j].tolist()}, {"user_id": owner(i + j)})
                       for j in range(min(1000, len(vecs) - i))]  # fmt: skip
                shard.update(qe.UpdateOperation.upsert_points(pts))
                next_id += len(pts)
        ticks: list[float] = []
        stop = threading.Event()

        def spin() -> None:
            while not stop.is_set():
                ticks.append(time.perf_counter())
                time.sleep(0.001)

        spinner = threading.Thread(target=spin)
        spinner.start()
        time.sleep(0.05)
        t = time.perf_counter()
        shard.optimize()
        build_s = time.perf_counter() - t
        time.sleep(0.05)
        stop.set()
        spinner.join()
        pause = max(b - a for a, b in itertools.pairwise(ticks))
        qv = emb.embed_documents([question(rng) for _ in range(n_queries)])
        out: dict[str, Any] = {"scope": size, "payload_m": payload_m, "full_scan_threshold_kb": full_scan_kb,
                               "build_s": round(build_s, 1), "longest_python_pause_s": round(pause, 2)}  # fmt: skip
        for user, n in (("big", size), ("tenth", size // 10), ("other-7", PER_OTHER)):
            flt = qe.Filter(must=[qe.FieldCondition(key="user_id", match=qe.MatchValue(user))])
            found: dict[str, list[list[Any]]] = {}
            took: dict[str, list[float]] = {}
            for mode in ("ann", "exact"):
                params = qe.SearchParams(exact=mode == "exact")
                found[mode], took[mode] = [], []
                for v in qv:
                    req = qe.QueryRequest(limit=10, filter=flt, with_payload=False, params=params,
                                          query=qe.Query.Nearest(v.tolist(), using="dense"))  # fmt: skip
                    t = time.perf_counter()
                    hits = shard.query(req)
                    took[mode].append((time.perf_counter() - t) * 1e3)
                    found[mode].append([h.id for h in hits])
            recall = np.mean([len(set(a) & set(e)) / max(1, len(e)) for a, e in zip(*found.values(), strict=True)])
            out[user] = {"size": n, "recall_at_10": round(float(recall), 4)}
            for m, ts in took.items():
                out[user].update({f"{m}_p50_ms": round(pct(ts, 50), 3), f"{m}_p95_ms": round(pct(ts, 95), 3)})
        print(out, flush=True)
        return out
    finally:
        shard.close()
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="scopes of 1k and 10k")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--ann", action="store_true", help="also probe qdrant-edge's per-tenant HNSW")
    parser.add_argument("--no-memadapt", action="store_true", help="only the --ann probe")
    parser.add_argument("--embedder", default="wordllama")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    sizes = args.sizes or ([1_000, 10_000] if args.quick else [1_000, 10_000, 100_000])
    info = machine()
    report: dict[str, Any] = {"machine": info, "embedder": args.embedder}
    print(machine_line(info))
    if not args.no_memadapt:
        curve = memadapt_curve(sizes, args.embedder, args.queries)
        report["memadapt"] = curve
        print(table(["scope", "optimize s", "scope p50 ms", "scope p95 ms", "10-record user p50 ms", "p95 ms"],
                    [[r["scope"], r["optimize_s"], r["big_p50_ms"], r["big_p95_ms"], r["small_p50_ms"],
                      r["small_p95_ms"]] for r in curve]))  # fmt: skip
    if args.ann:
        report["ann"] = [ann_probe(n, args.queries) for n in sizes if n >= 10_000]
    write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
