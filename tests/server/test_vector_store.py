"""``POST /vector_store``: ReMe's README flow against ``memadapt serve`` (the operator loads a library, then any
user of the agent recalls its lessons), and nobody else loads, dumps, lists or deletes, nor reaches outside the
library folder (issue 39)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from memadapt_core.errors import ConfigurationError
from memadapt_core.server.auth import Forbidden, load_tokens
from memadapt_core.server.routes.library import confined

from .conftest import Server, running_server

TOKENS: dict[str, Any] = {
    "token-ops-operator": {"user": "ops", "operator": True},
    "token-ann-granted": {"user": "ann", "agents": ["appworld"]},
    "token-bob-plain": "bob",
}
OPS = {"Authorization": "Bearer token-ops-operator"}
TENANTS = {
    "granted": {"Authorization": "Bearer token-ann-granted"},
    "plain": {"Authorization": "Bearer token-bob-plain"},
}
SETTINGS_LESSON: dict[str, Any] = {
    "workspace_id": "appworld_8b_0725", "memory_id": "5be0a5f0c41a4a0e9b8c1d2e3f4a5b6c", "memory_type": "task",
    "when_to_use": "When you need to change a user's profile details through an app's settings.",
    "content": "Open the settings page first, then call the profile update API with only the fields that change.",
    "score": 0.0, "time_created": "2025-07-24 21:15:17", "time_modified": "2025-07-24 21:15:17",
    "author": "qwen3-8b", "metadata": {"author": "qwen3-8b", "extra_info": None},
}  # fmt: skip
OTHER_LESSONS = [
    {**SETTINGS_LESSON, "memory_id": f"0c0ffee000000000000000000000000{n}", "when_to_use": when, "content": what}
    for n, (when, what) in enumerate([
        ("When a paginated API response may hide the item you look for.", "Loop until an empty page comes back."),
        ("When a song id must be shown as its title.", "Map ids to titles with the catalogue API before answering."),
        ("When an API call needs an access token.", "Log in first and pass the token the login returns."),
    ])
]  # fmt: skip
QUERY = "How to navigate to settings and update user profile?"


def lines(*memories: dict[str, Any] | str) -> str:
    return "".join((m if isinstance(m, str) else json.dumps(m)) + "\n" for m in memories)


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The library folder (ReMe's layout: docs/library/appworld.jsonl) and a folder outside it."""
    root = tmp_path_factory.mktemp("vector-store")
    library, outside = root / "library", root / "outside"
    (library / "docs" / "library").mkdir(parents=True)
    outside.mkdir()
    (library / "docs" / "library" / "appworld.jsonl").write_text(lines(SETTINGS_LESSON, *OTHER_LESSONS))
    (library / "bad.jsonl").write_text(lines(SETTINGS_LESSON, '{"memory_id": "x", "score": "high"}'))
    (outside / "secret.jsonl").write_text(lines({**SETTINGS_LESSON, "memory_id": "secret"}))
    (library / "escape").symlink_to(outside, target_is_directory=True)
    (library / "dumps").mkdir()
    (library / "dumps" / "dumped.jsonl").symlink_to(outside / "dumped.jsonl")
    return library, outside


