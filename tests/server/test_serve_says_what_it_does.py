"""`memadapt serve` says what it does: a start line (address, store, users, LLM), and a lock error naming it."""

from __future__ import annotations

import pytest

from memadapt_core.cli import main
from memadapt_core.cli.output import EXIT_STORE

from .conftest import Server


def test_serve_prints_its_address_store_users_and_llm_on_start(server: Server) -> None:
    said = server.log.read_text(encoding="utf-8")
    assert f"listening on {server.url}" in said
    assert f"store: embedded store {server.store}" in said
    assert "users: 2 users (ann, bob)" in said
    assert "llm:   none" in said
    assert "MEMADAPT_LLM__MODEL" in said


def test_serve_never_prints_a_token(server: Server) -> None:
    said = server.log.read_text(encoding="utf-8")
    assert "token-ann" not in said
    assert "token-bob" not in said


def test_a_command_on_a_served_store_is_told_to_talk_to_the_service(
    server: Server, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["--path", str(server.store), "list", "--user", "ann"])
    error = capsys.readouterr().err
    assert code == EXIT_STORE
    assert f"`memadapt serve` at {server.url} (pid {server.process.pid})" in error
    assert f"--server {server.url}" in error
