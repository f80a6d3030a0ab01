"""Bad settings are one ConfigurationError naming each setting on one line, never pydantic's report."""

from __future__ import annotations

import pytest

from memadapt_core import ConfigurationError, Memory


def test_bad_settings_name_each_setting_on_one_line() -> None:
    with pytest.raises(ConfigurationError) as err:
        Memory(location=":memory:", max_limit=0, timeout="soon")
    message = str(err.value)
    assert "\n" not in message
    assert "max_limit:" in message
    assert "timeout:" in message
