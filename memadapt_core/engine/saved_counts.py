"""Each scope's token counts saved beside a store on disk, so that a reopened store weighs a scope without reading
every text of it again (``embedder.pooling="scope_idf"``, memadapt_core.vectors.token_stats).

Reading a scope's texts takes ~35 ms for 1,000 short memories and seconds for 100,000 (each is tokenized), paid by
the first search or add of each scope in each process, and again whenever more than ``pooling_scopes`` scopes are
in use. A saved scope costs one row read instead. The file is a cache, never data: one SQLite file beside the
collection's folder (``.<collection>.token-counts.sqlite``, hidden like the lock file), written at ``flush()``,
``close()`` and when a scope leaves the process's cache; a row is used only while the store holds as many records
of its scope as the counts knew (``Snapshot.stored``), else the scope is read again. A file that cannot be read
or written (damaged, a read-only folder, a full disk) is set aside with one warning and the scope's texts are read,
as without it. A process forked from the one that opened it leaves it alone (as the embedded store does).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from memadapt_core.vectors.token_stats import ScopeKey, Snapshot

__all__ = ["SavedCounts", "counts_file"]

log = logging.getLogger("memadapt")

_SCHEMA = """CREATE TABLE IF NOT EXISTS counts (
    kind TEXT NOT NULL, id TEXT NOT NULL, vocab INTEGER NOT NULL, n INTEGER NOT NULL, stored INTEGER NOT NULL,
    ids BLOB NOT NULL, dfs BLOB NOT NULL, PRIMARY KEY (kind, id))"""
_READ = "SELECT vocab, n, stored, ids, dfs FROM counts WHERE kind = ? AND id = ?"
_INT32 = np.dtype("<i4")


def counts_file(folder: Path, collection: str) -> Path:
    return folder / f".{collection}.token-counts.sqlite"


class SavedCounts:
    """The saved counts of one collection's scopes (``vocab_size``: the embedder's token ids). Thread-safe."""

    def __init__(self, path: Path, vocab_size: int) -> None:
        self.path = path
        self.vocab_size = vocab_size
        self._db: sqlite3.Connection | None = None
        self._broken = False
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def get(self, key: ScopeKey) -> Snapshot | None:
        """The scope's saved counts, or None (never saved, or not readable as this embedder's)."""
        with self._lock:
            db = self._open()
            if db is None:
                return None
            try:
                row = db.execute(_READ, key).fetchone()
            except sqlite3.Error as exc:
                self._fail("read", exc)
                return None
        if row is None or row[0] != self.vocab_size:
            return None
        ids, dfs = np.frombuffer(row[3], dtype=_INT32), np.frombuffer(row[4], dtype=_INT32)
        if len(ids) != len(dfs) or (len(ids) and (ids.min() < 0 or ids.max() >= self.vocab_size or dfs.min() < 0)):
            return None  # not what this module writes: read the scope again
        return Snapshot(key, int(row[1]), int(row[2]), ids.astype(np.int32), dfs.astype(np.int32))

    def put(self, snaps: Sequence[Snapshot]) -> bool:
        """Save the counts (one transaction); False when they could not be."""
        if not snaps:
            return True
        rows = [(*s.key, self.vocab_size, s.n, s.stored, s.ids.astype(_INT32).tobytes(), s.dfs.astype(_INT32).tobytes())
                for s in snaps]  # fmt: skip
        with self._lock:
            db = self._open()
            if db is None:
                return False
            try:
                with db:
                    db.executemany("INSERT OR REPLACE INTO counts VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            except sqlite3.Error as exc:
                self._fail("write", exc)
                return False
        return True

    def close(self) -> None:
        with self._lock:
            db, self._db = self._db, None
            if db is not None and os.getpid() == self._pid:  # a forked child's copy is only let go of
                db.close()

    def _open(self) -> sqlite3.Connection | None:
        if os.getpid() != self._pid:  # the parent's connection: never used from a forked child
            return None
        if self._db is None and not self._broken:
            try:
                self._db = self._connect()
            except sqlite3.DatabaseError:  # not a database (damaged): start afresh, once
                try:
                    self.path.unlink(missing_ok=True)
                    self._db = self._connect()
                except (sqlite3.Error, OSError) as exc:
                    self._fail("open", exc)
            except (sqlite3.Error, OSError) as exc:
                self._fail("open", exc)
        return self._db

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False)  # used under self._lock
        try:
            db.execute("PRAGMA synchronous = OFF")  # a cache: a row lost in a power cut is read again
            db.execute(_SCHEMA)
            db.commit()
        except BaseException:
            db.close()
            raise
        return db

    def _fail(self, what: str, exc: BaseException) -> None:
        """Set the file aside for this process: each scope is read from the store, as without it."""
        if not self._broken:
            log.warning("memadapt: cannot %s the saved token counts in %s (%s); scopes are read again", what,
                        self.path, exc)  # fmt: skip
        self._broken = True
        if self._db is not None:
            self._db.close()
            self._db = None
