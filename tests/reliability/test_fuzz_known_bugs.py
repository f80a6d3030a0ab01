"""Engine bugs the fuzzers found, one minimal case each, as strict xfails: each says what the engine should do,
fails today, and turns into an XPASS failure the day it is fixed (then drop the marker and widen the matching
strategy in test_fuzz_core.py). The reliability report to the lead has the repro and the suggested fix."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import pytest

from memadapt_core import MemadaptError, Memory, StoreError, ValidationError

from ._support import snapshot


def _bug(why: str, raises: type[BaseException]) -> pytest.MarkDecorator:
    """Strict, and only for the exception the bug raises today: any other failure is reported as such."""
    return pytest.mark.xfail(strict=True, raises=raises, reason=f"engine bug: {why}")


def _deep(depth: int) -> dict[str, object]:
    return json.loads('{"k":' * depth + "1" + "}" * depth)


@_bug("a lone surrogate in a text reaches hashlib's utf-8 encode: UnicodeEncodeError escapes", UnicodeEncodeError)
def test_a_text_with_a_lone_surrogate_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.add("half an emoji \ud83d", user_id="alice")


@_bug("a lone surrogate in a scope id reaches uuid5's utf-8 encode: UnicodeEncodeError escapes", UnicodeEncodeError)
def test_a_scope_id_with_a_lone_surrogate_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.add("hello", user_id="alice\udc00")


@_bug("a lone surrogate in metadata reaches qdrant-edge's payload conversion: TypeError escapes", TypeError)
def test_metadata_with_a_lone_surrogate_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.add("hello", user_id="alice", metadata={"note": "\ud800"})


@_bug(
    "metadata nested 127+ levels deep is accepted, then every list, search, get, delete and export of that scope "
    "fails (qdrant-edge's payload decoder stops at 128 levels) and a filtered search panics (PanicException)",
    pytest.fail.Exception,
)
def test_metadata_nested_too_deep_for_the_store_is_refused_up_front(memory: Memory) -> None:
    memory.add("kept", user_id="alice")
    before = snapshot(memory)
    with pytest.raises(ValidationError):
        memory.add("poison", user_id="alice", metadata=_deep(130))
    assert snapshot(memory) == before


@_bug("a filter value beyond int64 reaches qdrant-edge's MatchValue: TypeError escapes", TypeError)
def test_a_filter_on_an_integer_beyond_int64_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.search("anything", user_id="alice", filters={"n": 2**70})


@_bug("a range filter bound too big for a float: OverflowError escapes from float()", OverflowError)
def test_a_range_filter_on_a_huge_integer_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError):
        memory.search("anything", user_id="alice", filters={"n": {"$gt": 2**1100}})


@pytest.mark.parametrize("key", ["a..b", '"', "x.", " "])
@_bug("a filter key that is not a valid Qdrant JSON path: ValueError escapes from the backend", ValueError)
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
@_bug("a moment that is in range locally but not in UTC: OverflowError escapes from astimezone(UTC)", OverflowError)
def test_a_moment_outside_the_utc_range_is_refused_by_validation(memory: Memory, call: object) -> None:
    with pytest.raises(ValidationError):
        call(memory)  # type: ignore[operator]


@_bug(
    "an id that is not a UUID goes to the store, which refuses to parse it: StoreError, not 'no such record'",
    StoreError,
)
def test_an_id_that_cannot_exist_is_simply_not_found(memory: Memory) -> None:
    assert memory.get("not-a-uuid") is None
    assert memory.delete("not-a-uuid") is False
    with pytest.raises(ValidationError, match="no memory"):
        memory.update("not-a-uuid", text="x")


@pytest.mark.parametrize("ids", [math.nan, object(), 3])
@_bug("get_many / delete_many iterate whatever they are given: TypeError escapes for a non-sequence", TypeError)
def test_ids_that_are_not_a_list_are_refused_by_validation(memory: Memory, ids: object) -> None:
    with pytest.raises(ValidationError):
        memory.get_many(ids)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        memory.delete_many(ids)  # type: ignore[arg-type]


def test_a_string_of_ids_is_not_taken_for_a_list_of_characters(memory: Memory) -> None:
    (record,) = memory.add("hello", user_id="alice")
    with pytest.raises(MemadaptError):  # today a StoreError per character; a ValidationError would be clearer
        memory.delete_many(record.id)  # type: ignore[arg-type]
    assert memory.get(record.id) == record


def test_a_malformed_id_is_refused_with_a_memadapt_error_and_changes_nothing(memory: Memory) -> None:
    memory.add("hello", user_id="alice")
    before = snapshot(memory)
    for call in (memory.get, memory.delete, memory.history, lambda i: memory.update(i, text="x")):
        with pytest.raises(MemadaptError):  # StoreError today, ValidationError (or None / False) once fixed
            call("not-a-uuid")
    assert snapshot(memory) == before