@pytest.fixture(scope="module")
def server(folders: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    library, _ = folders
    with running_server(tmp_path_factory.mktemp("serve"), TOKENS, "--library-dir", str(library)) as running:
        yield running


def post(server: Server, headers: dict[str, str], path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.url}{path}", json=body, headers=headers, timeout=60)


def test_remes_readme_flow_loads_appworld_and_recalls_a_lesson_from_it(server: Server) -> None:
    loaded = post(server, OPS, "/vector_store", {"workspace_id": "appworld", "action": "load",
                                                 "path": "./docs/library/"})  # fmt: skip
    recalled = post(server, OPS, "/retrieve_task_memory", {"workspace_id": "appworld", "query": QUERY, "top_k": 1})

    assert loaded.status_code == 200, loaded.text
    assert loaded.json()["metadata"]["action_result"]["size"] == 4
    memories = recalled.json()["metadata"]["memory_list"]
    assert [m["content"] for m in memories] == [SETTINGS_LESSON["content"]]


def test_a_user_of_the_agent_recalls_the_loaded_lessons(server: Server) -> None:
    post(server, OPS, "/vector_store", {"workspace_id": "appworld", "action": "load", "path": "docs/library"})

    recalled = post(server, TENANTS["granted"], "/retrieve_task_memory", {"workspace_id": "appworld", "query": QUERY})

    assert SETTINGS_LESSON["content"] in recalled.json()["answer"]


def test_loading_the_library_again_adds_nothing(server: Server) -> None:
    body = {"workspace_id": "again", "action": "load", "path": "docs/library/appworld.jsonl"}
    first = post(server, OPS, "/vector_store", body).json()["metadata"]["action_result"]
    again = post(server, OPS, "/vector_store", body).json()["metadata"]["action_result"]

    assert (first["added"], again["added"], again["already_stored"]) == (4, 0, 4)


def test_list_gives_the_lessons_in_remes_format_and_delete_removes_them(server: Server) -> None:
    post(
        server,
        OPS,
        "/vector_store",
        {"workspace_id": "listed", "action": "load", "path": "docs/library/appworld.jsonl"},
    )

    listed = post(server, OPS, "/vector_store", {"workspace_id": "listed", "action": "list"}).json()
    deleted = post(server, OPS, "/vector_store", {"workspace_id": "listed", "action": "delete"}).json()
    after = post(server, OPS, "/vector_store", {"workspace_id": "listed", "action": "list"}).json()

    memories = listed["metadata"]["action_result"]
    assert {m["memory_id"] for m in memories} == {
        SETTINGS_LESSON["memory_id"],
        *(m["memory_id"] for m in OTHER_LESSONS),
    }
    assert all(m["workspace_id"] == "listed" and m["memory_type"] == "task" for m in memories)
    assert deleted["metadata"]["action_result"] == {"deleted": 4}
    assert after["metadata"]["action_result"] == []


def test_dump_writes_the_workspace_file_in_the_library(server: Server, folders: tuple[Path, Path]) -> None:
    library, _ = folders
    post(
        server,
        OPS,
        "/vector_store",
        {"workspace_id": "dumped-ws", "action": "load", "path": "docs/library/appworld.jsonl"},
    )

    dumped = post(server, OPS, "/vector_store", {"workspace_id": "dumped-ws", "action": "dump", "path": "dumps"})

    assert dumped.json()["metadata"]["action_result"] == {"size": 4}
    written = [json.loads(line) for line in (library / "dumps" / "dumped-ws.jsonl").read_text().splitlines()]
    assert {m["when_to_use"] for m in written} >= {SETTINGS_LESSON["when_to_use"]}


def test_a_malformed_line_is_named(server: Server) -> None:
    refused = post(server, OPS, "/vector_store", {"workspace_id": "bad", "action": "load", "path": "."})

    assert refused.status_code == 422
    assert "bad.jsonl line 2: score" in refused.json()["message"]


@pytest.mark.parametrize("action", ["load", "dump", "list", "delete"])
@pytest.mark.parametrize("tenant", sorted(TENANTS))
def test_a_tenant_token_gets_403_for_every_action(server: Server, tenant: str, action: str) -> None:
    body = {"workspace_id": "appworld", "action": action, "path": "docs/library"}

    refused = post(server, TENANTS[tenant], "/vector_store", body)

    assert refused.status_code == 403, refused.text
    assert "operator" in refused.json()["message"]


ESCAPES = {
    "dot-dot": ("load", "docs/../../outside", "secret"),
    "absolute": ("load", "{outside}", "secret"),
    "symlink folder": ("load", "escape", "secret"),
    "symlink file": ("dump", "dumps", "dumped"),
}


@pytest.mark.parametrize("way", sorted(ESCAPES))
def test_a_path_leaving_the_library_folder_is_refused(server: Server, folders: tuple[Path, Path], way: str) -> None:
    _, outside = folders
    action, path, workspace = ESCAPES[way]
    post(
        server,
        OPS,
        "/vector_store",
        {"workspace_id": workspace, "action": "load", "path": "docs/library/appworld.jsonl"},
    )

    refused = post(server, OPS, "/vector_store", {"workspace_id": workspace, "action": action,
                                                  "path": path.format(outside=outside)})  # fmt: skip

    assert refused.status_code == 403, refused.text
    assert not (outside / "dumped.jsonl").exists()
    recalled = post(server, OPS, "/retrieve_task_memory", {"workspace_id": "secret", "query": QUERY, "top_k": 10})
    assert all(m["metadata"].get("memory_id") != "secret" for m in recalled.json()["metadata"]["memory_list"])


def test_a_server_without_a_library_folder_reads_and_writes_none(tmp_path: Path) -> None:
    with pytest.raises(Forbidden, match="--library-dir"):
        confined(None, "docs/library")


def test_an_operator_grant_is_read_from_the_tokens_file(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps(TOKENS))
    tokens.chmod(0o600)

    found = load_tokens(tokens)

    operator, granted = found.access_of("token-ops-operator"), found.access_of("token-ann-granted")
    assert operator is not None
    assert granted is not None
    assert (operator.operator, operator.agents, granted.operator) == (True, None, False)


def test_an_operator_flag_that_is_not_a_boolean_is_refused(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"token-ops-operator": {"user": "ops", "operator": "yes"}}))
    tokens.chmod(0o600)

    with pytest.raises(ConfigurationError, match="operator"):
        load_tokens(tokens)
