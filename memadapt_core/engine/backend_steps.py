"""The backend steps of each operation, written once: plain blocking functions over ``Resources`` that ``Memory``
calls and ``AsyncMemory`` runs through its ``_run`` (inline for the embedded store, whose calls take
microseconds; on a thread for a server or a big batch). Embedding and the consolidation worker, which have async
forms of their own, stay in the twins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memadapt_core.backends.base import PointKey
from memadapt_core.filters import FilterSpec
from memadapt_core.models import HistoryEvent, MemoryRecord, Page, Scope, SearchHit
from memadapt_core.scoring.ranking import (
    fuse,
    impersonal_margin,
    is_question,
    lowered,
    on_one_scale,
    question_margin,
    questions_apart,
)
from memadapt_core.text.scripts import route_of

from .cascade import derived
from .planning import reads, updates, writes
from .resources import Resources

_ROUTE_CHARS = 400  # of a memory's text, enough to tell its script

__all__ = [
    "count_and_delete", "history", "list_page", "prepare_add", "records", "search", "vectors", "write_add",
]  # fmt: skip


def prepare_add(r: Resources, plan: writes.AddPlan) -> None:
    """What is stored already (skipped or replaced) and, for a session's messages, its latest turns."""
    writes.resolve_existing(plan, r.backend.retrieve(plan.candidate_ids))
    if plan.to_store and (ctx := plan.context_filter) is not None:
        plan.previous = r.backend.scroll(
            ctx, writes.context_window(r), descending=True, with_vectors=writes.needs_vectors(r)
        )


def write_add(r: Resources, plan: writes.AddPlan, dense: np.ndarray[Any, Any]) -> None:
    """Write a planned add. A replacing add is rebased on the records as they are now, under the store lock that
    updates and deletes take (transactions.py): it neither loses their history events nor revives a deleted one's."""
    if plan.on_conflict != "replace":
        _write_points(r, plan, dense)
        return
    with r.lock:
        writes.refresh_replaced(plan, r.backend.retrieve([d.record.id for d in plan.to_store]))
        _write_points(r, plan, dense)


def _write_points(r: Resources, plan: writes.AddPlan, dense: np.ndarray[Any, Any]) -> None:
    points, reindex = writes.build_points(r, plan, dense, plan.previous)
    r.backend.upsert(points)
    if reindex:
        r.backend.set_vectors(reindex)


def search(r: Resources, plan: reads.SearchPlan, qvec: np.ndarray[Any, Any]) -> list[SearchHit]:
    """The hits of a planned search, before the ``rerank`` hook: a period's records for a question only about a
    period (when it holds any), else hybrid candidates fused, boosted and cut to the limit."""
    if plan.by_time is not None and (listed := r.backend.scroll(plan.by_time, plan.limit, descending=True)):
        return reads.finish_by_time(plan, listed)
    dense, sparse = r.backend.search(qvec, r.sparse.query(plan.query), plan.flt, plan.candidates)
    read: dict[PointKey, dict[str, Any]] | None = None
    scale = r.embedder.cross_script_scale
    margin = question_margin(r.settings.retrieval, plan.ranking.route) if is_question(plan.query) else 0.0
    if dense and (scale is not None or margin):
        # Each candidate's text (the embedded store's payload cache holds them; the fused ones are read anyway): its
        # script, to put a memory in another script on the question's scale, and whether it is itself a question.
        read = r.backend.points(list(dict.fromkeys(key for key, _ in (*dense, *sparse))))
        texts = {key: str(p.get("text") or "")[:_ROUTE_CHARS] for key, p in read.items()}
        if scale is not None:
            dense = on_one_scale(dense, {key: route_of(t) for key, t in texts.items()}, plan.ranking.route, scale)
        if margin:
            asks = {
                key for key, p in read.items() if len(t := str(p.get("text") or "")) <= _ROUTE_CHARS and is_question(t)
            }
            dense = questions_apart(dense, asks, margin)
    if lift := impersonal_margin(r.settings.retrieval, plan.ranking.route, plan.query):
        dense = lowered(dense, lift)
    fused = fuse(dense, sparse, plan.ranking, r.settings.retrieval, plan.rerank_depth)
    if not fused:
        return []
    if read is None:
        return reads.finish_search(r, plan, fused, r.backend.points([f.id for f in fused]))
    return reads.finish_search(r, plan, fused, {f.id: read[f.id] for f in fused if f.id in read})


def records(r: Resources, wanted: list[str], scope: Scope) -> list[MemoryRecord]:
    return updates.records_found(wanted, r.backend.retrieve(wanted), scope)


def vectors(r: Resources, wanted: list[str], scope: Scope) -> dict[str, list[float]]:
    """The stored dense vectors of the records found among ``wanted``, in the order asked, only inside ``scope``."""
    by_id = {p.id: p for p in r.backend.retrieve(wanted, with_vectors=True)}
    found = (by_id[i] for i in dict.fromkeys(wanted) if i in by_id)
    return {p.id: p.dense.tolist() for p in found if p.dense is not None and updates.point_in_scope(p, scope)}


def list_page(r: Resources, plan: reads.ListPlan) -> Page:
    records, cursor = reads.finish_list(plan, r.backend.scroll(plan.flt, plan.fetch, start_from=plan.start))
    return Page(records=records, next_cursor=cursor)


def count_and_delete(r: Resources, flt: FilterSpec) -> int:
    """Delete what ``flt`` matches, with the insights and profile statements resting only on it (cascade/derived.py)."""
    return derived.delete_scope_with_derived(r, flt)


def history(r: Resources, walk: updates.HistoryWalk) -> list[HistoryEvent]:
    while wanted := walk.wanted():
        walk.take(r.backend.retrieve(wanted))
    return walk.events()
