"""`memadapt serve`: the MCP SDK's own client over streamable HTTP at /mcp, each request scoped by its token."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from memadapt_core import Memory

from .conftest import TOOLS, Server, call, running_server


@asynccontextmanager
async def http_session(server: Server, token: str) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30.0) as client,
        streamable_http_client(f"{server.url}/mcp", http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def test_http_add_search_list_history_delete(server: Server) -> None:
    async with http_session(server, "token-ann") as session:
        tools = (await session.list_tools()).tools
        added = await call(session, "add_memory", {"content": "I play the cello on Sundays", "session_id": "h1"})
        (memory_id,) = added["ids"]
        found = await call(session, "search_memory", {"query": "cello"})
        listed = await call(session, "list_memories", {"session_id": "h1"})
        history = await call(session, "get_memory_history", {"memory_id": memory_id})
        deleted = await call(session, "delete_memory", {"memory_id": memory_id})
    assert {t.name for t in tools} == TOOLS
    assert [h["id"] for h in found["hits"]] == [memory_id]
    assert [m["id"] for m in listed["memories"]] == [memory_id]
    assert [e["event"] for e in history["events"]] == ["add"]
    assert deleted == {"deleted": True}


async def test_one_users_token_never_reaches_another_users_memories(server: Server) -> None:
    async with http_session(server, "token-ann") as ann:
        added = await call(ann, "add_memory", {"content": "My bank PIN hint is the lighthouse", "session_id": "iso"})
    (ann_id,) = added["ids"]
    async with http_session(server, "token-bob") as bob:
        found = await call(bob, "search_memory", {"query": "bank PIN lighthouse", "session_id": "iso"})
        listed = await call(bob, "list_memories", {"session_id": "iso"})
        history = await call(bob, "get_memory_history", {"memory_id": ann_id})
        deleted = await call(bob, "delete_memory", {"memory_id": ann_id})
    async with http_session(server, "token-ann") as ann:
        still = await call(ann, "list_memories", {"session_id": "iso"})
    assert (found["hits"], listed["memories"], history["events"], deleted) == ([], [], [], {"deleted": False})
    assert [m["id"] for m in still["memories"]] == [ann_id]


async def test_recent_memories_resource_shows_only_the_tokens_user(server: Server) -> None:
    async with http_session(server, "token-ann") as ann:
        await call(ann, "add_memory", {"content": "Ann's recent thought about kites", "session_id": "recent"})
        anns = await ann.read_resource("memory://recent")
        one = await ann.read_resource("memory://recent?limit=1")
    async with http_session(server, "token-bob") as bob:
        bobs = await bob.read_resource("memory://recent")
    assert "kites" in anns.contents[0].text  # type: ignore[union-attr]
    assert len(one.contents[0].text.splitlines()) == 1  # type: ignore[union-attr]
    assert "kites" not in bobs.contents[0].text  # type: ignore[union-attr]


async def test_mcp_without_a_known_token_is_refused_with_401(server: Server) -> None:
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    async with httpx.AsyncClient(timeout=10.0) as client:
        none = await client.post(f"{server.url}/mcp", json=request)
        unknown = await client.post(f"{server.url}/mcp", json=request, headers={"Authorization": "Bearer guess"})
    assert (none.status_code, unknown.status_code) == (401, 401)
    assert none.headers["www-authenticate"].startswith("Bearer")


async def test_bad_arguments_over_http_are_tool_errors(server: Server) -> None:
    async with http_session(server, "token-ann") as session:
        result = await session.call_tool("search_memory", {"query": "x", "kinds": ["dreams"]})
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert result.is_error
    assert "kinds" in text
    assert "Traceback" not in text


async def test_server_survives_a_client_that_disconnects_mid_call(server: Server) -> None:
    long_text = "I collect old maps of harbours. " * 2000
    async with http_session(server, "token-ann") as session:
        with anyio.move_on_after(0.02):  # give up while the call is in flight, then hang up
            await session.call_tool("add_memory", {"content": long_text, "session_id": "drop"})
    port = int(server.url.rsplit(":", 1)[1])
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:  # a request cut off half-way through its body
        head = "POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer token-ann\r\n"
        await stream.send(f"{head}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n".encode())
        await stream.send(b'{"messages": "half')
    async with http_session(server, "token-ann") as session:
        added = await call(session, "add_memory", {"content": "Still listening", "session_id": "drop2"})
        listed = await call(session, "list_memories", {"session_id": "drop2"})
    assert server.process.poll() is None
    assert [m["id"] for m in listed["memories"]] == added["ids"]


async def test_memory_added_over_http_is_found_by_the_python_api_after_the_server_stops(tmp_path: Path) -> None:
    with running_server(tmp_path / "own") as own:
        async with http_session(own, "token-bob") as session:
            await call(session, "add_memory", {"content": "Bob's flight to Lisbon leaves on Friday", "kind": "fact"})
    with Memory(path=str(own.store)) as memory:
        hits = memory.search("flight to Lisbon", user_id="bob")
    assert [h.record.text for h in hits] == ["Bob's flight to Lisbon leaves on Friday"]
