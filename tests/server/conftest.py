"""Real servers as subprocesses on 127.0.0.1, always stopped, their pipes and logs closed."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession

from memadapt_core.testing import ChatRequest, ScriptedLLMServer, ScriptItem

TOKENS = {"token-ann": "ann", "token-bob": "bob"}
START_DEADLINE_S = 30.0
TOOLS = {
    "add_memory",
    "search_memory",
    "answer",
    "list_memories",
    "delete_memory",
    "get_memory_history",
    "add_trajectory",
    "retrieve_experience",
    "record_tool_call",
    "get_tool_guide",
    "get_user_profile",
}


@dataclass
class Server:
    url: str
    store: Path
    process: subprocess.Popen[bytes]
    log: Path

    def headers(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "memadapt_core.cli", *args]


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


@contextmanager
def running_server(folder: Path, tokens: Mapping[str, object] = TOKENS, *extra: str) -> Iterator[Server]:
    """``memadapt serve`` on a free port of 127.0.0.1 over a store in ``folder``, ready when this yields."""
    folder.mkdir(parents=True, exist_ok=True)
    tokens_file = folder / "tokens.json"
    tokens_file.write_text(json.dumps(tokens), encoding="utf-8")
    store, log, port = folder / "store", folder / "server.log", free_port()
    args = cli("--path", str(store), "serve", "--port", str(port), "--tokens", str(tokens_file), *extra)
    with open(log, "wb") as errlog:
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog)
    server = Server(f"http://127.0.0.1:{port}", store, process, log)
    try:
        _wait_until_ready(server)
        yield server
    finally:
        stop(process)


def _wait_until_ready(server: Server) -> None:
    deadline = time.monotonic() + START_DEADLINE_S
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"the server exited ({server.process.returncode}): {server.log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{server.url}/health", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    pytest.fail(f"the server was not ready within {START_DEADLINE_S} s")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server per test module (each test uses its own users or sessions)."""
    with running_server(tmp_path_factory.mktemp("serve")) as running:
        yield running


async def call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A tool call that must succeed: its structured result."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


LESSON = {
    "when_to_use": "planning a project",
    "content": "Split the plan into milestones with owners and dates.",
    "evidence": "success",
    "sources": [0],
}
ANSWERS: dict[str, ScriptItem] = {
    "extract_experience": {"experiences": [LESSON]},
    "validate_experience": {"judgements": [{"experience": 0, "valid": True, "reason": "supported"}]},
    "extract": {"facts": [{"text": "The user drinks coffee while working in the morning", "sources": [0]}]},
    "tool_guide": {"guidelines": "- Keep max_results at 5 or less."},
}


def by_operation(request: ChatRequest) -> ScriptItem | None:
    """The scripted LLM's answer to each consolidation step: one lesson, one fact, one tool guide."""
    return ANSWERS.get(request.operation or "")


def eventually(probe: Callable[[], Any], within: float = 30.0) -> Any:
    """The first truthy result of ``probe`` (the server consolidates in the background)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if found := probe():
            return found
        time.sleep(0.1)
    pytest.fail("the background consolidation did not finish in time")


async def until(probe: Callable[[], Awaitable[Any]], within: float = 30.0) -> Any:
    """``eventually`` for a coroutine ``probe``, waiting without blocking the event loop."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if found := await probe():
            return found
        await asyncio.sleep(0.1)
    pytest.fail("the background consolidation did not finish in time")


def llm_environment(llm: ScriptedLLMServer) -> dict[str, str]:
    return {"MEMADAPT_LLM__BASE_URL": llm.base_url, "MEMADAPT_LLM__MODEL": "scripted",
            "MEMADAPT_TASK_MEMORY__TOOL_GUIDE_EVERY": "2"}  # fmt: skip


@contextmanager
def taught_server(
    folder: Path, llm: ScriptedLLMServer, tokens: Mapping[str, object] = TOKENS, *extra: str
) -> Iterator[Server]:
    """``running_server`` whose consolidation asks the scripted ``llm`` (a tool guide every 2 calls)."""
    with pytest.MonkeyPatch.context() as env:
        for key, value in llm_environment(llm).items():
            env.setenv(key, value)
        with running_server(folder, tokens, *extra) as running:
            yield running
