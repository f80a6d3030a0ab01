"""Retrieval on MemoryBank in Chinese and English: is the exchange that answers a question found, in either language?

MemoryBank (Zhong et al., AAAI 2024; ``../shared/data/README.md``) holds the same ~10-day histories and probing
questions in Chinese and in English. Through the public API only: one ``Memory`` (in memory), one scope per user and
language (``user_id`` = the file's user ``id``); each exchange is one ``Memory.add`` of its user and assistant
messages, dated on its day (message ``timestamp``: the day at 10:00 UTC plus a few minutes per exchange, in order),
with the exchange id in each message's ``metadata`` (and its ``id``: ``<exchange>/user``, ``<exchange>/assistant``).
Each question is one ``Memory.search(question, user_id=..., limit=20, now=<the day after the user's last day>)``; its
hits are read as the exchanges they come from, in order, each once. Reported per language, per question kind and
overall, with the default relevance floor and with ``threshold=0.0`` (no floor):

- hit@1, hit@3, hit@5: an evidence exchange among the first k exchanges found; all@5: every one of them;
- the same questions in both languages (both scored, same pair and position): hit@3 side by side;
- questions marked ``answerable: false`` (the answer is in no exchange): the share that return nothing.

``--folds K`` splits the people into K folds (a Chinese user and the English one with the same history together) and
reports each fold's figures, so a setting chosen on some people can be judged on the others. Nothing here knows the
file's users or counts: ``--data`` takes any file of the same shape (e.g. held-out people).

    python benchmarks/memorybank.py --out benchmarks/results/memorybank.json
    python benchmarks/memorybank.py --limit 2 --lang zh              # two people, Chinese only
    python benchmarks/memorybank.py --folds 3 --embedder wordllama
    python benchmarks/memorybank.py --retrieval '{"sparse_weight": 0.5}' --profile
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import engine_changed, machine, machine_line, make_embedder, pct, progress, table, write_json

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "memorybank_dev.json"
KINDS = ("fact", "preference", "dated", "recommendation", "negation", "aggregate")
CONFIGS: dict[str, float | None] = {"default floor": None, "no floor (threshold=0.0)": 0.0}
KS = (1, 3, 5)
SEARCH_LIMIT = 20  # records: two a exchange, so the first 5 exchanges are there unless the floor or ties cut them
FIRST_TURN = timedelta(hours=10)
GAP = timedelta(minutes=5)  # between exchanges of a day; the assistant answers a minute after the user


@dataclass(frozen=True)
class Question:
    user: str  # the scope's user_id
    lang: str
    pair: Any
    index: int  # position in the user's question list: the same question in the other language has the same one
    text: str
    kind: str
    evidence: frozenset[str]
    answerable: bool


@dataclass
class User:
    id: str
    lang: str
    pair: Any
    exchanges: list[tuple[str, datetime, str, str]]  # (exchange id, when, user text, assistant text)
    questions: list[Question]
    now: datetime | None  # None for a user without a day: searched at the present time


@dataclass
class Result:
    question: Question
    ranked: dict[str, list[str]] = field(default_factory=dict)  # config -> exchange ids, in order, each once


def load(path: str | Path, *, limit: int | None = None, lang: str | None = None) -> list[User]:
    """The file's users (``limit``: the first N people, both languages of each kept together)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    raw = [u for u in data["users"] if lang in (None, u["lang"])]
    if limit is not None:
        keep = _pairs(raw)[:limit]
        raw = [u for u in raw if _pair_of(u) in keep]
    return [_user(u) for u in raw]


def _pair_of(u: dict[str, Any]) -> Any:
    return u.get("pair", u["id"])


def _pairs(users: Sequence[Any]) -> list[Any]:
    """Pair keys in the order they first appear."""
    seen: list[Any] = []
    for u in users:
        key = u.pair if isinstance(u, User) else _pair_of(u)
        if key not in seen:
            seen.append(key)
    return seen


