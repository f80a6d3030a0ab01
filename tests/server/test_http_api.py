"""The JSON routes of `memadapt serve`: token scoping, clear 4xx errors, size limits, the OpenAPI document."""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from memadapt_core.cli import main

from .conftest import Server

ANN = {"Authorization": "Bearer token-ann"}
BOB = {"Authorization": "Bearer token-bob"}


def add(server: Server, headers: dict[str, str], text: str, session_id: str) -> str:
    response = httpx.post(
        f"{server.url}/v1/memories", json={"messages": text, "session_id": session_id}, headers=headers
    )
    assert response.status_code == 201, response.text
    record_id: str = response.json()["records"][0]["id"]
    return record_id


def test_a_token_never_reads_lists_changes_deletes_or_sees_the_history_of_another_users_memory(
    server: Server,
) -> None:
    ann_id = add(server, ANN, "Ann's locker code is 4711", "routes-iso")
    base = f"{server.url}/v1/memories"
    with httpx.Client(headers=BOB, timeout=10.0) as bob:
        got = bob.get(f"{base}/{ann_id}")
        listed = bob.get(base, params={"session_id": "routes-iso"})
        found = bob.post(f"{server.url}/v1/search", json={"query": "locker code", "session_id": "routes-iso"})
        history = bob.get(f"{base}/{ann_id}/history")
        changed = bob.patch(f"{base}/{ann_id}", json={"text": "Bob was here"})
        deleted = bob.delete(f"{base}/{ann_id}")
        cleared = bob.delete(base, params={"session_id": "routes-iso"})
        exported = bob.get(f"{server.url}/v1/export")
        as_ann = bob.get(base, params={"user_id": "ann"})
    assert (got.status_code, changed.status_code, deleted.status_code) == (404, 404, 404)
    assert (listed.json()["records"], found.json()["hits"], history.json()["events"]) == ([], [], [])
    assert (cleared.json(), ann_id in exported.text, as_ann.status_code) == ({"deleted": 0}, False, 403)
    still = httpx.get(f"{base}/{ann_id}", headers=ANN)
    assert (still.status_code, still.json()["text"]) == (200, "Ann's locker code is 4711")


def test_a_token_never_reads_counts_fetches_vectors_of_or_deletes_another_users_memories_by_id(
    server: Server,
) -> None:
    ann_id = add(server, ANN, "Ann's bike lock code is 0815", "adapter-iso")
    with httpx.Client(headers=BOB, timeout=10.0) as bob:
        got = bob.post(f"{server.url}/v1/get", json={"ids": [ann_id]}).json()
        vectors = bob.post(f"{server.url}/v1/vectors", json={"ids": [ann_id]}).json()
        counted = bob.post(f"{server.url}/v1/count", json={"session_id": "adapter-iso"}).json()
        deleted = bob.post(f"{server.url}/v1/delete", json={"ids": [ann_id]}).json()
        as_ann = bob.post(f"{server.url}/v1/get", json={"ids": [ann_id], "user_id": "ann"})
    assert (got["records"], vectors["vectors"], counted["count"]) == ([], {}, 0)
    assert (deleted["deleted"], as_ann.status_code) == (0, 403)
    still = httpx.post(f"{server.url}/v1/get", json={"ids": [ann_id]}, headers=ANN).json()
    assert [r["text"] for r in still["records"]] == ["Ann's bike lock code is 0815"]


