"""Heat (MemoryOS's mid-term signal), without I/O: how often a record was retrieved into a context, how long the
interaction behind it was, and how recently it was used.

    heat = visit_weight * visits + length_weight * length + recency_weight * 0.5 ** (age_hours / half_life_hours)

``visits``: times the record came back from ``search`` (counted only with ``tiers.heat`` on); ``length``: the
turns behind it (1 for a message, the messages a fact was drawn from, the messages of a pending segment); age:
since its last access, else since it was said. Counting is kept off the search path's I/O: ``AccessLedger``
adds to a dict in memory (a few dict operations per hit) and the engine writes the totals into the records'
payloads (``visits``, ``last_access``) at ``flush()``, ``close()`` and before consolidation reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from memadapt_core.config import TierSettings
from memadapt_core.models import MemoryRecord, SearchHit

__all__ = ["AccessLedger", "Visits", "just_visited_heat", "record_heat", "segment_heat"]


@dataclass
class Visits:
    count: int
    last: datetime


class AccessLedger:
    """Visits counted since the last ``drain``, by record id (thread-safe; ``give_back`` after a failed write)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: dict[str, Visits] = {}

    def note(self, hits: Sequence[SearchHit], at: datetime) -> list[int]:
        """Count a visit to each hit; returns each hit's visits counted so far (this one included)."""
        counts = []
        with self._lock:
            for hit in hits:
                seen = self._pending.get(hit.record.id)
                if seen is None:
                    seen = self._pending[hit.record.id] = Visits(0, at)
                seen.count += 1
                seen.last = at
                counts.append(seen.count)
        return counts

    def pending(self, record_id: str) -> Visits | None:
        with self._lock:
            return self._pending.get(record_id)

    def drain(self) -> dict[str, Visits]:
        with self._lock:
            out, self._pending = self._pending, {}
            return out

    def give_back(self, visits: dict[str, Visits]) -> None:
        with self._lock:
            for rid, v in visits.items():
                seen = self._pending.get(rid)
                self._pending[rid] = v if seen is None else Visits(seen.count + v.count, max(seen.last, v.last))

    def __len__(self) -> int:
        with self._lock:
            return len(self._pending)


def _recency(last: datetime, now: datetime, half_life_hours: float) -> float:
    age_hours = max(0.0, (now.timestamp() - last.timestamp()) / 3600)
    return float(0.5 ** (age_hours / half_life_hours))


def record_heat(record: MemoryRecord, now: datetime, tiers: TierSettings, extra: Visits | None = None) -> float:
    """The heat of one record (``extra``: visits counted but not written yet)."""
    visits = record.visits + (extra.count if extra else 0)
    last = max((m for m in (record.last_access, extra.last if extra else None) if m is not None), default=None)
    length = max(1, len(record.source_ids)) if record.kind != "message" else 1
    return (
        tiers.heat_visit_weight * visits
        + tiers.heat_length_weight * length
        + tiers.heat_recency_weight * _recency(last or record.observed_at, now, tiers.heat_half_life_hours)
    )


def just_visited_heat(record: MemoryRecord, unwritten: int, tiers: TierSettings) -> float:
    """The heat of a record retrieved this instant (recency 1): what a hit shows, without any date arithmetic."""
    length = max(1, len(record.source_ids)) if record.kind != "message" else 1
    visits = record.visits + unwritten
    return tiers.heat_visit_weight * visits + tiers.heat_length_weight * length + tiers.heat_recency_weight


def segment_heat(messages: Sequence[MemoryRecord], now: datetime, tiers: TierSettings) -> float:
    """The heat of a pending segment (a scope's unconsolidated messages): their visits, their number, and the
    recency of the latest use or turn."""
    if not messages:
        return 0.0
    last = max((m.last_access or m.observed_at for m in messages), key=lambda t: t.timestamp())
    return (
        tiers.heat_visit_weight * sum(m.visits for m in messages)
        + tiers.heat_length_weight * len(messages)
        + tiers.heat_recency_weight * _recency(last, now, tiers.heat_half_life_hours)
    )
