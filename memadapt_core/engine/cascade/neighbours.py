"""A message that leaves its session, or changes its words, leaves its neighbours' word index too.

A message in a session is indexed with its neighbours' words (writes.build_points): after ``delete`` or a text
``update``, the turns whose context window held it would go on matching its old words. Here their sparse vectors
are rebuilt from the session as it is now, so a deleted message's words leave every index and an updated one lends
its new words. Its meaning keeps a faded share in its two neighbours' dense vectors (0.2 in the turn before, 0.3
in the turn after: vectors/dense_context.py); re-embedding them is not done (docs/reliability-and-security.md).

Turns are ordered by when they were said, and turns said at the same moment (one call with one ``observed_at``)
by when they were stored, as ``add`` indexed them. Plain functions doing backend I/O under the caller's store
lock (transactions.py), for both twins.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from memadapt_core.backends.base import StoredPoint, VectorUpdate
from memadapt_core.engine.planning.writes import session_filter, turn_sparse
from memadapt_core.engine.resources import Resources
from memadapt_core.filters import FilterSpec
from memadapt_core.record_codec import dense_text, payload_scope, said_on

__all__ = ["reindex_around"]

_TIES = 2_000  # turns said at one moment read at most (a session pasted in one call with one observed_at)
_TICK = timedelta(microseconds=1)


def _session_of(payload: dict[str, Any]) -> FilterSpec | None:
    if payload.get("kind") != "message" or not payload.get("session_id") or not payload.get("observed_at"):
        return None
    return session_filter(payload_scope(payload))  # the turns add indexed it with


def _stored_at(point: StoredPoint) -> str:
    return str(point.payload.get("created_at") or "")


def _around(store: Resources, flt: FilterSpec, at: datetime, window: int) -> tuple[list[StoredPoint], int]:
    """The session's turns around the moment ``at``, oldest first, and how many were said before it."""
    before = store.backend.scroll(replace(flt, observed_to=at), window, descending=True)[::-1]
    ties = store.backend.scroll(replace(flt, observed_from=at, observed_to=at + _TICK), _TIES)
    after = store.backend.scroll(replace(flt, observed_from=at + _TICK), window)
    return [*before, *sorted(ties, key=_stored_at), *after], len(before)


def reindex_around(store: Resources, changed: list[StoredPoint]) -> None:
    """Rebuild the sparse vectors of the turns whose context held each of ``changed`` (deleted, or updated in
    place; their payloads as they were before the change), from the session as it is now."""
    cfg = store.settings.retrieval
    if not (cfg.context_prev or cfg.context_next):
        return
    window = cfg.context_prev + cfg.context_next
    updates: dict[str, VectorUpdate] = {}
    for point in changed:
        flt = _session_of(point.payload)
        if flt is None:
            continue
        seq, said_before = _around(store, flt, datetime.fromisoformat(point.payload["observed_at"]), window)
        here = next((i for i, p in enumerate(seq) if p.id == point.id), None)
        if here is None:  # deleted: the gap is after the turns stored before it at the same moment
            mine = _stored_at(point)
            gap = said_before + sum(
                1 for p in seq[said_before:] if p.payload.get("observed_at") == point.payload["observed_at"]
                and _stored_at(p) < mine
            )  # fmt: skip
            lo, hi = gap - cfg.context_next, gap + cfg.context_prev
        else:  # updated: it and the turns around it
            lo, hi = here - cfg.context_next, here + cfg.context_prev + 1
        texts = [dense_text(p.payload.get("text", ""), p.payload.get("name")) for p in seq]
        for i in range(max(0, lo), min(len(seq), hi)):
            sparse = turn_sparse(store, texts, i, said_on(seq[i].payload, cfg.index_dates))
            updates[seq[i].id] = (seq[i].id, sparse, None)
    if updates:
        store.backend.set_vectors(list(updates.values()))