def _user(u: dict[str, Any]) -> User:
    exchanges, days = [], sorted(u["days"])
    for day in days:
        start = datetime.fromisoformat(day).replace(tzinfo=UTC) + FIRST_TURN
        exchanges += [(x["id"], start + i * GAP, x["user"], x["assistant"]) for i, x in enumerate(u["days"][day])]
    now = datetime.fromisoformat(days[-1]).replace(tzinfo=UTC) + timedelta(days=1) + FIRST_TURN if days else None
    questions = [
        Question(u["id"], u["lang"], _pair_of(u), i, q["question"], q.get("kind", "-"),
                 frozenset(q.get("evidence") or ()), bool(q.get("answerable", True)))
        for i, q in enumerate(u["questions"])
    ]  # fmt: skip
    return User(u["id"], u["lang"], _pair_of(u), exchanges, questions, now)


def unknown_evidence(users: Sequence[User]) -> list[str]:
    """Evidence ids naming no exchange of their user (such a question can never be found through them)."""
    out = []
    for u in users:
        known = {x[0] for x in u.exchanges}
        out += [f"{u.id}: {e}" for q in u.questions for e in sorted(q.evidence - known)]
    return out


def messages(exchange: tuple[str, datetime, str, str]) -> list[dict[str, Any]]:
    xid, when, said, answered = exchange
    meta = {"exchange": xid}
    return [
        {"role": "user", "content": said, "id": f"{xid}/user", "timestamp": when, "metadata": meta},
        {"role": "assistant", "content": answered, "id": f"{xid}/assistant", "timestamp": when + timedelta(minutes=1),
         "metadata": meta},
    ]  # fmt: skip


def exchanges_of(hits: Sequence[Any]) -> list[str]:
    out: list[str] = []
    for h in hits:
        xid = h.record.metadata.get("exchange")
        if xid is not None and xid not in out:
            out.append(xid)
    return out


def run(users: Sequence[User], *, embedder: Any = None, retrieval: dict[str, Any] | None = None) -> dict[str, Any]:
    """Store every user's history in one in-memory store, ask every question in each config."""
    from memadapt_core import Memory

    results: list[Result] = []
    add_ms: list[float] = []
    search_ms: dict[str, list[float]] = {c: [] for c in CONFIGS}
    with Memory(location=":memory:", embedder=make_embedder(embedder), retrieval=retrieval or {}) as mem:
        mem.search("warm up", user_id="warm-up")  # loads the embedder outside the timings
        for user in progress(users, "memorybank: add", unit="user"):
            for exchange in user.exchanges:
                t = time.perf_counter()
                mem.add(messages(exchange), user_id=user.id, session_id=f"{user.id}/{exchange[1].date()}")
                add_ms.append((time.perf_counter() - t) * 1e3)
        for user in progress(users, "memorybank: search", unit="user"):
            for q in user.questions:
                res = Result(q)
                for name, threshold in CONFIGS.items():
                    t = time.perf_counter()
                    hits = mem.search(q.text, user_id=user.id, limit=SEARCH_LIMIT, now=user.now, threshold=threshold)
                    search_ms[name].append((time.perf_counter() - t) * 1e3)
                    res.ranked[name] = exchanges_of(hits)
                results.append(res)
    return {
        "exchanges": len(add_ms),
        "summary": summarise(results),
        "paired": paired(results),
        "add_ms": _ms(add_ms),
        "search_ms": {c: _ms(v) for c, v in search_ms.items()},
        "questions": [_row(r) for r in results],
    }


def _ms(values: Sequence[float]) -> dict[str, float]:
    return {"p50": round(pct(values, 50), 3), "p95": round(pct(values, 95), 3)}


def _row(r: Result) -> dict[str, Any]:
    q = r.question
    return {"user": q.user, "lang": q.lang, "index": q.index, "kind": q.kind, "text": q.text,
            "answerable": q.answerable, "evidence": sorted(q.evidence),
            **{c: v[:5] for c, v in r.ranked.items()}}  # fmt: skip


def scored(r: Result) -> bool:
    return r.question.answerable and bool(r.question.evidence)


