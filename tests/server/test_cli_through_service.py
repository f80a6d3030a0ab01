"""`memadapt --server URL --token T <command>`: the CLI acts on a running `memadapt serve` as the token's user."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from memadapt_core.cli import main
from memadapt_core.cli.output import EXIT_CONFIG, EXIT_OK

from .conftest import Server, running_server

TOKENS = {"token-ann-0123456789": "ann", "token-bob-0123456789": "bob"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("cli"), TOKENS) as running:
        yield running


def _cli(server: Server, token: str, *args: str) -> int:
    return main(["--server", server.url, "--token", token, *args])


def test_add_search_and_list_go_through_the_service_as_the_tokens_user(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(server, "token-ann-0123456789", "add", "I keep bees on the roof") == EXIT_OK
    capsys.readouterr()
    assert _cli(server, "token-ann-0123456789", "--json", "search", "which insects do I keep?") == EXIT_OK
    (hit,) = json.loads(capsys.readouterr().out)
    assert (hit["record"]["text"], hit["record"]["user_id"]) == ("I keep bees on the roof", "ann")
    assert _cli(server, "token-bob-0123456789", "--json", "list") == EXIT_OK
    assert json.loads(capsys.readouterr().out)["records"] == []


def test_a_command_that_acts_on_the_store_itself_is_refused_with_server(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _cli(server, "token-ann-0123456789", "stats") == EXIT_CONFIG
    assert "acts on the store itself" in capsys.readouterr().err


def test_server_without_a_token_is_a_configuration_error(
    server: Server, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMADAPT_TOKEN", raising=False)
    assert main(["--server", server.url, "list"]) == EXIT_CONFIG
    assert "--server needs a token" in capsys.readouterr().err
