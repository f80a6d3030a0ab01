"""Decoded payloads of the records written or read lately, by point id, so a search need not decode them again. No I/O.

qdrant-edge builds a new Python dict for every payload a read returns: 30 candidates cost a search ~140-190 µs at
100k records, a quarter of its time. The embedded store is one process's alone, so every write passes through its
backend, which keeps this cache coherent:

- before a write that may change payloads it calls ``forget`` (those points, or ``clear``), which also bumps
  ``version``; after the write succeeds, ``put`` (what it wrote) or ``forget`` again;
- a read looks up what it has, fetches the rest, and ``fill``\\s them only if ``version`` is still the one it saw
  before fetching: a payload read while a write was under way is never kept.

Entries never share a mutable container with a caller: ``put`` copies what it is given, and readers must treat the
dicts they get as read-only (``records.record_from_payload`` copies what it hands on). Beyond ``size`` entries the
oldest insertion goes first; ``size=0`` keeps nothing.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

from memadapt_core.backends.base import StoredPoint

__all__ = ["PayloadCache", "copy_json", "owned"]

_CONTAINERS = ("metadata", "source_ids")  # the only payload fields besides ``history`` that hold dicts or lists


def copy_json(value: Any) -> Any:
    """A JSON value copied down to its leaves: dicts and lists (tuples become lists) are new, the rest shared."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [copy_json(v) for v in value]
    return value


def owned(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``payload`` without its ``history`` (searches read records, not their changes, and a history may
    hold 32k characters) sharing no dict or list with it (tuples become lists, as a stored payload reads back)."""
    entry = dict(payload)
    entry.pop("history", None)
    for key in _CONTAINERS:
        if key in entry:
            entry[key] = copy_json(entry[key])
    return entry


class PayloadCache:
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: dict[Hashable, StoredPoint] = {}
        self._lock = threading.Lock()  # fill's check-then-insert against a writer's bump
        self._version = 0

    @property
    def version(self) -> int:
        return self._version

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, keys: Sequence[Hashable]) -> tuple[dict[Hashable, StoredPoint], list[Hashable]]:
        """The cached points among ``keys`` (read-only: their payloads are the cache's), and the keys missing."""
        entries = self._entries
        found: dict[Hashable, StoredPoint] = {}
        missing: list[Hashable] = []
        for key in keys:
            entry = entries.get(key)
            if entry is None:
                missing.append(key)
            else:
                found[key] = entry
        return found, missing

    def fill(self, read: Mapping[Hashable, StoredPoint], version: int) -> None:
        """Keep what a read fetched (copies of its payloads), unless a write has begun since ``version``."""
        if not self.size or not read:
            return
        with self._lock:
            if version == self._version:
                self._insert((key, StoredPoint(p.id, _interned(p.payload))) for key, p in read.items())

    def put(self, written: Iterable[tuple[Hashable, str, Mapping[str, Any]]]) -> None:
        """After a write: the payloads now stored at these points (copied)."""
        with self._lock:
            self._version += 1
            if self.size:
                self._insert((key, StoredPoint(rid, owned(payload))) for key, rid, payload in written)

    def forget(self, keys: Iterable[Hashable]) -> None:
        with self._lock:
            self._version += 1
            for key in keys:
                self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._version += 1
            self._entries.clear()

    def _insert(self, items: Iterable[tuple[Hashable, StoredPoint]]) -> None:
        entries = self._entries
        for key, entry in items:
            entries.pop(key, None)  # re-inserted last: the newest goes last
            entries[key] = entry
        excess = len(entries) - self.size
        if excess > 0:
            for key in [k for k, _ in zip(entries, range(excess), strict=False)]:
                del entries[key]


def _interned(payload: dict[str, Any]) -> dict[str, Any]:
    # A decoded payload's keys are new strings each time (~50 bytes apiece per entry); interned they are shared.
    return owned({sys.intern(k): v for k, v in payload.items()})
