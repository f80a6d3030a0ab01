"""An MCP session belongs to the token that opened it: another token naming it is told no such session exists."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import Server

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
}  # fmt: skip
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}


def _headers(token: str, session: str | None = None) -> dict[str, str]:
    extra = {"Mcp-Session-Id": session} if session else {}
    return {**MCP_HEADERS, "Authorization": f"Bearer {token}", **extra}


def _open_session(server: Server, token: str) -> str:
    opened = httpx.post(f"{server.url}/mcp", json=INITIALIZE, headers=_headers(token), timeout=10)
    assert opened.status_code == 200, opened.text
    session: str = opened.headers["mcp-session-id"]
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx.post(f"{server.url}/mcp", json=ready, headers=_headers(token, session), timeout=10).status_code < 300
    return session


def _post(server: Server, token: str, session: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.url}/mcp", json=body, headers=_headers(token, session), timeout=10)


def test_another_token_cannot_use_a_session_it_did_not_open(server: Server) -> None:
    session = _open_session(server, "token-ann")
    refused = _post(server, "token-bob", session, LIST_TOOLS)
    assert refused.status_code == 404
    assert _post(server, "token-ann", session, LIST_TOOLS).status_code == 200


def test_another_token_cannot_end_a_session_it_did_not_open(server: Server) -> None:
    session = _open_session(server, "token-ann")
    ended = httpx.delete(f"{server.url}/mcp", headers=_headers("token-bob", session), timeout=10)
    assert ended.status_code == 404
    assert _post(server, "token-ann", session, LIST_TOOLS).status_code == 200


def test_the_token_that_opened_a_session_can_end_it(server: Server) -> None:
    session = _open_session(server, "token-ann")
    assert httpx.delete(f"{server.url}/mcp", headers=_headers("token-ann", session), timeout=10).status_code == 200
    assert _post(server, "token-ann", session, LIST_TOOLS).status_code == 404
