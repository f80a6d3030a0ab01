"""memadapt against its peers, side by side in one run on one machine, with the same data and the same embedder.

Peers (each skipped, and said so, when its package is not installed in this environment): memadapt on its embedded
edge store and on qdrant-client local mode; mem0 (``infer=False``, its default embedded Qdrant); langchain-qdrant's
``QdrantVectorStore`` (local mode); agentscope-runtime's ``InMemoryMemoryService``. Vector peers embed with the same
offline WordLlama model as memadapt. The peers conflict with memadapt's dev environment, so they live in their own:

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -r requirements/bench.txt -e .
    .venv-bench/bin/python benchmarks/peers.py                 # 1k and 10k memories per user
    .venv-bench/bin/python benchmarks/peers.py --quick         # 1k, fewer queries, one LoCoMo conversation

Per peer and size, in a fresh subprocess (so peak memory is that peer's own): add throughput (batches of 500 raw
messages for one user, after 10% as many for another user), search p50/p95 over that user (time-bounded), and
``delete_all`` of that user; once per peer, recall@10 on the LoCoMo dev conversations (each conversation one user,
questions searched in their own conversation, categories 1-4), and realistic ingestion: the first LongMemEval dev
haystacks (each one user; one ``add`` a session, as ``benchmarks/ingest.py`` adds them; user/assistant turns of
~1,000 characters on average) into a fresh store, turns/s end to end. Ratios are memadapt (edge) over each peer.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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
    version,
    write_json,
)
from benchmarks._locomo_data import DEFAULT_DATA, load, summarise
from benchmarks._peers import PEERS, Item, make_peer
from benchmarks.longmemeval import DEFAULT_DATA as LME_DATA

BATCH = 500
USER, OTHER = "bench-user", "other-user"
PACKAGES = ("mem0ai", "langchain-qdrant", "agentscope-runtime", "qdrant-client", "qdrant-edge-py")


def synthetic(n: int, prefix: str, seed: int) -> list[Item]:
    rng = random.Random(seed)
    return [Item(f"{prefix}-{i}", f"{sentence(rng)} (note {i})") for i in range(n)]


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [question(rng) for _ in range(n)]


# -- one peer, one size, in a child process ---------------------------------------------------------------------------
def child(key: str, n: int, n_queries: int, budget_s: float, data: str | None, convs_limit: int,
          lme: str | None = None, lme_questions: int = 0) -> dict[str, Any]:  # fmt: skip
    t = time.perf_counter()
    peer = make_peer(key)
    out: dict[str, Any] = {"open_s": round(time.perf_counter() - t, 2)}
    base = rss_mib()
    for start in range(0, max(1, n // 10), BATCH):
        peer.add(OTHER, synthetic(max(1, n // 10), "other", 5)[start : start + BATCH])
    items = synthetic(n, "note", 7)
    t = time.perf_counter()
    for start in progress(range(0, n, BATCH), f"{key} add {n}", unit="batch"):
        peer.add(USER, items[start : start + BATCH])
    out["add_per_s"] = round(n / (time.perf_counter() - t))
    qs = queries(n_queries)
    peer.search(USER, qs[0], 10)  # warm-up
    times: list[float] = []
    deadline = time.perf_counter() + budget_s
    for q in qs:
        t = time.perf_counter()
        found = peer.search(USER, q, 10)
        times.append((time.perf_counter() - t) * 1e3)
        if not found and key != "agentscope-runtime":
            out["empty_results"] = out.get("empty_results", 0) + 1
        if time.perf_counter() > deadline and len(times) >= 10:
            break
    out.update({"queries": len(times), "search_p50_ms": pct(times, 50), "search_p95_ms": pct(times, 95)})
    t = time.perf_counter()
    peer.delete_all(USER)
    out["delete_all_ms"] = round((time.perf_counter() - t) * 1e3, 2)
    out["left_after_delete"] = len(peer.search(USER, qs[0], 10))
    out["peak_rss_mib"] = round(peak_rss_mib())
    out["rss_growth_mib"] = round(peak_rss_mib() - base)
    peer.close()
    if data:  # a fresh store: what was added and deleted above must not change BM25 statistics or scores
        fresh = make_peer(key)
        out["locomo"] = locomo_recall(fresh, key, data, convs_limit)
        fresh.close()
    if lme and lme_questions:
        fresh = make_peer(key)
        out["longmemeval_ingest"] = lme_ingest(fresh, key, lme, lme_questions)
        fresh.close()
    return out


def lme_ingest(peer: Any, key: str, path: str, n_questions: int) -> dict[str, Any]:
    """LongMemEval turns through the peer's add, one call a session, each haystack its own user: turns/s."""
    from benchmarks.longmemeval import load

    questions = load(path)[:n_questions]
    peer.add("warm-up", [Item("warm-up", "warm up the embedder")])
    turns = chars = 0
    t = time.perf_counter()
    for q in progress(questions, f"{key} LongMemEval add", unit="haystack"):
        for s in q.sessions:
            items = [Item(u.id, u.content, None, u.role, u.when, s.id) for u in s.turns]
            if items:
                peer.add(q.id, items)
            turns += len(items)
            chars += sum(len(u.content) for u in s.turns)
    took = time.perf_counter() - t
    return {"haystacks": len(questions), "turns": turns, "chars": chars, "seconds": round(took, 1),
            "turns_per_s": round(turns / took), "chars_per_s": round(chars / took)}  # fmt: skip


