"""answer through `memadapt serve`: POST /v1/answer, the MCP tool `answer`, RemoteMemory.answer, scoped by the token."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from memadapt_core import Answer, ConfigurationError
from memadapt_core.remote import AsyncRemoteMemory, RemoteMemory
from memadapt_core.testing import ScriptedLLMServer
from tests._chat import NOT_REMEMBERED, remembering_llm

from .conftest import Server, cli, running_server
from .test_mcp_http import call, http_session

ANN = {"Authorization": "Bearer token-ann"}


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=remembering_llm) as server:
        yield server


@pytest.fixture(scope="module")
def chat_server(tmp_path_factory: pytest.TempPathFactory, llm: ScriptedLLMServer) -> Iterator[Server]:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("MEMADAPT_LLM__BASE_URL", llm.base_url)
        env.setenv("MEMADAPT_LLM__MODEL", "scripted")
        with running_server(tmp_path_factory.mktemp("answer")) as running:
            yield running


def test_answer_route_recalls_a_fact_told_in_another_session(chat_server: Server) -> None:
    told = {"messages": "My sister lives in Porto", "session_id": "route-1"}
    assert httpx.post(f"{chat_server.url}/v1/memories", json=told, headers=ANN).status_code == 201
    asked = {"question": "Where does my sister live?", "session_id": "route-2"}
    response = httpx.post(f"{chat_server.url}/v1/answer", json=asked, headers=ANN, timeout=30)
    assert response.status_code == 200
    found = Answer.model_validate(response.json())
    assert "Porto" in found.answer
    assert [h.record.text for h in found.memories] == ["My sister lives in Porto"]
    assert len(found.stored) == 2


def test_answer_route_never_reads_another_users_memories(chat_server: Server) -> None:
    told = {"messages": "My locker code is 4471", "session_id": "private"}
    httpx.post(f"{chat_server.url}/v1/memories", json=told, headers=ANN)
    asked = {"question": "What is my locker code?", "remember": False}
    response = httpx.post(f"{chat_server.url}/v1/answer", json=asked, headers={"Authorization": "Bearer token-bob"})
    assert response.json()["answer"] == NOT_REMEMBERED
    other = httpx.post(f"{chat_server.url}/v1/answer", json={**asked, "user_id": "ann"}, headers={
        "Authorization": "Bearer token-bob"})  # fmt: skip
    assert other.status_code == 403


def test_answer_route_names_a_missing_question(chat_server: Server) -> None:
    response = httpx.post(f"{chat_server.url}/v1/answer", json={"session_id": "s"}, headers=ANN)
    assert (response.status_code, response.json()["field"]) == (422, "question")


def test_remote_memory_answer_remembers_a_fact_in_the_next_session(chat_server: Server) -> None:
    with RemoteMemory(chat_server.url, token="token-ann") as memory:
        memory.add("I am allergic to hazelnuts", session_id="remote-1")
        found = memory.answer("What am I allergic to?", session_id="remote-2")
    assert "hazelnuts" in found.answer
    assert isinstance(found, Answer)


async def test_async_remote_memory_answer(chat_server: Server) -> None:
    async with AsyncRemoteMemory(chat_server.url, token="token-ann") as memory:
        await memory.add("My bike is a green Brompton", session_id="aremote-1")
        found = await memory.answer("Which bike do I ride?", session_id="aremote-2", remember=False)
    assert "Brompton" in found.answer
    assert found.stored == []


async def test_mcp_answer_tool_recalls_a_fact_told_in_another_session(chat_server: Server) -> None:
    async with http_session(chat_server, "token-ann") as session:
        await call(session, "add_memory", {"content": "My daughter is called Inês", "session_id": "mcp-1"})
        found = await call(session, "answer", {"question": "What is my daughter called?", "session_id": "mcp-2"})
    assert "Inês" in found["answer"]
    assert [m["text"] for m in found["memories"]] == ["My daughter is called Inês"]


def test_answer_without_an_llm_on_the_service_names_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMADAPT_LLM__BASE_URL", raising=False)
    monkeypatch.delenv("MEMADAPT_LLM__MODEL", raising=False)
    with (
        running_server(tmp_path) as server,
        RemoteMemory(server.url, token="token-ann") as memory,
        pytest.raises(ConfigurationError) as caught,
    ):
        memory.answer("What is my dog called?")
    assert "MEMADAPT_LLM__MODEL" in str(caught.value)


def test_serve_says_which_llm_it_answers_with(chat_server: Server, llm: ScriptedLLMServer) -> None:
    said = chat_server.log.read_text(encoding="utf-8")
    assert f"llm:   scripted at {llm.base_url}: answer and consolidation on" in said


def test_memadapt_chat_talks_to_a_running_service(chat_server: Server) -> None:
    with RemoteMemory(chat_server.url, token="token-ann") as memory:
        memory.add("My piano teacher is Olga", session_id="cli-1")
    done = subprocess.run(
        cli("chat", "--server", chat_server.url, "--token", "token-ann", "--session", "cli-2"),
        input="Who is my piano teacher?\n/consolidate\n/quit\n", capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "memadapt> You told me: My piano teacher is Olga" in done.stdout
    assert "the service consolidates in the background" in done.stdout
