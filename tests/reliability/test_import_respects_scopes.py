"""An import cannot take over another scope's memory, and an import line passes the checks ``add`` makes.

A hostile dump is a real export of user B, edited to carry user A's record id: importing it must neither replace
A's text nor move A's record into B's scope. Refused lines name their line; nothing of their batch is written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory, ValidationError
from memadapt_core.backends.base import INFO_POINT_ID


@pytest.fixture(params=["edge", "qdrant-local"])
def store(request: pytest.FixtureRequest) -> Iterator[Memory]:
    with Memory(backend=request.param, location=":memory:", max_text_chars=1_000) as mem:
        yield mem


def _export_line(mem: Memory, tmp_path: Path, **scope: Any) -> dict[str, Any]:
    dump = tmp_path / "own.jsonl"
    mem.export(dump, **scope)
    (line,) = dump.read_text(encoding="utf-8").splitlines()
    return dict(json.loads(line))


def _write(tmp_path: Path, *records: dict[str, Any]) -> Path:
    dump = tmp_path / "dump.jsonl"
    dump.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return dump


def test_a_dump_carrying_another_users_record_id_is_refused(store: Memory, tmp_path: Path) -> None:
    (alice,) = store.add("alice's secret: the safe code is 4711", user_id="alice")
    store.add("bob's harmless note", user_id="bob")
    hostile = {**_export_line(store, tmp_path, user_id="bob"), "id": alice.id, "text": "bob owns this now"}

    with pytest.raises(ValidationError) as err:
        store.import_(_write(tmp_path, hostile))

    assert err.value.field == "line 1"
    assert "another scope" in err.value.problem
    assert store.get(alice.id) == alice  # neither replaced nor moved
    assert [r.text for r in store.list(user_id="bob").records] == ["bob's harmless note"]


def test_an_id_in_another_uuid_spelling_is_still_recognised_as_another_scopes(store: Memory, tmp_path: Path) -> None:
    (alice,) = store.add("alice's secret", user_id="alice")
    store.add("bob's note", user_id="bob")
    hostile = {**_export_line(store, tmp_path, user_id="bob"), "id": alice.id.replace("-", "").upper()}

    with pytest.raises(ValidationError, match="another scope"):
        store.import_(_write(tmp_path, hostile))

    assert store.get(alice.id) == alice


def test_a_record_moved_to_another_session_of_the_same_user_is_refused_too(store: Memory, tmp_path: Path) -> None:
    (kept,) = store.add("said in session one", user_id="alice", session_id="s1")
    moved = {**_export_line(store, tmp_path, user_id="alice"), "session_id": "s2"}

    with pytest.raises(ValidationError, match="another scope"):
        store.import_(_write(tmp_path, moved))

    assert store.get(kept.id) == kept


def test_one_id_under_two_scopes_in_one_file_is_refused(store: Memory, tmp_path: Path) -> None:
    store.add("a note", user_id="bob")
    line = _export_line(store, tmp_path, user_id="bob")
    store.delete_all(user_id="bob")

    with pytest.raises(ValidationError) as err:
        store.import_(_write(tmp_path, {**line, "user_id": "carol"}, line))

    assert err.value.field == "line 2"
    assert store.count(user_id="carol") == 0  # nothing of the refused batch was written


def test_reimporting_a_dump_into_the_same_scope_overwrites_in_place(store: Memory, tmp_path: Path) -> None:
    store.add(["one", "two"], user_id="alice", session_id="s1")
    dump = tmp_path / "all.jsonl"
    store.export(dump)
    before = store.list(user_id="alice").records

    assert store.import_(dump) == 2
    assert store.import_(dump) == 2

    assert store.list(user_id="alice").records == before


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"text": "x" * 1_001}, "text"),  # over max_text_chars
        ({"text": "nul\x00inside"}, "text"),
        ({"text": "   "}, "text"),
        ({"role": "r" * 513}, "role"),
        ({"name": "n" * 513}, "name"),
        ({"user_id": "tab\there"}, "user_id"),
        ({"id": "not-a-uuid"}, "id"),
        ({"id": INFO_POINT_ID}, "id"),  # the collection's info point
    ],
    ids=["too-long", "nul", "blank", "role", "name", "scope-id", "id", "info-point"],
)
def test_an_import_line_gets_the_checks_add_makes(
    store: Memory, tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    store.add("a note", user_id="alice")
    line = _export_line(store, tmp_path, user_id="alice")
    store.delete_all(user_id="alice")

    with pytest.raises(ValidationError) as err:
        store.import_(_write(tmp_path, {**line, **change}))

    assert err.value.field == "line 1"
    assert err.value.problem.startswith(f"{field}:")
    assert store.count(user_id="alice") == 0


async def test_the_async_engine_refuses_the_same_hostile_dump(amemory: AsyncMemory, tmp_path: Path) -> None:
    (alice,) = await amemory.add("alice's secret", user_id="alice")
    await amemory.add("bob's note", user_id="bob")
    dump = tmp_path / "bob.jsonl"
    await amemory.export(dump, user_id="bob")
    hostile = {**json.loads(dump.read_text(encoding="utf-8")), "id": alice.id}

    with pytest.raises(ValidationError, match="another scope"):
        await amemory.import_(_write(tmp_path, hostile))

    assert await amemory.get(alice.id) == alice
