"""Bounded cost per request and cheap door checks on ``memadapt serve`` (issue 35): a service text limit (32,000
characters by default, whatever the engine's own limit), and clear 4xx answers where a bad request used to cost a
500 or a minute of CPU."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memadapt_core.errors import ConfigurationError
from memadapt_core.server.auth import load_tokens
from memadapt_core.server.run import DEFAULT_SERVICE_TEXT_CHARS, SERVICE_TEXT_ENV, service_text_limit

from .conftest import Server

ANN = {"Authorization": "Bearer token-ann"}
JSON = {"Content-Type": "application/json"}


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


@pytest.mark.parametrize("path", ["/v1/memories", "/v1/search", "/retrieve_task_memory", "/v1/count"])
def test_a_json_route_refuses_a_body_that_is_not_json_with_415(server: Server, path: str) -> None:
    body = json.dumps({"messages": "hi", "query": "hi", "workspace_id": "travel"})

    refused = httpx.post(f"{server.url}{path}", content=body, headers=ANN | {"Content-Type": "text/plain"}, timeout=30)

    assert refused.status_code == 415, refused.text


def test_a_patch_that_is_not_json_is_415(server: Server) -> None:
    plain = ANN | {"Content-Type": "text/plain"}

    refused = httpx.patch(f"{server.url}/v1/memories/x", content='{"text": "new"}', headers=plain, timeout=30)

    assert refused.status_code == 415


def test_a_chunked_body_over_the_limit_is_413(server: Server) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"messages": "'
        for _ in range(40):
            yield b"a" * 65_536  # 2.6 MB in all, sent without a Content-Length
        yield b'"}'

    refused = httpx.post(f"{server.url}/v1/memories", content=chunks(), headers=ANN | JSON, timeout=60)

    assert refused.status_code == 413, refused.text


def test_a_chunked_body_under_the_limit_is_read(server: Server) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"messages": "I keep my bike in the '
        yield b'cellar", "session_id": "chunked"}'

    added = httpx.post(f"{server.url}/v1/memories", content=chunks(), headers=ANN | JSON, timeout=60)

    assert added.status_code == 201, added.text


def test_json_nested_too_deep_is_422_not_a_500(server: Server) -> None:
    deep = '{"messages": "hi", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}"

    refused = httpx.post(f"{server.url}/v1/memories", content=deep, headers=ANN | JSON, timeout=30)

    assert (refused.status_code, refused.json()["field"]) == (422, "body")
    assert "Traceback" not in server.log.read_text()


@pytest.mark.parametrize("score", [7, 1e6, -0.5])
def test_a_trajectory_score_outside_zero_to_one_is_422_naming_it(server: Server, score: float) -> None:
    body = {
        "workspace_id": "travel",
        "trajectories": [{"messages": [{"role": "user", "content": "hi"}], "score": score}],
    }

    refused = httpx.post(f"{server.url}/summary_task_memory", json=body, headers=ANN, timeout=30)

    assert (refused.status_code, refused.json()["field"]) == (422, "trajectories[0].score")


def test_a_short_token_and_a_tokens_file_others_can_read_are_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({"qz7k": "ann", "x" * 32: "bob"}), encoding="utf-8")
    file.chmod(0o644)

    with caplog.at_level(logging.WARNING, logger="memadapt.server"):
        load_tokens(file)

    warned = caplog.text
    assert "1 token(s) shorter than 16 characters" in warned
    assert "chmod 600" in warned
    assert "qz7k" not in warned  # never the token itself


def test_a_long_token_in_a_private_file_is_not_warned_about(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({"x" * 32: "bob"}), encoding="utf-8")
    file.chmod(0o600)

    with caplog.at_level(logging.WARNING, logger="memadapt.server"):
        load_tokens(file)

    assert caplog.text == ""
