"""answer(): recall, ask the configured LLM, return the answer with the memories it used, store the exchange."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from memadapt_core import Answer, AsyncMemory, ConfigurationError, Memory, StoreUnavailableError, ValidationError
from memadapt_core.testing import ScriptedLLMServer
from tests._chat import NOT_REMEMBERED, remembering_llm


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(responder=remembering_llm) as server:
        yield server


def _llm_settings(server: ScriptedLLMServer) -> dict[str, Any]:
    return {"base_url": server.base_url, "model": "scripted", "timeout": 5.0, "max_retries": 0}


@pytest.fixture
def mem(llm: ScriptedLLMServer) -> Iterator[Memory]:
    with Memory(location=":memory:", llm=_llm_settings(llm)) as memory:
        yield memory


@pytest.fixture
async def amem(llm: ScriptedLLMServer) -> AsyncIterator[AsyncMemory]:
    async with AsyncMemory(location=":memory:", llm=_llm_settings(llm)) as memory:
        yield memory


def test_answer_recalls_a_fact_told_in_another_session(mem: Memory) -> None:
    mem.add("My dog is called Rex", user_id="ann", session_id="monday")
    result = mem.answer("What is my dog called?", user_id="ann", session_id="tuesday")
    assert "Rex" in result.answer
    assert [h.record.text for h in result.memories] == ["My dog is called Rex"]


def test_answer_says_so_when_nothing_is_remembered(mem: Memory) -> None:
    result = mem.answer("What is my dog called?", user_id="ann")
    assert result.answer == NOT_REMEMBERED
    assert result.memories == []


def test_answer_stores_the_question_and_the_answer_in_the_session(mem: Memory) -> None:
    mem.add("My dog is called Rex", user_id="ann", session_id="monday")
    result = mem.answer("What is my dog called?", user_id="ann", session_id="tuesday")
    turns = mem.recent(user_id="ann", session_id="tuesday")
    assert [(t.role, t.text) for t in turns] == [("user", "What is my dog called?"), ("assistant", result.answer)]
    assert result.stored == [t.id for t in turns]


def test_answer_with_remember_false_stores_nothing(mem: Memory) -> None:
    result = mem.answer("What is my dog called?", user_id="ann", session_id="s", remember=False)
    assert result.stored == []
    assert mem.count(user_id="ann") == 0


def test_answer_shows_the_llm_the_sessions_latest_turns(mem: Memory, llm: ScriptedLLMServer) -> None:
    mem.add("I am planning a trip to Lisbon", user_id="ann", session_id="s")
    mem.answer("Where was I going?", user_id="ann", session_id="s")
    assert "I am planning a trip to Lisbon" in llm.chat_requests("answer")[-1].system
    assert "latest turns" in llm.chat_requests("answer")[-1].system


def test_answer_asks_for_the_users_language_and_gives_the_date(mem: Memory, llm: ScriptedLLMServer) -> None:
    mem.answer("我的狗叫什么名字？", user_id="ann", now=datetime(2025, 3, 5, 9, 0, tzinfo=UTC))
    request = llm.chat_requests("answer")[-1]
    assert "in the language of the user's question" in request.system
    assert "2025-03-05" in request.system
    assert request.user == "我的狗叫什么名字？"
    assert not request.json_mode


def test_answer_stores_the_exchange_at_now(mem: Memory) -> None:
    then = datetime(2025, 3, 5, 9, 0, tzinfo=UTC)
    mem.answer("Hello", user_id="ann", session_id="s", now=then)
    assert {t.observed_at.date() for t in mem.recent(user_id="ann", session_id="s")} == {then.date()}


def test_answer_without_an_llm_names_the_settings(memory: Memory) -> None:
    with pytest.raises(ConfigurationError, match=r"llm\.model.*llm\.base_url.*MEMADAPT_LLM__MODEL"):
        memory.answer("What is my dog called?", user_id="ann")


def test_answer_refuses_an_empty_question_naming_it(mem: Memory) -> None:
    with pytest.raises(ValidationError, match="question"):
        mem.answer("   ", user_id="ann")


def test_answer_stream_yields_the_text_then_the_answer(mem: Memory) -> None:
    mem.add("My dog is called Rex", user_id="ann", session_id="monday")
    parts = list(mem.answer_stream("What is my dog called?", user_id="ann", session_id="tuesday"))
    *chunks, final = parts
    assert isinstance(final, Answer)
    assert len(chunks) > 1
    assert "".join(str(c) for c in chunks) == final.answer
    assert "Rex" in final.answer


async def test_async_answer_recalls_a_fact_told_in_another_session(amem: AsyncMemory) -> None:
    await amem.add("My dog is called Rex", user_id="ann", session_id="monday")
    result = await amem.answer("What is my dog called?", user_id="ann", session_id="tuesday")
    assert "Rex" in result.answer
    assert len(await amem.recent(user_id="ann", session_id="tuesday")) == 2


async def test_async_answer_stream_yields_the_text_then_the_answer(amem: AsyncMemory) -> None:
    await amem.add("My dog is called Rex", user_id="ann", session_id="monday")
    parts = [p async for p in amem.answer_stream("What is my dog called?", user_id="ann")]
    *chunks, final = parts
    assert isinstance(final, Answer)
    assert "".join(str(c) for c in chunks) == final.answer


def test_consolidate_without_an_llm_warns_once(memory: Memory, caplog: pytest.LogCaptureFixture) -> None:
    from memadapt_core.engine import llm_notice

    llm_notice._WARNED.discard("consolidate()")
    with caplog.at_level(logging.WARNING, logger="memadapt"):
        memory.consolidate()
        memory.consolidate()
    warnings = [r.getMessage() for r in caplog.records if "consolidate()" in r.getMessage()]
    assert len(warnings) == 1
    assert "MEMADAPT_LLM__MODEL" in warnings[0]


@pytest.mark.parametrize(
    ("feature", "use"),
    [
        ("tiers.profile", lambda: Memory(location=":memory:", tiers={"profile": True}).close()),
        (
            "add_trajectories",
            lambda: _with_memory(
                lambda m: m.add_trajectories(
                    {"messages": [{"role": "user", "content": "hi"}], "score": 1.0}, agent_id="a"
                )
            ),
        ),
        ("experience_guidance", lambda: _with_memory(lambda m: m.experience_guidance("book", agent_id="a"))),
    ],
)
def test_features_that_need_an_llm_warn_without_one(feature: str, use: Any, caplog: pytest.LogCaptureFixture) -> None:
    from memadapt_core.engine import llm_notice

    llm_notice._WARNED.discard(feature)
    with caplog.at_level(logging.WARNING, logger="memadapt"):
        use()
    assert any(feature in r.getMessage() and "needs an LLM" in r.getMessage() for r in caplog.records)


def _with_memory(fn: Any) -> None:
    with Memory(location=":memory:") as memory:
        fn(memory)


def test_a_configured_llm_brings_no_warning(mem: Memory, caplog: pytest.LogCaptureFixture) -> None:
    from memadapt_core.engine import llm_notice

    llm_notice._WARNED.clear()
    with caplog.at_level(logging.WARNING, logger="memadapt"):
        mem.consolidate()
    assert not [r for r in caplog.records if "needs an LLM" in r.getMessage()]


def test_answer_on_a_closed_memory_says_it_is_closed(llm: ScriptedLLMServer) -> None:
    memory = Memory(location=":memory:", llm=_llm_settings(llm))
    memory.close()
    with pytest.raises(StoreUnavailableError, match="closed"):
        memory.answer("What is my dog called?", user_id="ann")
