"""The embedded store's free-space guard: below ``min_free_disk_mb`` a store is not opened and a write is refused
before it starts (qdrant-edge writes through memory maps: a full disk would kill the process with SIGBUS). Filling a
real disk is in tests/reliability/test_faults.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from memadapt_core import Memory, MemorySettings, StoreError, StoreFullError, StoreUnavailableError
from memadapt_core.testing import HashEmbedder

NO_DISK_HAS_THAT_MUCH = 2**40  # MiB


def test_a_store_is_not_opened_with_less_free_space_than_the_margin(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailableError, match="min_free_disk_mb") as err:
        Memory(path=tmp_path / "store", embedder=HashEmbedder(dim=8), min_free_disk_mb=NO_DISK_HAS_THAT_MUCH)

    assert "MiB free" in str(err.value)
    assert list((tmp_path / "store").iterdir()) == []  # no shard was created


def test_an_existing_store_refused_for_space_opens_again_with_a_smaller_margin(tmp_path: Path) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        (kept,) = mem.add("kept", user_id="alice")
    with pytest.raises(StoreUnavailableError):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8), min_free_disk_mb=NO_DISK_HAS_THAT_MUCH)

    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8), min_free_disk_mb=0) as mem:
        assert mem.get(kept.id) == kept


def test_a_full_store_error_is_a_store_error() -> None:
    assert issubclass(StoreFullError, StoreError)
    assert not issubclass(StoreFullError, StoreUnavailableError)  # the store is there; only writes are refused


def test_the_margin_defaults_to_128_mib() -> None:
    assert MemorySettings().min_free_disk_mb == 128
