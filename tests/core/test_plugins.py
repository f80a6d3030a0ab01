"""Plugins change behaviour through hooks; entry-point plugins load unless disabled."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from pathlib import Path

import pytest

from memadapt_core import Memory, MemoryRecord, PluginError, Scope, SearchHit, hookimpl
from memadapt_core import hookspecs as specs

PLUGIN = """
import re
from memadapt_core import hookimpl

@hookimpl
def memadapt_prepare_record(record):
    redacted = re.sub(r"\\b\\d{4}(?:[ -]?\\d{4}){3}\\b", "[card]", record.text)
    return record.model_copy(update={"text": redacted}) if redacted != record.text else None
"""


@pytest.fixture
def installed_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Install a redaction plugin the way pip does: a module and a dist-info with an entry point."""
    (tmp_path / "memadapt_redact.py").write_text(PLUGIN)
    dist = tmp_path / "memadapt_redact-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: memadapt-redact\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[memadapt]\nredact = memadapt_redact\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return "redact"


def test_an_entry_point_plugin_changes_stored_text(installed_plugin: str) -> None:
    with Memory(location=":memory:") as mem:
        (rec,) = mem.add("my card is 4111 1111 1111 1111", user_id="u1")
        assert rec.text == "my card is [card]"
        assert mem.get(rec.id) == rec


def test_disable_plugins_turns_entry_points_off(installed_plugin: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMADAPT_DISABLE_PLUGINS", "1")
    with Memory(location=":memory:") as mem:
        (rec,) = mem.add("my card is 4111 1111 1111 1111", user_id="u1")
    assert "4111" in rec.text


def test_disable_plugins_by_name(installed_plugin: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMADAPT_DISABLE_PLUGINS", installed_plugin)
    with Memory(location=":memory:") as mem:
        (rec,) = mem.add("my card is 4111 1111 1111 1111", user_id="u1")
    assert "4111" in rec.text


class SkipSmallTalk:
    @hookimpl
    def memadapt_accept_message(self, message: MemoryRecord, scope: Scope) -> bool | None:
        return False if message.text.lower() in {"ok", "thanks"} else None


def test_accept_hook_can_skip_messages() -> None:
    with Memory(location=":memory:", plugins=[SkipSmallTalk()]) as mem:
        stored = mem.add(["ok", "I booked the flight to Rome", "thanks"], user_id="u1")
        assert [r.text for r in stored] == ["I booked the flight to Rome"]
        assert mem.count(user_id="u1") == 1


class Synonyms:
    @hookimpl
    def memadapt_prepare_query(self, query: str) -> str | None:
        return query.replace("automobile", "car")


def test_prepare_query_rewrites_the_query() -> None:
    with Memory(location=":memory:", plugins=[Synonyms()]) as mem:
        mem.add("my car is a red hatchback", user_id="u1", kind="fact")
        assert mem.search("what automobile do I drive", user_id="u1")[0].record.text == "my car is a red hatchback"


class Reverse:
    @hookimpl
    def memadapt_rerank(self, query: str, hits: Sequence[SearchHit]) -> list[SearchHit] | None:
        return list(reversed(hits))


def test_rerank_hook_reorders_hits() -> None:
    with Memory(location=":memory:") as plain, Memory(location=":memory:", plugins=[Reverse()]) as mem:
        for m in (plain, mem):
            m.add(["apples are red", "apples and pears are fruit"], user_id="u1", kind="fact")
        normal = [h.record.text for h in plain.search("apples", user_id="u1", threshold=0.0)]
        assert [h.record.text for h in mem.search("apples", user_id="u1", threshold=0.0)] == normal[::-1]


class Bullets:
    @hookimpl
    def memadapt_format_context(self, query: str, hits: Sequence[SearchHit]) -> str | None:
        return "\n".join(f"- {h.record.text}" for h in hits)


def test_format_context_hook_replaces_the_builtin_rendering() -> None:
    with Memory(location=":memory:", plugins=[Bullets()]) as mem:
        mem.add("likes jazz", user_id="u1", kind="fact")
        hits = mem.search("jazz", user_id="u1")
        assert mem.format_context("jazz", hits) == "- likes jazz"


class Recorder:
    def __init__(self) -> None:
        self.added: list[str] = []
        self.deleted: list[str] = []

    @hookimpl
    def memadapt_on_added(self, records: Sequence[MemoryRecord]) -> None:
        self.added += [r.text for r in records]

    @hookimpl
    def memadapt_on_deleted(self, ids: Sequence[str]) -> None:
        self.deleted += list(ids)


def test_notifications_report_added_and_deleted_records() -> None:
    rec = Recorder()
    with Memory(location=":memory:", plugins=[rec]) as mem:
        (r,) = mem.add("note", user_id="u1")
        mem.add("note", user_id="u1")  # a duplicate stores nothing, so notifies nothing
        mem.delete(r.id)
    assert rec.added == ["note"]
    assert rec.deleted == [r.id]


class Broken:
    @hookimpl
    def memadapt_prepare_record(self, record: MemoryRecord) -> MemoryRecord | None:
        raise RuntimeError("boom")


def test_a_raising_plugin_is_a_plugin_error_and_stores_nothing() -> None:
    with Memory(location=":memory:", plugins=[Broken()]) as mem:
        with pytest.raises(PluginError, match="boom"):
            mem.add("note", user_id="u1")
        assert mem.count(user_id="u1") == 0


class Misspelt:
    @hookimpl
    def memadapt_prepare_recrod(self, record: MemoryRecord) -> None:
        return None


def test_a_misspelt_hook_fails_loudly() -> None:
    with pytest.raises(PluginError, match="unknown hook"):
        Memory(location=":memory:", plugins=[Misspelt()])


def test_every_hook_is_documented_in_the_readme() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    hooks = [name for name in dir(specs) if name.startswith("memadapt_")]
    assert len(hooks) == 11
    for name in hooks:
        assert re.search(rf"`{name}\(", readme), f"{name} is missing from the README's hook list"


def test_every_hook_has_a_param_docstring() -> None:
    for name in (n for n in dir(specs) if n.startswith("memadapt_")):
        doc = textwrap.dedent(getattr(specs, name).__doc__ or "")
        assert ":param" in doc, name
