"""The capacity of long-term knowledge (``tiers.knowledge_capacity``): beyond it, the coldest facts are archived.

Archiving sets ``archived`` on a fact: it stays stored (``get``, ``history``, ``export``, ``count`` and
``list(include_archived=True)`` / ``search(include_archived=True)`` still see it) and leaves default search and
list. Coldest: the lowest heat (``memadapt_core.scoring.heat.record_heat``: visits, turns behind it, recency of its last
use), the oldest first among equals. Run by the consolidation store after a plan adds facts.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from memadapt_core.engine.planning import reads
from memadapt_core.engine.resources import Resources
from memadapt_core.engine.scope_guard import check_points
from memadapt_core.filters import FilterSpec
from memadapt_core.models import MemoryRecord, Scope
from memadapt_core.record_codec import record_from_payload, utcnow
from memadapt_core.scoring.heat import AccessLedger, record_heat

__all__ = ["archive_coldest", "coldest", "kept_filter"]


def kept_filter(scope: Scope) -> FilterSpec:
    """The valid, unarchived facts a capacity counts: the user's (or agent's) across sessions."""
    owner = scope if scope.user_id is None and scope.agent_id is None else scope.model_copy(update={"session_id": None})
    return reads.scope_filter(owner, kinds=("fact",), valid_only=True, archived=False)


def coldest(
    records: Sequence[MemoryRecord], excess: int, now: datetime, store: Resources, ledger: AccessLedger
) -> list[str]:
    """The ids of the ``excess`` coldest records."""
    tiers = store.settings.tiers

    def key(r: MemoryRecord) -> tuple[float, float, str]:
        return record_heat(r, now, tiers, ledger.pending(r.id)), r.observed_at.timestamp(), r.id

    return [r.id for r in sorted(records, key=key)[:excess]]


def archive_coldest(store: Resources, scope: Scope) -> list[str]:
    """Archive the coldest facts of ``scope``'s knowledge beyond the capacity; returns their ids."""
    cap = store.settings.tiers.knowledge_capacity
    if cap is None:
        return []
    flt = kept_filter(scope)
    kept = store.backend.count(flt)
    if kept <= cap:
        return []
    points = store.backend.scroll(flt, kept)
    check_points(flt, points)
    records = [record_from_payload(p.id, p.payload) for p in points]
    ids = coldest(records, len(records) - cap, utcnow(), store, store.access)
    if ids:
        store.backend.set_payload(ids, {"archived": 1})
    return ids
