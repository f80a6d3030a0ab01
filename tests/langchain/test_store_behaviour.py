"""LangGraph store behaviour, modelled on InMemoryStore; every test runs on MemadaptStore and InMemoryStore."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest
from langgraph.store.base import BaseStore, InvalidNamespaceError, Item

PEOPLE = ("people",)


@pytest.fixture
def tree(store: BaseStore) -> BaseStore:
    """The namespaces of LangGraph's own ``list_namespaces`` example, one item each."""
    for ns in [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f")]:
        store.put(ns, "item", {"n": len(ns)})
    return store


@pytest.fixture
def scored(store: BaseStore) -> BaseStore:
    """Items with numbers, strings and a nested dict to filter on."""
    store.put(PEOPLE, "ann", {"name": "ann", "age": 31, "city": "Lisbon", "pet": {"kind": "cat", "age": 3}})
    store.put(PEOPLE, "bob", {"name": "bob", "age": 45, "city": "Porto", "pet": {"kind": "dog", "age": 7}})
    store.put(PEOPLE, "cid", {"name": "cid", "age": 28, "city": "Lisbon", "pet": {"kind": "dog", "age": 1}})
    return store


def _keys(items: Sequence[Item]) -> list[str]:
    return sorted(item.key for item in items)


# ---- put / get / delete ---------------------------------------------------------------------------------------


def test_put_then_get_returns_the_item(store: BaseStore) -> None:
    store.put(("users", "u1"), "prefs", {"theme": "dark", "size": 3})

    item = store.get(("users", "u1"), "prefs")

    assert item is not None
    assert (item.namespace, item.key, item.value) == (("users", "u1"), "prefs", {"theme": "dark", "size": 3})
    assert isinstance(item.created_at, datetime)
    assert isinstance(item.updated_at, datetime)


def test_get_of_a_missing_key_is_none(store: BaseStore) -> None:
    store.put(("users", "u1"), "prefs", {"theme": "dark"})

    assert store.get(("users", "u1"), "other") is None
    assert store.get(("users", "u2"), "prefs") is None


def test_put_to_the_same_key_replaces_the_value(store: BaseStore) -> None:
    store.put(("users",), "k", {"v": 1, "old": True})
    store.put(("users",), "k", {"v": 2})

    item = store.get(("users",), "k")

    assert item is not None
    assert item.value == {"v": 2}
    assert len(store.search(("users",))) == 1


def test_same_key_in_two_namespaces_is_two_items(store: BaseStore) -> None:
    store.put(("a",), "k", {"v": 1})
    store.put(("b",), "k", {"v": 2})

    assert store.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
    assert store.get(("b",), "k").value == {"v": 2}  # type: ignore[union-attr]


def test_delete_removes_only_that_item(store: BaseStore) -> None:
    store.put(("a",), "k1", {"v": 1})
    store.put(("a",), "k2", {"v": 2})

    store.delete(("a",), "k1")

    assert store.get(("a",), "k1") is None
    assert store.get(("a",), "k2") is not None


def test_delete_of_a_missing_item_is_silent(store: BaseStore) -> None:
    store.delete(("nothing", "here"), "k")


def test_values_with_any_keys_round_trip(store: BaseStore) -> None:
    value = {"id": 7, "kind": "x", "user_id": "spoof", "nested": {"list": [1, "two", None]}, "empty": {}}
    store.put(("a",), "k", value)

    assert store.get(("a",), "k").value == value  # type: ignore[union-attr]


def test_identical_values_under_different_keys_are_kept_apart(store: BaseStore) -> None:
    store.put(("a",), "k1", {"content": "likes tea"})
    store.put(("a",), "k2", {"content": "likes tea"})

    assert _keys(store.search(("a",))) == ["k1", "k2"]


def test_ttl_is_refused_when_unsupported(store: BaseStore) -> None:
    with pytest.raises(NotImplementedError):
        store.put(("a",), "k", {"v": 1}, ttl=5)


# ---- search without a query ----------------------------------------------------------------------------------


def test_search_by_prefix_covers_deeper_namespaces_only_under_it(store: BaseStore) -> None:
    store.put(("docs",), "top", {"v": 0})
    store.put(("docs", "user1"), "d1", {"v": 1})
    store.put(("docs", "user1", "drafts"), "d2", {"v": 2})
    store.put(("docsx",), "other", {"v": 3})
    store.put(("notes", "user1"), "n1", {"v": 4})

    assert _keys(store.search(("docs",))) == ["d1", "d2", "top"]
    assert _keys(store.search(("docs", "user1"))) == ["d1", "d2"]
    assert len(store.search(())) == 5


def test_search_without_query_has_no_score(scored: BaseStore) -> None:
    assert all(item.score is None for item in scored.search(PEOPLE))


def test_search_filters_on_equality(scored: BaseStore) -> None:
    assert _keys(scored.search(PEOPLE, filter={"city": "Lisbon"})) == ["ann", "cid"]
    assert _keys(scored.search(PEOPLE, filter={"city": {"$eq": "Porto"}})) == ["bob"]


def test_search_filters_on_inequality(scored: BaseStore) -> None:
    assert _keys(scored.search(PEOPLE, filter={"city": {"$ne": "Lisbon"}})) == ["bob"]


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"$gt": 31}, ["bob"]),
        ({"$gte": 31}, ["ann", "bob"]),
        ({"$lt": 31}, ["cid"]),
        ({"$lte": 31}, ["ann", "cid"]),
        ({"$gt": 28, "$lt": 45}, ["ann"]),
    ],
)
def test_search_filters_on_number_ranges(scored: BaseStore, condition: dict[str, int], expected: list[str]) -> None:
    assert _keys(scored.search(PEOPLE, filter={"age": condition})) == expected


