"""``locomo.py --consolidate``: LoCoMo ingested with LLM consolidation, searched as facts, as raw turns, and both.

The LLM is ``ScriptedLLMServer`` on 127.0.0.1 in its LoCoMo replay mode: asked to extract facts from a batch of a
session's turns, it answers with LoCoMo's own ``observation`` facts for those turns (LLM-written by LoCoMo's authors),
each citing the messages it came from; it answers ADD to every reconciliation and no insight to every reflection, so
nothing is superseded and no insight is stored (counted, not hidden). Every request goes through the engine's real
client, over real HTTP; ``--llm-delay-ms`` holds each answer back that long, like a real model's latency, which shows
whether ``add`` waits for the LLM (it must not: consolidation runs in a background worker).

Ingestion is the same as the default LoCoMo row: one ``Memory.add`` per session, ``user_id`` = the sample id, each
message with its speaker, its dia_id (``id``) and the session's date; then ``flush()`` waits for the worker. The same
ingestion into a store without an LLM, in the same run and measured the same way, gives the add latency without
consolidation. Each question is then searched with the default settings (``limit=10``, relevance floor on, ``now`` a
day after the last session), three ways: ``kinds=["fact"]`` (facts only; insights are not facts: they get their own
row when any exist), ``kinds=["message"]`` (raw turns only) and the default kinds (messages, facts and insights).

How a fact counts (the honest reading): a hit reaches the evidence turns *its content came from*. A message reaches
its own dia_id (``external_id``); a fact reaches the dia_ids of its ``source_ids`` (the engine's lineage, record ids
of stored messages, mapped back through what ``add`` returned), never the observation's ids in the data file; an
insight reaches its facts' turns. ``r@k`` = the evidence turns reached by the top k *records* (k memories, as an agent
sees them), so a fact citing two turns can reach both in one slot; ``turns r@k`` takes the dia_ids all 10 records
reach, in rank order without repeats, cut at k ids (neither bounds the other: a record past the k-th can add an id
when the first records repeat ids). Both are LoCoMo's turn-level recall, by LoCoMo's category ids, overall =
categories 1-4.

Caveat: the observations were written with the whole session in view and the questions were written from the same
conversations, so replayed facts are a good extractor's output, not a weak one's; a real model's facts will differ.
"""

from __future__ import annotations

import argparse
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from benchmarks._common import pct, progress
from benchmarks._locomo_data import Conversation, Question, summarise

LIMIT = 10
KS = (5, 10)
WAYS: tuple[tuple[str, list[str] | None], ...] = (
    ("consolidated: facts only", ["fact"]),
    ("consolidated: messages only", ["message"]),
    ("consolidated: both (default kinds)", None),
)


@dataclass
class Way:
    name: str
    kinds: list[str] | None
    reached: dict[int, list[tuple[Question, list[str]]]] = field(default_factory=dict)  # k -> (q, dia_ids)
    ranked: list[tuple[Question, list[str]]] = field(default_factory=list)  # dia_ids in rank order, deduplicated
    search_ms: list[float] = field(default_factory=list)
    kinds_in_top: Counter[str] = field(default_factory=Counter)

    def to_json(self, config: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "config": {**config, "kinds": self.kinds}}
        out["questions"] = summarise(self.ranked, ks=KS)["questions"]
        for k in KS:  # the reached turns of the top k records, scored without a further cut
            out[f"r@{k}"] = summarise(self.reached[k], ks=(10**9,))[f"r@{10**9}"]
        strict = summarise(self.ranked, ks=KS)
        out["turns"] = {f"r@{k}": strict[f"r@{k}"] for k in KS}
        out["search_ms"] = {"p50": round(pct(self.search_ms, 50), 3), "p95": round(pct(self.search_ms, 95), 3)}
        out[f"kinds_in_top_{LIMIT}"] = dict(self.kinds_in_top)
        return out


def ingest(mem: Any, convs: Sequence[Conversation], name: str, dia: dict[str, str], *, check: bool) -> tuple[Any, int]:
    """The default row's ingestion (one ``add`` per session, each timed alone); also how many calls returned before
    their turns were consolidated (``check``: looked up, untimed)."""
    from benchmarks.locomo import Row
    from benchmarks.locomo import ingest as ingest_sessions

    row, pending = Row(name), 0

    def added(records: list[Any]) -> None:
        nonlocal pending
        dia.update({r.id: r.external_id for r in records if r.external_id})
        if check and records and not mem.get(records[0].id).consolidated:
            pending += 1

    ingest_sessions(mem, convs, row, added=added)
    return row, pending


