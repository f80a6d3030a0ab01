"""Bad input gets a MemadaptError subclass naming the field, and the store is unchanged."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from memadapt_core import ConfigurationError, Memory, ValidationError


def _snapshot(memory: Memory) -> list[tuple[str, str]]:
    return [(r.id, r.text) for r in memory.list(user_id="u1", limit=1000).records]


@pytest.fixture
def seeded(memory: Memory) -> Memory:
    memory.add("I play the violin", user_id="u1", kind="fact")
    return memory


BAD_ADDS: list[tuple[dict[str, Any], str]] = [
    ({"messages": ""}, "messages[0]"),
    ({"messages": "   \n\t"}, "messages[0]"),
    ({"messages": "x" * 1_000_001}, "messages[0]"),  # over max_text_chars, the guard against absurd input
    ({"messages": 42}, "messages"),
    ({"messages": []}, "messages"),
    ({"messages": [{"content": "no role"}]}, "messages[0].role"),
    ({"messages": [{"role": "user", "content": b"bytes"}]}, "messages[0].content"),
    ({"messages": [{"role": "user", "content": {"a": 1}}]}, "messages[0].content"),
    ({"messages": [{"role": "user", "content": "ok", "timestamp": "not a date"}]}, "messages[0].timestamp"),
    ({"messages": [{"role": "user", "content": "ok", "colour": "x"}]}, "messages[0].colour"),
    ({"messages": "ok", "user_id": None}, "user_id"),
    ({"messages": "ok", "user_id": ""}, "user_id"),
    ({"messages": "ok", "user_id": 7}, "user_id"),
    ({"messages": "ok", "kind": "note"}, "kind"),
    ({"messages": "ok", "metadata": {"x": math.nan}}, "metadata"),
    ({"messages": "ok", "metadata": {"x": object()}}, "metadata"),
    ({"messages": "ok", "metadata": {"user_id": "mallory"}}, "metadata.user_id"),
    ({"messages": "ok", "metadata": ["not", "a", "dict"]}, "metadata"),
    ({"messages": "ok", "on_conflict": "merge"}, "on_conflict"),
    ({"messages": "ok", "observed_at": "yesterday-ish"}, "observed_at"),
]


@pytest.mark.parametrize(("kwargs", "field"), BAD_ADDS, ids=[f for _, f in BAD_ADDS])
def test_bad_add_names_the_field_and_stores_nothing(seeded: Memory, kwargs: dict[str, Any], field: str) -> None:
    before = _snapshot(seeded)
    call = {"user_id": "u1", **kwargs}
    with pytest.raises(ValidationError) as err:
        seeded.add(call.pop("messages"), **call)
    assert err.value.field == field
    assert _snapshot(seeded) == before


def test_one_bad_message_in_a_batch_stores_none_of_it(seeded: Memory) -> None:
    before = _snapshot(seeded)
    with pytest.raises(ValidationError):
        seeded.add(["fine", {"role": "user", "content": ""}], user_id="u1")
    assert _snapshot(seeded) == before


def test_cyclic_metadata_is_refused(seeded: Memory) -> None:
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    with pytest.raises(ValidationError) as err:
        seeded.add("ok", user_id="u1", metadata=cyclic)
    assert err.value.field == "metadata"


BAD_SEARCHES: list[tuple[dict[str, Any], str]] = [
    ({"query": ""}, "query"),
    ({"query": None}, "query"),
    ({"limit": 0}, "limit"),
    ({"limit": 10**9}, "limit"),
    ({"limit": "5"}, "limit"),
    ({"kinds": ["note"]}, "kinds"),
    ({"kinds": []}, "kinds"),
    ({"threshold": math.inf}, "threshold"),
    ({"time_range": ("2024-01-01",)}, "time_range"),
    ({"time_range": ("2024-02-01", "2024-01-01")}, "time_range"),
    ({"time_range": ("soon", None)}, "time_range[0]"),
    ({"filters": {"n": {"$regex": "x"}}}, "filters.n"),
    ({"filters": {"n": {"$gt": "abc"}}}, "filters.n.$gt"),
    ({"user_id": None}, "user_id"),
]


@pytest.mark.parametrize(("kwargs", "field"), BAD_SEARCHES, ids=[f for _, f in BAD_SEARCHES])
def test_bad_search_names_the_field(seeded: Memory, kwargs: dict[str, Any], field: str) -> None:
    call = {"query": "violin", "user_id": "u1", **kwargs}
    with pytest.raises(ValidationError) as err:
        seeded.search(call.pop("query"), **call)
    assert err.value.field == field


def test_update_of_an_unknown_id_is_a_validation_error(seeded: Memory) -> None:
    before = _snapshot(seeded)
    with pytest.raises(ValidationError) as err:
        seeded.update("00000000-0000-0000-0000-000000000000", text="x")
    assert err.value.field == "id"
    assert _snapshot(seeded) == before


def test_update_without_changes_is_refused(seeded: Memory) -> None:
    rec = _snapshot(seeded)[0]
    with pytest.raises(ValidationError, match="text="):
        seeded.update(rec[0])


def test_delete_all_without_scope_is_refused_and_deletes_nothing(seeded: Memory) -> None:
    with pytest.raises(ValidationError):
        seeded.delete_all()
    assert len(_snapshot(seeded)) == 1


def test_a_forged_cursor_is_refused(seeded: Memory) -> None:
    with pytest.raises(ValidationError) as err:
        seeded.list(user_id="u1", cursor="not-a-cursor")
    assert err.value.field == "cursor"


def test_validation_errors_are_value_errors() -> None:
    assert issubclass(ValidationError, ValueError)
    assert issubclass(ConfigurationError, ValueError)


def test_unknown_setting_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        Memory(location=":memory:", no_such_setting=1)


@pytest.mark.parametrize("name", ["", "x" * 256, "é" * 128, "..", ".", "a/b", "a\\b", "nul\0", "half an emoji \ud83d"])
def test_a_collection_name_no_file_system_takes_is_a_configuration_error(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigurationError, match="collection"):
        Memory(path=tmp_path / "store", collection=name)
    assert not (tmp_path / "store").exists()  # nothing written, not even the folder


def test_a_collection_name_of_255_bytes_is_taken(tmp_path: Path) -> None:
    with Memory(path=tmp_path, collection="c" * 255) as mem:
        mem.add("the name fits", user_id="u1", kind="fact")

        assert mem.search("name fits", user_id="u1")


def test_unknown_embedder_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"embedder\.provider"):
        Memory(location=":memory:", embedder="nope")
