"""MemadaptStore beyond LangGraph's behaviour: how namespaces map onto the engine's scopes and records."""

from __future__ import annotations

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, PutOp, SearchOp

from memadapt_core import AsyncMemory, Memory
from memadapt_langchain import MemadaptRetriever, MemadaptStore


def test_items_are_facts_in_the_langgraph_agent_scope(memory: Memory) -> None:
    MemadaptStore(memory).put(("notes",), "n1", {"text": "Buy oat milk"})

    [record] = memory.list(agent_id="langgraph").records

    assert (record.kind, record.agent_id, record.user_id) == ("fact", "langgraph", None)


def test_the_second_label_is_the_records_user_by_default(memory: Memory) -> None:
    store = MemadaptStore(memory)

    store.put(("memories", "alice"), "k", {"content": "Alice drinks green tea"})

    assert [r.text for r in memory.list(user_id="alice").records] == ["Alice drinks green tea"]
    assert memory.list(user_id="memories").records == []


def test_user_id_position_chooses_the_users_label(memory: Memory) -> None:
    MemadaptStore(memory, user_id_position=0).put(("alice", "memories"), "k", {"content": "Alice drinks tea"})
    MemadaptStore(memory, user_id_position=None).put(("memories", "bob"), "k", {"content": "Bob drinks tea"})

    assert [r.text for r in memory.list(user_id="alice").records] == ["Alice drinks tea"]
    assert memory.list(user_id="bob").records == []


def test_a_label_that_cannot_be_a_user_id_leaves_the_item_in_no_users_scope(memory: Memory) -> None:
    store = MemadaptStore(memory)

    store.put(("memories", "  "), "k", {"content": "a blank user label"})

    assert store.get(("memories", "  "), "k").value == {"content": "a blank user label"}  # type: ignore[union-attr]
    assert [r.user_id for r in memory.list(agent_id="langgraph").records] == [None]


def test_an_items_strings_are_embedded_by_default(memory: Memory) -> None:
    MemadaptStore(memory).put(("docs",), "d", {"title": "Pruning roses", "meta": {"tags": ["garden"]}, "n": 3})
    MemadaptStore(memory).put(("docs",), "e", {"n": 3})

    texts = [r.text for r in memory.list(agent_id="langgraph").records]
    assert texts == ["Pruning roses\ngarden", '{"n": 3}']  # a value without strings: its JSON


def test_a_users_store_items_are_recalled_by_a_retriever_for_that_user(memory: Memory) -> None:
    MemadaptStore(memory, user_id_position=1, fields=["content"]).put(
        ("memories", "alice"), "k", {"content": "Alice drinks green tea every morning"}
    )

    alice = MemadaptRetriever(memory=memory, user_id="alice").invoke("what does Alice drink")
    bob = MemadaptRetriever(memory=memory, user_id="bob", threshold=0.0).invoke("what does Alice drink")

    assert [d.page_content for d in alice] == ["Alice drinks green tea every morning"]
    assert bob == []


def test_other_memories_in_the_stores_scope_are_not_items(memory: Memory) -> None:
    memory.add("A fact another adapter stored", agent_id="langgraph", kind="fact")
    store = MemadaptStore(memory)
    store.put(("a",), "k", {"text": "an item"})

    assert [i.key for i in store.search(())] == ["k"]
    assert [i.key for i in store.search((), query="a fact another adapter stored")] == ["k"]
    assert store.list_namespaces() == [("a",)]


def test_fields_choose_the_text_that_is_embedded(memory: Memory) -> None:
    MemadaptStore(memory, fields=["title", "tags[*]"]).put(
        ("docs",), "d", {"title": "Pruning roses", "tags": ["garden", "spring"], "body": "not embedded"}
    )

    assert [r.text for r in memory.list(agent_id="langgraph").records] == ["Pruning roses\ngarden\nspring"]


