"""Can a memadapt store get qdrant-edge's per-tenant HNSW graph by an explicit step, and what becomes of it?

A memadapt store (embedded edge backend, fast profile) holds 1,000 users of 10 memories and one big scope; it is
closed, its shard loaded once with a per-tenant graph configuration (``m=0``, ``payload_m=16``,
``full_scan_threshold=2000`` KB) and optimized (the build, timed), then reopened by memadapt with its own
configuration (no graph). Printed at each step: the big scope's dense request (as ``EdgeBackend.search`` sends it,
limit 40) with the default parameters and with ``exact=True``, the ANN's recall@10 against exact, and the whole
``Memory.search`` p50. Then 500 more adds, and memadapt's own ``optimize()``.

    python benchmarks/tenant_graph.py --big 10000
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import pct, question, sentence


def report(tag: str, mem: Any, qs: list[str]) -> None:
    import qdrant_edge as qe

    r = mem._live()
    flt = qe.Filter(must=[qe.FieldCondition(key="user_id", match=qe.MatchValue("big"))])
    took: dict[bool, list[float]] = {False: [], True: []}
    found: dict[bool, list[set[Any]]] = {False: [], True: []}
    for q in qs:
        vec = qe.Query.Nearest(r.embedder.embed_query(q).tolist(), using="dense")
        for exact in (False, True):
            req = qe.QueryRequest(limit=40, filter=flt, with_payload=False, params=qe.SearchParams(exact=exact),
                                  query=vec)  # fmt: skip
            t = time.perf_counter()
            hits = r.backend._call(lambda s, req=req: s.query(req))
            took[exact].append((time.perf_counter() - t) * 1e3)
            found[exact].append({h.id for h in hits[:10]})
    recall = np.mean([len(a & e) / max(1, len(e)) for a, e in zip(found[False], found[True], strict=True)])
    whole = []
    for q in qs:
        t = time.perf_counter()
        mem.search(q, user_id="big", limit=10)
        whole.append((time.perf_counter() - t) * 1e3)
    print(f"{tag}: dense p50 {pct(took[False], 50):.3f} ms, exact {pct(took[True], 50):.3f} ms, recall@10 "
          f"{recall:.3f}; Memory.search p50 {pct(whole, 50):.3f} ms", flush=True)  # fmt: skip


def main() -> None:
    import qdrant_edge as qe

    from memadapt_core import Memory
    from memadapt_core.backends.edge import shard as edge_shard

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big", type=int, default=10_000)
    args = parser.parse_args()
    rng = random.Random(7)
    folder = tempfile.mkdtemp(prefix="memadapt-graph-")
    qs = [question(rng) for _ in range(100)]
    try:
        with Memory(path=folder, embedder="wordllama") as mem:
            for u in range(1000):
                mem.add([f"{sentence(rng)} (o {u}-{i})" for i in range(10)], user_id=f"other-{u}", kind="fact")
            for i in range(0, args.big, 1000):
                mem.add([f"{sentence(rng)} (big {i + j})" for j in range(1000)], user_id="big", kind="fact")
            mem.optimize()
            report("memadapt as is (no graph)", mem, qs)
        shard_dir = next(d for d in Path(folder).iterdir() if d.is_dir() and not d.name.startswith("."))
        cfg = edge_shard.shard_config(256)
        graph = qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=2000, max_indexing_threads=1,
                                   payload_m=16)  # fmt: skip
        with_graph = qe.EdgeConfig(vectors=cfg.vectors, sparse_vectors=cfg.sparse_vectors, max_search_threads=1,
                                   payload_memory=qe.Memory.Cached, hnsw_config=graph,
                                   optimizers=cfg.optimizers)  # fmt: skip
        shard = qe.EdgeShard.load(str(shard_dir), with_graph)
        t = time.perf_counter()
        shard.optimize()
        print(f"graph build (shard.optimize() with payload_m=16): {time.perf_counter() - t:.1f} s", flush=True)
        shard.flush()
        shard.close()
        edge_shard.release(shard_dir)
        with Memory(path=folder, embedder="wordllama") as mem:
            report("reopened by memadapt (its no-graph configuration)", mem, qs)
            mem.add([f"{sentence(rng)} (big new {j})" for j in range(500)], user_id="big", kind="fact")
            report("after 500 more adds", mem, qs)
            t = time.perf_counter()
            mem.optimize()
            print(f"memadapt optimize(): {time.perf_counter() - t:.1f} s", flush=True)
            report("after memadapt's optimize()", mem, qs)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
