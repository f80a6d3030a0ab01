"""MemadaptChatMessageHistory: a session's turns as message records, round-tripping every LangChain type."""

from __future__ import annotations

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory

from memadapt_core import AsyncMemory, Memory
from memadapt_langchain import MemadaptChatMessageHistory

CONVERSATION: list[BaseMessage] = [
    SystemMessage("Answer briefly."),
    HumanMessage("What's the weather in Oslo?", id="m1", name="ann"),
    AIMessage("", tool_calls=[{"name": "weather", "args": {"city": "Oslo"}, "id": "call1"}]),
    ToolMessage("-3 C and snowing", tool_call_id="call1", artifact={"raw": [1, 2]}),
    AIMessage("It is -3 C and snowing.", additional_kwargs={"x": 1}, response_metadata={"model": "m"}),
    ChatMessage(role="critic", content="Good answer."),
    FunctionMessage(name="lookup", content="done"),
    HumanMessage([{"type": "text", "text": "And this?"}, {"type": "image_url", "image_url": {"url": "http://x"}}]),
]


def test_messages_come_back_equal_and_in_order(memory: Memory) -> None:
    history = MemadaptChatMessageHistory(memory, "s1", user_id="ann")

    history.add_messages(CONVERSATION)

    assert history.messages == CONVERSATION


def test_messages_added_one_call_at_a_time_keep_their_order(memory: Memory) -> None:
    history = MemadaptChatMessageHistory(memory, "s1")

    for message in CONVERSATION:
        history.add_message(message)

    assert history.messages == CONVERSATION


async def test_async_twins_store_and_read_the_same_messages(amemory: AsyncMemory) -> None:
    history = MemadaptChatMessageHistory(amemory, "s1", user_id="ann")

    await history.aadd_messages(CONVERSATION)

    assert await history.aget_messages() == CONVERSATION
    assert history.messages == CONVERSATION


def test_repeated_words_are_kept_as_separate_turns(memory: Memory) -> None:
    history = MemadaptChatMessageHistory(memory, "s1")

    history.add_messages([HumanMessage("ok"), AIMessage("ok"), HumanMessage("ok")])

    assert history.messages == [HumanMessage("ok"), AIMessage("ok"), HumanMessage("ok")]


def test_a_message_id_sent_twice_is_stored_once(memory: Memory) -> None:
    history = MemadaptChatMessageHistory(memory, "s1")

    history.add_messages([HumanMessage("hello", id="m1")])
    history.add_messages([HumanMessage("hello", id="m1"), AIMessage("hi", id="m2")])

    assert history.messages == [HumanMessage("hello", id="m1"), AIMessage("hi", id="m2")]


def test_sessions_do_not_see_each_others_messages(memory: Memory) -> None:
    MemadaptChatMessageHistory(memory, "s1").add_messages([HumanMessage("in one")])
    MemadaptChatMessageHistory(memory, "s2").add_messages([HumanMessage("in two")])

    assert MemadaptChatMessageHistory(memory, "s1").messages == [HumanMessage("in one")]


def test_clear_removes_this_sessions_messages_only(memory: Memory) -> None:
    history = MemadaptChatMessageHistory(memory, "s1", user_id="ann")
    history.add_messages([HumanMessage("I moved to Bergen"), AIMessage("Noted")])
    MemadaptChatMessageHistory(memory, "s2", user_id="ann").add_messages([HumanMessage("other session")])
    memory.add("Ann lives in Bergen", user_id="ann", session_id="s1", kind="fact")

    history.clear()

    assert history.messages == []
    assert [r.text for r in memory.list(user_id="ann").records] == ["other session", "Ann lives in Bergen"]


async def test_async_clear_removes_this_sessions_messages(amemory: AsyncMemory) -> None:
    history = MemadaptChatMessageHistory(amemory, "s1")
    await history.aadd_messages([HumanMessage("a"), AIMessage("b")])

    await history.aclear()

    assert await history.aget_messages() == []


def test_turns_are_searchable_long_term_memories(memory: Memory) -> None:
    MemadaptChatMessageHistory(memory, "s1", user_id="ann").add_messages(
        [HumanMessage("My daughter's name is Ingrid"), AIMessage("What a lovely name!")]
    )

    hits = memory.search("what is my daughter called", user_id="ann")

    assert hits[0].record.text == "My daughter's name is Ingrid"
    assert (hits[0].record.kind, hits[0].record.role, hits[0].record.session_id) == ("message", "user", "s1")


def test_turns_stored_by_another_framework_read_back_by_role(memory: Memory) -> None:
    memory.add(
        [
            {"role": "system", "content": "Be kind."},
            {"role": "user", "content": "Hi", "name": "ann"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "tool", "content": "42"},
        ],
        session_id="s1",
    )

    assert MemadaptChatMessageHistory(memory, "s1").messages == [
        SystemMessage("Be kind."),
        HumanMessage("Hi", name="ann"),
        AIMessage("Hello!"),
        ChatMessage(role="tool", content="42"),
    ]


# RunnableWithMessageHistory, the main consumer of chat histories, is deprecated upstream (since langchain-core 1.x)
# but still shipped and used; only its own deprecation warning is allowed here.
@pytest.mark.filterwarnings(
    "ignore:RunnableWithMessageHistory is deprecated:langchain_core._api.deprecation.LangChainDeprecationWarning"
)
def test_runnable_with_message_history_keeps_a_conversation(memory: Memory) -> None:
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{question}")])
    echo = RunnableLambda(lambda value: AIMessage(f"I saw {len(value.to_messages())} messages"))
    chain = RunnableWithMessageHistory(
        prompt | echo,
        lambda session_id: MemadaptChatMessageHistory(memory, session_id),
        input_messages_key="question",
        history_messages_key="history",
    )
    config = {"configurable": {"session_id": "s1"}}

    chain.invoke({"question": "first"}, config=config)
    answer = chain.invoke({"question": "second"}, config=config)

    assert answer.content == "I saw 3 messages"
    assert [m.content for m in MemadaptChatMessageHistory(memory, "s1").messages] == [
        "first",
        "I saw 1 messages",
        "second",
        "I saw 3 messages",
    ]


def test_a_long_conversation_comes_back_whole(memory: Memory) -> None:
    turns = [HumanMessage(f"turn {i}") if i % 2 else AIMessage(f"turn {i}") for i in range(130)]
    history = MemadaptChatMessageHistory(memory, "long")

    history.add_messages(turns)

    assert history.messages == turns
