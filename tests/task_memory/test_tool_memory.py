"""Tool memory through the real engine: calls recorded without the LLM, statistics on demand, guides written by a
scripted OpenAI-compatible LLM over real HTTP once enough new calls have come in."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memadapt_core import AsyncMemory, Memory, ValidationError
from memadapt_core.testing import ScriptedLLMServer

from .conftest import llm

AGENT = "research-agent"


def search_call(n: int, *, success: bool = True, seconds: float = 1.0, tokens: int = 100) -> dict[str, Any]:
    return {
        "name": "web_search",
        "arguments": {"query": f"python asyncio tutorial {n}", "max_results": 10},
        "result": "Found 10 results" if success else "error: max_results must be at most 5",
        "success": success,
        "duration": seconds,
        "tokens": tokens,
    }


@pytest.fixture
def mem(server: ScriptedLLMServer) -> Iterator[Memory]:
    with Memory(location=":memory:", task_memory={"tool_guide_every": 3}, **llm(server)) as m:
        yield m


def test_recording_tool_calls_asks_no_llm(server: ScriptedLLMServer, mem: Memory) -> None:
    (call,) = mem.record_tool_calls(search_call(1), agent_id=AGENT, user_id="alex")
    mem.flush()

    assert call.kind == "tool_call"
    assert call.text.startswith('web_search({"query": "python asyncio tutorial 1", "max_results": 10}) -> Found 10')
    assert call.metadata == {"tool": "web_search", "success": True, "duration_s": 1.0, "tokens": 100.0}
    assert server.chat_requests() == []


def test_tool_statistics_give_success_rate_and_latency_percentiles(mem: Memory) -> None:
    calls = [search_call(n, seconds=float(n)) for n in range(1, 10)] + [search_call(10, success=False, seconds=10.0)]
    mem.record_tool_calls(calls, agent_id=AGENT)

    stats = mem.tool_stats("web_search", agent_id=AGENT)

    assert (stats.calls, stats.successes, stats.success_rate) == (10, 9, 0.9)
    assert (stats.latency_p50_s, stats.latency_p95_s) == (5.0, 10.0)
    assert stats.mean_tokens == 100.0
    assert mem.tool_stats("web_search", agent_id="other-agent").calls == 0


def test_remes_tool_call_fields_are_understood(mem: Memory) -> None:
    remes = {
        "create_time": "2025-10-21 10:30:00", "tool_name": "web_search", "input": {"query": "asyncio"},
        "output": "Found 10 relevant results...", "token_cost": 150, "success": True, "time_cost": 2.3,
    }  # fmt: skip
    (call,) = mem.record_tool_calls(remes, agent_id=AGENT)

    assert call.metadata == {"tool": "web_search", "success": True, "duration_s": 2.3, "tokens": 150.0}
    assert call.observed_at.isoformat().startswith("2025-10-21T10:30:00")


def test_the_llm_writes_a_guide_once_enough_new_calls_came_in(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push({"guidelines": "- Keep max_results at 5 or less."})
    mem.record_tool_calls([search_call(1), search_call(2, success=False)], agent_id=AGENT)
    mem.flush()
    assert mem.tool_guide("web_search", agent_id=AGENT).guidelines is None  # two calls: not yet

    mem.record_tool_calls(search_call(3), agent_id=AGENT, user_id="bea")
    mem.flush()

    guide = mem.tool_guide("web_search", agent_id=AGENT)
    assert guide.guidelines == "- Keep max_results at 5 or less."
    assert guide.stats.calls == 3
    (request,) = server.chat_requests("tool_guide")
    assert request.payload["statistics"]["success_rate"] == pytest.approx(2 / 3)
    assert [c["success"] for c in request.payload["calls"]] == [True, False, True]
    assert request.payload["current_guidelines"] is None


def test_a_guide_is_rewritten_from_the_next_calls_and_the_old_one_kept_as_history(
    server: ScriptedLLMServer, mem: Memory
) -> None:
    server.push({"guidelines": "- First version."}, {"guidelines": "- Second version."})
    mem.record_tool_calls([search_call(n) for n in range(3)], agent_id=AGENT)
    mem.flush()
    first = mem.tool_guide("web_search", agent_id=AGENT)

    mem.record_tool_calls([search_call(n) for n in range(3, 6)], agent_id=AGENT)
    mem.flush()

    second = mem.tool_guide("web_search", agent_id=AGENT)
    assert second.guidelines == "- Second version."
    assert server.chat_requests("tool_guide")[1].payload["current_guidelines"] == "- First version."
    assert first.guide_id is not None
    assert mem.get(first.guide_id).superseded_by == second.guide_id  # type: ignore[union-attr]


def test_a_guide_belongs_to_its_agent(server: ScriptedLLMServer, mem: Memory) -> None:
    server.push({"guidelines": "- Only for the research agent."})
    mem.record_tool_calls([search_call(n) for n in range(3)], agent_id=AGENT)
    mem.flush()

    assert mem.tool_guide("web_search", agent_id="other-agent").guidelines is None


@pytest.mark.parametrize(
    ("calls", "field"),
    [
        ({"arguments": {}}, "calls[0].name"),
        ({"name": "web_search", "success": "yes"}, "calls[0].success"),
        ({"name": "web_search", "duration": -1}, "calls[0].duration"),
        ({"name": "web_search", "cost": 3}, "calls[0].cost"),
        ([], "calls"),
    ],
)
def test_bad_tool_calls_are_refused_naming_the_field(mem: Memory, calls: Any, field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        mem.record_tool_calls(calls, agent_id=AGENT)
    assert caught.value.field == field


async def test_the_async_twin_records_and_guides_the_same_way(server: ScriptedLLMServer) -> None:
    server.push({"guidelines": "- Async guide."})
    async with AsyncMemory(location=":memory:", task_memory={"tool_guide_every": 3}, **llm(server)) as amem:
        await amem.record_tool_calls([search_call(n) for n in range(3)], agent_id=AGENT)
        await amem.flush()
        guide = await amem.tool_guide("web_search", agent_id=AGENT)
    assert (guide.guidelines, guide.stats.calls, guide.stats.success_rate) == ("- Async guide.", 3, 1.0)


def test_the_same_call_made_twice_counts_twice_unless_it_carries_the_same_id(mem: Memory) -> None:
    mem.record_tool_calls([search_call(1), search_call(1)], agent_id=AGENT)
    mem.record_tool_calls([{**search_call(2), "id": "call-7"}], agent_id=AGENT)
    mem.record_tool_calls([{**search_call(2), "id": "call-7"}], agent_id=AGENT)  # a retry of the same recording

    assert mem.tool_stats("web_search", agent_id=AGENT).calls == 3