def test_search_filter_conditions_all_apply(scored: BaseStore) -> None:
    assert _keys(scored.search(PEOPLE, filter={"city": "Lisbon", "age": {"$gt": 30}})) == ["ann"]


def test_search_filters_on_nested_fields(scored: BaseStore) -> None:
    assert _keys(scored.search(PEOPLE, filter={"pet": {"kind": "dog"}})) == ["bob", "cid"]
    assert _keys(scored.search(PEOPLE, filter={"pet": {"kind": "dog", "age": 7}})) == ["bob"]


def test_search_pages_with_limit_and_offset(store: BaseStore) -> None:
    for i in range(7):
        store.put(("pages",), f"k{i}", {"i": i})

    everything = store.search(("pages",), limit=10)
    pages = [store.search(("pages",), limit=3, offset=offset) for offset in (0, 3, 6)]

    assert [len(page) for page in pages] == [3, 3, 1]
    assert [item.key for page in pages for item in page] == [item.key for item in everything]
    assert _keys(everything) == [f"k{i}" for i in range(7)]


# ---- search with a query ---------------------------------------------------------------------------------------

FOOD = ("memories", "food")


@pytest.fixture
def memories(store: BaseStore) -> BaseStore:
    store.put(FOOD, "sushi", {"text": "My favourite food is sushi with salmon", "year": 2021})
    store.put(FOOD, "hike", {"text": "I go hiking in the mountains every weekend", "year": 2022})
    store.put(FOOD, "car", {"text": "The car needs new tyres before winter", "year": 2023})
    return store


def test_query_search_ranks_the_relevant_item_first(memories: BaseStore) -> None:
    found = memories.search(FOOD, query="what food do I like to eat")

    assert found[0].key == "sushi"
    assert all(isinstance(item.score, float) for item in found)
    assert [item.score for item in found] == sorted((item.score for item in found), reverse=True)


def test_query_search_returns_the_nearest_without_a_floor(memories: BaseStore) -> None:
    assert len(memories.search(FOOD, query="quantum chromodynamics lecture", limit=2)) == 2


def test_query_search_respects_the_filter(memories: BaseStore) -> None:
    found = memories.search(FOOD, query="what food do I like to eat", filter={"year": {"$gte": 2022}})

    assert _keys(found) == ["car", "hike"]


def test_query_search_pages_with_limit_and_offset(memories: BaseStore) -> None:
    everything = memories.search(FOOD, query="what food do I like to eat")
    pages = [memories.search(FOOD, query="what food do I like to eat", limit=2, offset=o) for o in (0, 2)]

    assert [item.key for page in pages for item in page] == [item.key for item in everything]


