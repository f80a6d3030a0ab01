"""How rare each of the embedder's tokens is in a scope, for pooling token vectors by rarity. No I/O.

With ``embedder.pooling="scope_idf"`` a text's vector is the mean of its token vectors weighted by each token's
inverse document frequency in the scope it belongs to (a memory's) or is searched in (a query's): the scope's
everyday words and names, found in most of its memories, count little; what sets a memory apart counts most.
Measured through the engine (benchmarks/results/history.md):
LoCoMo dense-only r@10 0.55 -> 0.67 (either embedder); with BM25
and the boosts, MiniLM r@10 0.780 -> 0.784 and LongMemEval recall_all@10 0.76 -> 0.80. The counts must be the
scope's own: counted over other conversations they made recall worse than no weighting.

A scope's counts are those of its memories when it was first read in this process (``key_of`` names the scope:
the first of user, agent and session; a store-wide key when none is given), plus every text embedded into it since.
A memory is embedded with the counts as they are when it is added, and never again: measured, embedding each
LoCoMo session with the counts of the sessions before it recalls as well as counts taken over the whole
conversation. Deleted memories stay counted until the scope is read again. The counts are statistics for ranking,
never data: a miscount moves scores, not records.

Reading a scope's texts costs ~35 ms for 1,000 short memories and seconds for 100,000 (MiniLM tokenizes each), so
the counts are also saved beside the store (``engine.saved_counts``: at ``flush()``, at ``close()`` and when a scope
leaves the cache) and read back instead while the store still holds as many records of the scope as the counts
knew (``TokenStats.stored``); a scope whose count changed otherwise (a delete, a write the counts never saw) is
read again. ``Snapshot`` is what is saved.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from memadapt_core.embedders.base import TokenWeights
from memadapt_core.filters import FilterSpec

__all__ = [
    "BOOTSTRAP_LIMIT",
    "ScopeKey",
    "ScopeTokenStats",
    "Scoped",
    "Snapshot",
    "TokenStats",
    "key_filter",
    "key_of",
]

#: Imagined texts with each token, and as many without, added to every scope's counts (a round number: on LoCoMo
#: 0, 2, 5 and 10 recall the same within 0.002; tests/core/test_recency.py's three-memory scopes need it).
PRIOR_TEXTS = 10

#: A scope's counts are read from at most its latest this many memories.
BOOTSTRAP_LIMIT = 200_000

#: ("user", id), ("agent", id), ("session", id), or ("store", "").
ScopeKey = tuple[str, str]


class Scoped(Protocol):
    """A scope, a read's filter or a record: anything with the three scope ids."""

    @property
    def user_id(self) -> str | None: ...
    @property
    def agent_id(self) -> str | None: ...
    @property
    def session_id(self) -> str | None: ...


def key_of(scope: Scoped) -> ScopeKey:
    """The scope whose counts weigh a memory's or a query's tokens: its user, else its agent, else its session."""
    for field in ("user_id", "agent_id", "session_id"):
        if (value := getattr(scope, field)) is not None:
            return field.removesuffix("_id"), value
    return "store", ""


def key_filter(key: ScopeKey) -> FilterSpec:
    """The memories a scope's counts are first read from."""
    kind, value = key
    if kind == "user":
        return FilterSpec(user_id=value)
    if kind == "agent":
        return FilterSpec(agent_id=value)
    return FilterSpec(session_id=value) if kind == "session" else FilterSpec()


@dataclass(frozen=True)
class Snapshot:
    """One scope's counts as saved: ``n`` texts counted, ``stored`` the scope's records in the store as the counts
    knew them, and the document frequency ``dfs[i]`` of each token id ``ids[i]`` (those counted at least once)."""

    key: ScopeKey
    n: int
    stored: int
    ids: npt.NDArray[np.int32]
    dfs: npt.NDArray[np.int32]