def locomo_recall(peer: Any, key: str, data: str, convs_limit: int) -> dict[str, Any]:
    convs, _ = load(data)
    convs = convs[:convs_limit] if convs_limit else convs
    for conv in convs:
        for s in conv.sessions:
            items = [
                Item(t.dia_id, t.text, t.speaker, "user" if t.speaker == conv.speakers[0] else "assistant", t.when,
                     f"{conv.sample_id}/session_{s.number}")
                for t in s.turns
            ]  # fmt: skip
            peer.add(conv.sample_id, items)
    results = []
    jobs = [(c, q) for c in convs for q in c.questions]
    for conv, q in progress(jobs, f"{key} LoCoMo", unit="q"):
        if key.startswith("memadapt"):
            hits = peer.search(conv.sample_id, q.text, 10, now=conv.now)
        else:
            hits = peer.search(conv.sample_id, q.text, 10)
        results.append((q, hits))
    summary = summarise(results, ks=(10,))
    return {"conversations": len(convs), "questions": len(results), "r@10": summary["r@10"]}


# -- driver -----------------------------------------------------------------------------------------------------------
def run_child(key: str, n: int, nq: int, budget: float, data: str | None, convs: int, timeout: float,
              lme: str | None = None, lme_questions: int = 0) -> dict[str, Any]:  # fmt: skip
    cmd = [sys.executable, __file__, "--child", key, str(n), str(nq), str(budget), data or "-", str(convs),
           lme or "-", str(lme_questions)]  # fmt: skip
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {timeout:.0f} s"}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        err = proc.stderr.strip().splitlines()
        missing = any("ModuleNotFoundError" in ln or "ImportError" in ln for ln in err)
        return {"error": ("not installed: " + PEERS[key][1]) if missing else (err[-1] if err else "failed")}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def ratios(results: Sequence[dict[str, Any]]) -> list[list[Any]]:
    rows = []
    for n in sorted({r["memories"] for r in results}):
        ours = next((r for r in results if r["memories"] == n and r["peer"] == "memadapt-edge" and "error" not in r),
                    None)  # fmt: skip
        if ours is None:
            continue
        for r in results:
            if r["memories"] != n or r["peer"] == "memadapt-edge" or "error" in r:
                continue
            rec_o, rec_p = _recall(ours), _recall(r)
            rows.append([n, PEERS[r["peer"]][0], f"{ours['add_per_s'] / r['add_per_s']:.1f}x",
                         f"{r['search_p50_ms'] / ours['search_p50_ms']:.1f}x",
                         f"{r['search_p95_ms'] / ours['search_p95_ms']:.1f}x",
                         f"{r['delete_all_ms'] / max(ours['delete_all_ms'], 1e-3):.1f}x",
                         "-" if rec_o is None or rec_p is None else f"{rec_o - rec_p:+.3f}",
                         _ratio(_turns(ours), _turns(r))])  # fmt: skip
    return rows


def _turns(r: dict[str, Any]) -> float | None:
    lme = r.get("longmemeval_ingest")
    return None if not lme else float(lme["turns_per_s"])


def _ratio(ours: float | None, theirs: float | None) -> str:
    return "-" if not ours or not theirs else f"{ours / theirs:.1f}x"


def _recall(r: dict[str, Any]) -> float | None:
    loc = r.get("locomo")
    return None if not loc else loc["r@10"].get("overall")


