"""MemadaptMemoryService without agentscope-runtime installed: same shape, runtime Messages as JSON dicts.

(The service's full behaviour, against the real runtime, is in tests/agentscope_runtime.)
"""

from __future__ import annotations

from typing import Any

import pytest

from memadapt_agentscope import MemadaptMemoryService
from memadapt_core import AsyncMemory
from tests._planted import aplant


def message(text: str, id: str, role: str = "user") -> dict[str, Any]:
    return {"id": id, "type": "message", "role": role, "content": [{"type": "text", "text": text}]}


def test_the_runtime_is_absent_from_this_environment():
    with pytest.raises(ImportError):
        import agentscope_runtime  # noqa: F401


async def test_dict_messages_come_back_equal_to_those_stored(amemory):
    stored = message("I love hiking in the Alps", "msg-1") | {"metadata": {"source": "chat"}}
    async with MemadaptMemoryService(amemory) as service:
        await service.add_memory("alice", [stored], session_id="s1")

        found = await service.search_memory("alice", [message("hiking", "q")])

    assert found == [stored]


async def test_calls_before_start_raise_like_the_runtimes_services(amemory):
    service = MemadaptMemoryService(amemory)

    with pytest.raises(RuntimeError, match="Service not started"):
        await service.list_memory("alice")


async def test_service_opens_and_closes_its_own_engine_when_given_none(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMADAPT_PATH", str(tmp_path / "store"))
    service = MemadaptMemoryService()

    async with service:
        await service.add_memory("alice", [message("I love hiking", "msg-1")])
        assert await service.health()
    assert not await service.health()

    async with MemadaptMemoryService() as reopened:
        assert len(await reopened.list_memory("alice")) == 1


async def test_a_page_bigger_than_the_engine_limit_is_gathered_from_several_engine_pages():
    async with AsyncMemory(location=":memory:", max_limit=5) as engine, MemadaptMemoryService(engine) as service:
        await service.add_memory("alice", [message(f"turn number {i}", f"m{i}") for i in range(8)])

        first = await service.list_memory("alice", {"page_num": 1, "page_size": 7})
        second = await service.list_memory("alice", {"page_num": 2, "page_size": 7})

    assert [m["id"] for m in first] == [f"m{i}" for i in range(7)]
    assert [m["id"] for m in second] == ["m7"]


async def test_with_profile_the_search_starts_with_the_users_profile(amemory):
    await aplant(amemory, "Allergic to peanuts", user_id="alice", kind="profile", metadata={"section": "constraints"})
    async with MemadaptMemoryService(amemory, profile=True) as service:
        await service.add_memory("alice", [message("I love hiking in the Alps", "msg-1")])

        found = await service.search_memory("alice", [message("hiking", "q")])

    assert [m["role"] for m in found] == ["system", "user"]
    assert "constraints: Allergic to peanuts" in found[0]["content"][0]["text"]