class TokenStats:
    """Document frequencies of token ids over one scope's texts, and the weights they give."""

    __slots__ = ("_weights", "df", "n", "saved", "stored", "version")

    def __init__(self, vocab_size: int) -> None:
        self.n = 0
        self.df = np.zeros(vocab_size, dtype=np.int32)
        self._weights: TokenWeights | None = None
        self.stored = 0  # the scope's records in the store, as far as these counts know
        self.version = 0  # texts counted since these counts were made; ``saved``: the version last saved
        self.saved = -1

    @classmethod
    def restored(cls, vocab_size: int, snap: Snapshot) -> TokenStats:
        """The counts ``snap`` saved, marked as saved."""
        stats = cls(vocab_size)
        stats.n, stats.stored, stats.saved = snap.n, snap.stored, 0
        stats.df[snap.ids] = snap.dfs
        return stats

    def observe(self, texts_ids: Iterable[npt.NDArray[np.int64]]) -> int:
        """Count texts: each token once per text it occurs in. Returns how many texts were counted."""
        counted = 0
        for ids in texts_ids:
            counted += 1
            self._weights = None  # recomputed when next asked for (a search asks without counting anything)
            if len(ids):
                self.df[np.unique(np.clip(ids, 0, len(self.df) - 1))] += 1
        self.n += counted
        self.version += counted
        return counted

    def snapshot(self, key: ScopeKey) -> Snapshot:
        ids = np.flatnonzero(self.df).astype(np.int32)
        return Snapshot(key, self.n, self.stored, ids, self.df[ids].copy())

    def weights(self) -> TokenWeights:
        """BM25's IDF of every token id, ``ln(1 + (n - df + 0.5) / (df + 0.5))``, over the scope's texts and
        ``PRIOR_TEXTS`` imagined ones holding each token and as many without it: in a small scope every weight is
        near the same (three memories are no evidence that "I" is common), in a large one the scope's counts
        decide. A token the scope has never seen counts as seen once: a query's words the scope lacks weigh as
        much as its rarest, not more (else they would outweigh every word it holds)."""
        if self._weights is None:  # in float32: 0.07 ms over MiniLM's 30,522 ids, against 0.38 in float64
            n = max(self.n, 1)
            below = np.clip(self.df, 1, n).astype(np.float32)
            below += PRIOR_TEXTS + 0.5  # df + 0.5, the prior texts counted in df
            self._weights = np.log1p((n + 2 * PRIOR_TEXTS + 1 - below) / below)
        return self._weights


class ScopeTokenStats:
    """The counts of the scopes read lately (``capacity`` of them, least recently used dropped first). Thread-safe:
    the sync store is shared by threads and the async one offloads reads. No I/O: what is to be saved is handed out
    (``evicted``, ``unsaved``) and the caller saves it (engine.saved_counts)."""

    def __init__(self, vocab_size: int, capacity: int) -> None:
        self.vocab_size = vocab_size
        self.capacity = capacity
        self._stats: OrderedDict[ScopeKey, TokenStats] = OrderedDict()
        self._evicted: list[Snapshot] = []  # dropped from the cache with texts counted since they were saved
        self._lock = threading.Lock()

    def weights(self, key: ScopeKey, adding: Iterable[npt.NDArray[np.int64]] = ()) -> TokenWeights | None:
        """The scope's weights after counting ``adding`` (texts being stored into it); None when its counts were
        not read yet (``load`` them first)."""
        with self._lock:
            stats = self._stats.get(key)
            if stats is None:
                return None
            self._stats.move_to_end(key)
            stats.stored += stats.observe(adding)
            return stats.weights()

    def load(
        self, key: ScopeKey, stored: Iterable[npt.NDArray[np.int64]], adding: Iterable[npt.NDArray[np.int64]] = (),
        *, count: int = 0,
    ) -> TokenWeights:  # fmt: skip
        """The scope's counts, read from its stored texts (``count``: the scope's records in the store; those
        another thread read first win), then ``adding`` counted as ``weights`` counts it; its weights."""
        fresh = TokenStats(self.vocab_size)
        fresh.observe(stored)
        fresh.stored = count
        return self._held(key, fresh, adding)

    def restore(self, key: ScopeKey, snap: Snapshot, adding: Iterable[npt.NDArray[np.int64]] = ()) -> TokenWeights:
        """As ``load``, from the counts ``snap`` saved."""
        return self._held(key, TokenStats.restored(self.vocab_size, snap), adding)

    def _held(self, key: ScopeKey, fresh: TokenStats, adding: Iterable[npt.NDArray[np.int64]]) -> TokenWeights:
        with self._lock:
            stats = self._stats.setdefault(key, fresh)
            self._stats.move_to_end(key)
            while len(self._stats) > self.capacity:
                old_key, old = self._stats.popitem(last=False)
                if old.version != old.saved:
                    self._evicted.append(old.snapshot(old_key))
            stats.stored += stats.observe(adding)
            return stats.weights()

    def evicted(self) -> list[Snapshot]:
        """The counts dropped from the cache since last asked, that were not saved as they were."""
        with self._lock:
            out, self._evicted = self._evicted, []
            return out

    def unsaved(self) -> list[tuple[Snapshot, TokenStats | None, int]]:
        """Every held scope's counts not saved as they are, each with the counts it was taken from and their version
        (for ``mark_saved``), and the evicted ones (no counts: they are held no more)."""
        with self._lock:
            out: list[tuple[Snapshot, TokenStats | None, int]] = [(snap, None, 0) for snap in self._evicted]
            out += [(stats.snapshot(key), stats, stats.version) for key, stats in self._stats.items()
                    if stats.version != stats.saved]  # fmt: skip
            self._evicted = []
            return out

    def mark_saved(self, saved: Iterable[tuple[Snapshot, TokenStats | None, int]]) -> None:
        """The counts that were saved, as ``unsaved`` gave them: a scope counted since, or dropped and read again
        meanwhile, stays unsaved."""
        with self._lock:
            for snap, stats, version in saved:
                if stats is not None and self._stats.get(snap.key) is stats:
                    stats.saved = max(stats.saved, version)
