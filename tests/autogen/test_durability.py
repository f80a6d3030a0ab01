"""What a MemadaptMemory stores is on disk when the call returns: closing the engine right after loses nothing.

AutoGen's ``AssistantAgent`` never writes to its memories; the application stores a run with ``add_messages``
(or a fact with ``add``), and both are awaited to the end.
"""

from pathlib import Path

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import TextMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory

LONG_REPLY = ("The Berlin marathon route passes the Brandenburg Gate. " * 1400)[:76_000]


async def stored_texts(folder: Path) -> list[str]:
    async with AsyncMemory(path=folder) as reopened:
        return [r.text for r in (await reopened.list(user_id="alice")).records]


def agent_with(memory: MemadaptMemory, answer: str) -> AssistantAgent:
    client = ReplayChatCompletionClient([answer])
    return AssistantAgent("assistant", model_client=client, memory=[memory], system_message=None)


async def test_a_run_stored_just_before_the_engine_closes_is_on_disk(tmp_path: Path) -> None:
    async with AsyncMemory(path=tmp_path) as engine:
        memory = MemadaptMemory(memory=engine, user_id="alice")
        result = await agent_with(memory, "Noted, teal it is.").run(task="My favourite colour is teal.")
        await memory.add_messages(result.messages)

    assert await stored_texts(tmp_path) == ["My favourite colour is teal.", "Noted, teal it is."]


async def test_a_memory_that_opened_its_own_store_keeps_the_run_after_close(tmp_path: Path) -> None:
    memory = MemadaptMemory(user_id="alice", path=str(tmp_path))
    result = await agent_with(memory, "Noted.").run(task="I am training for the Berlin marathon.")
    await memory.add_messages(result.messages)

    await memory.close()

    assert await stored_texts(tmp_path) == ["I am training for the Berlin marathon.", "Noted."]


async def test_a_76000_character_reply_from_a_run_is_stored_whole(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    result = await agent_with(memory, LONG_REPLY).run(task="Describe the Berlin marathon route in detail.")

    records = await memory.add_messages(result.messages)

    assert [(r.role, r.text) for r in records] == [
        ("user", "Describe the Berlin marathon route in detail."),
        ("assistant", LONG_REPLY),
    ]


async def test_a_76000_character_message_is_stored_and_found(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")

    await memory.add_messages([TextMessage(source="assistant", content=LONG_REPLY)])

    found = await memory.query("Brandenburg Gate")
    assert [result.content for result in found.results] == [LONG_REPLY]