def test_query_search_stays_in_the_prefix(memories: BaseStore) -> None:
    memories.put(("memories", "other"), "sushi2", {"text": "Sushi is the best food"})

    assert "sushi2" not in _keys(memories.search(FOOD, query="sushi food"))
    assert "sushi2" in _keys(memories.search(("memories",), query="sushi food"))


def test_put_with_index_fields_embeds_those_fields(store: BaseStore) -> None:
    store.put(("x",), "a", {"title": "Gardening tips for tomatoes", "body": "unrelated words"}, index=["title"])
    store.put(("x",), "b", {"title": "Tax return deadlines", "body": "tomatoes tomatoes"}, index=["title"])

    assert store.search(("x",), query="growing tomatoes in the garden")[0].key == "a"


# ---- list_namespaces -----------------------------------------------------------------------------------------

ALL = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f")]


def test_list_namespaces_lists_every_namespace_sorted(tree: BaseStore) -> None:
    assert tree.list_namespaces() == ALL


def test_list_namespaces_by_prefix(tree: BaseStore) -> None:
    assert tree.list_namespaces(prefix=("a", "b")) == ALL[:4]


def test_list_namespaces_by_suffix(tree: BaseStore) -> None:
    assert tree.list_namespaces(suffix=("f",)) == [("a", "b", "f"), ("a", "c", "f")]


def test_list_namespaces_by_prefix_and_suffix(tree: BaseStore) -> None:
    assert tree.list_namespaces(prefix=("a", "b"), suffix=("f",)) == [("a", "b", "f")]


def test_list_namespaces_with_wildcards(tree: BaseStore) -> None:
    assert tree.list_namespaces(prefix=("a", "*", "f")) == [("a", "b", "f"), ("a", "c", "f")]
    assert tree.list_namespaces(suffix=("d", "*")) == [("a", "b", "d", "e"), ("a", "b", "d", "i")]


def test_list_namespaces_truncates_to_max_depth(tree: BaseStore) -> None:
    assert tree.list_namespaces(prefix=("a", "b"), max_depth=3) == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert tree.list_namespaces(max_depth=2) == [("a", "b"), ("a", "c")]


def test_list_namespaces_pages_with_limit_and_offset(tree: BaseStore) -> None:
    assert tree.list_namespaces(limit=2) == ALL[:2]
    assert tree.list_namespaces(limit=2, offset=2) == ALL[2:4]


# ---- validation ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("namespace", [(), ("",), ("a.b",), ("langgraph", "x"), ("ok", "")])
def test_put_refuses_an_invalid_namespace(store: BaseStore, namespace: tuple[str, ...]) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.put(namespace, "k", {"v": 1})


def test_reads_refuse_labels_with_periods(store: BaseStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.get(("a.b",), "k")
    with pytest.raises(InvalidNamespaceError):
        store.search(("a.b",))
    with pytest.raises(InvalidNamespaceError):
        store.list_namespaces(prefix=("a.b",))
    with pytest.raises(InvalidNamespaceError):
        store.delete(("a.b",), "k")


# ---- async twins -----------------------------------------------------------------------------------------------


async def test_async_put_get_search_delete(store: BaseStore) -> None:
    await store.aput(("a", "b"), "k1", {"text": "I play the violin", "n": 1})
    await store.aput(("a", "c"), "k2", {"text": "I bake bread on Sundays", "n": 2})

    got = await store.aget(("a", "b"), "k1")
    by_filter = await store.asearch(("a",), filter={"n": {"$gt": 1}})
    by_query = await store.asearch(("a",), query="musical instrument")
    namespaces = await store.alist_namespaces(prefix=("a",))
    await store.adelete(("a", "b"), "k1")

    assert got is not None
    assert got.value == {"text": "I play the violin", "n": 1}
    assert _keys(by_filter) == ["k2"]
    assert by_query[0].key == "k1"
    assert namespaces == [("a", "b"), ("a", "c")]
    assert await store.aget(("a", "b"), "k1") is None
