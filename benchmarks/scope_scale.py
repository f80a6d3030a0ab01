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
import json
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
from benchmarks._common import machine, machine_line, pct, question, rss_mib, sentence, table, write_json
from benchmarks.scale import disk_mib

OTHERS, PER_OTHER = 1_000, 10
RESULTS = Path(__file__).resolve().parent / "results"


def _times(fn: Any, queries: Sequence[Any]) -> list[float]:
    out = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t) * 1e3)
    return out


def memadapt_curve(sizes: Sequence[int], embedder: str, n_queries: int, others: int = OTHERS) -> list[dict[str, Any]]:
    """One store: 1,000 other users of 10 memories, then one user's scope grown through ``sizes``. Per size: the
    add rate of the big user's records (calls of 1,000), the RSS growth since the empty store was opened (as written,
    like ``scale.py``'s), ``optimize()`` (timed), a warm-up of 50 queries, then 300 searches in the big scope and in
    a 10-memory user's, then the RSS growth and the disk after the optimization; memory also per record stored."""
    from memadapt_core import Memory

    rng = random.Random(7)
    folder = tempfile.mkdtemp(prefix="memadapt-scope-")
    rows = []
    try:
        with Memory(path=folder, embedder=embedder) as mem:
            mem.search("warm the embedder", user_id="nobody")
            base_rss = rss_mib()
            for u in range(others):
                mem.add([f"{sentence(rng)} (other {u}-{i})" for i in range(PER_OTHER)], user_id=f"other-{u}",
                        kind="fact")  # fmt: skip
            have = 0
            warm = [question(rng) for _ in range(50)]
            qs = [question(rng) for _ in range(n_queries)]
            for size in sorted(sizes):
                t = time.perf_counter()
                added = size - have
                while have < size:
                    step = min(1000, size - have)
                    mem.add([f"{sentence(rng)} (big {have + i})" for i in range(step)], user_id="big", kind="fact")
                    have += step
                add_s = time.perf_counter() - t
                written = rss_mib() - base_rss  # as written, before optimize(): what scale.py's figure measures
                t = time.perf_counter()
                mem.optimize()
                optimize_s = time.perf_counter() - t
                for q in warm:
                    mem.search(q, user_id="big")
                big = _times(lambda q: mem.search(q, user_id="big", limit=10), qs)
                parts = breakdown(mem, qs[:100], "big")
                small = _times(lambda q: mem.search(q, user_id="other-7", limit=10), qs)
                stored = have + others * PER_OTHER
                growth, disk = rss_mib() - base_rss, disk_mib(folder)
                row = {"scope": size, "others": others * PER_OTHER, "stored": stored, "embedder": embedder,
                       "add_per_s": round(added / add_s), "optimize_s": round(optimize_s, 1),
                       "rss_growth_mib": round(written), "rss_growth_optimized_mib": round(growth),
                       "disk_mib": round(disk), "rss_kib_per_record": round(written * 1024 / stored, 2),
                       "rss_optimized_kib_per_record": round(growth * 1024 / stored, 2),
                       "disk_kib_per_record": round(disk * 1024 / stored, 2)}  # fmt: skip
                for name, took in (("big", big), ("small", small)):
                    row.update({f"{name}_p50_ms": round(pct(took, 50), 3), f"{name}_p95_ms": round(pct(took, 95), 3)})
                row["big_breakdown"] = parts
                rows.append(row)
                print(rows[-1], flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rows


def breakdown(mem: Any, queries: Sequence[str], user: str) -> dict[str, float]:
    """Where one scope's search time goes, p50 ms over ``queries``: embedding the query, the backend's three
    requests each alone (dense, with the backend's parameters: over the int8 copies when it keeps them; BM25; BM25's
    candidates rescored by the dense vector: ``EdgeBackend.search``), the dense one exact (``exact=True``, full
    vectors), the three in one ``query_batch`` as a search sends them, and the whole ``Memory.search``. Also the
    dense request's recall@10 against the exact one (records tied with the 10th count as found)."""
    import qdrant_edge as qe

    from memadapt_core.backends.edge.shard import DENSE, SPARSE
    from memadapt_core.engine.planning import reads

    r = mem._live()
    took: dict[str, list[float]] = {}
    recall: list[float] = []

    def timed(name: str, fn: Any) -> Any:
        t = time.perf_counter()
        out = fn()
        took.setdefault(name, []).append((time.perf_counter() - t) * 1e3)
        return out

    for q in queries:
        plan = reads.plan_search(r, q, user_id=user, agent_id=None, session_id=None, limit=10, kinds=None,
                                 threshold=None, time_range=None, now=None, filters=None, include_superseded=False,
                                 as_of=None)  # fmt: skip
        vec = timed("embed_query", lambda q=q: r.embedder.embed_query(q))
        sparse = r.sparse.query(plan.query)
        f = r.backend._filter(plan.flt)
        dense_q = qe.Query.Nearest(vec.tolist(), using=DENSE)
        reqs = {"dense": qe.QueryRequest(limit=plan.candidates, filter=f, with_payload=False, query=dense_q,
                                         params=r.backend._dense_params)}  # fmt: skip
        if sparse is not None and not sparse.is_empty():
            sq = qe.Query.Nearest(qe.SparseVector(sparse.indices, sparse.values), using=SPARSE)
            reqs["bm25"] = qe.QueryRequest(limit=plan.candidates, filter=f, with_payload=False, query=sq)
            lexical = qe.Prefetch(limit=plan.candidates, query=sq, filter=f)
            reqs["rescored"] = qe.QueryRequest(limit=plan.candidates, with_payload=False, query=dense_q,
                                               prefetches=[lexical])  # fmt: skip
        found = {}
        for name, req in reqs.items():
            found[name] = timed(name, lambda req=req: r.backend._call(lambda s: s.query(req)))
        exact_req = qe.QueryRequest(limit=plan.candidates, filter=f, with_payload=False, query=dense_q,
                                    params=qe.SearchParams(exact=True))  # fmt: skip
        exact = timed("dense_exact", lambda req=exact_req: r.backend._call(lambda s: s.query(req)))
        if len(exact) >= 10:
            tenth = exact[9].score
            recall.append(sum(1 for p in found["dense"][:10] if p.score >= tenth - 1e-6) / 10)
        batch = qe.QueryBatchRequest(list(reqs.values()))
        timed("query_batch", lambda batch=batch: r.backend._call(lambda s: s.query_batch(batch)))
        timed("Memory.search", lambda q=q: mem.search(q, user_id=user, limit=10))
    out = {f"{name}_p50_ms": round(pct(ts, 50), 3) for name, ts in took.items()}
    if recall:
        out["dense_recall@10_vs_exact"] = round(float(np.mean(recall)), 4)
    return out


def ann_probe(size: int, n_queries: int, payload_m: int = 16, full_scan_kb: int = 2_000,
              efs: Sequence[int] = ()) -> dict[str, Any]:  # fmt: skip
    """``--ann``: a bare qdrant-edge shard with per-tenant HNSW (see the module's docstring). Besides the big
    tenant, a tenth of it and a 10-record one, tenants placed around the full-scan threshold (0.5x to 2x of the
    vectors it stands for) probe the trap found earlier: a tenant at the threshold searched through a graph that
    was not built for it. Each tenant is searched exact and ANN (the default ``hnsw_ef``, then each of ``efs``)."""
    import qdrant_edge as qe

    from memadapt_core.embedders.wordllama import WordLlamaEmbedder

    emb = WordLlamaEmbedder()
    dim = emb.dim
    at_threshold = full_scan_kb * 1024 // (dim * 4)  # the threshold is in KB of vectors: this many of ours
    rng = random.Random(3)
    sizes = {"big": size, "tenth": size // 10}
    sizes.update({f"threshold-x{f}": round(at_threshold * f) for f in (0.5, 0.95, 1, 1.05, 2)})
    groups = {u: emb.embed_documents([f"{sentence(rng)} ({u} {i})" for i in range(n)]) for u, n in sizes.items()}
    others = emb.embed_documents([f"{sentence(rng)} (other {i})" for i in range(OTHERS * PER_OTHER)])
    folder = tempfile.mkdtemp(prefix="memadapt-ann-")
    hnsw = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=full_scan_kb, max_indexing_threads=1,
                              payload_m=payload_m)  # fmt: skip
    optimizers = qe.EdgeOptimizersConfig(deleted_threshold=0.2, vacuum_min_vector_number=1000,
                                         default_segment_number=1, indexing_threshold=1)  # fmt: skip
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
                               "threshold_vectors": at_threshold, "build_s": round(build_s, 1),
                               "longest_python_pause_s": round(pause, 2)}  # fmt: skip
        modes: dict[str, Any] = {"exact": qe.SearchParams(exact=True), "ann": qe.SearchParams()}
        modes.update({f"ann_ef{ef}": qe.SearchParams(hnsw_ef=ef) for ef in efs})
        for user, n in [*sizes.items(), ("other-7", PER_OTHER)]:
            flt = qe.Filter(must=[qe.FieldCondition(key="user_id", match=qe.MatchValue(user))])
            found: dict[str, list[set[Any]]] = {}
            out[user] = {"size": n}
            for mode, params in modes.items():
                found[mode], took = [], []
                for v in qv:
                    req = qe.QueryRequest(limit=10, filter=flt, with_payload=False, params=params,
                                          query=qe.Query.Nearest(v.tolist(), using="dense"))  # fmt: skip
                    t = time.perf_counter()
                    hits = shard.query(req)
                    took.append((time.perf_counter() - t) * 1e3)
                    found[mode].append({h.id for h in hits})
                out[user].update({f"{mode}_p50_ms": round(pct(took, 50), 3), f"{mode}_p95_ms": round(pct(took, 95), 3)})
                if mode != "exact":
                    recall = np.mean([len(a & e) / max(1, len(e)) for a, e in zip(found[mode], found["exact"],
                                                                                  strict=True)])  # fmt: skip
                    key = "recall_at_10" if mode == "ann" else f"{mode}_recall_at_10"
                    out[user][key] = round(float(recall), 4)
        print(out, flush=True)
        return out
    finally:
        shard.close()
        shutil.rmtree(folder, ignore_errors=True)


