"""`MemadaptMemory` as a serialisable AutoGen component, alone and inside an agent."""

import json
from pathlib import Path

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import MemoryQueryEvent
from autogen_core.memory import Memory, MemoryContent
from autogen_ext.models.replay import ReplayChatCompletionClient

from memadapt_autogen import MemadaptMemory, MemadaptMemoryConfig
from memadapt_core import AsyncMemory

SECRET = "sk-do-not-leak-1234"


async def test_dump_uses_the_public_provider_name(tmp_path: Path) -> None:
    async with AsyncMemory(path=tmp_path) as engine:
        model = MemadaptMemory(memory=engine, user_id="alice").dump_component()

    assert model.provider == "memadapt_autogen.MemadaptMemory"
    assert model.component_type == "memory"


async def test_memory_round_trips_through_its_config(tmp_path: Path) -> None:
    folder = str(tmp_path / "store")
    memory = MemadaptMemory(path=folder, user_id="alice", session_id="s1", limit=3, threshold=0.1, kinds=["fact"])
    dumped = memory.dump_component()
    await memory.close()

    loaded = Memory.load_component(dumped)
    try:
        assert isinstance(loaded, MemadaptMemory)
        assert loaded.dump_component().config == dumped.config
        assert dumped.config == {
            "user_id": "alice",
            "session_id": "s1",
            "limit": 3,
            "threshold": 0.1,
            "kinds": ["fact"],
            "user_sources": ["user"],
            "profile": False,
            "path": folder,
            "embedder": {"provider": "wordllama", "timeout": 30.0},
        }
    finally:
        await loaded.close()


async def test_api_key_never_appears_in_a_dump() -> None:
    memory = MemadaptMemory(location=":memory:", api_key=SECRET, user_id="alice")
    try:
        with pytest.warns(UserWarning, match="empty store"):
            dumped = memory.dump_component()
    finally:
        await memory.close()

    assert SECRET not in dumped.model_dump_json()
    assert "api_key" not in dumped.config


async def test_dump_of_a_shared_engine_names_its_store(tmp_path: Path) -> None:
    folder = str(tmp_path / "store")
    amemory = AsyncMemory(path=folder)
    try:
        config = MemadaptMemory(memory=amemory, agent_id="planner").dump_component().config
    finally:
        await amemory.close()

    assert config["path"] == folder
    assert config["agent_id"] == "planner"


def test_an_api_key_written_in_a_config_is_read_as_a_secret() -> None:
    config = MemadaptMemoryConfig.model_validate({"user_id": "alice", "api_key": SECRET})

    assert config.api_key is not None
    assert config.api_key.get_secret_value() == SECRET
    assert SECRET not in repr(config)


async def test_agent_with_memory_round_trips_and_remembers(tmp_path: Path) -> None:
    folder = str(tmp_path / "store")
    memory = MemadaptMemory(path=folder, user_id="alice")
    await memory.add(MemoryContent(content="Alice's favourite tea is oolong.", mime_type="text/plain"))
    agent = AssistantAgent(
        "assistant",
        model_client=ReplayChatCompletionClient(["Oolong."]),
        memory=[memory],
        system_message=None,
    )
    dumped = json.loads(agent.dump_component().model_dump_json())

    loaded = AssistantAgent.load_component(dumped)  # while the original lives: both share the open folder
    loaded_memory = loaded._memory[0] if loaded._memory else None  # AutoGen has no public accessor
    try:
        assert isinstance(loaded_memory, MemadaptMemory)
        result = await loaded.run(task="Which tea do I like?")
        recalled = [item.content for m in result.messages if isinstance(m, MemoryQueryEvent) for item in m.content]
        assert recalled == ["Alice's favourite tea is oolong."]
    finally:
        if loaded_memory is not None:
            await loaded_memory.close()
        await memory.close()


async def test_a_memory_loaded_while_a_shared_engine_lives_uses_its_store(tmp_path: Path) -> None:
    async with AsyncMemory(path=tmp_path) as engine:
        original = MemadaptMemory(memory=engine, user_id="alice")
        await original.add(MemoryContent(content="Alice keeps bees.", mime_type="text/plain"))

        loaded = MemadaptMemory.load_component(original.dump_component())
        try:
            assert [r.content for r in (await loaded.query("bees")).results] == ["Alice keeps bees."]
        finally:
            await loaded.close()
        assert await engine.count(user_id="alice") == 1  # the loaded copy's close left the engine open


async def test_dumping_a_memory_location_memory_warns_that_its_copy_starts_empty(amemory: AsyncMemory) -> None:
    with pytest.warns(UserWarning, match="location=':memory:'"):
        MemadaptMemory(memory=amemory, user_id="alice").dump_component()


def test_loading_a_bad_config_fails_with_pydantic_validation() -> None:
    with pytest.raises(ValueError, match="limit"):
        MemadaptMemory.load_component(
            {
                "provider": "memadapt_autogen.MemadaptMemory",
                "component_type": "memory",
                "config": {"limit": 0},
            }
        )


async def test_a_dump_keeps_the_embedder_so_a_reload_opens_the_same_collection(tmp_path: Path) -> None:
    memory = MemadaptMemory(
        user_id="ann", path=str(tmp_path), embedder={"provider": "wordllama", "model": "l2_supercat"}
    )
    await memory.engine.add("I keep bees on the roof", user_id="ann")
    dumped = memory.dump_component()
    await memory.close()
    assert dumped.config["embedder"] == {"provider": "wordllama", "model": "l2_supercat", "timeout": 30.0}
    reloaded = MemadaptMemory.load_component(dumped)
    try:
        assert reloaded.engine.settings.embedder.model == "l2_supercat"
        assert [h.record.text for h in await reloaded.engine.search("bees", user_id="ann")] == [
            "I keep bees on the roof"
        ]
    finally:
        await reloaded.close()


async def test_the_embedders_key_never_appears_in_a_dump(tmp_path: Path) -> None:
    memory = MemadaptMemory(
        user_id="ann", location=":memory:", embedder={"provider": "wordllama", "api_key": "sk-secret-embedder-key"}
    )
    try:
        with pytest.warns(UserWarning, match="empty store"):
            assert "sk-secret-embedder-key" not in memory.dump_component().model_dump_json()
    finally:
        await memory.close()