def test_every_route_does_what_the_engine_does(server: Server, tmp_path: Path) -> None:
    record_id = add(server, ANN, "I water the tomatoes at dawn", "routes")
    base = f"{server.url}/v1/memories"
    with httpx.Client(headers=ANN, timeout=10.0) as ann:
        found = ann.post(f"{server.url}/v1/search", json={"query": "tomatoes", "session_id": "routes"}).json()
        updated = ann.patch(f"{base}/{record_id}", json={"text": "I water the tomatoes at dusk"}).json()
        history = ann.get(f"{base}/{record_id}/history").json()
        page = ann.get(base, params={"session_id": "routes", "limit": 1, "kinds": ["message"]}).json()
        exported = ann.get(f"{server.url}/v1/export", params={"session_id": "routes"}).text
        deleted = ann.delete(f"{base}/{record_id}").json()
        add(server, ANN, "one more", "routes")
        cleared = ann.delete(base, params={"session_id": "routes"}).json()
    assert [h["record"]["id"] for h in found["hits"]] == [record_id]
    assert updated["text"] == "I water the tomatoes at dusk"
    assert [e["event"] for e in history["events"]] == ["add", "update"]
    assert [r["id"] for r in page["records"]] == [record_id]
    assert "tomatoes at dusk" in exported
    assert (deleted, cleared) == ({"deleted": True}, {"deleted": 1})


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer nobody"}, {"Authorization": "Basic token-ann"}])
def test_no_token_or_an_unknown_one_is_401(server: Server, headers: dict[str, str]) -> None:
    response = httpx.get(f"{server.url}/v1/memories", headers=headers)
    assert response.status_code == 401
    assert response.json()["error"] == "unauthorized"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [("GET", "/v1/search", "POST"), ("GET", "/retrieve_task_memory", "POST"), ("DELETE", "/health", "GET, HEAD")],
)
def test_a_known_route_asked_with_another_method_is_405_saying_which_it_takes(
    server: Server, method: str, path: str, allowed: str
) -> None:
    response = httpx.request(method, f"{server.url}{path}", headers=ANN)
    assert response.status_code == 405, response.text
    assert response.headers["Allow"] == allowed
    assert response.json()["error"] == "method_not_allowed"


def test_an_unknown_path_is_still_404(server: Server) -> None:
    assert httpx.get(f"{server.url}/v1/nothing-here", headers=ANN).status_code == 404


def test_bad_input_is_422_naming_the_field(server: Server) -> None:
    with httpx.Client(headers=ANN, timeout=10.0) as ann:
        limit = ann.post(f"{server.url}/v1/search", json={"query": "x", "limit": 0})
        unknown = ann.post(f"{server.url}/v1/search", json={"query": "x", "colour": "red"})
        missing = ann.post(f"{server.url}/v1/memories", json={"kind": "fact"})
        json_type = {"Content-Type": "application/json"}
        not_json = ann.post(f"{server.url}/v1/memories", content=b"{nope", headers=json_type)
    assert [r.status_code for r in (limit, unknown, missing, not_json)] == [422] * 4
    assert [r.json()["field"] for r in (limit, unknown, missing, not_json)] == ["limit", "colour", "messages", "body"]


def test_a_body_over_the_limit_is_413(server: Server) -> None:
    big = {"messages": "x" * (2 * 1024 * 1024 + 1)}
    response = httpx.post(f"{server.url}/v1/memories", json=big, headers=ANN)
    assert response.status_code == 413


def test_openapi_document_describes_every_route_without_a_token(server: Server) -> None:
    document = httpx.get(f"{server.url}/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert set(document["paths"]) == {
        "/v1/memories", "/v1/search", "/v1/answer", "/v1/export", "/v1/memories/{id}", "/v1/memories/{id}/history",
        "/v1/get", "/v1/delete", "/v1/vectors", "/v1/count", "/v1/profile", "/v1/embed", "/v1/scope",
        "/v1/trajectories", "/v1/experiences/search", "/v1/tool_calls", "/v1/tool_stats", "/v1/tool_guide",
        "/v1/recent",
        "/summary_task_memory", "/retrieve_task_memory", "/summary_personal_memory", "/retrieve_personal_memory",
        "/add_tool_call_result", "/summary_tool_memory", "/retrieve_tool_memory", "/vector_store",
    }  # fmt: skip


def test_serve_refuses_to_start_without_tokens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MEMADAPT_TOKENS", raising=False)
    code = main(["--path", str(tmp_path / "store"), "serve", "--host", "0.0.0.0", "--port", "1"])
    err = capsys.readouterr().err
    assert code == 4
    assert "--tokens" in err
    assert "0.0.0.0 is not a loopback address" in err


def test_serve_names_a_token_file_that_is_not_a_json_object(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text('["token-ann"]', encoding="utf-8")
    code = main(["--path", str(tmp_path / "store"), "serve", "--tokens", str(tokens), "--port", "1"])
    assert code == 4
    assert str(tokens) in capsys.readouterr().err


def test_serve_on_a_port_in_use_exits_with_a_configuration_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tokens = tmp_path / "tokens.json"
    tokens.write_text('{"token-ann": "ann"}', encoding="utf-8")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        code = main(["--path", str(tmp_path / "store"), "serve", "--tokens", str(tokens), "--port", port])
    assert code == 4
    assert f"127.0.0.1:{port}" in capsys.readouterr().err
