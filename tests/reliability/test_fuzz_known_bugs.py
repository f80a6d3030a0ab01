"""Engine bugs the fuzzers found, one minimal case each, kept as regression tests now that they are fixed. A
new bug goes here first as a strict xfail (``_bug``): it says what the engine should do, fails today, and turns
into an XPASS failure the day it is fixed (then drop the marker and widen the matching strategy in
_strategies.py / test_fuzz_core.py)."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import pytest

from memadapt_core import Memory, ValidationError

from ._support import snapshot


def _bug(why: str, raises: type[BaseException]) -> pytest.MarkDecorator:
    """Strict, and only for the exception the bug raises today: any other failure is reported as such."""
    return pytest.mark.xfail(strict=True, raises=raises, reason=f"engine bug: {why}")


def _deep(depth: int) -> dict[str, object]:
    return json.loads('{"k":' * depth + "1" + "}" * depth)


def test_a_text_with_a_lone_surrogate_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.add("half an emoji \ud83d", user_id="alice")


def test_a_scope_id_with_a_lone_surrogate_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.add("hello", user_id="alice\udc00")


def test_metadata_with_a_lone_surrogate_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.add("hello", user_id="alice", metadata={"note": "\ud800"})


def test_metadata_nested_too_deep_for_the_store_is_refused_up_front(memory: Memory) -> None:
    memory.add("kept", user_id="alice")
    before = snapshot(memory)
    with pytest.raises(ValidationError):
        memory.add("poison", user_id="alice", metadata=_deep(130))
    assert snapshot(memory) == before


def test_a_filter_on_an_integer_beyond_int64_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.search("anything", user_id="alice", filters={"n": 2**70})


def test_a_range_filter_on_a_huge_integer_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.search("anything", user_id="alice", filters={"n": {"$gt": 2**1100}})


@pytest.mark.parametrize("key", ["a..b", '"', "x.", " "])
def test_a_filter_key_qdrant_cannot_parse_is_refused_by_validation(memory: Memory, key: str) -> None:
    with pytest.raises(ValidationError):
        memory.search("anything", user_id="alice", filters={key: 1})


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.add("hello", user_id="alice", observed_at=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))),
        lambda m: m.add({"role": "user", "content": "hi", "timestamp": "9999-12-31T23:59:59-05:00"}, user_id="alice"),
        lambda m: m.search("x", user_id="alice", as_of=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))),
        lambda m: m.search(
            "x", user_id="alice", time_range=(datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))), None)
        ),
    ],
    ids=["observed_at", "timestamp", "as_of", "time_range"],
)
def test_a_moment_outside_the_utc_range_is_refused_by_validation(memory: Memory, call: object) -> None:
    with pytest.raises(ValidationError):
        call(memory)  # type: ignore[operator]


@pytest.mark.parametrize("ids", [math.nan, object(), 3])
def test_ids_that_are_not_a_list_are_refused_by_validation(memory: Memory, ids: object) -> None:
    with pytest.raises(ValidationError):
        memory.get_many(ids)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        memory.delete_many(ids)  # type: ignore[arg-type]


def test_a_string_of_ids_is_not_taken_for_a_list_of_characters(memory: Memory) -> None:
    (record,) = memory.add("hello", user_id="alice")
    with pytest.raises(ValidationError) as err:
        memory.delete_many(record.id)  # type: ignore[arg-type]
    assert err.value.field == "ids"
    assert memory.get(record.id) == record


def test_a_malformed_id_finds_nothing_and_changes_nothing(memory: Memory) -> None:
    memory.add("hello", user_id="alice")
    before = snapshot(memory)
    assert memory.get("not-a-uuid") is None
    assert memory.delete("not-a-uuid") is False
    assert memory.history("not-a-uuid") == []
    with pytest.raises(ValidationError, match="no memory"):
        memory.update("not-a-uuid", metadata={"a": 1})
    assert snapshot(memory) == before


@pytest.mark.parametrize("path", ["dump\x00.jsonl", "dump\udc00.jsonl", 42, b"dump.jsonl"])
def test_an_export_path_the_os_cannot_take_is_refused_naming_the_path(memory: Memory, path: object) -> None:
    with pytest.raises(ValidationError) as err:
        memory.export(path)  # type: ignore[arg-type]
    assert err.value.field == "path"


@pytest.mark.parametrize("path", ["dump\x00.jsonl", "dump\udc00.jsonl", 42])
def test_an_import_path_the_os_cannot_take_is_refused_naming_the_path(memory: Memory, path: object) -> None:
    with pytest.raises(ValidationError) as err:
        memory.import_(path)  # type: ignore[arg-type]
    assert err.value.field == "path"
