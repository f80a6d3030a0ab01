"""Bad settings are one ConfigurationError naming each setting on one line, never pydantic's report."""

from __future__ import annotations

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


def test_an_option_overriding_given_settings_is_checked_as_they_were() -> None:
    settings = MemorySettings(location=":memory:")
    with pytest.raises(ConfigurationError, match="max_limit:"):
        Memory(settings=settings, max_limit=-5)
    with Memory(settings=settings, max_limit=50) as mem:
        assert mem.settings.max_limit == 50
