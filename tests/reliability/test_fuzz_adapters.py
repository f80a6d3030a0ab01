"""Bad input through the adapters, fuzzed: each adapter's public calls get arbitrary text, metadata, ids,
limits and filters. Only ``MemadaptError`` subclasses escape, or the error the framework documents for a bad
argument (LangChain and LangGraph: ``ValueError``, e.g. ``InvalidNamespaceError``); a refused call leaves
the store as it was; AgentScope 2.x tools, called with what their input schema admits (the agent validates
tool input against it), always answer with a ``ToolChunk`` and never raise."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime
from typing import Any

import jsonschema
import pytest
from autogen_agentchat.messages import TextMessage
from autogen_core.memory import MemoryContent
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import UserMessage
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage

from memadapt_agentscope import MemadaptMemoryService, MemadaptMiddleware
from memadapt_autogen import MemadaptMemory
from memadapt_core import MemadaptError, Memory, ValidationError
from memadapt_langchain import (
    MemadaptChatMessageHistory,
    MemadaptRetriever,
    MemadaptStore,
    MemadaptVectorStore,
)

from ._strategies import FILTERS, FLOATS, GARBAGE, HUGE, JSON, KINDS, LIMIT, METADATA, MOMENT, SCOPE_ID, TEXT
from ._support import FUZZ, reset, snapshot

ANY_TEXT = TEXT | HUGE
NOT_JSON = st.sampled_from([datetime(2024, 1, 1), {"a", "b"}, object(), b"raw", math.inf])


@pytest.fixture(scope="module")
def store() -> Iterator[Memory]:
    """One store for the module, with a few records for the fuzzed calls to find; each example starts from them
    alone (``fresh``)."""
    with Memory(location=":memory:") as mem:
        mem.add(["I keep bees", "My sister lives in Porto"], user_id="alice", session_id="s1")
        mem.add("likes green tea", user_id="alice", kind="fact", metadata={"langchain": {"tag": "drink"}})
        SEEDED.update(r["id"] for r in snapshot(mem))
        yield mem


def fresh(mem: Memory) -> None:
    reset(mem, SEEDED)


SEEDED: set[str] = set()


def _refused_cleanly(mem: Memory, call: Callable[[], Any], allowed: tuple[type[BaseException], ...] = ()) -> Any:
    """Run ``call``; a refusal must be a MemadaptError (or one of ``allowed``) and change nothing."""
    before = snapshot(mem)
    try:
        return call()
    except MemadaptError:
        pass
    except allowed:
        pass
    assert snapshot(mem) == before
    return None


def _run(loop: asyncio.AbstractEventLoop, work: Callable[[], Awaitable[Any]]) -> Callable[[], Any]:
    return lambda: loop.run_until_complete(work())


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    try:
        yield running
    finally:
        running.close()


# -- AutoGen -------------------------------------------------------------------------------------------------------
CONTENT = st.builds(
    MemoryContent,
    content=ANY_TEXT | st.binary(max_size=8) | st.dictionaries(TEXT, JSON, max_size=3),
    mime_type=st.sampled_from(["text/plain", "text/markdown", "application/json", "image/png", "nope"]) | TEXT,
    metadata=st.none() | st.dictionaries(TEXT, JSON, max_size=3) | st.sampled_from([{"caption": "a cat"}]),
)
SEARCH_OPTIONS = st.fixed_dictionaries(
    {},
    optional={"limit": LIMIT, "threshold": FLOATS | GARBAGE, "kinds": KINDS, "filters": FILTERS, "now": MOMENT},
)


def test_autogen_memory_refuses_bad_input_cleanly(store: Memory, loop: asyncio.AbstractEventLoop) -> None:
    engine = store.as_async()

    @FUZZ
    @given(
        scope=st.one_of(  # two times in three a valid memory, so the calls after its construction get fuzzed too
            st.just({"user_id": "alice"}),
            st.just({"user_id": "bob", "agent_id": "helper", "limit": 3}),
            st.fixed_dictionaries({}, optional={"user_id": SCOPE_ID, "agent_id": SCOPE_ID, "limit": LIMIT}),
        ),
        content=CONTENT,
        query=ANY_TEXT | CONTENT,
        options=SEARCH_OPTIONS,
        said=st.lists(ANY_TEXT, max_size=3),
    )
    def check(
        scope: dict[str, Any], content: MemoryContent, query: Any, options: dict[str, Any], said: list[str]
    ) -> None:
        fresh(store)
        memory = _refused_cleanly(store, lambda: MemadaptMemory(memory=engine, **scope))
        if memory is None:
            return
        reached.append(1)
        _refused_cleanly(store, _run(loop, lambda: memory.add(content)))
        _refused_cleanly(store, _run(loop, lambda: memory.query(query, **options)))
        messages = [TextMessage(content=text, source="user") for text in said if text]
        _refused_cleanly(store, _run(loop, lambda: memory.add_messages(messages)))

        async def update() -> None:
            context = UnboundedChatCompletionContext()
            for text in said:
                await context.add_message(UserMessage(content=text, source="user"))
            await memory.update_context(context)

        _refused_cleanly(store, _run(loop, update))

    reached: list[int] = []
    check()
    assert len(reached) >= 20, "the fuzzer hardly ever built a memory: the inputs are too wrong to test anything"


# -- AgentScope ----------------------------------------------------------------------------------------------------
RUNTIME_MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(["message", "function_call", "nope"]) | GARBAGE,
            "content": st.lists(
                st.fixed_dictionaries({"type": st.just("text") | TEXT, "text": ANY_TEXT | GARBAGE}), max_size=2
            )
            | GARBAGE,
        },
        optional={
            "id": TEXT | GARBAGE,
            "role": st.sampled_from(["user", "assistant"]) | GARBAGE,
            "metadata": st.fixed_dictionaries({}, optional={"original_id": TEXT | GARBAGE, "original_name": TEXT})
            | GARBAGE,
        },
    ),
    GARBAGE,
)
SERVICE_FILTERS = st.none() | st.fixed_dictionaries(
    {}, optional={"top_k": LIMIT, "page_num": LIMIT, "page_size": LIMIT}
)


def test_agentscope_service_refuses_bad_input_cleanly(store: Memory, loop: asyncio.AbstractEventLoop) -> None:
    service = MemadaptMemoryService(store)
    loop.run_until_complete(service.start())

    @FUZZ
    @given(
        user=st.sampled_from(["alice", "bob"]) | SCOPE_ID,
        session=st.none() | SCOPE_ID,
        messages=st.lists(RUNTIME_MESSAGE, max_size=3) | GARBAGE,
        filters=SERVICE_FILTERS,
    )
    def check(user: Any, session: Any, messages: Any, filters: Any) -> None:
        fresh(store)
        _refused_cleanly(store, _run(loop, lambda: service.add_memory(user, messages, session_id=session)))
        _refused_cleanly(store, _run(loop, lambda: service.search_memory(user, messages, filters)))
        _refused_cleanly(store, _run(loop, lambda: service.list_memory(user, filters)))

    check()


def test_agentscope_tools_always_answer_with_a_tool_chunk(store: Memory, loop: asyncio.AbstractEventLoop) -> None:
    [search, add] = loop.run_until_complete(
        MemadaptMiddleware(store, user_id="alice", mode="agent_control").list_tools()
    )

    @FUZZ
    @given(
        search_input=st.fixed_dictionaries({"keywords": st.lists(ANY_TEXT, max_size=3)}, optional={"limit": LIMIT}),
        add_input=st.fixed_dictionaries({"thinking": ANY_TEXT, "content": st.lists(ANY_TEXT, max_size=3)}),
    )
    def check(search_input: dict[str, Any], add_input: dict[str, Any]) -> None:
        for tool, given_input in ((search, search_input), (add, add_input)):
            try:
                jsonschema.validate(given_input, tool.input_schema)  # what the agent does before calling a tool
            except jsonschema.ValidationError:
                continue
            chunk = loop.run_until_complete(tool(**given_input))
            assert chunk.content[0].text

    check()


async def test_the_add_memory_tool_called_with_a_string_stores_one_memory(memory: Memory) -> None:
    [_, add] = await MemadaptMiddleware(memory, user_id="alice", mode="agent_control").list_tools()

    await add(thinking="t", content="I like tea")

    assert [r.text for r in memory.list(user_id="alice").records] == ["I like tea"]


async def test_the_runtime_service_refuses_messages_that_are_not_a_list(memory: Memory) -> None:
    async with MemadaptMemoryService(memory) as service:
        with pytest.raises(ValidationError) as err:
            await service.add_memory("alice", object())  # type: ignore[arg-type]
    assert err.value.field == "messages"


async def test_the_search_memory_tool_called_with_a_string_searches_it_whole(memory: Memory) -> None:
    memory.add("I like green tea", user_id="alice", kind="fact")
    [search, _] = await MemadaptMiddleware(memory, user_id="alice", mode="agent_control").list_tools()

    chunk = await search(keywords="green tea")

    assert chunk.content[0].text == memory.format_context("green tea", memory.search("green tea", user_id="alice"))


# -- LangChain / LangGraph ---------------------------------------------------------------------------------------
LANGCHAIN_ERRORS = (ValueError,)  # LangChain and LangGraph document ValueError (InvalidNamespaceError) for bad input
NAMESPACE = st.lists(st.sampled_from(["memories", "alice", "a.b", "", "x" * 600]) | TEXT, max_size=3).map(tuple)


def test_langchain_components_refuse_bad_input_cleanly(store: Memory, loop: asyncio.AbstractEventLoop) -> None:
    @FUZZ
    @given(
        scope=st.fixed_dictionaries({"user_id": st.just("alice") | SCOPE_ID}, optional={"session_id": SCOPE_ID}),
        texts=st.lists(ANY_TEXT, max_size=3),
        metadatas=st.none() | st.lists(METADATA, max_size=3),
        ids=st.none() | st.lists(TEXT | st.integers() | st.none(), max_size=3),
        query=ANY_TEXT | GARBAGE,
        k=st.integers(-5, 2000),  # LangChain and LangGraph type k and limit as int
        flt=st.none() | FILTERS,
        namespace=NAMESPACE,
        key=ANY_TEXT,
        value=st.dictionaries(TEXT, JSON | NOT_JSON, max_size=3) | NOT_JSON,
    )
    def check(
        scope: dict[str, Any], texts: list[str], metadatas: Any, ids: Any, query: Any, k: Any, flt: Any,
        namespace: tuple[str, ...], key: str, value: Any,
    ) -> None:  # fmt: skip
        fresh(store)
        vs = _refused_cleanly(store, lambda: MemadaptVectorStore(store, **scope))
        if vs is not None:
            _refused_cleanly(store, lambda: vs.add_texts(texts, metadatas, ids=ids), LANGCHAIN_ERRORS)
            _refused_cleanly(store, lambda: vs.similarity_search(query, k=k, filter=flt), LANGCHAIN_ERRORS)
            _refused_cleanly(store, _run(loop, lambda: vs.asimilarity_search(query, k=k)), LANGCHAIN_ERRORS)
            _refused_cleanly(
                store, lambda: vs.add_documents([Document(page_content=t) for t in texts]), LANGCHAIN_ERRORS
            )
        retriever = _refused_cleanly(store, lambda: MemadaptRetriever(memory=store, **scope, k=4), LANGCHAIN_ERRORS)
        if retriever is not None:
            _refused_cleanly(store, lambda: retriever.invoke(query), LANGCHAIN_ERRORS)
        items = MemadaptStore(store, user_id_position=1)
        _refused_cleanly(store, lambda: items.put(namespace, key, value), LANGCHAIN_ERRORS)
        _refused_cleanly(store, lambda: items.get(namespace, key), LANGCHAIN_ERRORS)
        _refused_cleanly(store, lambda: items.search(namespace, query=query, limit=k), LANGCHAIN_ERRORS)
        history = _refused_cleanly(store, lambda: MemadaptChatMessageHistory(store, "s1", user_id=scope["user_id"]))
        if history is not None:
            turns = [HumanMessage(t) if i % 2 == 0 else AIMessage(t) for i, t in enumerate(texts)]
            _refused_cleanly(store, lambda: history.add_messages(turns), LANGCHAIN_ERRORS)

    check()


@pytest.mark.parametrize("value", [{"when": datetime(2024, 1, 1)}, {"tags": {"a"}}, {"n": math.nan}, ["a"]])
def test_a_langgraph_item_that_is_not_json_is_refused_by_validation(memory: Memory, value: Any) -> None:
    with pytest.raises(ValidationError) as err:
        MemadaptStore(memory).put(("notes",), "k", value)
    assert err.value.field == "value"
    assert memory.count(agent_id="langgraph") == 0


def test_a_vector_store_filter_that_is_not_a_dict_is_refused_by_validation(memory: Memory) -> None:
    with pytest.raises(ValidationError) as err:
        MemadaptVectorStore(memory, user_id="alice").similarity_search("tea", filter=["tag"])  # type: ignore[arg-type]
    assert err.value.field == "filter"