def test_items_survive_a_new_store_object_on_the_same_engine(memory: Memory) -> None:
    MemadaptStore(memory).put(("a",), "k", {"v": 1})

    assert MemadaptStore(memory).get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]


def test_agent_id_keeps_two_stores_apart(memory: Memory) -> None:
    MemadaptStore(memory, agent_id="one").put(("a",), "k", {"v": 1})

    other = MemadaptStore(memory, agent_id="two")

    assert other.get(("a",), "k") is None
    assert other.search(("a",)) == []
    assert other.list_namespaces() == []


def test_an_unindexed_item_is_found_by_filter_but_not_by_query(memory: Memory) -> None:
    store = MemadaptStore(memory)
    store.put(("a",), "secret", {"text": "my locker code is 1234"}, index=False)
    store.put(("a",), "public", {"text": "the gym opens at six"})

    assert [i.key for i in store.search(("a",), query="locker code")] == ["public"]
    assert sorted(i.key for i in store.search(("a",))) == ["public", "secret"]


def test_a_namespace_emptied_by_delete_is_no_longer_listed(memory: Memory) -> None:
    store = MemadaptStore(memory)
    store.put(("a", "b"), "k", {"v": 1})
    store.put(("a", "c"), "k", {"v": 2})

    store.delete(("a", "c"), "k")

    assert store.list_namespaces() == [("a", "b")]


def test_a_batch_answers_each_operation_in_order(memory: Memory) -> None:
    store = MemadaptStore(memory)
    store.put(("a",), "k", {"text": "hello"})

    got, found, listed, put = store.batch(
        [
            GetOp(("a",), "k"),
            SearchOp(("a",), query="hello"),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10),
            PutOp(("b",), "k", {"text": "bye"}),
        ]
    )

    assert got is not None
    assert got.value == {"text": "hello"}
    assert [i.key for i in found] == ["k"]  # type: ignore[union-attr]
    assert listed == [("a",)]
    assert put is None


def test_a_batch_reads_before_it_writes_and_the_last_put_wins(memory: Memory) -> None:
    """As in LangGraph's InMemoryStore and PostgresStore: reads see the store as it was before the batch."""
    store = MemadaptStore(memory)

    put, got, _ = store.batch([PutOp(("a",), "k", {"v": 1}), GetOp(("a",), "k"), PutOp(("a",), "k", {"v": 2})])

    assert (put, got) == (None, None)
    assert store.get(("a",), "k").value == {"v": 2}  # type: ignore[union-attr]


def test_a_batch_refuses_invalid_labels_even_when_called_directly(memory: Memory) -> None:
    with pytest.raises(InvalidNamespaceError):
        MemadaptStore(memory).batch([GetOp(("a.b",), "k")])


def test_a_negative_user_id_position_is_refused(memory: Memory) -> None:
    with pytest.raises(ValueError, match="user_id_position"):
        MemadaptStore(memory, user_id_position=-1)


async def test_a_store_over_the_async_engine_answers_sync_and_async(amemory: AsyncMemory) -> None:
    store = MemadaptStore(amemory)

    await store.aput(("a",), "k", {"v": 1})

    assert store.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
    assert (await store.aget(("a",), "k")).value == {"v": 1}  # type: ignore[union-attr]


def test_search_filters_on_booleans(memory: Memory) -> None:
    store = MemadaptStore(memory)
    store.put(("t",), "done", {"done": True})
    store.put(("t",), "open", {"done": False})

    assert [i.key for i in store.search(("t",), filter={"done": True})] == ["done"]


def test_reads_page_through_more_items_than_one_engine_page(memory: Memory) -> None:
    store = MemadaptStore(memory)
    store.batch([PutOp(("many", f"ns{i:03d}"), "k", {"i": i}) for i in range(130)])

    tail = store.search(("many",), limit=10, offset=125)

    assert sorted(item.value["i"] for item in tail) == [125, 126, 127, 128, 129]
    assert len(store.list_namespaces(prefix=("many",), limit=200)) == 130