def scores(r: Result, config: str) -> dict[str, bool]:
    top, ev = r.ranked[config], r.question.evidence
    out = {f"hit@{k}": bool(ev & set(top[:k])) for k in KS}
    out["all@5"] = ev <= set(top[:5])
    return out


def _cell(results: Sequence[Result], config: str) -> dict[str, Any]:
    marks = [scores(r, config) for r in results]
    cell: dict[str, Any] = {"questions": len(marks)}
    for key in (*(f"hit@{k}" for k in KS), "all@5"):
        cell[key] = round(sum(m[key] for m in marks) / len(marks), 4) if marks else None
    return cell


def summarise(results: Sequence[Result]) -> dict[str, Any]:
    """config -> language (and ``all``) -> kind (and ``all``) -> figures; ``unanswerable``: how many came back empty."""
    langs = sorted({r.question.lang for r in results})
    out: dict[str, Any] = {}
    for config in CONFIGS:
        per: dict[str, Any] = {}
        for lang in (*langs, "all"):
            mine = [r for r in results if lang in ("all", r.question.lang)]
            good = [r for r in mine if scored(r)]
            kinds = [k for k in KINDS if any(r.question.kind == k for r in good)]
            kinds += sorted({r.question.kind for r in good} - set(KINDS))
            cells = {k: _cell([r for r in good if r.question.kind == k], config) for k in kinds}
            cells["all"] = _cell(good, config)
            unanswerable = [r for r in mine if not r.question.answerable]
            empty = sum(not r.ranked[config] for r in unanswerable)
            rate = round(empty / len(unanswerable), 4) if unanswerable else None
            cells["unanswerable"] = {"questions": len(unanswerable), "empty": empty, "empty_rate": rate}
            per[lang] = cells
        out[config] = per
    return out


def paired(results: Sequence[Result]) -> dict[str, Any]:
    """hit@3 of the questions scored in both languages (same pair, same position), per language, each config."""
    by = {(r.question.pair, r.question.index, r.question.lang): r for r in results if scored(r)}
    keys = sorted({(p, i) for p, i, _ in by}, key=str)
    langs = sorted({lang for _, _, lang in by})
    both = [k for k in keys if all((*k, lang) in by for lang in langs)]
    out: dict[str, Any] = {"questions": len(both) if len(langs) > 1 else 0}
    if len(langs) > 1:
        for config in CONFIGS:
            out[config] = {lang: _cell([by[(*k, lang)] for k in both], config)["hit@3"] for lang in langs}
    return out


