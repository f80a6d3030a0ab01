"""ReMe's task-memory routes with Chinese trajectories: the lessons drawn are Chinese, ``/retrieve_task_memory``
returns them for a Chinese task, and every prompt the LLM received asks for the trajectories' language.

The service is the real app (``build_app``) over an in-memory engine, driven over HTTP in-process, with an
OpenAI-compatible LLM scripted over real HTTP on 127.0.0.1; the engine's queue is drained with ``flush`` instead of
polling. The query shares the lesson's words: what is asserted is what was asked and stored, not how well the test
embedder ranks Chinese."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from memadapt_core import AsyncMemory
from memadapt_core.server.app import build_app
from memadapt_core.server.auth import TokenMap
from memadapt_core.testing import ChatRequest, ScriptedLLMServer, ScriptItem

WORKSPACE = "旅行助手"
ANN = {"Authorization": "Bearer token-ann"}
BOB = {"Authorization": "Bearer token-bob"}
WHEN = "用文字给出日期时预订机票"
LESSON = "调用 book_flight 之前先把日期换成 YYYY-MM-DD 格式；它不接受“下周五”这样的说法。"


def calls(name: str, arguments: str) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


FAILED_BOOKING = {
    "messages": [
        {"role": "user", "content": "帮我订一张下周五从上海到北京的机票。"},
        calls("book_flight", '{"date": "下周五"}'),
        {"role": "tool", "name": "book_flight", "tool_call_id": "c1", "content": "错误：日期必须是 YYYY-MM-DD 格式"},
        {"role": "assistant", "content": "抱歉，我没能订到机票。"},
    ],
    "score": 0.0,
}
ANSWERS: dict[str, ScriptItem] = {
    "extract_experience": {
        "experiences": [{"when_to_use": WHEN, "content": LESSON, "evidence": "failure", "sources": [0]}]
    },
    "validate_experience": {"judgements": [{"experience": 0, "valid": True, "reason": "轨迹中的工具报错支持这条经验"}]},
    "tool_guide": {"guidelines": "- max_results 不要超过 5，否则容易超时。"},
}
ASKS_FOR_THE_LANGUAGE = {
    "extract_experience": 'Write "when_to_use" and "content" in the same language as the trajectories they come from',
    "validate_experience": "reason either way, in the same language as the experience it judges; do not translate",
}
TOOL_GUIDE_ASKS = "Write the guidelines in the same language as the calls' own text"


def by_operation(request: ChatRequest) -> ScriptItem | None:
    return ANSWERS.get(request.operation or "")


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=by_operation) as server:
        yield server


@pytest.fixture
async def engine(llm: ScriptedLLMServer) -> AsyncIterator[AsyncMemory]:
    settings = {"base_url": llm.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1}
    async with AsyncMemory(location=":memory:", llm=settings, task_memory={"tool_guide_every": 2}) as memory:
        yield memory


@pytest.fixture
async def client(engine: AsyncMemory) -> AsyncIterator[httpx.AsyncClient]:
    app = build_app(engine, TokenMap({"token-ann": "ann", "token-bob": "bob"}))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://memadapt") as http:
        yield http


async def learn_from_a_failed_chinese_booking(client: httpx.AsyncClient, engine: AsyncMemory) -> None:
    body = {"workspace_id": WORKSPACE, "trajectories": [FAILED_BOOKING]}
    stored = await client.post("/summary_task_memory", json=body, headers=ANN)
    assert stored.status_code == 200, stored.text
    await engine.flush()


async def test_a_chinese_trajectory_yields_a_chinese_lesson_retrieved_for_a_chinese_task(
    client: httpx.AsyncClient, engine: AsyncMemory
) -> None:
    await learn_from_a_failed_chinese_booking(client, engine)

    body = {"workspace_id": WORKSPACE, "query": f"{WHEN}：下周五从上海飞北京", "top_k": 3}
    answer = (await client.post("/retrieve_task_memory", json=body, headers=BOB)).json()

    (memory,) = answer["metadata"]["memory_list"]
    assert (memory["when_to_use"], memory["content"]) == (WHEN, LESSON)
    assert memory["metadata"]["evidence"] == "failure"
    assert f"When: {WHEN}" in answer["answer"]
    assert f"Lesson (failure): {LESSON}" in answer["answer"]  # headings for the agent's LLM, lesson as written


async def test_the_llm_reads_the_chinese_trajectory_as_written(
    client: httpx.AsyncClient, engine: AsyncMemory, llm: ScriptedLLMServer
) -> None:
    await learn_from_a_failed_chinese_booking(client, engine)

    (request,) = llm.chat_requests("extract_experience")
    (shown,) = request.payload["trajectories"]

    assert "[user] 帮我订一张下周五从上海到北京的机票。" in shown["transcript"]
    assert '[assistant calls] book_flight({"date": "下周五"})' in shown["transcript"]
    assert "[tool book_flight] 错误：日期必须是 YYYY-MM-DD 格式" in shown["transcript"]


async def test_every_prompt_the_llm_received_asks_for_the_trajectories_language(
    client: httpx.AsyncClient, engine: AsyncMemory, llm: ScriptedLLMServer
) -> None:
    await learn_from_a_failed_chinese_booking(client, engine)

    received = llm.chat_requests()

    assert {r.operation for r in received} == set(ASKS_FOR_THE_LANGUAGE)
    for request in received:
        assert ASKS_FOR_THE_LANGUAGE[request.operation or ""] in request.system, request.operation


async def test_tool_names_typed_with_a_chinese_input_method_are_separated(client: httpx.AsyncClient) -> None:
    body = {"workspace_id": WORKSPACE, "tool_names": "web_search，get_weather、book_flight"}

    answer = (await client.post("/retrieve_tool_memory", json=body, headers=ANN)).json()

    listed = [m["tool_name"] for m in answer["metadata"]["memory_list"]]
    assert listed == ["web_search", "get_weather", "book_flight"]


async def test_chinese_tool_calls_give_a_chinese_tool_guide(
    client: httpx.AsyncClient, engine: AsyncMemory, llm: ScriptedLLMServer
) -> None:
    result = {
        "create_time": "2025-10-21 10:30:00", "tool_name": "web_search",
        "input": {"query": "Python 异步编程教程", "max_results": 10}, "output": "超时：搜索结果太多",
        "token_cost": 150, "success": False, "time_cost": 12.3,
    }  # fmt: skip
    calls = {"workspace_id": WORKSPACE, "tool_call_results": [result, {**result, "id": "second"}]}
    assert (await client.post("/add_tool_call_result", json=calls, headers=ANN)).status_code == 200
    await engine.flush()

    names = {"workspace_id": WORKSPACE, "tool_names": "web_search"}
    answer = (await client.post("/summary_tool_memory", json=names, headers=ANN)).json()

    (tool,) = answer["metadata"]["memory_list"]
    assert tool["content"] == "- max_results 不要超过 5，否则容易超时。"
    (request,) = llm.chat_requests("tool_guide")
    assert TOOL_GUIDE_ASKS in request.system
    assert "超时：搜索结果太多" in request.user  # the calls reach the LLM as written
