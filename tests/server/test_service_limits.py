"""Bounded cost per request and cheap door checks on ``memadapt serve`` (issue 35): a service text limit (32,000
characters by default, whatever the engine's own limit), and clear 4xx answers where a bad request used to cost a
500 or a minute of CPU."""

from __future__ import annotations

import httpx
import pytest

from memadapt_core.errors import ConfigurationError
from memadapt_core.server.run import DEFAULT_SERVICE_TEXT_CHARS, SERVICE_TEXT_ENV, service_text_limit

from .conftest import Server

ANN = {"Authorization": "Bearer token-ann"}


def test_a_message_over_the_service_text_limit_is_422_naming_the_option(server: Server) -> None:
    long = "a" * (DEFAULT_SERVICE_TEXT_CHARS + 1)

    refused = httpx.post(f"{server.url}/v1/memories", json={"messages": long}, headers=ANN, timeout=30)

    assert refused.status_code == 422, refused.text
    assert refused.json()["field"].startswith("messages")
    assert "--max-text-chars" in refused.json()["message"]


def test_a_query_over_the_service_text_limit_is_422(server: Server) -> None:
    long = "where " * (DEFAULT_SERVICE_TEXT_CHARS // 5)

    refused = httpx.post(f"{server.url}/v1/search", json={"query": long}, headers=ANN, timeout=30)

    assert (refused.status_code, refused.json()["field"]) == (422, "query")


def test_the_service_text_limit_is_32000_unless_the_option_or_the_setting_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SERVICE_TEXT_ENV, raising=False)
    assert service_text_limit(None) == 32_000
    monkeypatch.setenv(SERVICE_TEXT_ENV, "5000")
    assert (service_text_limit(None), service_text_limit(700)) == (5000, 700)


@pytest.mark.parametrize("bad", [0, -3])
def test_a_service_text_limit_below_one_is_a_configuration_error(bad: int) -> None:
    with pytest.raises(ConfigurationError, match="--max-text-chars"):
        service_text_limit(bad)
