"""Retrieval quality on LongMemEval (dev slice): session and turn evidence recall, through memadapt's public API.

Each question is one user (``user_id`` = its question id) holding its own haystack (~50 dated sessions, ~500
user/assistant turns). Every session is one ``Memory.add`` call (``session_id`` = the haystack session id,
``observed_at`` = the session's date; each message carries ``id`` = ``<session id>:<turn index>`` and ``timestamp`` =
the session's date plus the turn index in seconds). When ``add`` refuses a session, its turns are added one by one
and each refused turn is counted as skipped. Each question is one ``Memory.search(question, user_id=..., limit=10,
now=<question date>)``, once with the default relevance floor and once with ``threshold=0.0`` (no floor).

Metrics (LongMemEval's retrieval metrics; ``_abs`` questions, whose answer is not in the haystack, are not scored):
session ``recall_any@5`` (an evidence session among the sessions of the top 5 hits), ``recall_all@5`` and
``recall_all@10`` (every evidence session among them), turn ``recall@10`` (the share of ``has_answer`` turns in the
top 10) and turn ``recall_any@10``; and the session metrics as LongMemEval's own code scores a turn ranking
(``ranked_any@5``, ``ranked_all@5``, ``ranked_all@10``: the first k *distinct* sessions down a ranking of 50 hits,
however many turns that takes; the published anchors use this). The ``session_*`` metrics are stricter: what an agent
given the top 5 or 10 hits sees. Diagnostics per question: a deep search (no floor, limit 200) gives the rank of
each evidence turn and session, and each evidence turn missed by the default search is put down to one cause:
refused by ``add``, dropped by the floor, or ranked below 10.

LongMemEval (Wu et al., ICLR 2025) is MIT-licensed; its path is an argument and it is never shipped.

    python benchmarks/longmemeval.py                 # 29 questions (~30 s on 2 shared cores)
    python benchmarks/longmemeval.py --quick         # one question per type
    python benchmarks/longmemeval.py --out benchmarks/results/longmemeval.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import engine_changed, machine, machine_line, pct, progress, table, write_json
from benchmarks._locomo_data import ROOT

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval_dev.json"
LIMIT, DEEP, RANKED = 10, 200, 50
CONFIGS = {"default floor": None, "no floor (threshold=0.0)": 0.0}


@dataclass(frozen=True)
class Turn:
    id: str  # "<session id>:<index>": the external id, mapped back from a hit's record
    role: str
    content: str
    has_answer: bool
    when: datetime


@dataclass(frozen=True)
class Session:
    id: str  # unique within its haystack (a repeated session id gets "#2")
    source_id: str  # the data's session id, which evidence names
    when: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    id: str
    type: str
    text: str
    now: datetime
    evidence_sessions: frozenset[str]
    sessions: tuple[Session, ...]
    answer: str = ""  # the gold answer (for _abs questions: why it cannot be answered)

    @property
    def scored(self) -> bool:
        return not self.id.endswith("_abs")

    @property
    def evidence_turns(self) -> frozenset[str]:
        return frozenset(t.id for s in self.sessions for t in s.turns if t.has_answer)


def parse_date(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC)


def load(path: str | Path, only: Sequence[str] | None = None) -> list[Question]:
    questions = []
    for q in json.loads(Path(path).read_text()):
        if only and q["question_id"] not in only:
            continue
        sessions, seen = [], set()
        for s in q["haystack"]:
            sid, n = s["session_id"], 1
            while (sid if n == 1 else f"{sid}#{n}") in seen:
                n += 1
            key = sid if n == 1 else f"{sid}#{n}"
            seen.add(key)
            when = parse_date(s["date"])
            turns = tuple(
                Turn(f"{key}:{i}", t["role"], t["content"], bool(t.get("has_answer")), when + timedelta(seconds=i))
                for i, t in enumerate(s["turns"])
            )
            sessions.append(Session(key, sid, when, turns))
        questions.append(
            Question(
                q["question_id"], q["question_type"], q["question"], parse_date(q["question_date"]),
                frozenset(q["answer_session_ids"]), tuple(sessions), str(q.get("answer", "")),
            )
        )  # fmt: skip
    return questions


def quick(questions: Sequence[Question]) -> list[Question]:
    """The first scored question of each type."""
    firsts: dict[str, Question] = {}
    for q in questions:
        if q.scored:
            firsts.setdefault(q.type, q)
    return list(firsts.values())


# -- ingest and search ----------------------------------------------------------------------------------------------
@dataclass
class Ingest:
    turns: int = 0  # stored
    refused: list[dict[str, Any]] = field(default_factory=list)  # {turn, chars, error}
    add_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0


def _message(t: Turn) -> dict[str, Any]:
    return {"role": t.role, "content": t.content, "id": t.id, "timestamp": t.when}


def ingest(mem: Any, questions: Sequence[Question]) -> Ingest:
    from memadapt_core.errors import ValidationError

    out = Ingest()
    start = time.perf_counter()
    for q in progress(questions, "longmemeval: add", unit="q"):
        for s in q.sessions:
            kw = {"user_id": q.id, "session_id": s.id, "observed_at": s.when}
            t0 = time.perf_counter()
            try:
                mem.add([_message(t) for t in s.turns], **kw)
                out.turns += len(s.turns)
            except ValidationError:
                for t in s.turns:  # one refused turn must not lose its session: add them one by one
                    try:
                        mem.add(_message(t), **kw)
                        out.turns += 1
                    except ValidationError as exc:
                        out.refused.append({"turn": t.id, "chars": len(t.content), "error": str(exc)[:200]})
            out.add_ms.append((time.perf_counter() - t0) * 1e3)
    out.seconds = time.perf_counter() - start
    return out


def _session(hit: Any) -> str:
    return str(hit.record.session_id).split("#")[0]


def search(mem: Any, q: Question, threshold: float | None, limit: int = LIMIT) -> tuple[list[Any], float]:
    t0 = time.perf_counter()
    hits = mem.search(q.text, user_id=q.id, limit=limit, now=q.now, threshold=threshold)
    return hits, (time.perf_counter() - t0) * 1e3


def distinct_sessions(hits: Sequence[Any], k: int) -> set[str]:
    """The first ``k`` distinct sessions in the ranking: LongMemEval's own turn-to-session scoring (its
    ``evaluate_retrieval_turn2session`` reads turns down the ranking until ``k`` sessions are met)."""
    seen: list[str] = []
    for h in hits:
        if (s := _session(h)) not in seen:
            seen.append(s)
            if len(seen) == k:
                break
    return set(seen)


def scores(q: Question, hits: Sequence[Any], ranked: Sequence[Any] | None = None) -> dict[str, float]:
    """``hits``: the top 10 an agent is given; ``ranked``: a deeper ranking of the same search, for the session
    metrics as LongMemEval scores them (the first k distinct sessions, however many turns that takes)."""
    sessions = [_session(h) for h in hits]
    turns = {h.record.external_id for h in hits[:10]}
    ev, ev_turns = q.evidence_sessions, q.evidence_turns
    out = {
        "session_any@5": float(bool(ev & set(sessions[:5]))),
        "session_all@5": float(ev <= set(sessions[:5])),
        "session_any@10": float(bool(ev & set(sessions[:10]))),
        "session_all@10": float(ev <= set(sessions[:10])),
    }
    if ranked is not None:
        five, ten = distinct_sessions(ranked, 5), distinct_sessions(ranked, 10)
        out |= {"ranked_any@5": float(bool(ev & five)), "ranked_all@5": float(ev <= five),
                "ranked_all@10": float(ev <= ten)}  # fmt: skip
    if ev_turns:
        out["turn_recall@10"] = len(ev_turns & turns) / len(ev_turns)
        out["turn_any@10"] = float(bool(ev_turns & turns))
    return out


def diagnose(q: Question, by_config: dict[str, list[Any]], deep: list[Any], refused: set[str]) -> dict[str, Any]:
    """Why each evidence turn is missing from the default top 10, and where evidence ranks in a deep search."""
    rank = {h.record.external_id: i + 1 for i, h in enumerate(deep)}
    raw = {h.record.external_id: h.scores for h in deep}
    session_rank: dict[str, int] = {}
    for i, h in enumerate(deep):
        session_rank.setdefault(_session(h), i + 1)
    default, no_floor = (by_config[c] for c in CONFIGS)
    got = {h.record.external_id for h in default}
    unfloored = {h.record.external_id for h in no_floor}
    missed = {}
    for tid in sorted(q.evidence_turns - got):
        if tid in refused:
            missed[tid] = "refused by add"
        elif tid in unfloored:
            missed[tid] = "dropped by the floor (in the no-floor top 10)"
        elif tid in rank:
            missed[tid] = f"ranked {rank[tid]} (deep search)"
        else:
            missed[tid] = f"not among the deep search's {len(deep)} hits"
    top = deep[0].scores if deep else {}
    return {
        "default_hits": len(default),
        "top_hit": _rounded(top),
        "evidence_session_rank": {s: session_rank.get(s) for s in sorted(q.evidence_sessions)},
        "evidence_turns": {t: {"rank": rank.get(t), **_rounded(raw.get(t, {}))} for t in sorted(q.evidence_turns)},
        "missed_turns": missed,
        "default_top10": [h.record.external_id for h in default],
    }


def per_session(cap: int) -> Any:
    def pick(hits: Sequence[Any]) -> list[Any]:
        seen: dict[str, int] = {}
        out = []
        for h in hits:
            seen[_session(h)] = n = seen.get(_session(h), 0) + 1
            if n <= cap:
                out.append(h)
        return out

    return pick


# Rankings derived from the deep (no floor, limit 200) search, to size a fix before building it. Not what search
# returns: a deeper candidate pool reorders a little, so compare them with the deep ranking's own top 10.
WHAT_IF = {
    "what-if: deep ranking, top 10": lambda hits: list(hits),
    "what-if: at most 2 hits per session": per_session(2),
    "what-if: at most 1 hit per session": per_session(1),
    "what-if: user turns only": lambda hits: [h for h in hits if h.record.role == "user"],
    "what-if: user turns only, at most 2 per session": lambda hits: per_session(2)(
        [h for h in hits if h.record.role == "user"]
    ),
}
SHAPE = ["distinct_sessions@10", "assistant_share@10", "evidence_user_share"]


def shape(q: Question, hits: Sequence[Any]) -> dict[str, float]:
    """What the default top 10 is made of: how many sessions, how many assistant turns; who said the evidence."""
    top = hits[:LIMIT]
    roles = {t.id: t.role for s in q.sessions for t in s.turns}
    ev = q.evidence_turns
    return {
        "distinct_sessions@10": float(len({_session(h) for h in top})),
        "assistant_share@10": sum(h.record.role == "assistant" for h in top) / len(top) if top else 0.0,
        "evidence_user_share": sum(roles[t] == "user" for t in ev) / len(ev) if ev else 0.0,
    }


def _rounded(scores: dict[str, float]) -> dict[str, float]:
    return {k: round(v, 3) for k, v in scores.items()}


def run(
    questions: Sequence[Question], *, diagnostics: bool = True, retrieval: dict[str, Any] | None = None,
    store: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """Ingest every haystack into one store (users side by side), search each question per config. ``store``: a
    folder that keeps the store; when it exists already, its memories are searched without ingesting again (to
    compare query-time settings: MiniLM takes ~30 minutes to ingest the haystacks on two cores)."""
    from memadapt_core import Memory

    per_question: list[dict[str, Any]] = []
    latency: dict[str, list[float]] = {c: [] for c in CONFIGS}
    reuse = store is not None and Path(store).exists()
    where: dict[str, Any] = {"path": store, "durability": "process"} if store else {"location": ":memory:"}
    with Memory(**where, retrieval=retrieval or {}) as mem:
        mem.search("warm up", user_id="warm-up")  # loads the embedder and opens the store outside the timings
        done = Ingest() if reuse else ingest(mem, questions)
        refused = {r["turn"] for r in done.refused}
        for q in progress(questions, "longmemeval: search", unit="q"):
            row: dict[str, Any] = {"id": q.id, "type": q.type, "scored": q.scored}
            hits_by: dict[str, list[Any]] = {}
            for name, threshold in CONFIGS.items():
                hits, ms = search(mem, q, threshold)
                latency[name].append(ms)
                hits_by[name] = hits
                row[name] = scores(q, hits, search(mem, q, threshold, RANKED)[0])
            if diagnostics and q.scored:
                deep, _ = search(mem, q, 0.0, DEEP)
                row["diagnosis"] = diagnose(q, hits_by, deep, refused)
                row["shape"] = shape(q, hits_by[next(iter(CONFIGS))])
                for name, pick in WHAT_IF.items():
                    row[name] = scores(q, pick(deep))
            per_question.append(row)
    configs = {name: summarise(per_question, name) for name in CONFIGS}
    what_if = {name: summarise(per_question, name) for name in WHAT_IF} if diagnostics else {}
    for name in CONFIGS:
        configs[name]["search_ms"] = {"p50": round(pct(latency[name], 50), 3), "p95": round(pct(latency[name], 95), 3)}
    return {
        "ingest": {
            "turns_offered": sum(len(s.turns) for q in questions for s in q.sessions),
            "turns_stored": done.turns,
            "turns_refused": len(done.refused),
            "refused": done.refused,
            "add_calls": len(done.add_ms),
            "add_ms_per_session": {"p50": round(pct(done.add_ms, 50), 3), "p95": round(pct(done.add_ms, 95), 3)},
            "seconds": round(done.seconds, 2),
            "turns_per_s": round(done.turns / done.seconds) if done.seconds else None,
            "reused_store": reuse,
        },
        "configs": configs,
        "what_if": what_if,
        "shape": {k: _mean([r["shape"][k] for r in per_question if "shape" in r]) for k in SHAPE},
        "questions": per_question,
    }


def summarise(rows: Sequence[dict[str, Any]], config: str) -> dict[str, Any]:
    """Means of each metric per question type and overall, over the scored questions."""
    groups: dict[str, list[dict[str, float]]] = {}
    for r in rows:
        if r["scored"]:
            groups.setdefault(r["type"], []).append(r[config])
            groups.setdefault("overall", []).append(r[config])
    out: dict[str, Any] = {}
    for name, items in sorted(groups.items(), key=lambda kv: (kv[0] == "overall", kv[0])):
        keys = sorted({k for i in items for k in i})
        out[name] = {"questions": len(items), **{k: _mean([i[k] for i in items if k in i]) for k in keys}}
    return {"by_type": out}


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


# -- driver ---------------------------------------------------------------------------------------------------------
METRICS = [
    "session_any@5",
    "session_all@5",
    "session_all@10",
    "turn_recall@10",
    "turn_any@10",
    "ranked_any@5",
    "ranked_all@5",
    "ranked_all@10",
]


def render(result: dict[str, Any], part: str = "configs") -> str:
    rows = []
    for name, cfg in result[part].items():
        for group, m in cfg["by_type"].items():
            cells = [f"{m[k]:.3f}" if m.get(k) is not None else "-" for k in METRICS]
            rows.append([name, group, m["questions"], *cells])
    return table(["config", "type", "n", *METRICS], rows)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="default ../shared/data/longmemeval_dev.json")
    parser.add_argument("--quick", action="store_true", help="one scored question per type")
    parser.add_argument("--questions", nargs="+", help="question ids to use (default: all in the file)")
    parser.add_argument("--retrieval", help="RetrievalSettings as JSON, e.g. '{\"session_prior\": 0}'")
    parser.add_argument("--store", help="keep the store in this folder; if it exists, search it without ingesting")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    questions = load(args.data, args.questions)
    if args.quick:
        questions = quick(questions)
    if not questions:
        parser.error("no question to run")
    info = machine()
    started = time.perf_counter()
    result: dict[str, Any] = {
        "machine": info,
        "data": {
            "file": _shown(args.data),
            "questions": len(questions),
            "questions_scored": sum(q.scored for q in questions),
            "sessions": sum(len(q.sessions) for q in questions),
            "longest_turn_chars": max(len(t.content) for q in questions for s in q.sessions for t in s.turns),
            "scoring": "session: evidence sessions among the sessions of the top-k hits; turn: has_answer turns in "
            "the top 10; _abs questions not scored; means over questions",
        },
        "retrieval": json.loads(args.retrieval) if args.retrieval else {},
        **run(questions, retrieval=json.loads(args.retrieval) if args.retrieval else None, store=args.store),
    }
    result["wall_s"] = round(time.perf_counter() - started, 1)
    result["engine_changed"] = engine_changed(info)
    print(f"\n{machine_line(info)}")
    if result["engine_changed"]:
        print(result["engine_changed"])
    ing = result["ingest"]
    print(
        f"data: {result['data']['file']}: {len(questions)} questions ({result['data']['questions_scored']} scored), "
        f"{ing['turns_offered']} turns; stored {ing['turns_stored']}, refused {ing['turns_refused']}; "
        f"add {ing['turns_per_s']} turns/s (one session a call, p50 {ing['add_ms_per_session']['p50']} ms)"
    )
    print(render(result))
    if result["what_if"]:
        print("\nDiagnostic rankings (derived from one deep search, no floor, limit 200; not what search returns):")
        print(render(result, "what_if"))
        print(f"default top 10, mean over scored questions: {result['shape']}")
    for name, cfg in result["configs"].items():
        print(f"search p50 {cfg['search_ms']['p50']} ms, p95 {cfg['search_ms']['p95']} ms ({name})")
    print(f"wall {result['wall_s']} s")
    write_json(args.out, result)
    return result


def _shown(path: str) -> str:
    """The data path as it may appear in a tracked file: relative to the project root, never absolute."""
    p = Path(os.path.abspath(path))  # not resolve(): a data folder reached through a symlink keeps its name
    try:
        return os.path.relpath(p, ROOT)
    except ValueError:
        return p.name


if __name__ == "__main__":
    main()
