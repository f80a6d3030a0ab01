"""The AG2 capability: a ConversableAgent whose replies see one memadapt system message, and whose
conversation is stored. AG2 (`autogen` 0.14) is optional: these tests skip without it."""

from pathlib import Path
from typing import Any

import pytest

from memadapt_core import BLOCK_START, AsyncMemory, Memory, ValidationError

autogen = pytest.importorskip("autogen")
from memadapt_autogen.ag2 import MemadaptCapability  # noqa: E402


class ScriptedModel:
    """Stands in for the LLM: records the messages each reply was generated from."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.calls: list[list[dict[str, Any]]] = []

    def reply(self, recipient: Any, messages: Any, sender: Any, config: Any) -> tuple[bool, str]:
        self.calls.append([dict(m) for m in messages])
        return True, self.answer


@pytest.fixture
def sync_engine(amemory: AsyncMemory) -> Memory:
    return amemory.as_sync()


def two_agents(
    capability: MemadaptCapability, answer: str = "Noted.", follow_up: str = ""
) -> tuple[Any, Any, ScriptedModel]:
    model = ScriptedModel(answer)
    assistant = autogen.ConversableAgent("assistant", llm_config=False, human_input_mode="NEVER")
    assistant.register_reply([autogen.Agent, None], model.reply)
    capability.add_to_agent(assistant)
    user = autogen.ConversableAgent("user", llm_config=False, human_input_mode="NEVER", default_auto_reply=follow_up)
    return user, assistant, model


def memory_messages(call: list[dict[str, Any]]) -> list[str]:
    return [m["content"] for m in call if m.get("role") == "system" and BLOCK_START in str(m["content"])]


def test_reply_sees_one_memory_message_with_the_relevant_fact(sync_engine: Memory) -> None:
    sync_engine.add("Alice's favourite tea is oolong.", user_id="alice", kind="fact")
    user, assistant, model = two_agents(MemadaptCapability(sync_engine, user_id="alice", record=False))

    user.initiate_chat(assistant, message="Which tea do I like?", max_turns=1, silent=True)

    sent = memory_messages(model.calls[-1])
    assert len(sent) == 1
    assert "oolong" in sent[0]


def test_memory_message_never_enters_the_stored_history(sync_engine: Memory) -> None:
    sync_engine.add("Alice's favourite tea is oolong.", user_id="alice", kind="fact")
    capability = MemadaptCapability(sync_engine, user_id="alice", record=False)
    user, assistant, model = two_agents(capability, follow_up="Which tea should I buy, oolong?")

    user.initiate_chat(assistant, message="Which tea do I like?", max_turns=2, silent=True)

    assert [len(memory_messages(call)) for call in model.calls] == [1, 1]
    assert memory_messages(assistant.chat_messages[user]) == []


def test_another_users_memories_never_reach_the_reply(sync_engine: Memory) -> None:
    sync_engine.add("Alice's favourite tea is oolong.", user_id="alice", kind="fact")
    sync_engine.add("My favourite tea is earl grey.", user_id="bob", kind="fact")
    user, assistant, model = two_agents(MemadaptCapability(sync_engine, user_id="alice", record=False))

    user.initiate_chat(assistant, message="Is my favourite tea earl grey?", max_turns=1, silent=True)

    assert "earl grey" not in " ".join(memory_messages(model.calls[-1])).lower()


def test_the_conversation_is_stored_and_recalled_in_a_later_chat(sync_engine: Memory) -> None:
    capability = MemadaptCapability(sync_engine, user_id="alice")
    user, assistant, _ = two_agents(capability, answer="What a lovely name for a greyhound.")
    user.initiate_chat(assistant, message="My greyhound is called Biscuit.", max_turns=1, silent=True)

    later_user, later_assistant, model = two_agents(MemadaptCapability(sync_engine, user_id="alice"))
    later_user.initiate_chat(later_assistant, message="What is my greyhound called?", max_turns=1, silent=True)

    records = sync_engine.list(user_id="alice").records
    assert [(r.role, r.name, r.text) for r in records[:2]] == [
        ("user", "user", "My greyhound is called Biscuit."),
        ("assistant", "assistant", "What a lovely name for a greyhound."),
    ]
    assert "Biscuit" in memory_messages(model.calls[-1])[0]


def test_an_async_engine_is_used_through_its_sync_view(amemory: AsyncMemory) -> None:
    amemory.as_sync().add("Alice's favourite tea is oolong.", user_id="alice", kind="fact")
    user, assistant, model = two_agents(MemadaptCapability(amemory, user_id="alice", record=False))

    user.initiate_chat(assistant, message="Which tea do I like?", max_turns=1, silent=True)

    assert len(memory_messages(model.calls[-1])) == 1


def test_capability_needs_a_scope(sync_engine: Memory) -> None:
    with pytest.raises(ValidationError, match="user_id"):
        MemadaptCapability(sync_engine)


def test_a_message_too_long_to_store_does_not_end_the_chat(caplog: pytest.LogCaptureFixture) -> None:
    with Memory(location=":memory:", max_text_chars=1_000) as engine:  # a store that refuses long texts
        user, assistant, model = two_agents(MemadaptCapability(engine, user_id="alice"))

        user.initiate_chat(assistant, message="tea " * 10_000, max_turns=1, silent=True)

        assert len(model.calls) == 1
        assert "did not store a user message" in caplog.text
        assert [r.role for r in engine.list(user_id="alice").records] == ["assistant"]


async def test_works_in_an_async_chat(sync_engine: Memory) -> None:
    sync_engine.add("Alice's favourite tea is oolong.", user_id="alice", kind="fact")
    user, assistant, model = two_agents(MemadaptCapability(sync_engine, user_id="alice", record=False))

    await user.a_initiate_chat(assistant, message="Which tea do I like?", max_turns=1, silent=True)

    assert "oolong" in memory_messages(model.calls[-1])[0]


def test_the_chat_is_on_disk_when_initiate_chat_returns(tmp_path: Path) -> None:
    with Memory(path=tmp_path) as engine:
        user, assistant, _ = two_agents(MemadaptCapability(engine, user_id="alice"), answer="Noted, teal it is.")
        user.initiate_chat(assistant, message="My favourite colour is teal.", max_turns=1, silent=True)

    with Memory(path=tmp_path) as reopened:
        assert [r.text for r in reopened.list(user_id="alice").records] == [
            "My favourite colour is teal.",
            "Noted, teal it is.",
        ]


def test_a_76000_character_reply_is_stored_whole(sync_engine: Memory) -> None:
    long_reply = ("The Berlin marathon route passes the Brandenburg Gate. " * 1400)[:76_000]
    user, assistant, _ = two_agents(MemadaptCapability(sync_engine, user_id="alice"), answer=long_reply)

    user.initiate_chat(assistant, message="Describe the route in detail.", max_turns=1, silent=True)

    assert [r.text for r in sync_engine.list(user_id="alice").records] == ["Describe the route in detail.", long_reply]


def test_the_capability_refuses_a_limit_under_one_and_what_is_not_an_engine(memory: Memory) -> None:
    with pytest.raises(ValidationError, match="limit"):
        MemadaptCapability(memory, user_id="alice", limit=0)
    with pytest.raises(ValidationError, match="memadapt engine"):
        MemadaptCapability(memory="./memories", user_id="alice")  # type: ignore[arg-type]


def test_a_users_langgraph_item_reaches_that_users_ag2_agent(sync_engine: Memory) -> None:
    from memadapt_langchain import MemadaptStore  # the LangGraph side of the shared store (docs/adapters.md)

    MemadaptStore(sync_engine).put(("memories", "maya"), "sister", {"content": "Maya's sister lives in Porto"})
    user, assistant, model = two_agents(MemadaptCapability(sync_engine, user_id="maya", record=False))
    other_user, other_assistant, other_model = two_agents(
        MemadaptCapability(sync_engine, user_id="tom", threshold=0.0, record=False)
    )

    user.initiate_chat(assistant, message="Where does my sister live?", max_turns=1, silent=True)
    other_user.initiate_chat(other_assistant, message="Where does my sister live?", max_turns=1, silent=True)

    [sent] = memory_messages(model.calls[-1])
    assert "Maya's sister lives in Porto" in sent
    assert memory_messages(other_model.calls[-1]) == []
