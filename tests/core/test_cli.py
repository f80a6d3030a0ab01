"""The memadapt command: human output, --json, exit codes that mean something."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memadapt_core.cli import main


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_add_then_search_finds_the_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    assert _run(capsys, "--path", store, "add", "I keep bees in the garden", "--user", "ann")[0] == 0
    code, out, _ = _run(capsys, "--path", store, "search", "bees", "--user", "ann")
    assert code == 0
    assert "I keep bees in the garden" in out


def test_search_json_output_is_machine_readable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    _run(capsys, "--path", store, "add", "I keep bees", "--user", "ann", "--kind", "fact")
    code, out, _ = _run(capsys, "--path", store, "--json", "search", "bees", "--user", "ann")
    assert code == 0
    assert json.loads(out)[0]["record"]["text"] == "I keep bees"


def test_nothing_found_exits_with_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "store")
    _run(capsys, "--path", store, "add", "I keep bees", "--user", "ann")
    assert _run(capsys, "--path", store, "search", "quantum xyzzy", "--user", "ann")[0] == 1


def test_bad_input_exits_with_two_and_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "--path", str(tmp_path), "search", "bees")
    assert code == 2
    assert "user_id" in err


def test_export_import_list_delete_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b, dump = str(tmp_path / "a"), str(tmp_path / "b"), str(tmp_path / "dump.jsonl")
    _run(capsys, "--path", a, "add", "first", "--user", "ann", "--session", "s1")
    _run(capsys, "--path", a, "add", "second", "--user", "ann", "--session", "s2")
    assert _run(capsys, "--path", a, "export", dump)[0] == 0
    assert "imported 2" in _run(capsys, "--path", b, "import", dump)[1]
    code, out, _ = _run(capsys, "--path", b, "--json", "list", "--user", "ann")
    assert [r["text"] for r in json.loads(out)["records"]] == ["first", "second"]
    assert "deleted 1" in _run(capsys, "--path", b, "delete", "--user", "ann", "--session", "s1")[1]
    code, out, _ = _run(capsys, "--path", b, "--json", "stats")
    assert (code, json.loads(out)["points"]) == (0, 1)
