"""`RemoteMemory` / `AsyncRemoteMemory`'s task memory and working memory do what the engine's do, through a real
`memadapt serve` whose consolidation asks a scripted OpenAI-compatible LLM (issue 36)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from memadapt_core import AsyncMemory, MemoryRecord, SearchHit, ValidationError
from memadapt_core.engine.tasks.tool_memory import ToolGuide
from memadapt_core.remote import AsyncRemoteMemory, RemoteMemory
from memadapt_core.testing import ChatRequest, ScriptedLLMServer, ScriptItem
from memadapt_core.tool_stats import ToolStats

from .conftest import ANSWERS, LESSON, Server, eventually, taught_server

TRAJECTORY = {"messages": [{"role": "user", "content": "Help me create a project plan"}], "score": 1.0}
SEARCH = {"name": "web_search", "arguments": {"max_results": 10}, "result": "10 results", "duration": 2.0}
CALLS = [{**SEARCH, "success": True, "tokens": 150}, {**SEARCH, "success": False, "duration": 4.0, "tokens": 50}]
# No facts drawn from messages, so a scope's working memory holds only what a test wrote.
QUIET = ANSWERS | {"extract": {"facts": []}}


def by_operation(request: ChatRequest) -> ScriptItem | None:
    return QUIET.get(request.operation or "")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with ScriptedLLMServer(responder=by_operation) as llm, taught_server(tmp_path_factory.mktemp("tasks"), llm) as up:
        yield up


def learnt(remote: RemoteMemory, agent_id: str) -> list[SearchHit]:
    """The agent's lessons once the server has drawn them (in the background)."""
    return list(eventually(lambda: remote.experiences("plan the next project", agent_id=agent_id)))


def test_remote_add_trajectories_stores_one_trajectory_per_attempt_under_the_tokens_user(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as remote:
        records = remote.add_trajectories([TRAJECTORY, {**TRAJECTORY, "score": 0.0}], agent_id="stored", task="plan")

    assert all(isinstance(r, MemoryRecord) for r in records)
    assert [(r.kind, r.user_id, r.agent_id) for r in records] == [("trajectory", "ann", "stored")] * 2


def test_remote_experiences_are_the_lessons_drawn_for_every_user_of_the_agent(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as ann, RemoteMemory(server.url, token="token-bob") as bob:
        ann.add_trajectories(TRAJECTORY, agent_id="planner", task="plan a project")
        (hit,) = learnt(bob, "planner")

    assert isinstance(hit, SearchHit)
    assert (hit.record.kind, hit.record.user_id, hit.record.agent_id) == ("experience", None, "planner")
    assert (hit.record.text, hit.record.metadata["content"]) == (LESSON["when_to_use"], LESSON["content"])


async def test_async_remote_experience_guidance_is_the_block_of_the_recalled_lessons(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as sync:
        sync.add_trajectories(TRAJECTORY, agent_id="guided", task="plan a project")
        hits = learnt(sync, "guided")
    async with AsyncRemoteMemory(server.url, token="token-ann") as remote:
        guidance = await remote.experience_guidance("plan the next project", agent_id="guided")
        none_yet = await remote.experience_guidance("plan the next project", agent_id="newcomer")

    assert guidance == remote.format_experience(hits)
    assert LESSON["content"] in guidance
    assert none_yet == ""


def test_remote_experiences_need_an_agent_as_the_engines_do(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as remote, pytest.raises(ValidationError) as refused:
        remote.experiences("plan a project", agent_id=None)

    assert refused.value.field == "agent_id"


def test_remote_record_tool_calls_stores_one_tool_call_record_each(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as remote:
        records = remote.record_tool_calls(CALLS, agent_id="recorded")

    assert [(r.kind, r.user_id, r.metadata["tool"]) for r in records] == [("tool_call", "ann", "web_search")] * 2


async def test_async_remote_tool_stats_are_the_engines_statistics_of_the_same_calls(server: Server) -> None:
    async with AsyncRemoteMemory(server.url, token="token-ann") as remote:
        await remote.record_tool_calls(CALLS, agent_id="counted")
        stats = await remote.tool_stats("web_search", agent_id="counted")
    async with AsyncMemory(location=":memory:") as local:
        await local.record_tool_calls(CALLS, agent_id="counted", user_id="ann")
        expected = await local.tool_stats("web_search", agent_id="counted")

    assert isinstance(stats, ToolStats)
    assert stats.model_dump(exclude={"last_called"}) == expected.model_dump(exclude={"last_called"})
    assert (stats.calls, stats.success_rate, stats.latency_p95_s) == (2, 0.5, 4.0)


def test_remote_tool_guide_carries_the_guidelines_the_server_wrote(server: Server) -> None:
    with RemoteMemory(server.url, token="token-ann") as remote:
        remote.record_tool_calls(CALLS, agent_id="guides")  # two calls: the guide is rewritten (tool_guide_every)

        def written() -> ToolGuide | None:
            guide = remote.tool_guide("web_search", agent_id="guides")
            return guide if guide.guidelines else None

        guide = eventually(written)

    assert isinstance(guide, ToolGuide)
    assert (guide.tool, guide.guidelines, guide.stats.calls) == ("web_search", "- Keep max_results at 5 or less.", 2)


async def test_remote_recent_is_the_engines_working_memory(server: Server) -> None:
    turns = ["I moved to Lisbon", "I adopted a cat", "I started running"]
    where: dict[str, Any] = {"user_id": "ann", "session_id": "working"}
    async with AsyncRemoteMemory(server.url, token="token-ann") as remote, AsyncMemory(location=":memory:") as local:
        for engine in (remote, local):
            await engine.add(turns, **where)
            await engine.add("Ann is a nurse", **where, kind="fact")
        latest = [await engine.recent(**where, limit=2) for engine in (remote, local)]
        every_kind = [await engine.recent(**where, kinds=None) for engine in (remote, local)]

    assert [[r.text for r in found] for found in latest] == [["I adopted a cat", "I started running"]] * 2
    assert [r.id for r in every_kind[0]] == [r.id for r in every_kind[1]]
    assert "Ann is a nurse" in [r.text for r in every_kind[0]]
