"""Task memory through the server's doors: ReMe's documented request bodies on the ReMe-compatible HTTP routes, and
the MCP task tools over stdio, with the real servers as subprocesses and a scripted OpenAI-compatible LLM."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memadapt_core.testing import ScriptedLLMServer

from .conftest import LESSON, Server, by_operation, call, cli, eventually, llm_environment, taught_server, until

ANN = {"Authorization": "Bearer token-ann"}
BOB = {"Authorization": "Bearer token-bob"}


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=by_operation) as server:
        yield server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, llm: ScriptedLLMServer) -> Iterator[Server]:
    with taught_server(tmp_path_factory.mktemp("reme"), llm) as running:
        yield running


def test_remes_task_memory_bodies_store_trajectories_and_retrieve_experience(server: Server) -> None:
    summary = {
        "workspace_id": "task_workspace",
        "trajectories": [{"messages": [{"role": "user", "content": "Help me create a project plan"}], "score": 1.0}],
    }
    retrieve = {"workspace_id": "task_workspace", "query": "How to efficiently manage project progress?", "top_k": 1}

    stored = httpx.post(f"{server.url}/summary_task_memory", json=summary, headers=ANN, timeout=10)

    assert stored.status_code == 200, stored.text
    assert stored.json()["success"] is True
    assert stored.json()["metadata"]["memory_list"][0]["memory_type"] == "trajectory"

    def recalled() -> list[dict[str, Any]]:
        answer = httpx.post(f"{server.url}/retrieve_task_memory", json=retrieve, headers=BOB, timeout=10).json()
        return list(answer["metadata"]["memory_list"])

    (memory,) = eventually(recalled)  # Bob, another user of the workspace, benefits from Ann's run
    assert (memory["when_to_use"], memory["content"]) == (LESSON["when_to_use"], LESSON["content"])
    assert memory["workspace_id"] == "task_workspace"
    other = {**retrieve, "workspace_id": "other_workspace"}
    elsewhere = httpx.post(f"{server.url}/retrieve_task_memory", json=other, headers=BOB, timeout=10).json()
    assert elsewhere["metadata"]["memory_list"] == []


def test_remes_personal_memory_bodies_store_and_retrieve_the_users_memory(server: Server) -> None:
    summary = {
        "workspace_id": "task_workspace",
        "trajectories": [
            {
                "messages": [
                    {"role": "user", "content": "I like to drink coffee while working in the morning"},
                    {"role": "assistant", "content": "I understand, you prefer to start your workday with coffee"},
                ]
            }
        ],
    }
    retrieve = {"workspace_id": "task_workspace", "query": "What are the user's work habits? coffee", "top_k": 5}

    stored = httpx.post(f"{server.url}/summary_personal_memory", json=summary, headers=ANN, timeout=10)
    for_ann = httpx.post(f"{server.url}/retrieve_personal_memory", json=retrieve, headers=ANN, timeout=10).json()
    for_bob = httpx.post(f"{server.url}/retrieve_personal_memory", json=retrieve, headers=BOB, timeout=10).json()

    assert stored.status_code == 200, stored.text
    assert len(stored.json()["metadata"]["memory_list"]) == 2
    assert any("coffee" in m["content"] for m in for_ann["metadata"]["memory_list"])
    assert "coffee" in for_ann["answer"]
    assert for_bob["metadata"]["memory_list"] == []  # personal memory stays the user's


def test_remes_tool_memory_bodies_record_calls_and_return_the_guide(server: Server) -> None:
    result = {
        "create_time": "2025-10-21 10:30:00", "tool_name": "web_search",
        "input": {"query": "Python asyncio tutorial", "max_results": 10}, "output": "Found 10 relevant results...",
        "token_cost": 150, "success": True, "time_cost": 2.3,
    }  # fmt: skip
    calls = {"workspace_id": "tool_workspace", "tool_call_results": [result, {**result, "success": False}]}
    names = {"workspace_id": "tool_workspace", "tool_names": "web_search"}

    recorded = httpx.post(f"{server.url}/add_tool_call_result", json=calls, headers=ANN, timeout=10)

    assert recorded.status_code == 200, recorded.text
    assert len(recorded.json()["metadata"]["memory_list"]) == 2

    def guided() -> dict[str, Any] | None:
        answer = httpx.post(f"{server.url}/retrieve_tool_memory", json=names, headers=ANN, timeout=10).json()
        (tool,) = answer["metadata"]["memory_list"]
        return tool if tool["content"] else None

    tool = eventually(guided)  # every 2 calls (MEMADAPT_TASK_MEMORY__TOOL_GUIDE_EVERY) the guide is rewritten
    assert tool["content"] == "- Keep max_results at 5 or less."
    assert (tool["statistics"]["calls"], tool["statistics"]["success_rate"]) == (2, 0.5)
    summary = httpx.post(f"{server.url}/summary_tool_memory", json=names, headers=ANN, timeout=10).json()
    assert "Keep max_results at 5 or less." in summary["answer"]


@pytest.mark.parametrize(
    ("route", "body", "field"),
    [
        ("summary_task_memory", {"trajectories": []}, "workspace_id"),
        ("summary_task_memory", {"workspace_id": "w", "trajectories": [{"messages": []}]}, "trajectories[0].score"),
        ("retrieve_task_memory", {"workspace_id": "w"}, "query"),
        ("retrieve_personal_memory", {"workspace_id": "w", "query": "q", "top_k": 0}, "top_k"),
        ("retrieve_task_memory", {"workspace_id": "w", "query": "q", "top_k": "five"}, "top_k"),
        ("summary_personal_memory", {"workspace_id": "w", "trajectories": [{}]}, "trajectories[0].messages"),
        (
            "add_tool_call_result",
            {"workspace_id": "w", "tool_call_results": [{"input": {}}]},
            "tool_call_results[0].tool_name",
        ),
        (
            "add_tool_call_result",
            {"workspace_id": "w", "tool_call_results": [{"tool_name": "t", "time_cost": -1}]},
            "tool_call_results[0].time_cost",
        ),
        ("add_tool_call_result", {"workspace_id": "w", "tool_call_results": "x"}, "tool_call_results"),
        ("retrieve_tool_memory", {"workspace_id": "w", "tool_names": ""}, "tool_names"),
    ],
)
def test_bad_reme_bodies_are_422_naming_the_field(server: Server, route: str, body: dict[str, Any], field: str) -> None:
    response = httpx.post(f"{server.url}/{route}", json=body, headers=ANN, timeout=10)
    assert response.status_code == 422, response.text
    assert response.json()["field"] == field


def test_reme_routes_need_a_token(server: Server) -> None:
    body = {"workspace_id": "w", "query": "q"}
    assert httpx.post(f"{server.url}/retrieve_task_memory", json=body, timeout=10).status_code == 401


@asynccontextmanager
async def stdio_session(store: Path, llm: ScriptedLLMServer, *args: str) -> AsyncIterator[ClientSession]:
    command, *rest = cli("--path", str(store), "mcp", *args)
    params = StdioServerParameters(command=command, args=rest, env={**os.environ, **llm_environment(llm)})
    with open(store.parent / "mcp.log", "w", encoding="utf-8") as errlog:  # noqa: ASYNC230 - opening a log file
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


async def test_mcp_task_tools_learn_from_a_trajectory_and_guide_a_tool(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    trajectory = {"messages": [{"role": "user", "content": "Help me create a project plan"}], "score": 1.0}
    search = {"tool_name": "web_search", "arguments": {"max_results": 10}, "success": False, "duration": 2.0}
    async with stdio_session(tmp_path / "store", llm, "--user-id", "ann", "--agent-id", "planner") as session:
        added = await call(session, "add_trajectory", {**trajectory, "task": "plan a project"})

        async def experiences() -> list[dict[str, Any]]:
            found = await call(session, "retrieve_experience", {"task": "plan the next project"})
            return list(found["experiences"])

        (experience,) = await until(experiences)
        for _ in range(2):
            await call(session, "record_tool_call", search)

        async def guide() -> dict[str, Any] | None:
            found = await call(session, "get_tool_guide", {"tool_name": "web_search"})
            return found if found["guidelines"] else None

        written = await until(guide)
    assert len(added["ids"]) == 1
    assert (experience["when_to_use"], experience["lesson"]) == (LESSON["when_to_use"], LESSON["content"])
    assert written["guidelines"] == "- Keep max_results at 5 or less."
    assert (written["stats"]["calls"], written["stats"]["success_rate"]) == (2, 0.0)


async def test_mcp_task_tools_need_an_agent(tmp_path: Path, llm: ScriptedLLMServer) -> None:
    async with stdio_session(tmp_path / "store", llm, "--user-id", "ann") as session:
        result = await session.call_tool("retrieve_experience", {"task": "plan a project"})
    assert result.is_error
    assert "--agent-id" in str(result.content)
