"""A store that was not closed cleanly has no seal: its id trackers are read against their versions files at open
(``backends/edge_tracker.py``, ``backends/edge_precheck.py``). Damage that qdrant-edge loads without a word is a
``StoreCorruptedError`` naming ``memadapt doctor``, never a silently shorter store; what a kill leaves opens whole."""

from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
import qdrant_edge as qe

from memadapt_core import Memory, StoreCorruptedError
from memadapt_core.backends.edge.checks.seal import seal_path
from memadapt_core.backends.edge.checks.trackers import read_mappings
from memadapt_core.testing import HashEmbedder


def _folder(path: Path) -> Path:
    return next(d for d in path.iterdir() if d.is_dir())


def _two_users(path: Path) -> Path:
    """alice's 20 notes, then bob's: two writes, of which the log keeps only the last to replay."""
    with Memory(path=path, embedder=HashEmbedder(dim=8)) as mem:
        mem.add([f"alice note {i}" for i in range(20)], user_id="alice")
        mem.add([f"bob note {i}" for i in range(20)], user_id="bob")
    folder = _folder(path)
    seal_path(folder).unlink()  # as a killed process leaves it
    return folder


def test_a_cut_versions_file_whose_points_the_log_cannot_bring_back_is_refused(tmp_path: Path) -> None:
    versions = next(_two_users(tmp_path).rglob("mutable_id_tracker.versions"))
    versions.write_bytes(versions.read_bytes()[: 8 * 10])  # the info point and 9 of alice's notes keep theirs

    with pytest.raises(StoreCorruptedError, match=r"holds 30 points where 41 were stored.*--salvage"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))


def test_a_store_refused_as_short_stays_refused(tmp_path: Path) -> None:
    versions = next(_two_users(tmp_path).rglob("mutable_id_tracker.versions"))
    versions.write_bytes(versions.read_bytes()[: 8 * 10])
    with pytest.raises(StoreCorruptedError):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))  # its load in a child rewrote the id tracker

    with pytest.raises(StoreCorruptedError, match=r"holds 30 points where 41 were stored"):
        Memory(path=tmp_path, embedder=HashEmbedder(dim=8))


def test_a_cut_versions_file_whose_points_the_log_brings_back_opens_whole(tmp_path: Path) -> None:
    versions = next(_two_users(tmp_path).rglob("mutable_id_tracker.versions"))
    versions.write_bytes(versions.read_bytes()[: 8 * 25])  # only bob's last write lost its versions: replayed

    with Memory(path=tmp_path, embedder=HashEmbedder(dim=8)) as mem:
        assert (mem.count(user_id="alice"), mem.count(user_id="bob")) == (20, 20)


def test_a_store_killed_between_the_flushes_of_its_id_tracker_and_its_versions_opens_whole(tmp_path: Path) -> None:
    live, before, after = tmp_path / "live", tmp_path / "before", tmp_path / "after"
    with Memory(path=live, embedder=HashEmbedder(dim=8)) as mem:
        mem.add([f"first {i}" for i in range(20)], user_id="alice")
        mem.flush()
        shutil.copytree(live, before)  # flushed: the files as a kill in the next flush finds them
        mem.add([f"then {i}" for i in range(20)], user_id="alice")
        mem.delete_many([r.id for r in mem.list(user_id="alice", limit=5).records], user_id="alice")
        mem.flush()
        shutil.copytree(live, after)
    # the next flush wrote the id tracker, the vectors and the payloads, and was killed before the versions:
    old, new = _folder(before), _folder(after)
    for segment in (old / "segments").iterdir():
        for name in ("mutable_id_tracker.versions", "segment.json"):
            shutil.copy(segment / name, new / "segments" / segment.name / name)
    shutil.copy(old / "wal" / "first-index", new / "wal" / "first-index")

    with Memory(path=after, embedder=HashEmbedder(dim=8)) as mem:
        assert mem.count(user_id="alice") == 35


def test_an_id_tracker_is_read_as_qdrant_edge_writes_it(tmp_path: Path) -> None:
    cfg = qe.EdgeConfig(vectors={"d": qe.EdgeVectorParams(size=2, distance=qe.Distance.Cosine)})
    shard = qe.EdgeShard.create(str(tmp_path / "shard"), cfg)
    ids: list[int | str] = [str(uuid.uuid4()) for _ in range(3)] + [7, 2**63 + 5]
    shard.update(qe.UpdateOperation.upsert_points([qe.Point(id=i, vector={"d": [1.0, 0.0]}) for i in ids]))
    shard.update(qe.UpdateOperation.delete_points([ids[1], 7]))
    shard.close()

    offsets, live = read_mappings(next(tmp_path.rglob("mutable_id_tracker.mappings")), versions=0)
    assert offsets == 5
    assert sorted(map(str, live)) == sorted(str(i) for i in ids if i not in (ids[1], 7))