def add_json(row: Any) -> dict[str, Any]:
    return {**row.to_json()["add"], "ingest_s": round(row.ingest_s, 3)}


class Lineage:
    """A hit's evidence turns: its own dia_id, its sources' (facts), or its facts' sources' (insights)."""

    def __init__(self, mem: Any, dia: dict[str, str]) -> None:
        self._mem, self._dia = mem, dia
        self._facts: dict[str, list[str]] = {}

    def turns(self, record: Any) -> list[str]:
        if record.kind == "message":
            return [record.external_id] if record.external_id else []
        if record.kind == "fact":
            return [self._dia[s] for s in record.source_ids if s in self._dia]
        missing = [i for i in record.source_ids if i not in self._facts]
        for fact in self._mem.get_many(missing) if missing else []:
            self._facts[fact.id] = self.turns(fact)
        return list(dict.fromkeys(d for i in record.source_ids for d in self._facts.get(i, [])))


def search(mem: Any, convs: Sequence[Conversation], way: Way, lineage: Lineage) -> None:
    jobs = [(c, q) for c in convs for q in c.questions]
    for conv, q in progress(jobs, f"{way.name}: search", unit="q"):
        t = time.perf_counter()
        hits = mem.search(q.text, user_id=conv.sample_id, limit=LIMIT, now=conv.now, kinds=way.kinds)
        way.search_ms.append((time.perf_counter() - t) * 1e3)
        per_hit = [lineage.turns(h.record) for h in hits[:LIMIT]]
        way.kinds_in_top.update(h.record.kind for h in hits[:LIMIT])
        for k in KS:
            way.reached.setdefault(k, []).append((q, list(dict.fromkeys(d for ts in per_hit[:k] for d in ts))))
        way.ranked.append((q, list(dict.fromkeys(d for ts in per_hit for d in ts))))


def delayed(replay: Callable[[Any], Any], seconds: float) -> Callable[[Any], Any]:
    """The replay, answering ``seconds`` late (in the server's handler thread; the engine's worker waits)."""

    def answer(request: Any) -> Any:
        if seconds > 0:
            time.sleep(seconds)
        return replay(request)

    return answer


def store_audit(mem: Any, convs: Sequence[Conversation], dia: dict[str, str]) -> dict[str, Any]:
    """What consolidation stored, read back: facts, insights, ended facts, lineage or duplication faults, and the
    ceiling of facts-only recall (the evidence turns that some stored fact cites, whatever the ranking)."""
    out: Counter[str] = Counter()
    ceiling: list[tuple[Question, list[str]]] = []
    for conv in convs:
        cited: set[str] = set()
        cursor = None
        texts: Counter[str] = Counter()
        while True:
            page = mem.list(user_id=conv.sample_id, kinds=["fact", "insight"], limit=500, cursor=cursor)
            for r in page.records:
                out[f"{r.kind}s"] += 1
                out[f"{r.kind}s_ended"] += r.valid_to is not None
                if r.kind == "fact":
                    texts[" ".join(r.text.lower().split())] += 1
                    out["facts_without_source_ids"] += not r.source_ids
                    out["facts_with_unknown_source_ids"] += any(s not in dia for s in r.source_ids)
                    cited.update(dia[s] for s in r.source_ids if s in dia)
            cursor = page.next_cursor
            if cursor is None:
                break
        out["duplicate_fact_texts"] += sum(n - 1 for n in texts.values())
        ceiling += [(q, sorted(q.evidence & cited)) for q in conv.questions]
    keys = ("facts", "facts_ended", "insights", "insights_ended", "facts_without_source_ids",
            "facts_with_unknown_source_ids", "duplicate_fact_texts")  # fmt: skip
    return {**{k: out[k] for k in keys}, "evidence_cited_by_facts": summarise(ceiling, ks=(10**9,))[f"r@{10**9}"]}


def observations(data: list[dict[str, Any]], convs: Sequence[Conversation]) -> int:
    wanted = {c.sample_id for c in convs}
    return sum(
        len(facts)
        for sample in data
        if sample["sample_id"] in wanted
        for by_speaker in sample.get("observation", {}).values()
        for facts in by_speaker.values()
    )


