"""`memadapt serve --host 0.0.0.0` serves remote MCP clients with either MCP SDK major: mcp 1.x's own
DNS-rebinding check, which acts as if the server were bound to 127.0.0.1, would answer each of them 421; memadapt's
Host and Origin lists (DoorCheck) guard that door instead. (tests/agentscope_runtime runs this under mcp 1.x.)"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.server.conftest import TOKENS, Server, running_server

INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}  # fmt: skip


@pytest.fixture(scope="module")
def any_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("bind")
    hosts = ("--allowed-host", "memory.example.com", "--allowed-host", "127.0.0.1")  # the readiness check's too
    with running_server(folder, TOKENS, "--host", "0.0.0.0", *hosts) as running:
        yield running


def _initialize(server: Server, host: str) -> httpx.Response:
    headers = {"Authorization": "Bearer token-ann", "Accept": "application/json, text/event-stream", "Host": host}
    return httpx.post(f"{server.url}/mcp", json=INITIALIZE, headers=headers, timeout=10)


def test_a_remote_client_naming_an_allowed_host_reaches_mcp_on_any_bind(any_address: Server) -> None:
    port = any_address.url.rsplit(":", 1)[1]
    answer = _initialize(any_address, f"memory.example.com:{port}")
    assert answer.status_code == 200, answer.text


def test_a_host_not_listed_is_refused_with_421_on_any_bind(any_address: Server) -> None:
    port = any_address.url.rsplit(":", 1)[1]
    assert _initialize(any_address, f"attacker.example.net:{port}").status_code == 421
