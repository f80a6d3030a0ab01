"""A capped scope: beyond ``tiers.knowledge_capacity`` valid facts, the coldest are archived, never deleted."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from memadapt_core import Memory
from memadapt_core.testing import ScriptedLLMServer

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as srv:
        yield srv


@pytest.fixture(params=["edge", "qdrant-local"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def said(text: str, at: datetime) -> dict[str, Any]:
    return {"role": "user", "name": "Alex", "content": text, "timestamp": at}


def _capped(server: ScriptedLLMServer, backend: str) -> Memory:
    return Memory(
        location=":memory:",
        backend=backend,  # type: ignore[arg-type]
        llm={"base_url": server.base_url, "model": "scripted", "timeout": 2.0, "max_retries": 1},
        tiers={"heat": True, "knowledge_capacity": 2},
    )


def _three_facts(mem: Memory, server: ScriptedLLMServer) -> None:
    server.push(
        {"facts": [{"text": "Alex keeps bees", "sources": [0]}, {"text": "Alex plays the cello", "sources": [1]}]}
    )
    mem.add([said("I keep bees", T0), said("I play the cello", T0)], user_id="alex", session_id="s1")
    mem.flush()
    mem.search("cello", user_id="alex", kinds=["fact"])  # the cello fact is warmer: it was retrieved
    server.push(
        {"facts": [{"text": "Alex grows tomatoes", "sources": [0]}]}, {"decisions": [{"fact": 0, "action": "ADD"}]}
    )
    mem.add(said("I grow tomatoes", T0 + timedelta(days=1)), user_id="alex", session_id="s2")
    mem.flush()


def test_a_capped_scope_archives_its_coldest_fact(server: ScriptedLLMServer, backend: str) -> None:
    with _capped(server, backend) as mem:
        _three_facts(mem, server)
        kept = [r.text for r in mem.list(user_id="alex", kinds=["fact"]).records]
        assert kept == ["Alex plays the cello", "Alex grows tomatoes"]
        assert mem.search("bees", user_id="alex", kinds=["fact"]) == []


def test_archived_facts_are_kept_and_listed_on_request(server: ScriptedLLMServer, backend: str) -> None:
    with _capped(server, backend) as mem:
        _three_facts(mem, server)
        everything = mem.list(user_id="alex", kinds=["fact"], include_archived=True).records
        assert sorted(r.text for r in everything) == ["Alex grows tomatoes", "Alex keeps bees", "Alex plays the cello"]
        [bees] = [r for r in everything if r.archived]
        assert bees.text == "Alex keeps bees"
        assert mem.count(user_id="alex", kinds=["fact"]) == 3
        found = mem.search("bees", user_id="alex", kinds=["fact"], include_archived=True)
        assert [h.record.text for h in found] == ["Alex keeps bees"]
