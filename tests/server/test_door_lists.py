"""Host and Origin allow-lists on ``memadapt serve`` for ``/mcp`` and the JSON routes alike, whatever the bind and
the MCP SDK's major (issue 35): a browser Origin is refused unless listed; with ``--allowed-host``, another Host
is 421."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from .conftest import TOKENS, Server, running_server

ANN = {"Authorization": "Bearer token-ann"}
LISTED = "https://app.example.com"
MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    lists = ("--allowed-origin", LISTED, "--allowed-host", "127.0.0.1")
    with running_server(tmp_path_factory.mktemp("doors"), TOKENS, *lists) as running:
        yield running


@pytest.mark.parametrize("path", ["/v1/search", "/mcp", "/retrieve_task_memory"])
def test_a_browser_origin_not_listed_is_403(server: Server, path: str) -> None:
    evil = ANN | MCP_ACCEPT | {"Origin": "https://evil.example"}

    refused = httpx.post(f"{server.url}{path}", json=MCP_LIST | {"query": "x"}, headers=evil, timeout=30)

    assert refused.status_code == 403, refused.text


def test_a_listed_origin_passes(server: Server) -> None:
    listed = ANN | {"Origin": LISTED}

    found = httpx.post(f"{server.url}/v1/search", json={"query": "bike"}, headers=listed, timeout=30)

    assert found.status_code == 200, found.text


def test_a_host_not_listed_is_421_on_mcp_and_the_json_routes(server: Server) -> None:
    rebound = ANN | MCP_ACCEPT | {"Host": "attacker.example"}

    json_route = httpx.post(f"{server.url}/v1/search", json={"query": "x"}, headers=rebound, timeout=30)
    mcp = httpx.post(f"{server.url}/mcp", json=MCP_LIST, headers=rebound, timeout=30)

    assert (json_route.status_code, mcp.status_code) == (421, 421)


def test_a_program_sending_no_origin_passes(server: Server) -> None:
    found = httpx.post(f"{server.url}/v1/search", json={"query": "bike"}, headers=ANN, timeout=30)

    assert found.status_code == 200
