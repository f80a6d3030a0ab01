"""What a chain stores through ``MemadaptChatMessageHistory`` is on disk when the call returns: closing the engine
right after it (and reopening the folder) loses nothing. Long replies are stored whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory

from memadapt_core import AsyncMemory, Memory
from memadapt_langchain import MemadaptChatMessageHistory

LONG_REPLY = ("The Berlin marathon route passes the Brandenburg Gate. " * 1400)[:76_000]
CONFIG = {"configurable": {"session_id": "s1"}}

# RunnableWithMessageHistory, the main consumer of chat histories, is deprecated upstream (since langchain-core 1.x)
# but still shipped and used; only its own deprecation warning is allowed here.
pytestmark = pytest.mark.filterwarnings(
    "ignore:RunnableWithMessageHistory is deprecated:langchain_core._api.deprecation.LangChainDeprecationWarning"
)


def chat_chain(memory: Memory | AsyncMemory, model: BaseChatModel) -> RunnableWithMessageHistory:
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{question}")])
    return RunnableWithMessageHistory(
        prompt | model,
        lambda session_id: MemadaptChatMessageHistory(memory, session_id, user_id="alice"),
        input_messages_key="question",
        history_messages_key="history",
    )


def stored_texts(folder: Path) -> list[str | list[str | dict[str, object]]]:
    with Memory(path=folder) as reopened:
        return [m.content for m in MemadaptChatMessageHistory(reopened, "s1", user_id="alice").messages]


def test_a_turn_survives_closing_the_engine_right_after_invoke(
    tmp_path: Path, scripted_model: Callable[[list[AIMessage]], BaseChatModel]
) -> None:
    with Memory(path=tmp_path) as engine:
        chat_chain(engine, scripted_model([AIMessage("Noted, teal it is.")])).invoke(
            {"question": "My favourite colour is teal."}, config=CONFIG
        )

    assert stored_texts(tmp_path) == ["My favourite colour is teal.", "Noted, teal it is."]


async def test_a_turn_survives_closing_the_engine_right_after_ainvoke(
    tmp_path: Path, scripted_model: Callable[[list[AIMessage]], BaseChatModel]
) -> None:
    async with AsyncMemory(path=tmp_path) as engine:
        await chat_chain(engine, scripted_model([AIMessage("Noted.")])).ainvoke(
            {"question": "I am training for the Berlin marathon."}, config=CONFIG
        )

    assert stored_texts(tmp_path) == ["I am training for the Berlin marathon.", "Noted."]


def test_a_76000_character_reply_of_a_chain_is_stored_whole(
    memory: Memory, scripted_model: Callable[[list[AIMessage]], BaseChatModel]
) -> None:
    chain = chat_chain(memory, scripted_model([AIMessage(LONG_REPLY)]))

    chain.invoke({"question": "Describe the Berlin marathon route in detail."}, config=CONFIG)

    history = MemadaptChatMessageHistory(memory, "s1", user_id="alice")
    assert [m.content for m in history.messages] == ["Describe the Berlin marathon route in detail.", LONG_REPLY]


async def test_a_76000_character_message_round_trips_through_add_messages(amemory: AsyncMemory) -> None:
    history = MemadaptChatMessageHistory(amemory, "s1", user_id="alice")
    exchange: list[BaseMessage] = [HumanMessage("Describe the route."), AIMessage(LONG_REPLY)]

    await history.aadd_messages(exchange)

    assert await history.aget_messages() == exchange
