"""Fusion of dense and sparse candidates, the recipe's boosts, and the relevance floor. No I/O.

Measured on LoCoMo (RETRIEVAL.md §4): linear fusion of min-max-normalised scores beats RRF; a speaker boost, a
session prior, a date boost and a boost of time-bearing memories for "when" questions each add recall. The floor
reads the raw signals, because fused scores carry no relevance: an unrelated query returns nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .backends.base import Candidate
from .config import RetrievalSettings
from .temporal import TimeRange

__all__ = ["QueryPlan", "Ranked", "boost", "fuse"]

_WORD = re.compile(r"[\w'-]+")


@dataclass(frozen=True)
class QueryPlan:
    text: str
    window: TimeRange | None = None  # observed_at window that earns the date boost
    when: bool = False
    threshold: float | None = None  # None: the default floor; a number: a minimum fused score


@dataclass
class Ranked:
    id: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)


def _minmax(cands: list[Candidate], min_span: float) -> dict[str, float]:
    """Min-max normalisation over at least ``min_span``: among few close candidates, small differences are not
    stretched to the whole 0..1 range (which would let them outweigh the boosts)."""
    if not cands:
        return {}
    hi = max(c.score for c in cands)
    lo = min(min(c.score for c in cands), hi - min_span)
    span = hi - lo
    return {c.id: (1.0 if span <= 1e-12 else (c.score - lo) / span) for c in cands}


def is_relevant(dense: list[Candidate], sparse: list[Candidate], cfg: RetrievalSettings) -> bool:
    top = dense[0].score if dense else 0.0
    return top >= cfg.floor_dense or (bool(sparse) and top >= cfg.floor_dense_with_sparse)


def _named_speaker(query: str, names: set[str]) -> str | None:
    words = {w.lower() for w in _WORD.findall(query)}
    lowered = query.lower()
    hits = [n for n in names if (n.lower() in words) or (" " in n and n.lower() in lowered)]
    return hits[0] if len(hits) == 1 else None


def fuse(dense: list[Candidate], sparse: list[Candidate], plan: QueryPlan, cfg: RetrievalSettings) -> list[Ranked]:
    """Stage one, on ids and raw scores only: the floor, then linear fusion of normalised scores, best first."""
    if plan.threshold is None and not is_relevant(dense, sparse, cfg):
        return []
    dn = _minmax(dense, cfg.dense_min_span)
    sn = _minmax(sparse, cfg.sparse_min_span * (max(c.score for c in sparse) if sparse else 0.0))
    raw_d = {c.id: c.score for c in dense}
    raw_s = {c.id: c.score for c in sparse}
    total = (cfg.dense_weight + cfg.sparse_weight) or 1.0  # the fused score stays in [0, 1]
    out: list[Ranked] = []
    for pid in {**raw_d, **raw_s}:
        d, s = raw_d.get(pid), raw_s.get(pid)
        if plan.threshold is None and s is None and (d is None or d < cfg.floor_dense):
            continue  # neither a word in common nor close enough in meaning
        base = (cfg.dense_weight * dn.get(pid, 0.0) + cfg.sparse_weight * sn.get(pid, 0.0)) / total
        out.append(Ranked(pid, base, {"dense": d or 0.0, "sparse": s or 0.0, "fused": base}))
    out.sort(key=lambda r: r.score, reverse=True)
    return out


def boost(
    ranked: list[Ranked], payloads: dict[str, dict[str, Any]], plan: QueryPlan, cfg: RetrievalSettings
) -> list[Ranked]:
    """Stage two, on the best fused candidates and their payloads: speaker, date, "when" and session boosts."""
    ranked = [r for r in ranked if r.id in payloads]
    names = {str(p["name"]) for p in payloads.values() if p.get("name")}
    speaker = _named_speaker(plan.text, names) if names and cfg.speaker_boost else None
    for r in ranked:
        payload = payloads[r.id]
        if speaker is not None and payload.get("name") == speaker:
            r.scores["speaker"] = cfg.speaker_boost
        at = payload.get("observed_at")
        if plan.window is not None and at and plan.window.contains(datetime.fromisoformat(at)):
            r.scores["date"] = cfg.date_boost
        if plan.when and payload.get("has_time"):
            r.scores["when"] = cfg.when_boost
    if cfg.session_prior:
        best: dict[str, float] = {}
        for r in ranked:
            sess = payloads[r.id].get("session_id")
            if sess is not None:
                best[sess] = max(best.get(sess, 0.0), r.scores["fused"])
        if len(best) > 1:
            for r in ranked:
                sess = payloads[r.id].get("session_id")
                if sess is not None:
                    r.scores["session"] = cfg.session_prior * best[sess]
    for r in ranked:
        r.score = r.scores["fused"] + sum(v for k, v in r.scores.items() if k not in ("dense", "sparse", "fused"))
    ranked.sort(key=lambda r: r.score, reverse=True)
    if plan.threshold is not None:
        ranked = [r for r in ranked if r.score >= plan.threshold]
    return ranked
