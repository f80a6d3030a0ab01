"""Read-modify-write steps that must not interleave: each runs under the store's lock, so an update never loses
another update's history event and never writes back a record a concurrent delete removed.

They are plain functions doing backend I/O: the sync twin calls them directly, the async twin through its
``_run`` (inline for the embedded store, whose calls take microseconds; on a thread for a server). Embedding, the
slow part of an update, happens before, outside the lock.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from memadapt_core.models import MemoryRecord, Scope

from .cascade.derived import derived_of
from .cascade.neighbours import reindex_around
from .planning import updates
from .resources import Resources

__all__ = ["commit_update", "delete_present"]


def commit_update(store: Resources, plan: updates.UpdatePlan, dense: np.ndarray[Any, Any] | None) -> MemoryRecord:
    """Apply ``plan`` to the record as it is now; ``dense`` is the new text's vector (None: text unchanged)."""
    with store.lock:
        found = store.backend.retrieve([plan.id], with_vectors=dense is None)
        before = updates.existing(plan, found)
        record, history = updates.apply_update(plan, before)
        store.backend.upsert([updates.updated_point(store, record, history, dense, before)])
        if dense is not None:  # new words: the turns around it (and it) are indexed with them
            reindex_around(store, [before])
    return record


def delete_present(store: Resources, ids: list[str], scope: Scope) -> tuple[list[str], list[str]]:
    """Delete those of ``ids`` that exist within ``scope`` and what rests only on them (cascade/derived.py); returns
    both: the ids found, and the derived records that went with them."""
    with store.lock:
        present = [p for p in store.backend.retrieve(ids) if updates.point_in_scope(p, scope)]
        found = [p.id for p in present]
        derived = [d for d in derived_of(store, found) if d not in found] if found else []
        if found:
            store.backend.delete([*derived, *found])
            reindex_around(store, present)  # its words leave the turns around it
    return found, derived
