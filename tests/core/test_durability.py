"""The embedded store's ``durability``: with ``"fsync"`` (the default) the write-ahead log holding a write is synced
to disk before the write returns, so an acknowledged add survives a power cut, not only a killed process."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from memadapt_core import ConfigurationError, Memory, MemorySettings
from memadapt_core.testing import HashEmbedder


class SyncLog:
    """Every fsync this process makes, by the path it synced."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.synced = threading.Event()

    def __call__(self, fd: int) -> None:
        self.paths.append(os.readlink(f"/proc/self/fd/{fd}"))
        self.synced.set()
        _real_fsync(fd)

    def of_the_log(self) -> list[str]:
        return [p for p in self.paths if f"{os.sep}wal" in p]


_real_fsync = os.fsync


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> SyncLog:
    if not Path("/proc/self/fd").exists():
        pytest.skip("needs /proc to name the synced files")
    log = SyncLog()
    monkeypatch.setattr(os, "fsync", log)
    return log


def test_fsync_is_the_default_durability(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMADAPT_DURABILITY", raising=False)  # the suite runs with "process" (conftest.py)

    assert MemorySettings().durability == "fsync"


def test_an_add_syncs_the_write_ahead_log_before_it_returns(tmp_path: Path, syncs: SyncLog) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8), durability="fsync") as mem:
        syncs.paths.clear()
        mem.add("acknowledged means on disk", user_id="alice")
        synced_during_add = syncs.of_the_log()

        assert any(Path(p).name.startswith("open") for p in synced_during_add)  # the log segment written to


def test_every_acknowledged_write_is_synced(tmp_path: Path, syncs: SyncLog) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8), durability="fsync") as mem:
        backend = mem._resources.backend
        before = backend.wal.syncs  # type: ignore[attr-defined]
        (rec,) = mem.add("one", user_id="alice")
        mem.update(rec.id, text="two")
        mem.delete(rec.id)

        assert backend.wal.syncs - before >= 3  # type: ignore[attr-defined]


def test_process_durability_leaves_syncing_to_flush_and_close(tmp_path: Path, syncs: SyncLog) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8), durability="process") as mem:
        syncs.paths.clear()
        mem.add("synced later", user_id="alice")

        assert syncs.of_the_log() == []
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        assert mem.count(user_id="alice") == 1


def test_interval_durability_syncs_soon_after_a_write_without_blocking_it(tmp_path: Path, syncs: SyncLog) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8), durability="interval", sync_interval=0.05) as mem:
        syncs.paths.clear()
        syncs.synced.clear()
        mem.add("synced within the interval", user_id="alice")

        assert syncs.synced.wait(30)
        assert syncs.of_the_log()


def test_an_unknown_durability_is_a_configuration_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="durability"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8), durability="sometimes")
