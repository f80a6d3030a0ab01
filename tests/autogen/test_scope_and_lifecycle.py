"""Scopes, shared engines, `clear` and `close`."""

from pathlib import Path

import pytest
from autogen_core.memory import MemoryContent
from autogen_core.model_context import BufferedChatCompletionContext, UnboundedChatCompletionContext
from autogen_core.models import SystemMessage, UserMessage

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory, ConfigurationError, Memory, ValidationError


def fact(text: str) -> MemoryContent:
    return MemoryContent(content=text, mime_type="text/plain")


async def test_one_engine_backs_a_memory_per_user(amemory: AsyncMemory) -> None:
    alice = MemadaptMemory(memory=amemory, user_id="alice")
    bob = MemadaptMemory(memory=amemory, user_id="bob")

    await alice.add(fact("My favourite tea is oolong."))
    await bob.add(fact("My favourite tea is earl grey."))

    assert [r.content for r in (await alice.query("favourite tea")).results] == ["My favourite tea is oolong."]
    assert [r.content for r in (await bob.query("favourite tea")).results] == ["My favourite tea is earl grey."]


async def test_a_sync_engine_is_used_through_its_async_view(tmp_path: Path) -> None:
    sync_engine = Memory(path=str(tmp_path / "store"))
    try:
        memory = MemadaptMemory(memory=sync_engine, user_id="alice")
        await memory.add(fact("Alice is allergic to peanuts."))

        assert sync_engine.count(user_id="alice") == 1
    finally:
        sync_engine.close()


async def test_clear_deletes_only_this_scope(amemory: AsyncMemory) -> None:
    alice = MemadaptMemory(memory=amemory, user_id="alice")
    bob = MemadaptMemory(memory=amemory, user_id="bob")
    await alice.add(fact("Alice is allergic to peanuts."))
    await bob.add(fact("Bob is allergic to cats."))

    await alice.clear()

    assert await amemory.count(user_id="alice") == 0
    assert await amemory.count(user_id="bob") == 1


async def test_agent_and_user_scopes_are_separate(amemory: AsyncMemory) -> None:
    user_memory = MemadaptMemory(memory=amemory, user_id="alice")
    agent_memory = MemadaptMemory(memory=amemory, agent_id="planner")
    await agent_memory.add(fact("Plans are due every Friday."))

    assert (await user_memory.query("When are plans due? Friday?", threshold=0.0)).results == []


async def test_close_leaves_a_given_engine_open(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")

    await memory.close()

    await amemory.add("still open", user_id="alice")
    assert await amemory.count(user_id="alice") == 1


async def test_close_releases_a_store_it_opened(tmp_path: Path) -> None:
    folder = str(tmp_path / "store")
    memory = MemadaptMemory(path=folder, user_id="alice")
    await memory.add(fact("Alice is allergic to peanuts."))

    await memory.close()

    reopened = AsyncMemory(path=folder)  # a folder opens once per process: this works only after close
    try:
        assert await reopened.count(user_id="alice") == 1
    finally:
        await reopened.close()


async def test_close_twice_is_harmless(tmp_path: Path) -> None:
    memory = MemadaptMemory(location=":memory:", user_id="alice")

    await memory.close()
    await memory.close()


def test_a_scope_is_required() -> None:
    with pytest.raises(ValidationError, match="user_id"):
        MemadaptMemory(location=":memory:")


def test_engine_and_store_settings_are_exclusive(amemory: AsyncMemory) -> None:
    with pytest.raises(ConfigurationError, match="path"):
        MemadaptMemory(memory=amemory, user_id="alice", path="./elsewhere")


def test_bad_settings_raise_a_validation_error_naming_the_field(amemory: AsyncMemory) -> None:
    with pytest.raises(ValidationError) as caught:
        MemadaptMemory(memory=amemory, user_id="alice", limit=0)

    assert caught.value.field == "limit"


async def test_update_context_replaces_its_message_in_a_buffered_context(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(fact("Alice's favourite tea is oolong."))
    context = BufferedChatCompletionContext(buffer_size=10)

    for question in ("Which tea do I like?", "Which tea should I buy, oolong?"):
        await context.add_message(UserMessage(content=question, source="user"))
        await memory.update_context(context)

    messages = await context.get_messages()
    assert [type(m).__name__ for m in messages] == ["UserMessage", "UserMessage", "SystemMessage"]


async def test_update_context_removes_its_message_when_nothing_is_relevant(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(fact("Alice's favourite tea is oolong."))
    context = UnboundedChatCompletionContext()
    await context.add_message(UserMessage(content="Which tea do I like?", source="user"))
    await memory.update_context(context)

    await context.add_message(UserMessage(content="quantum xyzzy lattice", source="user"))
    result = await memory.update_context(context)

    assert result.memories.results == []
    assert not any(isinstance(m, SystemMessage) for m in await context.get_messages())


async def test_update_context_leaves_other_system_messages_alone(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(fact("Alice's favourite tea is oolong."))
    context = UnboundedChatCompletionContext([SystemMessage(content="Answer briefly.")])

    for question in ("Which tea do I like?", "Which tea should I buy, oolong?"):
        await context.add_message(UserMessage(content=question, source="user"))
        await memory.update_context(context)

    system = [m.content for m in await context.get_messages() if isinstance(m, SystemMessage)]
    assert system[0] == "Answer briefly."
    assert len(system) == 2


async def test_update_context_without_a_user_message_searches_nothing(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(fact("Alice's favourite tea is oolong."))
    context = UnboundedChatCompletionContext()

    result = await memory.update_context(context)

    assert result.memories.results == []
    assert await context.get_messages() == []


async def test_memory_message_restored_from_saved_state_is_replaced(amemory: AsyncMemory) -> None:
    await MemadaptMemory(memory=amemory, user_id="alice").add(fact("Alice's favourite tea is oolong."))
    before_restart = UnboundedChatCompletionContext()
    await before_restart.add_message(UserMessage(content="Which tea do I like?", source="user"))
    await MemadaptMemory(memory=amemory, user_id="alice").update_context(before_restart)
    saved = await before_restart.save_state()

    restored = UnboundedChatCompletionContext()  # a new process: new context, new memory object
    await restored.load_state(saved)
    await restored.add_message(UserMessage(content="Which tea should I buy, oolong?", source="user"))
    await MemadaptMemory(memory=amemory, user_id="alice").update_context(restored)

    assert [type(m).__name__ for m in await restored.get_messages()] == [
        "UserMessage",
        "UserMessage",
        "SystemMessage",
    ]


@pytest.mark.parametrize("text", ["tea " * 10_000, "Which tea\x00 do I like?"])
async def test_update_context_survives_a_turn_the_engine_would_refuse_as_a_query(
    amemory: AsyncMemory, text: str
) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    await memory.add(fact("Alice's favourite tea is oolong."))
    context = UnboundedChatCompletionContext([UserMessage(content=text, source="user")])

    result = await memory.update_context(context)

    assert [item.content for item in result.memories.results] == ["Alice's favourite tea is oolong."]
