"""`add_messages`: AutoGen conversations become message records the engine can consolidate."""

from datetime import UTC, datetime

from autogen_agentchat.messages import (
    HandoffMessage,
    MemoryQueryEvent,
    MultiModalMessage,
    StopMessage,
    TextMessage,
    ThoughtEvent,
    ToolCallExecutionEvent,
    ToolCallRequestEvent,
    ToolCallSummaryMessage,
)
from autogen_core import FunctionCall, Image
from autogen_core.models import FunctionExecutionResult

from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory

WHEN = datetime(2024, 5, 7, 9, 30, tzinfo=UTC)


def conversation() -> list[TextMessage]:
    return [
        TextMessage(source="user", content="I moved to Lisbon last month.", created_at=WHEN),
        TextMessage(source="assistant", content="How do you like Lisbon so far?", created_at=WHEN),
    ]


async def test_messages_are_stored_with_role_name_id_and_time(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice", session_id="s1")
    messages = conversation()

    records = await memory.add_messages(messages)

    assert [(r.kind, r.role, r.name, r.text) for r in records] == [
        ("message", "user", "user", "I moved to Lisbon last month."),
        ("message", "assistant", "assistant", "How do you like Lisbon so far?"),
    ]
    assert [r.external_id for r in records] == [m.id for m in messages]
    assert [r.observed_at for r in records] == [WHEN, WHEN]
    assert {(r.user_id, r.session_id) for r in records} == {("alice", "s1")}


async def test_adding_the_same_messages_twice_stores_nothing_new(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    messages = conversation()

    first = await memory.add_messages(messages)
    second = await memory.add_messages(messages)

    assert [r.id for r in second] == [r.id for r in first]
    assert await amemory.count(user_id="alice") == 2


async def test_a_growing_history_stores_only_the_new_messages(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    history = conversation()
    await memory.add_messages(history)

    history.append(TextMessage(source="user", content="I love the trams there.", created_at=WHEN))
    await memory.add_messages(history)

    assert await amemory.count(user_id="alice") == 3


async def test_events_and_control_messages_are_skipped(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    call = FunctionCall(id="c1", name="lookup", arguments="{}")
    result = FunctionExecutionResult(content="sunny", name="lookup", call_id="c1")
    messages = [
        ToolCallRequestEvent(source="assistant", content=[call]),
        ToolCallExecutionEvent(source="assistant", content=[result]),
        MemoryQueryEvent(source="assistant", content=[]),
        ThoughtEvent(source="assistant", content="Let me think."),
        StopMessage(source="termination", content="TERMINATE"),
        HandoffMessage(source="assistant", target="planner", content="Transferred to planner."),
        ToolCallSummaryMessage(source="assistant", content="It is sunny.", tool_calls=[call], results=[result]),
    ]

    records = await memory.add_messages(messages)

    assert [(r.text, r.metadata["autogen_type"]) for r in records] == [("It is sunny.", "ToolCallSummaryMessage")]


async def test_multimodal_message_keeps_its_text_and_drops_images(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    image = Image.from_base64(png)
    messages = [
        MultiModalMessage(source="user", content=["This is my bike.", image]),
        MultiModalMessage(source="user", content=[image]),
    ]

    records = await memory.add_messages(messages)

    assert [r.text for r in records] == ["This is my bike."]


async def test_configured_user_sources_are_stored_as_the_user(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice", user_sources=["alice_proxy"])
    messages = [
        TextMessage(source="alice_proxy", content="Book me a table for two."),
        TextMessage(source="user", content="Another agent named user."),
    ]

    records = await memory.add_messages(messages)

    assert [r.role for r in records] == ["user", "assistant"]


async def test_message_metadata_is_kept(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")

    records = await memory.add_messages([TextMessage(source="user", content="Hi there.", metadata={"channel": "web"})])

    assert records[0].metadata == {"channel": "web", "autogen_type": "TextMessage"}


async def test_nothing_to_store_returns_an_empty_list(amemory: AsyncMemory) -> None:
    memory = MemadaptMemory(memory=amemory, user_id="alice")

    assert await memory.add_messages([ThoughtEvent(source="assistant", content="hmm")]) == []
