"""How an import reads a line: its quicker paths (pydantic-core's JSON parser, shared scope checks, the storable
walk that skips strings and moments well inside the calendar) accept and refuse what the slower ones did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memadapt_core import Memory, ValidationError
from memadapt_core.engine.transfer.jsonl import decode_line
from memadapt_core.models import Scope
from memadapt_core.validation import parse_metadata, parse_record_id

LINES_BOTH_PARSERS_READ = [
    '{"a": 1, "a": 2}',  # the last of duplicate keys wins
    '{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e400}',  # parse_metadata refuses them later
    '{"a": 123456789012345678901234567890, "b": -0, "c": -0.0}',  # beyond int64: check_storable refuses it later
    '{"a": 0.1, "b": 2.2250738585072011e-308, "c": 1.7976931348623157e308, "d": 5e-324}',
    '{"a": "\\ud83d\\ude00", "b": "\\u0000", "\\u00e9": "é"}',
    '{"a": [1, 2.5, null, true, {"b": []}]}\r\n',
]


@pytest.mark.parametrize("line", LINES_BOTH_PARSERS_READ)
def test_a_line_is_read_as_json_loads_reads_it(line: str) -> None:
    assert repr(decode_line(line)) == repr(json.loads(line))  # repr: NaN, -0.0 and int-vs-float compared too


@pytest.mark.parametrize("line", ['{"a": "\\ud800"}', '{"a": "\udc80"}', "[" * 300 + "]" * 300])
def test_a_line_the_quick_parser_refuses_is_read_by_json_loads(line: str) -> None:
    assert repr(decode_line(line)) == repr(json.loads(line))  # a lone surrogate, nesting past pydantic-core's limit


def test_a_line_neither_parser_reads_raises_json_loads_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        decode_line('{"a": 1,}')


def _export_line(tmp_path: Path) -> dict[str, Any]:
    with Memory(location=":memory:") as mem:
        mem.add("a note", user_id="alice")
        mem.export(tmp_path / "one.jsonl")
    return dict(json.loads((tmp_path / "one.jsonl").read_text(encoding="utf-8")))


def _lines(tmp_path: Path, texts: list[str], **change: Any) -> tuple[Path, list[dict[str, Any]]]:
    base = _export_line(tmp_path)
    records = [
        {**base, "id": f"00000000-0000-4000-8000-{i:012d}", "text": t, "history": []} for i, t in enumerate(texts)
    ]
    records[-1].update(change)
    dump = tmp_path / "dump.jsonl"
    dump.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return dump, records


def test_a_bad_scope_id_on_a_later_line_names_that_line_and_field_and_writes_nothing_of_its_batch(
    memory: Memory, tmp_path: Path
) -> None:
    dump, _ = _lines(tmp_path, ["one", "two", "three", "four"], agent_id="bad\x1fid")

    with pytest.raises(ValidationError) as err:
        memory.import_(dump)

    assert err.value.field == "line 4"
    assert err.value.problem.startswith("agent_id:")
    assert memory.count(user_id="alice") == 0


def test_a_line_missing_a_field_names_that_line_and_the_field(memory: Memory, tmp_path: Path) -> None:
    dump, records = _lines(tmp_path, ["one", "two"])
    del records[1]["id"]
    dump.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    with pytest.raises(ValidationError) as err:
        memory.import_(dump)

    assert str(err.value) == "line 2: id: Field required"


def test_a_bad_history_event_names_that_line_and_the_event_field(memory: Memory, tmp_path: Path) -> None:
    dump, _ = _lines(tmp_path, ["one"], history=[{"record_id": "x", "event": "add", "at": "not a time"}])

    with pytest.raises(ValidationError) as err:
        memory.import_(dump)

    assert err.value.field == "line 1"
    assert err.value.problem.startswith("history.0.at: ")


def test_a_reserved_metadata_key_on_a_later_line_names_that_line_and_key(memory: Memory, tmp_path: Path) -> None:
    dump, _ = _lines(tmp_path, ["one", "two"], metadata={"user_id": "mallory"})

    with pytest.raises(ValidationError) as err:
        memory.import_(dump)

    assert (err.value.field, err.value.problem.split(":")[0]) == ("line 2", "metadata.user_id")
    assert memory.count(user_id="alice") == 0


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "9999-12-31T23:59:59+05:00"])
def test_a_moment_at_the_calendars_edge_that_stays_in_it_in_utc_is_imported(
    memory: Memory, tmp_path: Path, moment: str
) -> None:
    dump, _ = _lines(tmp_path, ["one"], observed_at=moment, created_at=moment, updated_at=moment, valid_from=None)

    assert memory.import_(dump) == 1


def test_a_moment_that_leaves_the_calendar_in_utc_is_refused_naming_its_field(memory: Memory, tmp_path: Path) -> None:
    dump, _ = _lines(tmp_path, ["one"], updated_at="0001-01-01T00:00:00+05:00")

    with pytest.raises(ValidationError) as err:
        memory.import_(dump)

    assert err.value.field == "line 1"
    assert "updated_at" in err.value.problem.split(":")[0]


def test_lines_of_one_scope_are_stored_in_it(memory: Memory, tmp_path: Path) -> None:
    dump, _ = _lines(tmp_path, ["one", "two", "three"])

    assert memory.import_(dump) == 3

    assert sorted(r.text for r in memory.list(user_id="alice").records) == ["one", "three", "two"]


def test_a_canonical_record_id_is_kept_and_another_spelling_is_made_canonical() -> None:
    rid = "e3e70682-c209-4cac-a29f-6fbed82c07cd"
    assert parse_record_id(rid) == rid
    assert parse_record_id(rid.upper().replace("-", "")) == rid


def test_empty_metadata_is_given_back_as_a_new_dict() -> None:
    given: dict[str, Any] = {}
    assert parse_metadata(given) == {}
    assert parse_metadata(given) is not given


@pytest.mark.parametrize("control", ["\x00", "\n", "\x1f"])
def test_a_scope_id_with_a_control_character_is_refused(control: str) -> None:
    with pytest.raises(ValidationError, match="printable") as err:
        Scope.of(user_id=f"al{control}ice")
    assert err.value.field == "user_id"
