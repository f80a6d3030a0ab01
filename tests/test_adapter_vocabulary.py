"""One vocabulary across the adapters: every constructor takes the engine as ``memory=``, names its scope
``user_id`` / ``agent_id`` / ``session_id``, takes its framework's name for the result count, and refuses bad
arguments with memadapt's ``ValidationError`` (a ``MemadaptError`` and a ``ValueError``) naming the argument.
AG2's capability is checked in tests/autogen/test_ag2.py (its import needs the optional extra)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from memadapt_agentscope import MemadaptExperienceMiddleware, MemadaptMemoryService, MemadaptMiddleware
from memadapt_autogen import MemadaptExperienceMemory, MemadaptMemory
from memadapt_core import Memory, ValidationError
from memadapt_langchain import (
    MemadaptChatMessageHistory,
    MemadaptExperienceRetriever,
    MemadaptRetriever,
    MemadaptStore,
    MemadaptVectorStore,
    create_experience_tool,
    create_save_memory_tool,
    create_search_memory_tool,
    create_trajectory_tool,
)

Build = Callable[..., Any]

# Each adapter with the scope it needs and its framework's name for the number of results (None: it has none).
ADAPTERS: dict[str, tuple[Build, dict[str, Any], str | None]] = {
    "langchain retriever": (MemadaptRetriever, {"user_id": "alice"}, "k"),
    "langchain vector store": (MemadaptVectorStore, {"user_id": "alice"}, None),
    "langchain chat history": (MemadaptChatMessageHistory, {"session_id": "s1", "user_id": "alice"}, None),
    "langchain search tool": (create_search_memory_tool, {"user_id": "alice"}, "limit"),
    "langchain save tool": (create_save_memory_tool, {"user_id": "alice"}, None),
    "langgraph store": (MemadaptStore, {"agent_id": "langgraph"}, None),
    "autogen memory": (MemadaptMemory, {"user_id": "alice"}, "limit"),
    "agentscope middleware": (MemadaptMiddleware, {"user_id": "alice"}, "top_k"),
    "agentscope runtime service": (MemadaptMemoryService, {"agent_id": "app"}, "top_k"),
    # task memory: an agent's experience
    "autogen experience memory": (MemadaptExperienceMemory, {"agent_id": "bot"}, "limit"),
    "agentscope experience middleware": (MemadaptExperienceMiddleware, {"agent_id": "bot"}, "top_k"),
    "langchain experience retriever": (MemadaptExperienceRetriever, {"agent_id": "bot"}, "k"),
    "langchain experience tool": (create_experience_tool, {"agent_id": "bot"}, "limit"),
    "langchain trajectory tool": (create_trajectory_tool, {"agent_id": "bot"}, None),
}
NAMES = sorted(ADAPTERS)


@pytest.mark.parametrize("name", NAMES)
def test_every_adapter_takes_the_engine_as_memory_keyword(name: str, memory: Memory) -> None:
    build, scope, _ = ADAPTERS[name]

    assert build(memory=memory, **scope) is not None


@pytest.mark.parametrize("name", NAMES)
def test_every_adapter_refuses_what_is_not_an_engine_naming_memory(name: str) -> None:
    build, scope, _ = ADAPTERS[name]

    with pytest.raises(ValidationError, match="memadapt engine") as raised:
        build(memory="./memories", **scope)
    assert raised.value.field == "memory"


@pytest.mark.parametrize("name", NAMES)
def test_every_adapter_refuses_an_empty_scope_id_naming_it(name: str, memory: Memory) -> None:
    build, scope, _ = ADAPTERS[name]
    field = next(iter(scope))

    with pytest.raises(ValidationError) as raised:
        build(memory=memory, **{**scope, field: ""})
    assert raised.value.field == field


@pytest.mark.parametrize("name", [n for n in NAMES if ADAPTERS[n][2] is not None])
def test_every_adapter_refuses_a_result_count_under_one_by_its_frameworks_name(name: str, memory: Memory) -> None:
    build, scope, count = ADAPTERS[name]
    assert count is not None

    with pytest.raises(ValidationError) as raised:
        build(memory=memory, **scope, **{count: 0})
    assert raised.value.field == count


def test_validation_errors_are_value_errors_for_frameworks_that_catch_those() -> None:
    assert issubclass(ValidationError, ValueError)
