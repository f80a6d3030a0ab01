"""LangGraph's filter and value semantics, on MemadaptStore and (to check the tests) LangGraph's InMemoryStore:
exact equality on lists and scalars, list, empty-list, null and boolean filters, literal dotted keys, values of
any size or depth."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from langgraph.store.base import BaseStore, Item

from memadapt_core import Memory
from memadapt_langchain import MemadaptStore

NS = ("things",)


def _keys(items: Sequence[Item]) -> list[str]:
    return sorted(item.key for item in items)


@pytest.fixture
def things(store: BaseStore) -> BaseStore:
    store.put(NS, "thai", {"tags": ["food", "thai"], "done": True, "note": None, "a.b": "literal", "n": 5})
    store.put(NS, "food", {"tags": "food", "done": False, "a": {"b": "nested"}, "n": 2.5})
    store.put(NS, "none", {"tags": [], "meta": {"src": "web", "depth": {"x": 1}}, "n": "many"})
    return store


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"tags": "food"}, ["food"]),  # a scalar does not match inside a list
        ({"tags": ["food", "thai"]}, ["thai"]),
        ({"tags": ["thai", "food"]}, []),  # lists match in order
        ({"tags": ["food"]}, []),  # and whole
        ({"tags": []}, ["none"]),
        ({"done": True}, ["thai"]),
        ({"done": False}, ["food"]),
        ({"note": None}, ["food", "none", "thai"]),  # null, or no such key (InMemoryStore's reading)
        ({"a.b": "literal"}, ["thai"]),  # a dotted key is a key, not a path
        ({"a.b": "nested"}, []),
        ({"a": {"b": "nested"}}, ["food"]),  # a nested dict is the path
        ({"meta.src": "web"}, []),
        ({"meta": {"src": "web"}}, ["none"]),
        ({"meta": {"depth": {"x": 1}}}, ["none"]),
        ({"meta": {}}, ["none"]),
        ({"tags": {"$eq": ["food", "thai"]}}, ["thai"]),
        ({"tags": {"$ne": "food"}}, ["none", "thai"]),
        ({"missing": {"$ne": 1}}, ["food", "none", "thai"]),
        ({"n": 2.5, "tags": "food"}, ["food"]),
    ],
)
def test_filters_match_as_in_langgraph(things: BaseStore, flt: dict[str, Any], expected: list[str]) -> None:
    assert _keys(things.search(NS, filter=flt)) == expected


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({"n": {"$gt": 2}}, ["num", "real"]),
        ({"n": {"$lte": 2.5}}, ["real"]),
        ({"n": {"$gte": "3"}}, ["num"]),  # a bound in a string is read as a number, as LangGraph's float() does
        ({"n": {"$gt": 2, "$lt": 5}}, ["num", "real"]),
    ],
)
def test_range_filters_skip_values_that_are_not_numbers(
    memory: Memory, flt: dict[str, Any], expected: list[str]
) -> None:
    """InMemoryStore raises here (``float("many")``, ``float(None)``); PostgresStore compares text. A value that
    is not a number does not match."""
    store = MemadaptStore(memory)
    store.put(NS, "num", {"n": 3})
    store.put(NS, "real", {"n": 2.5})
    store.put(NS, "word", {"n": "many"})
    store.put(NS, "flag", {"n": True})
    store.put(NS, "none", {})

    assert _keys(store.search(NS, filter=flt)) == expected


def test_an_unknown_operator_is_refused(things: BaseStore) -> None:
    with pytest.raises(ValueError, match=r"\$in|operator"):
        things.search(NS, filter={"tags": {"$in": ["food"]}})


def test_a_value_over_64_kb_round_trips_and_filters(store: BaseStore) -> None:
    big = {"text": "é" * 70_000, "kind": "big", "rows": [{"i": i} for i in range(2_000)]}
    store.put(NS, "big", big)
    store.put(NS, "small", {"kind": "small"})

    assert store.get(NS, "big").value == big  # type: ignore[union-attr]
    assert _keys(store.search(NS, filter={"kind": "big"})) == ["big"]
    assert _keys(store.search(NS, filter={"kind": "small"})) == ["small"]


def test_a_large_value_overwritten_by_a_small_one_leaves_nothing_behind(memory: Memory) -> None:
    store = MemadaptStore(memory)
    store.put(NS, "k", {"blob": "x" * 200_000})
    store.put(NS, "k", {"blob": "y" * 100_000})
    store.put(NS, "k", {"blob": "small"})

    assert store.get(NS, "k").value == {"blob": "small"}  # type: ignore[union-attr]
    assert memory.count(agent_id="langgraph") == 1

    store.put(NS, "k", {"blob": "z" * 100_000})
    store.delete(NS, "k")

    assert memory.count(agent_id="langgraph") == 0


@pytest.fixture
def users_store(memory: Memory) -> MemadaptStore:
    """Alice's and Bob's large values, under ("memories", user) namespaces."""
    store = MemadaptStore(memory, user_id_position=1)
    for user in ("alice", "bob"):
        store.put(("memories", user), "big", {"text": f"{user} " * 30_000})
        store.put(("memories", user), "small", {"text": f"{user} likes tea"})
    return store


def test_a_users_large_values_are_erased_with_the_user(users_store: MemadaptStore, memory: Memory) -> None:
    memory.delete_all(user_id="alice")

    assert memory.count(user_id="alice") == 0
    assert users_store.get(("memories", "alice"), "big") is None
    assert users_store.get(("memories", "bob"), "big").value == {"text": "bob " * 30_000}  # type: ignore[union-attr]


def test_erasing_a_user_of_the_store_agent_erases_their_large_values(
    users_store: MemadaptStore, memory: Memory
) -> None:
    memory.delete_all(user_id="alice", agent_id="langgraph")

    assert memory.count(user_id="alice") == 0


def test_the_parts_of_a_users_large_value_belong_to_that_user(users_store: MemadaptStore, memory: Memory) -> None:
    owners = {record.user_id for record in memory.iter_records(agent_id="langgraph")}

    assert owners == {"alice", "bob"}
    assert all(r.user_id == "bob" for r in memory.iter_records(user_id="bob"))
    assert memory.count(agent_id="langgraph") == memory.count(user_id="alice") + memory.count(user_id="bob")


async def test_the_async_store_keeps_a_users_large_value_in_that_users_scope(memory: Memory) -> None:
    store = MemadaptStore(memory.as_async(), user_id_position=1)
    await store.aput(("memories", "alice"), "big", {"text": "alice " * 30_000})

    item = await store.aget(("memories", "alice"), "big")
    assert item is not None
    assert item.value == {"text": "alice " * 30_000}
    await memory.as_async().delete_all(user_id="alice")
    assert memory.count(agent_id="langgraph") == 0


def test_values_the_engine_cannot_index_are_kept_whole(store: BaseStore) -> None:
    deep: dict[str, Any] = {"leaf": 1}
    for _ in range(40):
        deep = {"d": deep}
    odd = {"deep": deep, "huge": 2**70}

    store.put(NS, "odd", odd)

    assert store.get(NS, "odd").value == odd  # type: ignore[union-attr]


def test_a_lone_surrogate_is_kept_in_the_value(memory: Memory) -> None:
    """InMemoryStore keeps any str; its embedder here cannot embed this one, so only MemadaptStore is checked."""
    store = MemadaptStore(memory)

    store.put(NS, "odd", {"lone": "\udc80"})

    assert store.get(NS, "odd").value == {"lone": "\udc80"}  # type: ignore[union-attr]


def test_a_query_search_with_a_filter_looks_past_the_first_hits(memory: Memory) -> None:
    store = MemadaptStore(memory)
    for i in range(60):
        store.put(NS, f"k{i}", {"text": f"notes about gardening {i}", "pick": i == 59})

    found = store.search(NS, query="notes about gardening", filter={"pick": True}, limit=1)

    assert [item.key for item in found] == ["k59"]


async def test_the_async_twin_applies_the_same_filters(things: BaseStore) -> None:
    assert _keys(await things.asearch(NS, filter={"tags": "food"})) == ["food"]
    assert _keys(await things.asearch(NS, query="food", filter={"a.b": "literal"})) == ["thai"]
