"""Engines opened on one folder in one process share the open store; the last to close closes it."""

from __future__ import annotations

from pathlib import Path

import pytest

from memadapt_core import AsyncMemory, ConfigurationError, Memory, StoreUnavailableError


def test_a_second_engine_on_an_open_folder_shares_the_store(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as first, Memory(path=tmp_path) as second:
        first.add("I moved to Lisbon in March.", user_id="alice")

        assert second.count(user_id="alice") == 1


def test_the_store_stays_open_until_its_last_engine_closes(tmp_path: Path) -> None:
    first, second = Memory(path=tmp_path), Memory(path=tmp_path)
    first.close()
    first.close()  # a second close gives back nothing more

    second.add("I moved to Lisbon in March.", user_id="alice")
    assert second.count(user_id="alice") == 1
    with pytest.raises(StoreUnavailableError, match="closed"):
        first.count(user_id="alice")
    second.close()

    with Memory(path=tmp_path) as reopened:
        assert reopened.count(user_id="alice") == 1


def test_an_engine_asking_for_other_settings_is_refused_naming_them(tmp_path: Path) -> None:
    with Memory(path=tmp_path), pytest.raises(ConfigurationError, match="history_limit"):
        Memory(path=tmp_path, history_limit=3)


def test_memory_location_stores_are_never_shared() -> None:
    with Memory(location=":memory:") as first, Memory(location=":memory:") as second:
        first.add("only here", user_id="alice")

        assert second.count(user_id="alice") == 0


async def test_async_open_builds_the_engine_off_the_loop_and_shares_the_folder(tmp_path: Path) -> None:
    engine = await AsyncMemory.open(path=tmp_path)
    with Memory.open(path=tmp_path) as sync_engine:
        await engine.add("I moved to Lisbon in March.", user_id="alice")

        assert isinstance(engine, AsyncMemory)
        assert sync_engine.count(user_id="alice") == 1
    await engine.close()
