"""Grants: a token given as ``{"user": ..., "agents": [...]}`` reaches only those agents (workspaces), 403 for any
other on every route and MCP tool; a token given as a plain user id keeps reaching any agent (issue 35)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memadapt_core.errors import ConfigurationError
from memadapt_core.remote import RemoteMemory
from memadapt_core.server.auth import load_tokens

from .conftest import Server, running_server

TOKENS: dict[str, Any] = {
    "token-ann-granted": {"user": "ann", "agents": ["travel"]},
    "token-bob-plain": "bob",
}
ANN = {"Authorization": "Bearer token-ann-granted"}
BOB = {"Authorization": "Bearer token-bob-plain"}
STEP = {"messages": [{"role": "user", "content": "book a train"}], "score": 1.0}
OTHER_AGENT: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/v1/memories", {"messages": "hello", "agent_id": "shop"}),
    ("GET", "/v1/memories?agent_id=shop", {}),
    ("DELETE", "/v1/memories?agent_id=shop", {}),
    ("POST", "/v1/search", {"query": "hello", "agent_id": "shop"}),
    ("GET", "/v1/export?agent_id=shop", {}),
    ("POST", "/v1/count", {"agent_id": "shop"}),
    ("POST", "/v1/get", {"ids": [], "agent_id": "shop"}),
    ("GET", "/v1/profile?agent_id=shop", {}),
    ("POST", "/summary_task_memory", {"workspace_id": "shop", "trajectories": [STEP]}),
    ("POST", "/retrieve_task_memory", {"workspace_id": "shop", "query": "train"}),
    ("POST", "/summary_personal_memory", {"workspace_id": "shop", "trajectories": [STEP]}),
    ("POST", "/retrieve_personal_memory", {"workspace_id": "shop", "query": "train"}),
    ("POST", "/add_tool_call_result", {"workspace_id": "shop", "tool_call_results": [{"tool_name": "pay"}]}),
    ("POST", "/retrieve_tool_memory", {"workspace_id": "shop", "tool_names": "pay"}),
    ("POST", "/summary_tool_memory", {"workspace_id": "shop", "tool_names": "pay"}),
    ("POST", "/v1/trajectories", {"trajectories": [STEP], "agent_id": "shop"}),
    ("POST", "/v1/experiences/search", {"task": "train", "agent_id": "shop"}),
    ("POST", "/v1/tool_calls", {"calls": [{"name": "pay"}], "agent_id": "shop"}),
    ("GET", "/v1/tool_stats?tool_name=pay&agent_id=shop", {}),
    ("GET", "/v1/tool_guide?tool_name=pay&agent_id=shop", {}),
    ("GET", "/v1/recent?agent_id=shop", {}),
]
# Task memory a user writes is theirs: naming another user is refused even in a granted agent.
OTHER_USER: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/v1/trajectories", {"trajectories": [STEP], "agent_id": "travel", "user_id": "bob"}),
    ("POST", "/v1/tool_calls", {"calls": [{"name": "pay"}], "agent_id": "travel", "user_id": "bob"}),
    ("GET", "/v1/recent?agent_id=travel&user_id=bob", {}),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("grants"), TOKENS) as running:
        yield running


def send(server: Server, headers: dict[str, str], method: str, path: str, body: dict[str, Any]) -> httpx.Response:
    content = json.dumps(body) if method == "POST" else None
    json_type = {"Content-Type": "application/json"}
    return httpx.request(method, f"{server.url}{path}", content=content, headers=headers | json_type, timeout=30)


REFUSED = [(*row, "shop") for row in OTHER_AGENT] + [(*row, "user_id") for row in OTHER_USER]


@pytest.mark.parametrize(("method", "path", "body", "named"), REFUSED, ids=[f"{m} {p}" for m, p, _, _ in REFUSED])
def test_a_granted_token_gets_403_for_an_agent_it_was_not_granted_or_another_user(
    server: Server, method: str, path: str, body: dict[str, Any], named: str
) -> None:
    refused = send(server, ANN, method, path, body)

    assert refused.status_code == 403, refused.text
    assert named in refused.json()["message"]


def test_a_remote_client_is_refused_an_agent_its_token_was_not_granted(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann-granted") as remote:
        granted = remote.experiences("book a train", agent_id="travel")
        with pytest.raises(ConfigurationError, match="shop"):
            remote.experiences("book a train", agent_id="shop")
        with pytest.raises(ConfigurationError, match="shop"):
            remote.record_tool_calls({"name": "pay"}, agent_id="shop")

    assert granted == []


def test_a_granted_token_reaches_its_own_agent(server: Server) -> None:
    added = send(server, ANN, "POST", "/v1/memories", {"messages": "hello", "agent_id": "travel"})
    recalled = send(server, ANN, "POST", "/retrieve_task_memory", {"workspace_id": "travel", "query": "train"})

    assert (added.status_code, recalled.status_code) == (201, 200)


def test_a_plain_token_still_reaches_any_agent(server: Server) -> None:
    added = send(server, BOB, "POST", "/v1/memories", {"messages": "hello", "agent_id": "shop"})

    assert added.status_code == 201, added.text


async def test_a_server_for_an_agent_refuses_a_token_not_granted_it(tmp_path: Path) -> None:
    with running_server(tmp_path, TOKENS, "--agent-id", "shop") as shop:
        async with httpx.AsyncClient(base_url=shop.url, timeout=30) as client:
            refused = await client.get("/v1/memories", headers=ANN)
            listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            accept = {"Accept": "application/json, text/event-stream"}
            refused_mcp = await client.post("/mcp", json=listing, headers=ANN | accept)
            allowed = await client.get("/v1/memories", headers=BOB)
    assert (refused.status_code, refused_mcp.status_code, allowed.status_code) == (403, 403, 200)


def test_the_tokens_file_takes_user_ids_and_grants(tmp_path: Path) -> None:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps(TOKENS), encoding="utf-8")

    tokens = load_tokens(file)

    ann, bob = tokens.access_of("token-ann-granted"), tokens.access_of("token-bob-plain")
    assert ann is not None
    assert bob is not None
    assert (ann.scope.user_id, ann.agents, bob.scope.user_id, bob.agents) == ("ann", frozenset({"travel"}), "bob", None)


@pytest.mark.parametrize(
    "value",
    [{"agents": ["travel"]}, {"user": "ann", "agents": "travel"}, {"user": "ann", "agent": ["x"]}, {"user": ""}, 7],
)
def test_a_malformed_grant_is_a_configuration_error(tmp_path: Path, value: object) -> None:
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({"token-x": value}), encoding="utf-8")

    with pytest.raises(ConfigurationError, match=r"tokens\.json"):
        load_tokens(file)