def main(argv: Sequence[str] | None = None) -> dict[str, Any] | None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="1k only, fewer queries, one LoCoMo conversation")
    parser.add_argument("--sizes", type=int, nargs="+", help="memories per user (default 1000 10000)")
    parser.add_argument("--peers", nargs="+", choices=list(PEERS), default=list(PEERS))
    parser.add_argument("--queries", type=int, help="search queries per run (default 300, quick 30)")
    parser.add_argument("--budget", type=float, help="seconds of searching per run at most (default 60, quick 5)")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo JSON for recall@10 ('-' to skip)")
    parser.add_argument("--conversations", type=int, help="LoCoMo conversations to use (default all, quick 1)")
    parser.add_argument("--lme-data", default=str(LME_DATA), help="LongMemEval JSON for turns/s ('-' to skip)")
    parser.add_argument("--lme-questions", type=int, help="LongMemEval haystacks to add (default 4, quick 2)")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per child run")
    parser.add_argument("--out", default=None)
    parser.add_argument("--child", nargs=8, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        key, n, nq, budget, data, convs, lme, lme_q = args.child
        print(json.dumps(child(key, int(n), int(nq), float(budget), None if data == "-" else data, int(convs),
                               None if lme == "-" else lme, int(lme_q))))  # fmt: skip
        return None
    sizes = args.sizes or ([1_000] if args.quick else [1_000, 10_000])
    nq = args.queries or (30 if args.quick else 300)
    budget = args.budget or (5.0 if args.quick else 60.0)
    convs = args.conversations if args.conversations is not None else (1 if args.quick else 0)
    data = None if args.data == "-" or not Path(args.data).exists() else args.data
    lme = None if args.lme_data == "-" or not Path(args.lme_data).exists() else args.lme_data
    lme_q = args.lme_questions if args.lme_questions is not None else (2 if args.quick else 4)
    info = machine()
    info.update({p: version(p) for p in PACKAGES})
    results: list[dict[str, Any]] = []
    jobs = [(key, n) for n in sizes for key in args.peers]
    missing: set[str] = set()  # a peer that is not installed is not tried again at the next size
    for key, n in progress(jobs, "peers", unit="run"):
        if key in missing:
            continue
        first = n == sizes[0]  # recall and LongMemEval ingestion do not depend on the size: once per peer
        res = run_child(key, n, nq, budget, data if first else None, convs, args.timeout, lme if first else None,
                        lme_q)  # fmt: skip
        res.update({"peer": key, "name": PEERS[key][0], "memories": n})
        results.append(res)
        if str(res.get("error", "")).startswith("not installed"):
            missing.add(key)
    for field in ("locomo", "longmemeval_ingest"):
        by_peer = {r["peer"]: r[field] for r in results if r.get(field)}
        for r in results:
            r.setdefault(field, by_peer.get(r["peer"]))

    def f(v: Any, digits: int = 3) -> str:
        return "-" if v is None else (f"{v:.{digits}f}" if isinstance(v, float) else str(v))

    rows = []
    for r in results:
        if "error" in r:
            rows.append([r["memories"], r["name"], r["error"], "", "", "", "", "", "", ""])
            continue
        rows.append([r["memories"], r["name"], r["add_per_s"], f(r["search_p50_ms"]), f(r["search_p95_ms"]),
                     f(r["delete_all_ms"], 1), r["peak_rss_mib"], r["rss_growth_mib"], f(_recall(r)),
                     f(_turns(r), 0)])  # fmt: skip
    print(f"\n{machine_line(info)}")
    print("peers: " + ", ".join(f"{p} {info[p]}" for p in PACKAGES))
    print(table(["memories/user", "library", "add /s", "search p50 ms", "search p95 ms", "delete_all ms",
                 "peak RSS MiB", "RSS growth MiB", "LoCoMo r@10", "LongMemEval turns/s"], rows))  # fmt: skip
    rat = ratios(results)
    if rat:
        print("\nmemadapt (edge) relative to each peer (higher is better for memadapt; recall as a difference):")
        print(table(["memories/user", "peer", "add", "search p50", "search p95", "delete_all", "LoCoMo r@10",
                     "LongMemEval turns/s"], rat))  # fmt: skip
    changed = engine_changed(info)
    if changed:
        print(changed)
    out = {"machine": info, "sizes": sizes, "queries": nq, "search_budget_s": budget, "results": results,
           "longmemeval_haystacks": lme_q if lme else 0, "engine_changed": changed}  # fmt: skip
    write_json(args.out, out)
    return out


if __name__ == "__main__":
    main()