def folds(users: Sequence[User], results: Sequence[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """People dealt round-robin into k folds (pairs together); each fold's figures over its own questions."""
    pairs = _pairs(users)
    out = []
    for f in range(k):
        mine = {p for i, p in enumerate(pairs) if i % k == f}
        ids = [u.id for u in users if u.pair in mine]
        rows = [r for r in results if r["user"] in ids]
        out.append({"fold": f, "users": ids, "summary": summarise([_back(r) for r in rows])})
    return out


def _back(row: dict[str, Any]) -> Result:
    q = Question(row["user"], row["lang"], None, row["index"], row["text"], row["kind"], frozenset(row["evidence"]),
                 row["answerable"])  # fmt: skip
    return Result(q, {c: row[c] for c in CONFIGS})


def _f(v: Any) -> str:
    return "-" if v is None else f"{v:.3f}"


def render(summary: dict[str, Any]) -> str:
    rows = []
    for config, per in summary.items():
        for lang, cells in per.items():
            for kind, c in cells.items():
                if kind != "unanswerable" and c["questions"]:
                    rows.append([config, lang, kind, c["questions"], *(_f(c[f"hit@{k}"]) for k in KS),
                                 _f(c["all@5"])])  # fmt: skip
    return table(["config", "lang", "kind", "n", "hit@1", "hit@3", "hit@5", "all@5"], rows)


def render_unanswerable(summary: dict[str, Any]) -> str:
    rows = [[config, lang, c["unanswerable"]["questions"], c["unanswerable"]["empty"]]
            for config, per in summary.items() if config == "default floor" for lang, c in per.items()]  # fmt: skip
    return table(["config", "lang", "unanswerable questions", "returned nothing"], rows)


def render_folds(fold_rows: Sequence[dict[str, Any]]) -> str:
    rows = []
    for f in fold_rows:
        for lang, cells in f["summary"]["default floor"].items():
            c = cells["all"]
            rows.append([f["fold"], ", ".join(f["users"]), lang, c["questions"], _f(c["hit@1"]), _f(c["hit@3"]),
                         _f(c["hit@5"]), _f(c["all@5"])])  # fmt: skip
    return table(["fold", "users", "lang", "n", "hit@1", "hit@3", "hit@5", "all@5"], rows)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="default ../shared/data/memorybank_dev.json")
    parser.add_argument("--limit", type=int, help="the first N people only (each in both languages)")
    parser.add_argument("--lang", help="one language only (zh, en)")
    parser.add_argument("--embedder", help="an embedder provider (minilm, wordllama; hash: the test embedder)")
    parser.add_argument("--retrieval", help="RetrievalSettings as JSON: '{\"sparse_weight\": 0.5}'")
    parser.add_argument("--folds", type=int, default=0, help="also: figures per fold of people (pairs together)")
    parser.add_argument("--profile", action="store_true", help="print where the time goes (cProfile, cumulative)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    users = load(args.data, limit=args.limit, lang=args.lang)
    if not users:
        parser.error("no user to run")
    if args.folds and not 1 < args.folds <= len(_pairs(users)):
        parser.error(f"--folds must be between 2 and the number of people ({len(_pairs(users))})")
    info = machine()
    started = time.perf_counter()
    prof = cProfile.Profile() if args.profile else None
    if prof is not None:
        prof.enable()
    retrieval = json.loads(args.retrieval) if args.retrieval else None
    measured = run(users, embedder=args.embedder, retrieval=retrieval)
    if prof is not None:
        prof.disable()
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(30)
        print(text.getvalue())
    result: dict[str, Any] = {
        "machine": info,
        "data": {
            "file": _shown(args.data),
            "users": [u.id for u in users],
            "people": len(_pairs(users)),
            "exchanges": sum(len(u.exchanges) for u in users),
            "questions": sum(len(u.questions) for u in users),
            "evidence_naming_no_exchange": unknown_evidence(users),
            "scored": "answerable questions with evidence; an exchange is found when a hit comes from it",
        },
        "config": {"embedder": args.embedder or "default", "retrieval": retrieval or {}, "search_limit": SEARCH_LIMIT},
        **measured,
    }
    if args.folds:
        result["folds"] = folds(users, measured["questions"], args.folds)
    result["wall_s"] = round(time.perf_counter() - started, 1)
    result["engine_changed"] = engine_changed(info)
    print(f"\n{machine_line(info)}")
    if result["engine_changed"]:
        print(result["engine_changed"])
    d = result["data"]
    print(f"data: {d['file']}: {len(users)} users ({d['people']} people), {d['exchanges']} exchanges, "
          f"{d['questions']} questions; embedder {result['config']['embedder']}")  # fmt: skip
    print(render(result["summary"]))
    p = result["paired"]
    if p["questions"]:
        langs = ", ".join(f"{lang} {_f(v)}" for lang, v in p["default floor"].items())
        print(f"same {p['questions']} questions in every language, hit@3 (default floor): {langs}")
    print(render_unanswerable(result["summary"]))
    if "folds" in result:
        print(f"\nper fold ({args.folds} folds of people, default floor, all kinds):")
        print(render_folds(result["folds"]))
    print(f"add p50 {measured['add_ms']['p50']} ms, p95 {measured['add_ms']['p95']} ms (one exchange)")
    for name, ms in measured["search_ms"].items():
        print(f"search p50 {ms['p50']} ms, p95 {ms['p95']} ms ({name})")
    print(f"wall {result['wall_s']} s")
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
