"""``locomo.py --tune``: a small coordinate search over ``RetrievalSettings`` on the 4 tuning conversations, reported
on the 3 held-out ones. It reads evidence recall on the tuning split only, never an answer; the lead decides whether a
tuned value becomes a default.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from typing import Any

from benchmarks._common import progress
from benchmarks._locomo_data import HELD_OUT, TUNE, Conversation, summarise
from benchmarks.locomo import Row, ingest, memadapt_row, query

QUERY_GRID: dict[str, Sequence[Any]] = {
    "dense_weight": (0.0, 0.1, 0.2, 0.3, 0.5),
    "dense_min_span": (0.05, 0.1, 0.25, 0.5),
    "sparse_min_span": (0.25, 0.5, 1.0),
    "speaker_boost": (0.1, 0.2, 0.3, 0.4),
    "session_prior": (0.0, 0.1, 0.2, 0.3),
    "date_boost": (0.0, 0.1, 0.3, 0.5),
    "when_boost": (0.1, 0.2, 0.3, 0.4),
    "candidates": (30, 40, 50, 100, 200),
}
INDEX_GRID: dict[str, Sequence[Any]] = {
    "context_prev": (2, 3, 4, 5, 6),
    "context_next": (1, 2, 3),
    "bm25_avg_len": (24.0, 48.0, 96.0, 192.0, 384.0),
}


def _score(row: Row, split: str) -> float:
    value = summarise(row.results)["r@10"].get(f"overall_{split}")
    return float(value) if value is not None else 0.0


def tune(convs: Sequence[Conversation]) -> dict[str, Any]:
    """Coordinate search on the tuning conversations: index-time settings first (re-ingest), then query-time ones
    (reopen the same folder with other settings). Never reads an answer: only evidence recall on the tuning split."""
    from memadapt_core import Memory

    tune_convs = [c for c in convs if c.sample_id in TUNE]
    held = [c for c in convs if c.sample_id in HELD_OUT]
    if not tune_convs or not held:
        return {"skipped": "--tune needs both the tuning and the held-out conversations"}
    best: dict[str, Any] = {}
    tried: list[dict[str, Any]] = []

    def evaluate(settings: dict[str, Any], folder: str, split_convs: Sequence[Conversation], fresh: bool) -> Row:
        row = Row("tune", config=dict(settings))
        with Memory(path=folder, embedder="wordllama", retrieval=settings) as mem:
            if fresh:
                ingest(mem, split_convs, row)
            query(mem, split_convs, row)
        return row

    with tempfile.TemporaryDirectory(prefix="memadapt-locomo-tune-") as base:  # ~30 stores: removed after
        for key, values in progress(list(INDEX_GRID.items()), "tune index settings", unit="setting"):
            scores = {}
            for v in values:
                folder = f"{base}/{key}-{v}"
                scores[v] = _score(evaluate({**best, key: v}, folder, tune_convs, True), "tune")
                tried.append({"settings": {**best, key: v}, "r@10_tune": scores[v]})
            best[key] = max(scores, key=lambda v: scores[v])
        folder = f"{base}/best-index"
        evaluate(best, folder, tune_convs, True)
        for key, values in progress(list(QUERY_GRID.items()), "tune query settings", unit="setting"):
            scores = {}
            for v in values:
                scores[v] = _score(evaluate({**best, key: v}, folder, tune_convs, False), "tune")
                tried.append({"settings": {**best, key: v}, "r@10_tune": scores[v]})
            best[key] = max(scores, key=lambda v: scores[v])
    default_tune = memadapt_row("default on tuning split", tune_convs)
    default_held = memadapt_row("default on held-out split", held)
    tuned_tune = memadapt_row("tuned on tuning split", tune_convs, retrieval=best)
    tuned_held = memadapt_row("tuned on held-out split", held, retrieval=best)
    return {
        "tuned_on": list(TUNE),
        "held_out": list(HELD_OUT),
        "best_settings": best,
        "default": {"tune": summarise(default_tune.results), "held_out": summarise(default_held.results)},
        "tuned": {"tune": summarise(tuned_tune.results), "held_out": summarise(tuned_held.results)},
        "tried": tried,
    }
