"""Retrieval quality on LoCoMo: turn-level evidence recall@5/@10 per category, through memadapt's public API.

Each conversation is one user (``user_id`` = its sample id). Every session is one ``Memory.add`` call whose messages
carry the speaker (``name``), the turn id (``id`` = LoCoMo's dia_id) and the session's date (``timestamp``); each
question is one ``Memory.search(question, user_id=..., limit=10, now=<a day after the last session>)``, and a hit's
dia_id is ``record.external_id``. Rows:

- memadapt default (hybrid, time-aware), the same ingested one turn per ``add`` call, the same without the relevance
  floor, and the same with image captions in the message text;
- memadapt dense-only and sparse-only: one fusion weight set to 0 and every boost off (``retrieval=`` settings),
  searched with ``threshold=0.0`` (no floor); and the same with the boosts left on;
- each available embedder (WordLlama always; an OpenAI-compatible endpoint or a local fastembed model when given);
- references: BM25 (``rank-bm25``, Okapi) over turns indexed as ``[<session date>] <speaker>: <text>``, and the
  keyword-substring rule of agentscope-runtime's ``InMemoryMemoryService`` (reimplemented: any whitespace-separated
  query word that is a substring of the lower-cased turn; the last ``top_k`` matches in storage order).

    python benchmarks/locomo.py                          # all rows, the 7 dev conversations
    python benchmarks/locomo.py --quick                  # one conversation (under a minute)
    python benchmarks/locomo.py --tune                   # also: small settings grid tuned on 4, reported on 3
    python benchmarks/locomo.py --consolidate            # only: LLM consolidation (replayed), facts vs turns
    python benchmarks/locomo.py --out benchmarks/results/locomo.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import engine_changed, machine, machine_line, pct, progress, table, write_json
from benchmarks._locomo_data import (
    CATEGORIES,
    DEFAULT_DATA,
    HELD_OUT,
    ROOT,
    TUNE,
    Conversation,
    Question,
    Turn,
    indexed_text,
    load,
    summarise,
)

LIMIT = 10
NO_BOOSTS = {"speaker_boost": 0.0, "session_prior": 0.0, "date_boost": 0.0, "when_boost": 0.0}
GOAL_R10, GOAL_R5 = 0.82, 0.75


@dataclass
class Row:
    name: str
    results: list[tuple[Question, list[str]]] = field(default_factory=list)
    search_ms: list[float] = field(default_factory=list)
    add_ms: list[float] = field(default_factory=list)  # one entry per add call
    added: int = 0
    ingest_s: float = 0.0
    config: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "config": self.config, **summarise(self.results)}
        out["search_ms"] = {"p50": _r(pct(self.search_ms, 50)), "p95": _r(pct(self.search_ms, 95))}
        if self.add_ms:
            out["add"] = {
                "calls": len(self.add_ms),
                "turns": self.added,
                "per_call_ms": {"p50": _r(pct(self.add_ms, 50)), "p95": _r(pct(self.add_ms, 95))},
                "turns_per_s": round(self.added / self.ingest_s) if self.ingest_s else None,
            }
        out["ingest_s"] = round(self.ingest_s, 3)
        return out


def _r(x: float) -> float:
    return round(x, 3)


# -- memadapt -------------------------------------------------------------------------------------------------------
def message(conv: Conversation, turn: Turn, captions: bool, dated: bool = False) -> dict[str, Any]:
    text = turn.text
    if captions and turn.caption:
        text = f"{text} [shares an image: {turn.caption}]"
    if dated:  # diagnostic only: what indexing the date's words (as the BM25 reference does) would be worth
        text = f"[{conv.date_of(turn)}] {text}"
    return {
        "role": "user" if turn.speaker == conv.speakers[0] else "assistant",
        "content": text,
        "name": turn.speaker,
        "id": turn.dia_id,
        "timestamp": turn.when,
    }


def ingest(
    mem: Any, convs: Sequence[Conversation], row: Row, *, captions: bool = False, per_turn: bool = False,
    dated: bool = False, added: Callable[[list[Any]], None] | None = None,
) -> None:  # fmt: skip
    """Each add is timed alone; ``added`` then gets the records it returned (untimed)."""
    start = time.perf_counter()
    for conv in progress(convs, f"{row.name}: add", unit="conv"):
        for s in conv.sessions:
            msgs = [message(conv, t, captions, dated) for t in s.turns]
            batches = [[m] for m in msgs] if per_turn else [msgs]
            for batch in batches:
                t = time.perf_counter()
                records = mem.add(batch, user_id=conv.sample_id, session_id=f"{conv.sample_id}/session_{s.number}")
                row.add_ms.append((time.perf_counter() - t) * 1e3)
                row.added += len(batch)
                if added is not None:
                    added(records)
    row.ingest_s = time.perf_counter() - start


def query(
    mem: Any, convs: Sequence[Conversation], row: Row, *, threshold: float | None = None,
    keep: Callable[[Any], bool] | None = None, fetch: int = LIMIT,
) -> None:  # fmt: skip
    jobs = [(c, q) for c in convs for q in c.questions]
    for conv, q in progress(jobs, f"{row.name}: search", unit="q"):
        t = time.perf_counter()
        hits = mem.search(q.text, user_id=conv.sample_id, limit=fetch, now=conv.now, threshold=threshold)
        row.search_ms.append((time.perf_counter() - t) * 1e3)
        row.results.append((q, [h.record.external_id for h in hits if keep is None or keep(h)][:LIMIT]))


def memadapt_row(
    name: str,
    convs: Sequence[Conversation],
    *,
    retrieval: dict[str, Any] | None = None,
    embedder: str | dict[str, Any] | None = None,
    threshold: float | None = None,
    captions: bool = False,
    per_turn: bool = False,
    dated: bool = False,
    per_conv: bool = False,
    fetch: int = LIMIT,
    keep: Callable[[Any], bool] | None = None,
) -> Row:
    from memadapt_core import Memory

    config = {"retrieval": retrieval or {}, "embedder": _public(embedder), "threshold": threshold,
              "captions": captions, "per_turn": per_turn, "date_in_content": dated,
              "store_per_conversation": per_conv, "search_limit_then_top_10": fetch}  # fmt: skip
    row = Row(name, config=config)
    # One store for every conversation (users side by side, as in production), or one store each (diagnostic: BM25's
    # IDF is a collection statistic, so the other conversations' turns change a conversation's sparse scores).
    groups = [[c] for c in convs] if per_conv else [list(convs)]
    for group in groups:
        part = Row(name)
        with Memory(location=":memory:", embedder=embedder, retrieval=retrieval or {}) as mem:
            ingest(mem, group, part, captions=captions, per_turn=per_turn, dated=dated)
            query(mem, group, part, threshold=threshold, keep=keep, fetch=fetch)
        row.results += part.results
        row.search_ms += part.search_ms
        row.add_ms += part.add_ms
        row.added += part.added
        row.ingest_s += part.ingest_s
    return row


def _public(embedder: str | dict[str, Any]) -> Any:
    return {k: v for k, v in embedder.items() if k != "api_key"} if isinstance(embedder, dict) else embedder


def has_sparse(hit: Any) -> bool:
    return bool(hit.scores.get("sparse", 0.0) > 0.0)


# -- references -----------------------------------------------------------------------------------------------------
_TOKEN = re.compile(r"\w+")


def bm25_row(convs: Sequence[Conversation]) -> Row:
    from rank_bm25 import BM25Okapi

    row = Row("BM25 (rank-bm25 Okapi)", config={"indexed": "[<session date>] <speaker>: <text>"})
    for conv in progress(convs, row.name, unit="conv"):
        turns = conv.turns
        t = time.perf_counter()
        index = BM25Okapi([_TOKEN.findall(indexed_text(conv, x).lower()) for x in turns])
        row.ingest_s += time.perf_counter() - t
        for q in conv.questions:
            t = time.perf_counter()
            scores = index.get_scores(_TOKEN.findall(q.text.lower()))
            top = sorted(range(len(turns)), key=lambda i: -scores[i])[:LIMIT]
            row.search_ms.append((time.perf_counter() - t) * 1e3)
            row.results.append((q, [turns[i].dia_id for i in top]))
    return row


def keyword_row(convs: Sequence[Conversation]) -> Row:
    """agentscope-runtime 1.0.5 ``InMemoryMemoryService.search_memory``: ``keywords = set(query.lower().split())``,
    a stored message matches when any keyword is a substring of its lower-cased text, and ``top_k`` keeps the last
    matches in storage order (sessions in insertion order). Hits are listed newest first, so the top 5 are what
    ``top_k=5`` returns."""
    row = Row(
        "agentscope-runtime InMemory (keyword substring)", config={"indexed": "[<session date>] <speaker>: <text>"}
    )
    for conv in convs:
        texts = [(t.dia_id, indexed_text(conv, t).lower()) for t in conv.turns]
        for q in conv.questions:
            t = time.perf_counter()
            words = set(q.text.lower().split())
            matched = [d for d, text in texts if any(w in text for w in words)]
            row.search_ms.append((time.perf_counter() - t) * 1e3)
            row.results.append((q, matched[::-1][:LIMIT]))
    return row


# -- driver ---------------------------------------------------------------------------------------------------------
def build_rows(convs: Sequence[Conversation], args: argparse.Namespace) -> list[Row]:
    plans: list[tuple[str, Callable[[], Row]]] = [
        ("memadapt default", lambda: memadapt_row("memadapt default", convs)),
        ("memadapt default, one turn per add", lambda: memadapt_row(
            "memadapt default, one turn per add", convs, per_turn=True)),
        ("memadapt default, no relevance floor", lambda: memadapt_row(
            "memadapt default, no relevance floor", convs, threshold=0.0)),
        ("memadapt default + image captions", lambda: memadapt_row(
            "memadapt default + image captions", convs, captions=True)),
        ("memadapt default, date words in content (diagnostic)", lambda: memadapt_row(
            "memadapt default, date words in content (diagnostic)", convs, dated=True)),
        ("memadapt default, one store per conversation (diagnostic)", lambda: memadapt_row(
            "memadapt default, one store per conversation (diagnostic)", convs, per_conv=True)),
        ("memadapt default, boosts over 300 candidates (diagnostic)", lambda: memadapt_row(
            "memadapt default, boosts over 300 candidates (diagnostic)", convs, fetch=100)),
        ("memadapt dense-only", lambda: memadapt_row(
            "memadapt dense-only", convs, retrieval={"sparse_weight": 0.0, **NO_BOOSTS}, threshold=0.0)),
        ("memadapt sparse-only", lambda: memadapt_row(
            "memadapt sparse-only", convs, retrieval={"dense_weight": 0.0, **NO_BOOSTS}, threshold=0.0,
            keep=has_sparse)),
        ("memadapt dense + boosts", lambda: memadapt_row(
            "memadapt dense + boosts", convs, retrieval={"sparse_weight": 0.0})),
        ("memadapt sparse + boosts", lambda: memadapt_row(
            "memadapt sparse + boosts", convs, retrieval={"dense_weight": 0.0})),
    ]  # fmt: skip
    if args.retrieval:
        given = json.loads(args.retrieval)
        plans.insert(1, ("memadapt --retrieval", lambda given=given: memadapt_row(
            f"memadapt --retrieval {args.retrieval}", convs, retrieval=given)))  # fmt: skip
    if args.openai_embedder:
        url, model = args.openai_embedder
        emb = {"provider": "openai", "base_url": url, "model": model, "api_key": os.environ.get("OPENAI_API_KEY")}
        plans.append((f"memadapt default, openai {model}", lambda: memadapt_row(
            f"memadapt default, openai {model}", convs, embedder=emb)))  # fmt: skip
    if args.embedder:
        for provider in args.embedder:
            for label, given in ((f"memadapt default, {provider}", None), (f"memadapt --retrieval, {provider}", "r")):
                if given and not args.retrieval:
                    continue
                extra = json.loads(args.retrieval) if given else None
                plans.append((label, lambda label=label, provider=provider, extra=extra: memadapt_row(
                    label, convs, embedder=provider, retrieval=extra)))  # fmt: skip
    if args.fastembed_model_path:
        name, path = args.fastembed_model_path
        emb = {"provider": "fastembed", "model": name, "model_path": path}
        plans.append((f"memadapt default, fastembed {name}", lambda: memadapt_row(
            f"memadapt default, fastembed {name}", convs, embedder=emb)))  # fmt: skip
    plans += [("BM25", lambda: bm25_row(convs)), ("keyword", lambda: keyword_row(convs))]
    if args.rows:
        plans = [p for p in plans if any(_picked(r, p[0]) for r in args.rows)]
    return [make() for _, make in progress(plans, "locomo rows", unit="row")]


def _picked(wanted: str, name: str) -> bool:
    """``--rows`` words: a row whose name contains one, or is exactly one written with a leading ``=``."""
    if wanted.startswith("="):
        return wanted[1:].lower() == name.lower()
    return wanted.lower() in name.lower()


def render(rows: Sequence[dict[str, Any]]) -> str:
    def f(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    headers = ["method", "r@5", "r@10"] + [f"r@10 {c} {n}" for c, n in CATEGORIES.items()]
    headers += ["r@10 tune (4)", "r@10 held-out (3)", "search p50 ms"]
    out = []
    for r in rows:
        r5, r10 = r["r@5"], r["r@10"]
        cells = [r["name"], f(r5.get("overall")), f(r10.get("overall"))]
        cells += [f(r10.get(str(c))) for c in CATEGORIES]
        cells += [f(r10.get("overall_tune")), f(r10.get("overall_held_out")), f(r["search_ms"]["p50"])]
        out.append(cells)
    return table(headers, out)


def verdict(rows: Sequence[dict[str, Any]]) -> list[str]:
    by = {r["name"]: r for r in rows}
    d, b = by.get("memadapt default"), by.get("BM25 (rank-bm25 Okapi)")
    if d is None:
        return []
    r10, r5 = d["r@10"]["overall"], d["r@5"]["overall"]
    lines = [f"default: r@10 {r10:.3f} (goal {GOAL_R10}: {r10 - GOAL_R10:+.3f}), "
             f"r@5 {r5:.3f} (goal {GOAL_R5}: {r5 - GOAL_R5:+.3f})"]  # fmt: skip
    if b is not None:
        worse = [f"{CATEGORIES[c]} ({d['r@10'][str(c)]:.3f} vs {b['r@10'][str(c)]:.3f})"
                 for c in CATEGORIES if str(c) in d["r@10"] and d["r@10"][str(c)] < b["r@10"][str(c)]]  # fmt: skip
        lines.append("beats BM25 at r@10 in every category" if not worse else f"below BM25 in: {', '.join(worse)}")
    return lines


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--data", default=str(DEFAULT_DATA), help="LoCoMo JSON (default ../shared/data/locomo_dev.json)"
    )
    parser.add_argument("--quick", action="store_true", help="one conversation only")
    parser.add_argument("--conversations", nargs="+", help="sample ids to use (default: all in the file)")
    parser.add_argument(
        "--rows", nargs="+", help="only rows whose name contains one of these words ('=name': exactly that row)"
    )
    parser.add_argument("--tune", action="store_true", help="also tune a settings grid on 4 conversations")
    parser.add_argument("--retrieval", help="a row with these RetrievalSettings, as JSON: '{\"dense_weight\": 0.3}'")
    parser.add_argument("--embedder", nargs="+", help="rows with these embedder providers too (e.g. minilm)")
    parser.add_argument("--openai-embedder", nargs=2, metavar=("BASE_URL", "MODEL"), help="key: $OPENAI_API_KEY")
    parser.add_argument("--fastembed-model-path", nargs=2, metavar=("MODEL", "DIR"), help="a local ONNX model")
    parser.add_argument("--consolidate", action="store_true", help="only the consolidation run (_locomo_consolidate)")
    parser.add_argument("--llm-delay-ms", type=float, default=200.0, help="--consolidate: the replay LLM's latency")
    parser.add_argument(
        "--heat-threshold", type=float, help="--consolidate: tiers.heat_threshold (consolidate only hot segments)"
    )
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    convs, report = load(args.data, args.conversations)
    if args.quick:
        convs = convs[:1]
    if not convs:
        parser.error("no conversation to run")
    info = machine()
    started = time.perf_counter()
    consolidated: dict[str, Any] = {}
    if args.consolidate:
        from benchmarks._locomo_consolidate import run as run_consolidate

        consolidated = run_consolidate(convs, args)
    rows = consolidated.pop("rows") if consolidated else [r.to_json() for r in build_rows(convs, args)]
    result: dict[str, Any] = {
        "machine": info,
        "data": {
            "file": _shown(args.data),
            "conversations": [c.sample_id for c in convs],
            "turns": sum(len(c.turns) for c in convs),
            "questions_scored": sum(len(c.questions) for c in convs),
            "evidence": {
                "ids_read": report.ids,
                "multi_id_strings_split": report.split,
                "ids_rewritten": report.rewritten,
                "dropped_malformed": report.dropped_malformed,
                "dropped_missing_turn": report.dropped_missing,
                "questions_without_evidence": report.unscored_questions,
                "turns_without_text": report.skipped_turns,
            },
            "splits": {"tune": list(TUNE), "held_out": list(HELD_OUT)},
            "recall": "mean over questions of |evidence in top k| / |evidence|; overall = categories 1-4",
        },
        "rows": rows,
        **consolidated,
    }
    if args.tune:
        from benchmarks._locomo_tune import tune

        result["tuning"] = tune(convs)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    result["engine_changed"] = engine_changed(info)
    print(f"\n{machine_line(info)}")
    if result["engine_changed"]:
        print(result["engine_changed"])
    ev = result["data"]["evidence"]
    meta = result["data"]
    print(
        f"data: {meta['file']}: {len(convs)} conversations, {meta['turns']} turns, "
        f"{meta['questions_scored']} questions scored; evidence: {ev['multi_id_strings_split']} multi-id strings "
        f"split, {ev['ids_rewritten']} ids repaired, dropped {len(ev['dropped_malformed'])} malformed "
        f"{ev['dropped_malformed']} and {len(ev['dropped_missing_turn'])} naming no turn {ev['dropped_missing_turn']}, "
        f"{ev['questions_without_evidence']} questions left without evidence"
    )
    print(render(rows))
    if consolidated:
        from benchmarks._locomo_consolidate import report_lines

        print("\n".join(report_lines(consolidated["consolidation"])))
    for line in verdict(rows):
        print(line)
    d = next((r for r in rows if r["name"] == "memadapt default"), None)
    if d is not None and "add" in d:
        a = d["add"]
        print(f"add (one session per call, ~{a['turns'] // max(1, a['calls'])} turns): p50 {a['per_call_ms']['p50']} "
              f"ms, p95 {a['per_call_ms']['p95']} ms a call, {a['turns_per_s']} turns/s")  # fmt: skip
    one = next((r for r in rows if r["name"] == "memadapt default, one turn per add"), None)
    if one is not None and "add" in one:
        a = one["add"]
        print(f"add (one turn per call): p50 {a['per_call_ms']['p50']} ms, p95 {a['per_call_ms']['p95']} ms")
    if "tuning" in result and "best_settings" in result["tuning"]:
        t = result["tuning"]
        print(f"tuned on {len(TUNE)}: {t['best_settings']}")
        for which in ("default", "tuned"):
            print(f"  {which}: r@10 tune {t[which]['tune']['r@10']['overall']:.3f}, held-out "
                  f"{t[which]['held_out']['r@10']['overall']:.3f}; r@5 tune {t[which]['tune']['r@5']['overall']:.3f}"
                  f", held-out {t[which]['held_out']['r@5']['overall']:.3f}")  # fmt: skip
    write_json(args.out, result)
    return result


def _shown(path: str) -> str:
    """The data path as it may appear in a tracked file: relative to the project root, never absolute."""
    p = Path(path).resolve()
    try:
        return os.path.relpath(p, ROOT)
    except ValueError:
        return p.name


if __name__ == "__main__":
    main()
