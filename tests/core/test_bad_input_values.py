"""Values that pass a type check but that the store cannot keep (a lone surrogate, metadata nested too deep, an
integer beyond int64, a moment outside the UTC calendar, a filter key Qdrant cannot parse, an id that is not a
UUID) are refused by validation, naming the field, before anything is hashed or written; both backends agree."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memadapt_core import AsyncMemory, ConfigurationError, Memory, StoreError, ValidationError
from memadapt_core.backends.base import CollectionInfo, StoredPoint
from memadapt_core.backends.edge import EdgeBackend
from memadapt_core.filters import FilterSpec, MetaCondition
from memadapt_core.validation import MAX_METADATA_DEPTH

HALF_EMOJI = "half an emoji \ud83d"


def _nested(levels: int) -> dict[str, Any]:
    """Metadata ``levels`` containers deep, the top dict included."""
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"k": value}
    return value


@pytest.fixture(params=["edge", "qdrant-local"])
def either(request: pytest.FixtureRequest) -> Iterator[Memory]:
    with Memory(backend=request.param, location=":memory:") as mem:
        mem.add("I keep bees", user_id="u1", metadata={"n": 3, "tag": "bees", "a": {"b": 1}})
        yield mem


def _records(memory: Memory) -> list[tuple[str, str, dict[str, Any]]]:
    return [(r.id, r.text, r.metadata) for r in memory.list(user_id="u1", limit=1000).records]


SURROGATE_CALLS: list[tuple[str, Any]] = [
    ("messages[0]", lambda m: m.add(HALF_EMOJI, user_id="u1")),
    ("messages[0].content", lambda m: m.add({"role": "user", "content": HALF_EMOJI}, user_id="u1")),
    ("messages[0].role", lambda m: m.add({"role": "us\udc00er", "content": "hi"}, user_id="u1")),
    ("messages[0].name", lambda m: m.add({"role": "user", "content": "hi", "name": "\ud800"}, user_id="u1")),
    ("messages[0].id", lambda m: m.add({"role": "user", "content": "hi", "id": "x\ud800"}, user_id="u1")),
    ("user_id", lambda m: m.add("hello", user_id="u1\udc00")),
    ("session_id", lambda m: m.add("hello", user_id="u1", session_id="\udfff")),
    ("metadata.note", lambda m: m.add("hello", user_id="u1", metadata={"note": "\ud800"})),
    ("metadata.a.b[1]", lambda m: m.add("hello", user_id="u1", metadata={"a": {"b": ["ok", "\ud800"]}})),
    ("metadata", lambda m: m.add("hello", user_id="u1", metadata={"\ud800": 1})),
    ("query", lambda m: m.search(HALF_EMOJI, user_id="u1")),
    ("filters.tag.$eq", lambda m: m.search("bees", user_id="u1", filters={"tag": "\ud800"})),
    ("filters.tag.$in", lambda m: m.search("bees", user_id="u1", filters={"tag": {"$in": ["a", "\ud800"]}})),
    ("filters", lambda m: m.list(user_id="u1", filters={'"\ud800"': 1})),
    ("external_id", lambda m: m.record_id("x\ud800", user_id="u1")),
]


@pytest.mark.parametrize(("field", "call"), SURROGATE_CALLS, ids=[f for f, _ in SURROGATE_CALLS])
def test_a_surrogate_anywhere_is_refused_naming_its_field(either: Memory, field: str, call: Any) -> None:
    before = _records(either)
    with pytest.raises(ValidationError) as err:
        call(either)
    assert err.value.field == field
    assert "surrogate" in err.value.problem
    assert _records(either) == before


def test_an_update_with_a_surrogate_changes_nothing(either: Memory) -> None:
    (record,) = either.list(user_id="u1").records
    with pytest.raises(ValidationError, match="surrogate"):
        either.update(record.id, text=HALF_EMOJI)
    with pytest.raises(ValidationError, match="surrogate"):
        either.update(record.id, metadata={"x": "\udc80"})
    assert either.get(record.id) == record


def test_a_full_emoji_is_kept(either: Memory) -> None:
    (record,) = either.add("bees 🐝", user_id="u1", metadata={"icon": "🐝"})
    assert either.get(record.id) == record


def test_metadata_at_the_depth_limit_is_kept_and_one_level_more_is_refused(either: Memory) -> None:
    (kept,) = either.add("deep enough", user_id="u1", metadata=_nested(MAX_METADATA_DEPTH))
    with pytest.raises(ValidationError, match=f"more than {MAX_METADATA_DEPTH} levels") as err:
        either.add("too deep", user_id="u1", metadata=_nested(MAX_METADATA_DEPTH + 1))
    assert err.value.field == "metadata"
    assert either.get(kept.id) == kept


def test_lists_count_as_levels_of_metadata(either: Memory) -> None:
    value: Any = 1
    for _ in range(MAX_METADATA_DEPTH):
        value = [value]
    with pytest.raises(ValidationError, match="levels"):
        either.add("too deep", user_id="u1", metadata={"v": value})


def test_a_metadata_integer_beyond_int64_is_refused(either: Memory) -> None:
    with pytest.raises(ValidationError, match="64 bits") as err:
        either.add("big", user_id="u1", metadata={"n": 2**63})
    assert err.value.field == "metadata.n"


@pytest.mark.parametrize(
    "filters",
    [{"n": 2**63}, {"n": {"$ne": -(2**63) - 1}}, {"n": {"$in": [1, 2**64]}}, {"n": {"$gt": 2**1100}}],
    ids=["eq", "ne", "in", "range"],
)
def test_a_filter_number_the_store_cannot_compare_is_refused(either: Memory, filters: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="filters"):
        either.search("bees", user_id="u1", filters=filters)


def test_a_filter_on_a_whole_float_beyond_int64_finds_nothing_instead_of_failing(either: Memory) -> None:
    assert either.list(user_id="u1", filters={"n": 1e300}).records == []


@pytest.mark.parametrize("key", ["a..b", '"', "x.", ".x", " ", "a b", "$x", "a/b", "a[", "a[x]", '""', 'a."b\\c"'])
def test_a_filter_key_that_is_not_a_metadata_path_is_refused(either: Memory, key: str) -> None:
    with pytest.raises(ValidationError, match="metadata path") as err:
        either.list(user_id="u1", filters={key: 1})
    assert err.value.field == "filters"


@pytest.mark.parametrize(
    ("key", "value", "found"),
    [("tag", "bees", 1), ("a.b", 1, 1), ('"a".b', 1, 1), ("città", 1, 0), ("a-b_c", 1, 0), ("tags[]", "x", 0)],
)
def test_filter_keys_both_qdrant_engines_parse_are_accepted(either: Memory, key: str, value: Any, found: int) -> None:
    assert either.count(user_id="u1", filters={key: value}) == found


LOCAL_YEAR_1 = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
LOCAL_YEAR_9999 = datetime(9999, 12, 31, 23, 0, tzinfo=timezone(timedelta(hours=-5)))
OUT_OF_UTC: list[tuple[str, Any]] = [
    ("observed_at", lambda m: m.add("hello", user_id="u1", observed_at=LOCAL_YEAR_1)),
    ("observed_at", lambda m: m.add("hello", user_id="u1", observed_at="9999-12-31T23:59:59-05:00")),
    (
        "messages[0].timestamp",
        lambda m: m.add({"role": "user", "content": "hi", "timestamp": LOCAL_YEAR_9999}, user_id="u1"),
    ),
    ("as_of", lambda m: m.search("bees", user_id="u1", as_of=LOCAL_YEAR_1)),
    ("now", lambda m: m.search("bees", user_id="u1", now=LOCAL_YEAR_9999)),
    ("time_range[0]", lambda m: m.search("bees", user_id="u1", time_range=(LOCAL_YEAR_1, None))),
    ("time_range[1]", lambda m: m.search("bees", user_id="u1", time_range=(None, "0001-01-01T00:00:00+05:00"))),
]


@pytest.mark.parametrize(("field", "call"), OUT_OF_UTC, ids=[f"{f}-{i}" for i, (f, _) in enumerate(OUT_OF_UTC)])
def test_a_moment_outside_the_utc_calendar_is_refused_naming_its_field(either: Memory, field: str, call: Any) -> None:
    before = _records(either)
    with pytest.raises(ValidationError, match="UTC") as err:
        call(either)
    assert err.value.field == field
    assert _records(either) == before


def test_moments_at_the_ends_of_the_utc_calendar_are_kept(either: Memory) -> None:
    first, last = datetime.min.replace(tzinfo=UTC), datetime.max.replace(tzinfo=UTC)
    (old,) = either.add("the first moment", user_id="u2", observed_at=first)
    (new,) = either.add("the last moment", user_id="u2", observed_at=last)
    assert (either.get(old.id), either.get(new.id)) == (old, new)
    assert either.search("what did I say on December 30", user_id="u2", now=last, threshold=0.0)


def test_an_id_that_is_not_a_uuid_finds_nothing(either: Memory) -> None:
    before = _records(either)
    assert either.get("not-a-uuid") is None
    assert either.get_many(["not-a-uuid", "\ud800"]) == []
    assert either.delete("not-a-uuid") is False
    assert either.delete_many(["not-a-uuid"]) == 0
    assert either.history("not-a-uuid") == []
    with pytest.raises(ValidationError, match="no memory with id"):
        either.update("not-a-uuid", text="changed")
    assert _records(either) == before


def test_an_id_in_another_uuid_spelling_finds_the_record(either: Memory) -> None:
    (record,) = either.list(user_id="u1").records
    assert either.get(uuid.UUID(record.id).hex.upper()) == record


@pytest.mark.parametrize("ids", [float("nan"), object(), 3, "3f2a", b"ids", {"a": 1}], ids=repr)
def test_ids_that_are_not_a_list_are_refused_naming_ids(either: Memory, ids: Any) -> None:
    before = _records(either)
    for call in (either.get_many, either.delete_many):
        with pytest.raises(ValidationError) as err:
            call(ids)
        assert err.value.field == "ids"
    assert _records(either) == before


async def test_the_async_engine_refuses_the_same_values(amemory: AsyncMemory) -> None:
    with pytest.raises(ValidationError, match="surrogate"):
        await amemory.add(HALF_EMOJI, user_id="u1")
    with pytest.raises(ValidationError, match="ids"):
        await amemory.delete_many("3f2a")  # type: ignore[arg-type]
    assert await amemory.get("not-a-uuid") is None
    assert await amemory.history("not-a-uuid") == []


def test_an_import_line_the_store_cannot_keep_is_refused_naming_its_line(either: Memory, tmp_path: Path) -> None:
    dump = tmp_path / "dump.jsonl"
    either.export(dump, user_id="u1")
    (line,) = dump.read_text(encoding="utf-8").splitlines()
    record = json.loads(line)
    bad = [
        {**record, "text": HALF_EMOJI},
        {**record, "observed_at": "9999-12-31T23:59:59-05:00"},
        {**record, "metadata": _nested(MAX_METADATA_DEPTH + 1)},
    ]
    for data in bad:
        dump.write_text(json.dumps(data) + "\n", encoding="utf-8")
        with pytest.raises(ValidationError) as err:
            either.import_(dump)
        assert err.value.field == "line 1"
    dump.write_bytes(line.encode() + b"\n" + line.replace("bees", "be\xffes").encode("latin-1") + b"\n")
    with pytest.raises(ValidationError) as err:
        either.import_(dump)
    assert err.value.field == "line 2"


def test_a_rust_panic_in_the_embedded_store_is_a_store_error(tmp_path: Path) -> None:
    # Written behind validation's back: a payload deeper than qdrant-edge can decode makes a filtered search
    # panic inside Rust (pyo3's PanicException, a BaseException); the backend must turn it into a StoreError.
    backend = EdgeBackend(tmp_path)
    backend.open_collection(CollectionInfo(name="c", embedder="test", dim=4))
    try:
        point_id = str(uuid.uuid4())
        dense = np.ones(4, dtype=np.float32)
        backend.upsert([StoredPoint(point_id, {"user_id": "u1", "kind": "fact", "metadata": _nested(130)}, dense)])
        spec = FilterSpec(user_id="u1", metadata=(MetaCondition("k", "eq", 1),))
        with pytest.raises(StoreError):
            backend.search(dense, None, spec, 5)
    finally:
        backend.close()


BEYOND_FLOAT = 2**1100  # an int float() cannot hold: math.isfinite and datetime.fromtimestamp overflow on it
OUT_OF_RANGE: list[tuple[str, Any]] = [
    ("threshold", lambda m: m.search("bees", user_id="u1", threshold=BEYOND_FLOAT)),
    ("threshold", lambda m: m.search("bees", user_id="u1", threshold=-BEYOND_FLOAT)),
    ("now", lambda m: m.search("bees", user_id="u1", now=BEYOND_FLOAT)),
    ("as_of", lambda m: m.search("bees", user_id="u1", as_of=BEYOND_FLOAT)),
    ("time_range[0]", lambda m: m.search("bees", user_id="u1", time_range=(BEYOND_FLOAT, None))),
    ("observed_at", lambda m: m.add("hello", user_id="u1", observed_at=BEYOND_FLOAT)),
    (
        "messages[0].timestamp",
        lambda m: m.add({"role": "user", "content": "hi", "timestamp": -BEYOND_FLOAT}, user_id="u1"),
    ),
]


@pytest.mark.parametrize(("field", "call"), OUT_OF_RANGE, ids=[f"{f}-{i}" for i, (f, _) in enumerate(OUT_OF_RANGE)])
def test_a_number_beyond_float_range_is_refused_naming_its_field(either: Memory, field: str, call: Any) -> None:
    before = _records(either)
    with pytest.raises(ValidationError) as err:
        call(either)
    assert err.value.field == field
    assert len(str(err.value)) < 200  # names the number by its size, not by its 332 digits
    assert _records(either) == before


def _cursor(data: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode()


@pytest.mark.parametrize(
    "cursor",
    [
        _cursor({"t": "0001-01-01T00:00:00+05:00", "s": []}),  # before year 1 in UTC
        _cursor({"t": "9999-12-31T23:59:59-05:00", "s": []}),  # after year 9999 in UTC
        _cursor({"t": "2024-03-01T00:00:00+00:00", "s": "abc"}),  # a string, not a list of ids
        _cursor({"t": "2024-03-01T00:00:00+00:00", "s": [1, 2]}),
        _cursor({"t": 2**1100, "s": []}),
    ],
    ids=["year-1", "year-10000", "skip-str", "skip-ints", "huge-int"],
)
def test_a_forged_list_cursor_is_refused_naming_the_cursor(either: Memory, cursor: str) -> None:
    with pytest.raises(ValidationError) as err:
        either.list(user_id="u1", cursor=cursor)
    assert err.value.field == "cursor"


def test_a_forged_cursor_without_a_time_zone_is_read_as_utc(either: Memory) -> None:
    page = either.list(user_id="u1", cursor=_cursor({"t": "2000-01-01T00:00:00", "s": []}))
    assert [r.text for r in page.records] == ["I keep bees"]


@pytest.mark.parametrize("key", ["role", "name"])
def test_a_role_or_name_longer_than_512_characters_is_refused(either: Memory, key: str) -> None:
    before = _records(either)
    with pytest.raises(ValidationError, match="512") as err:
        either.add({"role": "user", "content": "hi", key: "r" * 10_000_000}, user_id="u1")
    assert err.value.field == f"messages[0].{key}"
    assert _records(either) == before
    (kept,) = either.add({"role": "r" * 512, "content": "a long role is fine up to 512"}, user_id="u1")
    assert kept.role == "r" * 512


@pytest.mark.parametrize("path", ["store\x00name", "store\udc00name"], ids=["nul", "surrogate"])
@pytest.mark.parametrize("backend", ["edge", "qdrant-local"])
def test_a_store_path_the_file_system_cannot_name_is_a_configuration_error(
    tmp_path: Path, path: str, backend: str
) -> None:
    with pytest.raises(ConfigurationError, match="path"):
        Memory(path=str(tmp_path / path), backend=backend)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["list", "--user", "u1", "--cursor", _cursor({"t": "0001-01-01T00:00:00+05:00", "s": []})], "cursor"),
        (["add", "hi", "--user", "u1", "--role", "r" * 600], "messages[0].role"),
        (["search", "bees", "--user", "u1", "--threshold", "1e999"], "threshold"),
    ],
    ids=["cursor", "role", "threshold"],
)
def test_the_cli_refuses_out_of_range_values_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], field: str
) -> None:
    from memadapt_core.cli import main

    assert main(["--path", str(tmp_path / "store"), *argv]) == 2
    assert f"memadapt: {field}:" in capsys.readouterr().err