def plot(report: dict[str, Any], beside: dict[str, Any] | None, path: str) -> None:
    """Three panels: search time against the memories in the searched scope and against the memories in the store,
    this run's one big scope beside ``scale.py``'s 1,000 equal users (``beside``), and the memory each record
    costs (RSS growth and disk, KiB per record stored)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve = report.get("memadapt") or []
    spread = (beside or {}).get("results") or []
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(16, 4.8))
    one = "one scope grows, 1,000 users of 10 beside it"
    even = "1,000 equal users (scale.py)"
    if curve:
        scope = [r["scope"] for r in curve]
        stored = [r["stored"] for r in curve]
        ax1.plot(scope, [r["big_p50_ms"] for r in curve], "o-", color="C0", label=f"{one}: p50")
        ax1.plot(scope, [r["big_p95_ms"] for r in curve], "o--", color="C0", label=f"{one}: p95")
        ax2.plot(stored, [r["big_p50_ms"] for r in curve], "o-", color="C0", label="search in the big scope, p50")
        ax2.plot(stored, [r["small_p50_ms"] for r in curve], "v-", color="C2", label="a 10-memory user there, p50")
        ax3.plot(stored, [r["rss_kib_per_record"] for r in curve], "o-", color="C0", label=f"RSS growth: {one}")
        ax3.plot(stored, [r["disk_kib_per_record"] for r in curve], "o--", color="C0", label=f"disk: {one}")
    if spread:
        key = "optimized_search_p50_ms" if "optimized_search_p50_ms" in spread[0] else "search_p50_ms"
        per_user = [r["memories"] / r["users"] for r in spread]
        total = [r["memories"] for r in spread]
        ax1.plot(per_user, [r[key] for r in spread], "s-", color="C1", label=f"{even}: p50")
        ax1.plot(per_user, [r[key.replace("p50", "p95")] for r in spread], "s--", color="C1", label=f"{even}: p95")
        ax2.plot(total, [r[key] for r in spread], "s-", color="C1", label=f"{even}, p50")
        mib = [r.get("store_rss_growth_mib", r["rss_growth_mib"]) for r in spread]
        ax3.plot(total, [m * 1024 / n for m, n in zip(mib, total, strict=True)], "s-", color="C1",
                 label=f"RSS growth: {even}")  # fmt: skip
        ax3.plot(total, [r["disk_mib"] * 1024 / n for r, n in zip(spread, total, strict=True)], "s--", color="C1",
                 label=f"disk: {even}")  # fmt: skip
    ann = report.get("ann") or []
    if ann:
        ax1.plot([a["big"]["size"] for a in ann], [a["big"]["ann_p50_ms"] for a in ann], "^:", color="C3",
                 label="per-tenant HNSW, bare shard, dense only: p50")  # fmt: skip
    ax1.set(xscale="log", yscale="log", xlabel="memories in the searched scope", ylabel="ms",
            title="search (top 10) by the size of the searched scope")  # fmt: skip
    ax2.set(xscale="log", yscale="log", xlabel="memories in the store", ylabel="ms",
            title="search by the size of the store")  # fmt: skip
    ax3.set(xscale="log", xlabel="memories in the store", ylabel="KiB per record",
            title="memory per record stored")  # fmt: skip
    ax3.set_ylim(bottom=0)
    for ax in (ax1, ax2, ax3):
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    emb = report.get("embedder", "?")
    lines = [f"this run: {machine_line(report['machine']).replace('machine: ', '')}; embedder {emb}"]
    if beside:
        lines.append(f"scale.py: {machine_line(beside['machine']).replace('machine: ', '')}; embedder wordllama")
    lines.append("search after optimize(); RSS growth as written; disk after optimize(); timings from a shared VM")
    fig.suptitle("\n".join(lines), fontsize=8)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="scopes of 1k and 10k")
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--ann", action="store_true", help="also probe qdrant-edge's per-tenant HNSW")
    parser.add_argument("--no-memadapt", action="store_true", help="only the --ann probe")
    parser.add_argument("--embedder", default="wordllama", help="wordllama (the fast profile; MiniLM embeds ~150 "
                        "texts/s, too slow to build 100k)")  # fmt: skip
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--others", type=int, default=OTHERS, help="other users (10 memories each) beside the scope")
    parser.add_argument("--ef", type=int, nargs="*", default=[64, 128, 256], help="--ann: hnsw_ef values to try")
    parser.add_argument("--out")
    parser.add_argument("--plot", help="PNG path (e.g. benchmarks/results/scope_scale.png)")
    parser.add_argument("--beside", default=str(RESULTS / "scale.json"), help="scale.py's JSON to plot beside")
    parser.add_argument("--replot", metavar="JSON", help="no run: plot this earlier report (with --plot)")
    args = parser.parse_args(argv)
    beside_path = Path(args.beside)
    beside = json.loads(beside_path.read_text()) if beside_path.exists() else None
    if args.replot:
        report: dict[str, Any] = json.loads(Path(args.replot).read_text())
        if args.plot:
            plot(report, beside, args.plot)
        return report
    sizes = args.sizes or ([1_000, 10_000] if args.quick else [1_000, 10_000, 100_000])
    info = machine()
    report = {"machine": info, "embedder": args.embedder}
    print(machine_line(info) + f"; embedder {args.embedder}")
    if not args.no_memadapt:
        curve = memadapt_curve(sizes, args.embedder, args.queries, args.others)
        report["memadapt"] = curve
        print(table(["scope", "stored", "add /s", "optimize s", "scope p50 ms", "scope p95 ms",
                     "10-record user p50 ms", "p95 ms", "RSS growth MiB", "KiB/record", "disk MiB", "KiB/record"],
                    [[r["scope"], r["stored"], r["add_per_s"], r["optimize_s"], r["big_p50_ms"], r["big_p95_ms"],
                      r["small_p50_ms"], r["small_p95_ms"], r["rss_growth_mib"], r["rss_kib_per_record"],
                      r["disk_mib"], r["disk_kib_per_record"]] for r in curve]))  # fmt: skip
    if args.ann:
        report["ann"] = [ann_probe(n, args.queries, efs=args.ef) for n in sizes if n >= 10_000]
    write_json(args.out, report)
    if args.plot:
        plot(report, beside, args.plot)
        print(f"plot: {args.plot}")
    return report


if __name__ == "__main__":
    main()
