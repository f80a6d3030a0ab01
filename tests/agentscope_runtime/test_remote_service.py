"""agentscope-runtime's MemoryService over `memadapt serve` (a real subprocess on 127.0.0.1): memadapt's service
takes an `AsyncRemoteMemory` where it takes an engine and works unchanged."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memadapt_agentscope import MemadaptMemoryService
from memadapt_core.remote import AsyncRemoteMemory
from tests.server.conftest import Server, running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("serve"), {"token-maya": "maya"}) as running:
        yield running


async def test_the_memory_service_runs_against_the_service(server: Server, message) -> None:
    async with AsyncRemoteMemory(server.url, token="token-maya") as remote:
        async with MemadaptMemoryService(remote) as service:
            await service.add_memory("maya", [message("I am training for the Lisbon marathon")], session_id="s1")
            found = await service.search_memory("maya", [message("which marathon am I training for?")])
            listed = await service.list_memory("maya")
            await service.delete_memory("maya", session_id="s1")
            after = await service.list_memory("maya")
        still_open = await remote.count(user_id="maya")  # the service leaves an engine it was handed open
    assert "Lisbon marathon" in str(found[0].content)
    assert len(listed) == 1
    assert after == []
    assert still_open == 0
