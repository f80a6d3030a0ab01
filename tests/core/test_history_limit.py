"""A record's history is capped (``history_limit`` events, ``history_max_chars`` characters of their texts): its add
and the newest changes, so a record updated thousands of times, or a long document updated often, does not carry
every version of itself in the payload each read decodes."""

from __future__ import annotations

from pathlib import Path

import pytest

from memadapt_core import AsyncMemory, ConfigurationError, HistoryEvent, Memory, MemoryRecord, MemorySettings


def _texts(events: list[HistoryEvent]) -> list[tuple[str, str | None]]:
    return [(e.event, e.new_text) for e in events]


def _updated(mem: Memory, times: int) -> MemoryRecord:
    """A fact added as "version 0", then updated to "version 1" ... "version <times>"."""
    (rec,) = mem.add("version 0", user_id="alice", kind="fact")
    for i in range(1, times + 1):
        mem.update(rec.id, text=f"version {i}")
    return rec


def test_a_record_updated_past_the_limit_keeps_its_add_and_the_newest_changes() -> None:
    with Memory(location=":memory:", history_limit=5) as mem:
        rec = _updated(mem, 30)

        events = mem.history(rec.id)

        assert _texts(events) == [("add", "version 0")] + [("update", f"version {i}") for i in range(27, 31)]
        assert events[1].old_text == "version 26"
        assert events[0].at == rec.created_at


def test_a_record_within_the_limit_keeps_every_event() -> None:
    with Memory(location=":memory:", history_limit=5) as mem:
        rec = _updated(mem, 4)

        assert _texts(mem.history(rec.id)) == [("add", "version 0")] + [("update", f"version {i}") for i in range(1, 5)]


def test_the_stored_payload_stays_bounded_however_many_updates() -> None:
    with Memory(location=":memory:", history_limit=3) as mem:
        rec = _updated(mem, 199)

        (point,) = mem._resources.backend.retrieve([rec.id])
        assert len(point.payload["history"]) == 3  # the add (its text is no longer derivable) and two changes


async def test_the_async_engine_caps_history_the_same_way() -> None:
    async with AsyncMemory(location=":memory:", history_limit=4) as mem:
        (rec,) = await mem.add("version 0", user_id="alice", kind="fact")
        for i in range(1, 11):
            await mem.update(rec.id, text=f"version {i}")

        events = await mem.history(rec.id)

        assert _texts(events) == [("add", "version 0")] + [("update", f"version {i}") for i in range(8, 11)]


def test_a_capped_history_survives_export_and_import(tmp_path: Path) -> None:
    with Memory(location=":memory:", history_limit=4) as mem:
        rec = _updated(mem, 10)
        before = mem.history(rec.id)
        mem.export(tmp_path / "dump.jsonl")
    with Memory(location=":memory:", history_limit=4) as mem:
        mem.import_(tmp_path / "dump.jsonl")

        assert mem.history(rec.id) == before


def test_the_history_limit_defaults_to_100_and_refuses_less_than_2() -> None:
    assert MemorySettings().history_limit == 100
    with pytest.raises(ConfigurationError, match="history_limit"):
        Memory(location=":memory:", history_limit=1)


def _rewritten(mem: Memory, times: int, size: int) -> MemoryRecord:
    """A fact of ``size`` characters, rewritten ``times`` times ("0xxx...", "1xxx...", ...)."""
    (rec,) = mem.add("0" + "x" * (size - 1), user_id="alice", kind="fact")
    for i in range(1, times + 1):
        mem.update(rec.id, text=f"{i}" + "x" * (size - 1))
    return rec


def test_long_texts_keep_only_the_newest_changes_within_the_character_cap() -> None:
    with Memory(location=":memory:", history_max_chars=1_000) as mem:
        rec = _rewritten(mem, 9, 200)  # the add holds 200 characters, each change 400: its old and new text

        events = mem.history(rec.id)

        assert [(e.event, (e.new_text or "")[:1]) for e in events] == [("add", "0"), ("update", "8"), ("update", "9")]
        assert (events[1].old_text or "")[:1] == "7"


def test_the_newest_change_stays_even_when_it_alone_passes_the_character_cap() -> None:
    with Memory(location=":memory:", history_max_chars=100) as mem:
        rec = _rewritten(mem, 3, 500)

        assert [(e.event, (e.new_text or "")[:1]) for e in mem.history(rec.id)] == [("add", "0"), ("update", "3")]


def test_a_character_cap_of_zero_keeps_every_event_within_the_limit() -> None:
    with Memory(location=":memory:", history_max_chars=0) as mem:
        rec = _rewritten(mem, 10, 2_000)

        assert len(mem.history(rec.id)) == 11


async def test_the_async_engine_caps_history_characters_the_same_way() -> None:
    async with AsyncMemory(location=":memory:", history_max_chars=1_000) as mem:
        (rec,) = await mem.add("0" + "x" * 199, user_id="alice", kind="fact")
        for i in range(1, 10):
            await mem.update(rec.id, text=f"{i}" + "x" * 199)

        events = await mem.history(rec.id)

        assert [(e.event, (e.new_text or "")[:1]) for e in events] == [("add", "0"), ("update", "8"), ("update", "9")]


def test_the_character_cap_defaults_to_32k_and_refuses_a_negative_number() -> None:
    assert MemorySettings().history_max_chars == 32_000
    with pytest.raises(ConfigurationError, match="history_max_chars"):
        Memory(location=":memory:", history_max_chars=-1)
