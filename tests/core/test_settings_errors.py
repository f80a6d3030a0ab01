"""Bad settings are one ConfigurationError naming each setting on one line, never pydantic's report."""

from __future__ import annotations

import re
from typing import Any

import pytest

from memadapt_core import ConfigurationError, Memory, MemorySettings


def test_bad_settings_name_each_setting_on_one_line() -> None:
    with pytest.raises(ConfigurationError) as err:
        Memory(location=":memory:", max_limit=0, timeout="soon")
    message = str(err.value)
    assert "\n" not in message
    assert "max_limit:" in message
    assert "timeout:" in message


def test_an_unknown_option_is_refused_even_when_it_is_none() -> None:
    with pytest.raises(ConfigurationError, match="max_limt: not an option"):
        Memory(location=":memory:", max_limt=None)


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"retrieval": {"candidate": 100}}, "retrieval.candidate"),
        ({"retrieval": {"bogus": None}}, "retrieval.bogus"),
        ({"embedder": {"provider": "hash", "modle": "x"}}, "embedder.modle"),
        ({"llm": {"temprature": 0}}, "llm.temprature"),
        ({"task_memory": {"score_wieght": 1}}, "task_memory.score_wieght"),
    ],
)
def test_a_misspelt_setting_inside_a_group_is_refused_by_its_path(options: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigurationError, match=f"{re.escape(named)}: not an option"):
        Memory(location=":memory:", **options)


def test_a_misspelt_setting_in_the_environment_is_refused_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMADAPT_RETRIEVAL__CANDIDATE", "100")
    with pytest.raises(ConfigurationError, match=r"retrieval\.candidate: not an option"):
        Memory(location=":memory:")


def test_an_option_overriding_given_settings_is_checked_as_they_were() -> None:
    settings = MemorySettings(location=":memory:")
    with pytest.raises(ConfigurationError, match="max_limit:"):
        Memory(settings=settings, max_limit=-5)
    with Memory(settings=settings, max_limit=50) as mem:
        assert mem.settings.max_limit == 50
