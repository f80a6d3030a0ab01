"""Memory tools: memadapt's own on the engine, and langmem's on MemadaptStore."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from memadapt_core import AsyncMemory, Memory
from memadapt_langchain import MemadaptStore, create_save_memory_tool
from memadapt_langchain import create_search_memory_tool as search_tool


def test_save_tool_stores_a_fact_in_its_scope(memory: Memory) -> None:
    answer = create_save_memory_tool(memory, user_id="ann").invoke({"content": "Ann is vegetarian"})

    [record] = memory.list(user_id="ann").records
    assert (record.kind, record.text) == ("fact", "Ann is vegetarian")
    assert record.id in answer


def test_search_tool_answers_with_the_engines_rendering(memory: Memory) -> None:
    memory.add("Ann is vegetarian", user_id="ann", kind="fact")
    hits = memory.search("what does Ann eat", user_id="ann")

    answer = search_tool(memory, user_id="ann").invoke({"query": "what does Ann eat"})

    assert answer == memory.format_context("what does Ann eat", hits)


def test_search_tool_says_so_when_nothing_matches(memory: Memory) -> None:
    assert search_tool(memory, user_id="ann").invoke({"query": "anything"}) == "No memories matched."


def test_tools_take_the_user_from_the_run_config(memory: Memory) -> None:
    config = {"configurable": {"user_id": "bob"}}

    create_save_memory_tool(memory).invoke({"content": "Bob rides a red bike"}, config)

    assert "red bike" in search_tool(memory).invoke({"query": "what bike does Bob ride"}, config)
    assert "red bike" not in search_tool(memory).invoke({"query": "bike"}, {"configurable": {"user_id": "x"}})


async def test_tools_run_natively_async(amemory: AsyncMemory) -> None:
    await create_save_memory_tool(amemory, user_id="ann").ainvoke({"content": "Ann swims on Fridays"})

    answer = await search_tool(amemory, user_id="ann").ainvoke({"query": "when does Ann swim"})

    assert "Ann swims on Fridays" in answer


# ---- langmem's tools on MemadaptStore -------------------------------------------------------------------------


@pytest.fixture
def store(memory: Memory) -> MemadaptStore:
    return MemadaptStore(memory, user_id_position=1)


def test_langmem_manage_tool_creates_updates_and_deletes(store: MemadaptStore, langmem: ModuleType) -> None:
    manage = langmem.create_manage_memory_tool(namespace=("memories", "ann"), store=store)

    created = manage.invoke({"content": "Ann works in Leeds"})
    key = created.split()[-1]
    manage.invoke({"content": "Ann works in York", "action": "update", "id": key})
    updated = store.get(("memories", "ann"), key)
    manage.invoke({"action": "delete", "id": key})

    assert updated is not None
    assert updated.value == {"content": "Ann works in York"}
    assert store.get(("memories", "ann"), key) is None


def test_langmem_search_tool_finds_what_the_manage_tool_saved(store: MemadaptStore, langmem: ModuleType) -> None:
    langmem.create_manage_memory_tool(namespace=("memories", "ann"), store=store).invoke({"content": "Ann plays chess"})
    langmem.create_manage_memory_tool(namespace=("memories", "bob"), store=store).invoke({"content": "Bob plays chess"})

    found = json.loads(
        langmem.create_search_memory_tool(namespace=("memories", "ann"), store=store).invoke({"query": "chess"})
    )

    assert [m["value"] for m in found] == [{"content": "Ann plays chess"}]
    assert isinstance(found[0]["score"], float)


async def test_langmem_tools_run_async_on_the_store(store: MemadaptStore, langmem: ModuleType) -> None:
    manage = langmem.create_manage_memory_tool(namespace=("memories", "ann"), store=store)
    search = langmem.create_search_memory_tool(namespace=("memories", "ann"), store=store)

    await manage.ainvoke({"content": "Ann keeps bees"})
    found = json.loads(await search.ainvoke({"query": "bees"}))

    assert [m["value"]["content"] for m in found] == ["Ann keeps bees"]
