"""Maximal marginal relevance over the engine's stored vectors. No I/O: the vector store fetches, this picks."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from memadapt_core import MemoryRecord

from ._framework import maximal_marginal_relevance

__all__ = ["SCAN_PAGE", "mmr_pick", "nearest"]

T = TypeVar("T")
SCAN_PAGE = 256
"""Records read (and their vectors fetched) at a time when a search by vector scans a scope."""


def _record_id(candidate: Any) -> str:
    """A ``MemoryRecord``'s id (other candidates pass their own ``id_of``)."""
    return str(candidate.id)


def mmr_pick(
    query: Sequence[float] | np.ndarray,
    candidates: Sequence[T],
    vectors: Mapping[str, Sequence[float]],
    k: int,
    lambda_mult: float,
    id_of: Callable[[T], str] = _record_id,
) -> list[T]:
    """The ``k`` candidates that best balance closeness to the query against closeness to those already picked.
    Candidates without a stored vector (deleted meanwhile) are left out."""
    kept = [c for c in candidates if id_of(c) in vectors]
    if not kept or k <= 0:
        return []
    chosen = maximal_marginal_relevance(
        np.asarray(query, dtype=np.float32), [list(vectors[id_of(c)]) for c in kept], lambda_mult=lambda_mult, k=k
    )
    return [kept[i] for i in chosen]


def nearest(
    query: Sequence[float] | np.ndarray,
    best: list[tuple[float, MemoryRecord]],
    records: Sequence[MemoryRecord],
    vectors: Mapping[str, Sequence[float]],
    n: int,
) -> list[tuple[float, MemoryRecord]]:
    """``best`` (cosine, record) merged with one more page of records, cut to the ``n`` closest to ``query``."""
    kept = [r for r in records if r.id in vectors]
    if kept:
        q = np.asarray(query, dtype=np.float32)
        m = np.asarray([vectors[r.id] for r in kept], dtype=np.float32)
        norms = np.linalg.norm(m, axis=1) * (np.linalg.norm(q) or 1.0)
        sims = (m @ q) / np.where(norms == 0, 1.0, norms)
        best = best + list(zip(sims.tolist(), kept, strict=True))
    best.sort(key=lambda pair: -pair[0])
    return best[:n]
