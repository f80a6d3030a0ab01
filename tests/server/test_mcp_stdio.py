"""`memadapt mcp`: the MCP SDK's own client talks to the real server over stdio."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memadapt_core import Memory
from memadapt_core.cli import main
from tests._planted import plant

from .conftest import TOOLS, call, cli


@asynccontextmanager
async def stdio_session(store: Path, *args: str) -> AsyncIterator[ClientSession]:
    command, *rest = cli("--path", str(store), "mcp", *args)
    # The SDK passes a child only a few safe variables: hand it the suite's MEMADAPT_* settings (conftest.py) too, so
    # the server and the test open the store with the same embedder.
    params = StdioServerParameters(command=command, args=rest, env=dict(os.environ))
    with open(store.parent / "mcp.log", "w", encoding="utf-8") as errlog:  # noqa: ASYNC230 - opening a log file
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def test_stdio_server_lists_its_tools_and_the_recent_resource(tmp_path: Path) -> None:
    async with stdio_session(tmp_path / "store", "--user-id", "ann") as session:
        tools = (await session.list_tools()).tools
        resources = (await session.list_resources()).resources
    assert {t.name for t in tools} == TOOLS
    assert all(t.description and len(t.description) > 80 for t in tools)
    assert "user_id" not in json.dumps([t.input_schema for t in tools])
    assert [str(r.uri) for r in resources] == ["memory://recent"]


async def test_stdio_add_search_list_history_delete(tmp_path: Path) -> None:
    async with stdio_session(tmp_path / "store", "--user-id", "ann") as session:
        added = await call(session, "add_memory", {"content": "I keep bees in the garden", "session_id": "s1"})
        (memory_id,) = added["ids"]
        found = await call(session, "search_memory", {"query": "bees", "limit": 3})
        listed = await call(session, "list_memories", {"session_id": "s1"})
        history = await call(session, "get_memory_history", {"memory_id": memory_id})
        recent = await session.read_resource("memory://recent")
        deleted = await call(session, "delete_memory", {"memory_id": memory_id})
        again = await call(session, "delete_memory", {"memory_id": memory_id})
    assert [h["id"] for h in found["hits"]] == [memory_id]
    assert "I keep bees in the garden" in found["context"]
    assert [m["text"] for m in listed["memories"]] == ["I keep bees in the garden"]
    assert listed["next_cursor"] is None
    assert [e["event"] for e in history["events"]] == ["add"]
    assert "I keep bees in the garden" in recent.contents[0].text  # type: ignore[union-attr]
    assert (deleted, again) == ({"deleted": True}, {"deleted": False})


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("search_memory", {"query": "   "}, "query"),
    ("add_memory", {"content": "x", "kind": "thought"}, "kind"),
    ("list_memories", {"limit": "many"}, "limit"),
    ("add_memory", {"content": "x", "timestamp": "yesterday-ish"}, "timestamp"),
    ("add_memory", {"content": ""}, "content"),
    ("search_memory", {"query": "bees", "time_range": ["2024-01-01"]}, "time_range"),
    ("delete_memory", {}, "memory_id"),
    ("delete_memory", {"memory_id": "not-a-uuid"}, "memory_id: 'not-a-uuid' is not a memory id"),
    ("get_memory_history", {"memory_id": "not-a-uuid"}, "memory_id: 'not-a-uuid' is not a memory id"),
    ("list_memories", {"cursor": "not-a-cursor"}, "cursor"),
    ("search_memory", {}, "query: Field required"),
    ("search_memory", {"query": "bees", "limit": "many"}, "limit: Input should be a valid integer"),
]


async def test_bad_arguments_come_back_as_tool_errors_naming_the_argument(tmp_path: Path) -> None:
    async with stdio_session(tmp_path / "store", "--user-id", "ann") as session:  # one server for every case
        results = [(await session.call_tool(tool, arguments), words) for tool, arguments, words in BAD_CALLS]
    for result, words in results:
        text = " ".join(getattr(c, "text", "") for c in result.content)
        assert result.is_error, text
        assert words in text
        assert "Traceback" not in text
        assert "errors.pydantic.dev" not in text
        assert "Arguments" not in text


async def test_memory_added_over_mcp_is_found_by_the_python_api_after_the_server_stops(tmp_path: Path) -> None:
    store = tmp_path / "store"
    async with stdio_session(store, "--user-id", "ann", "--agent-id", "desk") as session:
        await call(session, "add_memory", {"content": "My sister's name is Ilse", "kind": "fact"})
    with Memory(path=str(store)) as memory:
        hits = memory.search("sister's name", user_id="ann", agent_id="desk")
    assert [(h.record.text, h.record.kind) for h in hits] == [("My sister's name is Ilse", "fact")]


def test_stdio_server_without_a_user_exits_with_a_configuration_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MEMADAPT_MCP_USER_ID", raising=False)
    code = main(["--path", str(tmp_path / "store"), "mcp"])
    assert code == 4
    assert "--user-id" in capsys.readouterr().err


async def test_stdio_get_user_profile_returns_the_users_profile(tmp_path: Path) -> None:
    with Memory(path=tmp_path / "store") as mem:
        plant(mem, "Allergic to peanuts", user_id="ann", kind="profile", metadata={"section": "constraints"})
        plant(mem, "Loves opera", user_id="bob", kind="profile", metadata={"section": "interests"})
    async with stdio_session(tmp_path / "store", "--user-id", "ann") as session:
        found = await call(session, "get_user_profile", {})
    assert found["profile"] == ["constraints: Allergic to peanuts"]
    assert found["version"] == 1