def run(convs: Sequence[Conversation], args: argparse.Namespace) -> dict[str, Any]:
    """Both ingestions, the searches, and the report: ``rows`` (one per way) plus a ``consolidation`` section."""
    import json
    from pathlib import Path

    from benchmarks._locomo_replay import LocomoReplay
    from memadapt_core import Memory
    from memadapt_core.testing import ScriptedLLMServer

    logging.getLogger("httpx2").setLevel(logging.WARNING)  # wordllama's import turns the root logger to INFO
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    delay = args.llm_delay_ms / 1e3
    with Memory(location=":memory:") as plain:  # the same ingestion without an LLM: add latency, consolidation off
        off, _ = ingest(plain, convs, "consolidate off", {}, check=False)
    replay = LocomoReplay(data)
    gate = getattr(args, "heat_threshold", None)
    with ScriptedLLMServer(responder=delayed(replay, delay)) as server, Memory(
        location=":memory:", llm=server.llm_settings(timeout=60.0 + delay), tiers={"heat_threshold": gate}
    ) as mem:  # fmt: skip
        settings = {
            "consolidation_batch": mem.settings.consolidation_batch,
            "reflect_every": mem.settings.reflect_every,
            "heat_threshold": gate,
        }
        dia: dict[str, str] = {}
        on, pending_on_return = ingest(mem, convs, "consolidate", dia, check=True)
        t = time.perf_counter()
        mem.flush()
        flush_s = time.perf_counter() - t
        stats = mem.stats()["consolidation"]
        audit = store_audit(mem, convs, dia)
        ways = [Way(name, kinds) for name, kinds in WAYS]
        if audit["insights"]:
            ways.insert(1, Way("consolidated: insights only", ["insight"]))
        lineage = Lineage(mem, dia)
        for way in ways:
            search(mem, convs, way, lineage)
    config = {"llm": f"ScriptedLLMServer LoCoMo replay, {args.llm_delay_ms} ms a call", **settings}
    llm = {op: {k: int(v[k]) for k in ("requests", "answers", "retries", "errors", "malformed", "prompt_tokens",
                                       "completion_tokens", "total_tokens")}
           for op, v in stats.items() if op != "worker"}  # fmt: skip
    return {
        "rows": [w.to_json(config) for w in ways],
        "consolidation": {
            "llm": config["llm"],
            "settings": settings,
            "observations_in_data": observations(data, convs),
            "worker": {k: int(v) for k, v in stats["worker"].items()},
            "stored": audit,
            "llm_calls": llm,
            "tokens_estimated": "the replay estimates usage at four characters a token (no tokenizer offline)",
            "add": {
                "consolidation_off": add_json(off),
                "consolidation_on": {
                    **add_json(on),
                    "calls_returned_before_their_turns_were_consolidated": pending_on_return,
                    "flush_after_last_add_s": round(flush_s, 3),
                },
            },
        },
    }


def report_lines(section: dict[str, Any]) -> list[str]:
    """The consolidation section as lines for the console."""
    w, st, add = section["worker"], section["stored"], section["add"]
    calls = sum(v["requests"] for v in section["llm_calls"].values())
    tokens = sum(v["total_tokens"] for v in section["llm_calls"].values())
    per_op = ", ".join(f"{op} {v['requests']}" for op, v in section["llm_calls"].items())
    a_off, a_on = add["consolidation_off"], add["consolidation_on"]
    return [
        f"consolidation ({section['llm']}; {section['settings']}): {w['messages']} messages consolidated, "
        f"{st['facts']} facts from {section['observations_in_data']} observations, {st['insights']} insights, "
        f"{w['superseded']} superseded, {w['invalidated']} invalidated, {w['skipped_batches']} batches skipped",
        f"LLM: {calls} calls ({per_op}), ~{tokens} tokens (estimated)",
        f"stored facts: {st['facts_without_source_ids']} without source_ids, {st['facts_with_unknown_source_ids']} "
        f"citing unknown records, {st['duplicate_fact_texts']} duplicate texts; evidence turns some fact cites "
        f"(ceiling of facts-only recall): {st['evidence_cited_by_facts'].get('overall')}",
        f"add (one session per call): consolidation off p50 {a_off['per_call_ms']['p50']} ms, "
        f"p95 {a_off['per_call_ms']['p95']} ms; on p50 {a_on['per_call_ms']['p50']} ms, "
        f"p95 {a_on['per_call_ms']['p95']} ms; {a_on['calls_returned_before_their_turns_were_consolidated']}/"
        f"{a_on['calls']} calls returned before their turns were consolidated; flush after the last add "
        f"{a_on['flush_after_last_add_s']} s",
    ]
