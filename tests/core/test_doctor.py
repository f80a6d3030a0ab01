"""``memadapt doctor``: checks a store in a child process, says whether every record reads back, and salvages the
readable records into a new store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memadapt_core import Memory
from memadapt_core.cli import main


@pytest.fixture
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    with Memory(path=path) as mem:
        mem.add([f"alice note {i}" for i in range(5)], user_id="alice")
        mem.add([f"bob note {i}" for i in range(3)], user_id="bob")
    return path


def _assert_whole(path: Path) -> None:
    with Memory(path=path) as mem:
        assert mem.count(user_id="alice") == 5
        assert mem.count(user_id="bob") == 3


def _doctor(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict[str, object]]:
    code = main(["doctor", "--json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_a_healthy_store_reads_back_whole(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _doctor(capsys, "--path", str(store))

    assert code == 0
    assert report["readable"] == report["points"] == 8
    assert str(report["verdict"]).startswith("ok")


def test_a_damaged_store_is_reported_with_its_error(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = next(p for p in store.rglob("status.dat") if "payload_index" in str(p))
    status.write_bytes(b"")  # a truncated index status file made qdrant-edge panic

    code, report = _doctor(capsys, "--path", str(store))

    assert code == 3
    assert "StoreCorruptedError" in str(report["error"])
    assert str(report["verdict"]).startswith("damaged")


def test_salvage_copies_every_readable_record_into_a_new_store(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _doctor(capsys, "--path", str(store), "--salvage", str(tmp_path / "new"))

    assert code == 0
    assert report["salvaged"] == 8
    assert report["lost"] == 0
    _assert_whole(tmp_path / "new")


def test_a_store_short_of_records_since_its_close_is_salvaged_whole_from_its_log(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tracker = next(store.rglob("*id_tracker.mappings"))
    tracker.write_bytes(tracker.read_bytes()[:40])  # loads, and loses records without a word

    code, report = _doctor(capsys, "--path", str(store), "--salvage", str(tmp_path / "new"))

    assert code == 3
    assert report["expected"] == 8
    assert "id_tracker.mappings changed" in str(report["problems"])
    assert report["log"] == {"opened": True, "readable": 8, "complete": True}
    assert (report["salvaged"], report["lost"]) == (8, 0)
    _assert_whole(tmp_path / "new")


def test_a_store_that_would_kill_its_reader_is_salvaged_from_its_log(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tracker = next(store.rglob("*id_tracker.mappings"))
    data = bytearray(tracker.read_bytes())
    data[-1] ^= 0xFF  # qdrant-edge tries to allocate ~100 GB: the child's memory limit ends it
    tracker.write_bytes(bytes(data))
    (store / next(p.name for p in store.iterdir() if p.name.endswith(".seal"))).unlink()  # unchecked: it loads

    code, report = _doctor(capsys, "--path", str(store), "--salvage", str(tmp_path / "new"))

    assert code == 3
    assert report["opened"] is False
    assert "not closed cleanly" in str(report["error"])  # its child (edge_precheck.py) died, not the reader
    assert report["log"]["complete"] is True
    assert (report["salvaged"], report["lost"]) == (8, 0)


def test_a_store_in_use_is_reported_as_such_not_replayed(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Memory(path=store):
        code, report = _doctor(capsys, "--path", str(store))

    assert code == 3
    assert "StoreLockedError" in str(report["error"])
    assert "log" not in report
    assert str(report["verdict"]).startswith("in use")
