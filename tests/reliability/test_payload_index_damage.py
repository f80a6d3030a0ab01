"""A damaged payload index is never a silently emptier store (``backends/edge_indexes.py``): opening refuses it with
``StoreCorruptedError`` naming ``memadapt doctor --salvage``, sealed or not, and salvage rebuilds it from the payloads
and gets every record back.

The store is the one the damage was found in: three users of 1,500 / 1,500 / 300 memories, optimized (immutable
indexes, where ``point_to_values.bin`` lives) and then written to (a segment with mutable indexes).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from memadapt_core import Memory, StoreCorruptedError
from memadapt_core.cli import main
from memadapt_core.testing import HashEmbedder

USERS = {"alice": 1500, "bob": 1500, "carol": 300}


def _fill(path: Path, **options: object) -> Path:
    with Memory(path=path, **options) as mem:  # type: ignore[arg-type]
        for user, n in USERS.items():
            mem.add([f"{user} note {i}" for i in range(n)], user_id=user, session_id=f"{user}-s")
        mem.optimize()
        mem.add([f"alice fact {i}" for i in range(5)], user_id="alice", kind="fact")
    return next(d for d in path.iterdir() if d.is_dir())


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("index-damage") / "store"
    _fill(root, embedder=HashEmbedder(dim=8))
    return root


@pytest.fixture
def store(built: Path, tmp_path: Path) -> Path:
    """A fresh copy of the built store, closed cleanly (sealed)."""
    return Path(shutil.copytree(built, tmp_path / "store"))


def _open(path: Path) -> Memory:
    return Memory(path=path, embedder=HashEmbedder(dim=8))


def _index_file(root: Path, field: str, name: str) -> list[Path]:
    return sorted(p for p in root.rglob(name) if p.parent.name.split("-")[1].startswith(field[:8]))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _zero(path: Path) -> None:
    path.write_bytes(bytes(path.stat().st_size))


def test_a_truncated_observed_at_index_is_refused_not_an_empty_store(store: Path) -> None:
    (target,) = _index_file(store, "observed_at", "point_to_values.bin")
    _truncate(target)  # too big for the seal's digests: it used to open and list 0 of alice's 1,500

    with pytest.raises(StoreCorruptedError, match=r"'observed_at'.*--salvage"):
        _open(store)


def test_a_truncated_observed_at_index_is_refused_in_a_store_that_was_not_closed_cleanly(store: Path) -> None:
    for sealed in store.glob(".*.seal"):
        sealed.unlink()  # as a killed process leaves it: the check in a child loads it first
    (target,) = _index_file(store, "observed_at", "point_to_values.bin")
    _truncate(target)

    with pytest.raises(StoreCorruptedError, match=r"'observed_at'.*--salvage"):
        _open(store)


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 3] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("name", "damage"),
    [("page_0.dat", _zero), ("tracker.dat", _flip)],  # the campaign's two silent shortfalls (500 of 1,505; 1 of 20)
)
def test_a_damaged_page_or_tracker_of_a_mutable_index_is_refused_in_a_sealed_store(
    store: Path, name: str, damage: Callable[[Path], None]
) -> None:
    indexes = [p for p in store.rglob(name) if p.parent.parent.name == "payload_index"]
    targets = [p for p in indexes if "-observed-" in p.parent.name]
    assert targets, "the segment taking writes keeps observed_at in a gridstore"
    for target in targets:
        damage(target)

    with pytest.raises(StoreCorruptedError, match="--salvage"):
        _open(store)


@pytest.mark.parametrize(
    ("index", "name", "damage"),
    [
        ("-observed-", "page_0.dat", _zero),  # every count right, the values wrong: alice listed 500 of 1,505
        ("-observed-", "tracker.dat", _flip),
        ("-user_id-", "page_0.dat", _zero),
        ("-kind-", "tracker.dat", _flip),
    ],
)
def test_a_damaged_page_or_tracker_of_a_mutable_index_is_refused_in_a_store_without_its_seal(
    store: Path, index: str, name: str, damage: Callable[[Path], None]
) -> None:
    for sealed in store.glob(".*.seal"):
        sealed.unlink()  # no digests: the values are read point by point against the payloads at open
    targets = [p for p in store.rglob(name) if p.parent.parent.name == "payload_index" and index in p.parent.name]
    assert targets
    for target in targets:
        damage(target)

    try:
        mem = _open(store)
    except StoreCorruptedError as exc:
        refusal = str(exc)
    else:
        refusal = ""
        with mem:  # the damage missed what these reads use: they must then be whole
            assert [len(list(mem.iter_records(user_id=u))) for u in USERS] == [1505, 1500, 300]
            assert mem.count(user_id="alice", kinds=["fact"]) == 5
    assert not refusal or "--salvage" in refusal


def test_salvage_rebuilds_an_index_whose_values_were_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Memory(path=tmp_path / "store") as mem:  # the suite's default embedder: doctor's child builds it too
        mem.add([f"alice note {i}" for i in range(100)], user_id="alice")
        mem.optimize()
        mem.add([f"alice fact {i}" for i in range(40)], user_id="alice", kind="fact")  # a segment taking writes
    for sealed in (tmp_path / "store").glob(".*.seal"):
        sealed.unlink()
    for target in (tmp_path / "store").rglob("page_0.dat"):
        if "-observed-" in target.parent.name:
            _zero(target)

    code = main(["doctor", "--json", "--path", str(tmp_path / "store"), "--salvage", str(tmp_path / "new")])
    report = json.loads(capsys.readouterr().out)

    assert code == 3
    assert report["rebuilt_indexes"] == ["observed_at"]
    assert (report["salvaged"], report["lost"]) == (140, 0)
    with Memory(path=tmp_path / "store") as mem:
        assert len(list(mem.iter_records(user_id="alice"))) == 140


@pytest.mark.parametrize(
    ("field", "name", "damage"),
    [
        ("user_id", "point_to_values.bin", _truncate),
        ("user_id", "values_to_points.bin", _truncate),
        ("kind", "point_to_values.bin", _zero),
        ("session_id", "point_to_values.bin", _truncate),
        ("consolidated", "data.bin", _zero),
        ("observed_at", "data.bin", _truncate),
    ],
)
def test_other_damaged_index_files_are_refused_or_read_back_whole(
    store: Path, field: str, name: str, damage: Callable[[Path], None]
) -> None:
    for sealed in store.glob(".*.seal"):
        sealed.unlink()  # the seal's digests would find the smaller ones first
    for target in _index_file(store, field, name):
        damage(target)

    try:
        mem = _open(store)
    except StoreCorruptedError as exc:
        refusal = str(exc)
    else:
        refusal = ""
    if refusal:
        assert "--salvage" in refusal
        return
    with mem:
        assert [mem.count(user_id=u) for u in USERS] == [1505, 1500, 300]
        assert [len(list(mem.iter_records(user_id=u))) for u in USERS] == [1505, 1500, 300]
        assert mem.count(user_id="alice", kinds=["fact"]) == 5
        assert len(list(mem.iter_records(user_id="bob", session_id="bob-s"))) == 1500


def test_a_store_written_deleted_from_and_optimized_reopens(tmp_path: Path) -> None:
    with _open(tmp_path) as mem:
        ids = [r.id for r in mem.add([f"note {i}" for i in range(60)], user_id="alice", session_id="s")]
        mem.add([f"agent note {i}" for i in range(10)], agent_id="helper")
        mem.delete_many(ids[:10], user_id="alice")
        mem.update(ids[20], text="changed", user_id="alice")
        mem.optimize()
        mem.delete_many(ids[10:15], user_id="alice")
        mem.update(ids[30], metadata={"x": 1}, user_id="alice")

    with _open(tmp_path) as mem:
        assert mem.count(user_id="alice") == 45
        assert mem.count(agent_id="helper") == 10


def test_a_store_whose_optimization_was_cut_off_opens_whole_with_one_copy_of_each_point(
    store: Path, caplog: pytest.LogCaptureFixture
) -> None:
    for sealed in store.glob(".*.seal"):
        sealed.unlink()  # a killed optimization leaves no seal
    segments = next(store.iterdir()) / "segments"
    (optimized,) = [d for d in segments.iterdir() if (d / "id_tracker.mappings").exists()]
    shutil.copytree(optimized, segments / "00000000-0000-4000-8000-000000000000")  # new segment in, old not yet out

    with caplog.at_level("WARNING", logger="memadapt"), _open(store) as mem:
        assert [len(list(mem.iter_records(user_id=u))) for u in USERS] == [1505, 1500, 300]
        assert mem.stats()["points"] == 3305
    assert "optimization that did not finish" in caplog.text


def test_salvage_rebuilds_a_damaged_index_and_recovers_every_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Memory(path=tmp_path / "store") as mem:  # the suite's default embedder: doctor's child builds it too
        for user in ("alice", "bob"):
            mem.add([f"{user} note {i}" for i in range(100)], user_id=user)
        mem.optimize()
    for sealed in (tmp_path / "store").glob(".*.seal"):
        sealed.unlink()  # the seal's digests would name the (small) file first
    (target,) = _index_file(tmp_path / "store", "observed_at", "point_to_values.bin")
    _truncate(target)

    code = main(["doctor", "--json", "--path", str(tmp_path / "store"), "--salvage", str(tmp_path / "new")])
    report = json.loads(capsys.readouterr().out)

    assert code == 3
    assert report["rebuilt_indexes"] == ["observed_at"]
    assert str(report["verdict"]).startswith("repaired")
    assert (report["salvaged"], report["lost"]) == (200, 0)
    for repaired in (tmp_path / "new", tmp_path / "store"):  # the store itself was repaired in place too
        with Memory(path=repaired) as mem:
            assert [len(list(mem.iter_records(user_id=u))) for u in ("alice", "bob")] == [100, 100]
