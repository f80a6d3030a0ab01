"""The seal of a cleanly closed store (``backends/edge_seal.py``): damage between a close and the next open is a
``StoreCorruptedError`` naming ``memadapt doctor``, never a silently shorter store; a store that was not closed
cleanly has no seal, and a sealed one reopens without complaint however often."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memadapt_core import Memory, StoreCorruptedError
from memadapt_core.backends.edge.checks.seal import seal_path
from memadapt_core.testing import HashEmbedder


def _store(path: Path) -> Path:
    with Memory(path=path, embedder=HashEmbedder(dim=8)) as mem:
        mem.add([f"note {i}" for i in range(40)], user_id="alice")
    return next(d for d in path.iterdir() if d.is_dir())


def test_a_sealed_store_reopens_after_deletes_and_optimize(tmp_path: Path) -> None:
    _store(tmp_path)
    for step in range(3):
        with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
            if step == 0:
                first = mem.list(user_id="alice", limit=5)
                mem.delete_many([r.id for r in first.records], user_id="alice")
            if step == 1:
                mem.optimize()
            assert mem.count(user_id="alice") == 35


def test_the_seal_is_gone_while_the_store_is_open_and_back_after_close(tmp_path: Path) -> None:
    folder = _store(tmp_path)
    assert seal_path(folder).exists()

    mem = Memory(path=tmp_path, embedder=HashEmbedder(dim=8))
    assert not seal_path(folder).exists()  # a kill now leaves no seal: the log's replay decides
    mem.close()
    assert seal_path(folder).exists()


def test_a_truncated_id_tracker_is_refused_not_a_record_short(tmp_path: Path) -> None:
    folder = _store(tmp_path)
    tracker = next(folder.rglob("*id_tracker.mappings"))
    tracker.write_bytes(tracker.read_bytes()[: tracker.stat().st_size // 2])

    with pytest.raises(StoreCorruptedError, match=r"id_tracker\.mappings changed.*memadapt doctor"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))
    assert seal_path(folder).exists()  # kept: the next open refuses too, and doctor reads the expected count


def test_fewer_points_than_at_close_is_refused(tmp_path: Path) -> None:
    folder = _store(tmp_path)
    sealed = json.loads(seal_path(folder).read_text())
    sealed["points"] += 1  # as if a point vanished from files the seal does not digest
    seal_path(folder).write_text(json.dumps(sealed))

    with pytest.raises(StoreCorruptedError, match=r"holds 41 points where 42 were stored.*--salvage"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))


def test_an_unclean_store_that_would_abort_the_process_is_refused_by_a_child_first(tmp_path: Path) -> None:
    folder = _store(tmp_path)
    seal_path(folder).unlink()  # as a killed process leaves it
    tracker = next(folder.rglob("*id_tracker.mappings"))
    data = bytearray(tracker.read_bytes())
    data[-1] ^= 0xFF  # loading this in-process aborted it (a ~100 GB allocation)
    tracker.write_bytes(bytes(data))

    with pytest.raises(StoreCorruptedError, match=r"not closed cleanly.*memadapt doctor"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))


def test_an_unclean_store_opens_whole_after_its_check(tmp_path: Path) -> None:
    folder = _store(tmp_path)
    seal_path(folder).unlink()

    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        assert mem.count(user_id="alice") == 40


def test_an_unclean_store_with_a_truncated_id_tracker_is_refused(tmp_path: Path) -> None:
    folder = _store(tmp_path)
    seal_path(folder).unlink()  # as a killed process leaves it
    tracker = next(folder.rglob("*id_tracker.mappings"))
    tracker.write_bytes(tracker.read_bytes()[: tracker.stat().st_size // 2])

    with pytest.raises(StoreCorruptedError, match=r"maps 20 points where 41 were stored.*--salvage"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))


def test_an_unclean_store_whose_id_tracker_was_cut_at_a_record_boundary_is_refused(tmp_path: Path) -> None:
    folder = _store(tmp_path)
    seal_path(folder).unlink()
    tracker = next(folder.rglob("*id_tracker.mappings"))
    tracker.write_bytes(tracker.read_bytes()[: 13 * 30])  # 30 whole records of 41: qdrant-edge reads it as whole

    with pytest.raises(StoreCorruptedError, match=r"maps 30 points where 41 were stored"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))


@pytest.mark.parametrize("name", ["id_tracker.versions", "id_tracker.deleted"])
def test_an_unclean_optimized_store_whose_id_tracker_files_were_cut_is_refused(tmp_path: Path, name: str) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        mem.add([f"note {i}" for i in range(300)], user_id="alice")
        mem.optimize()  # an optimized segment: its id tracker is written once, with a count of its points
    folder = next(d for d in tmp_path.iterdir() if d.is_dir())
    seal_path(folder).unlink()
    (target,) = folder.rglob(name)
    target.write_bytes(target.read_bytes()[: target.stat().st_size // 2])  # loaded as it was, it dropped points

    with pytest.raises(StoreCorruptedError, match=rf"counts 301 points, but its .*{name}.*--salvage"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))
