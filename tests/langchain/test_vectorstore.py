"""MemadaptVectorStore beyond the standard suite: scope, filters, scores, retriever, construction."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding

from memadapt_core import AsyncMemory, Memory, ValidationError
from memadapt_langchain import MemadaptVectorStore

PETS = [
    Document(page_content="Cats sleep for most of the day", metadata={"animal": "cat", "year": 2020}),
    Document(page_content="Dogs need a walk every day", metadata={"animal": "dog", "year": 2022}),
    Document(page_content="A cat's whiskers sense the air", metadata={"animal": "cat", "year": 2024}),
]


def test_documents_are_facts_in_the_default_langchain_scope(memory: Memory) -> None:
    MemadaptVectorStore(memory).add_documents([Document(page_content="Water boils at 100 C")], ids=["w"])

    [record] = memory.list(agent_id="langchain").records

    assert (record.kind, record.external_id, record.text) == ("fact", "w", "Water boils at 100 C")


def test_stores_in_different_scopes_do_not_see_each_other(memory: Memory) -> None:
    ann, bob = MemadaptVectorStore(memory, user_id="ann"), MemadaptVectorStore(memory, user_id="bob")
    ann.add_documents([Document(page_content="Ann's notes on cats")], ids=["1"])
    bob.add_documents([Document(page_content="Bob's notes on cats")], ids=["1"])

    bob.delete(["1"])

    assert [d.page_content for d in ann.similarity_search("notes on cats", k=5)] == ["Ann's notes on cats"]
    assert bob.get_by_ids(["1"]) == []


def test_delete_without_ids_empties_only_this_store(memory: Memory) -> None:
    ann, bob = MemadaptVectorStore(memory, user_id="ann"), MemadaptVectorStore(memory, user_id="bob")
    ann.add_texts(["one", "two"])
    bob.add_texts(["three"])

    ann.delete()

    assert ann.similarity_search("one", k=5) == []
    assert [d.page_content for d in bob.similarity_search("three", k=5)] == ["three"]


def test_the_same_text_under_two_ids_is_two_documents(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)

    store.add_texts(["same words", "same words"], ids=["a", "b"])

    assert sorted(d.id for d in store.similarity_search("same words", k=5)) == ["a", "b"]


def test_add_texts_keeps_metadatas_and_ids(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)

    ids = store.add_texts(["alpha", "beta"], metadatas=[{"n": 1}, {"n": 2}], ids=["x", "y"])

    assert ids == ["x", "y"]
    assert store.get_by_ids(["y", "x"]) == [
        Document(id="y", page_content="beta", metadata={"n": 2}),
        Document(id="x", page_content="alpha", metadata={"n": 1}),
    ]


def test_filter_selects_by_document_metadata(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)
    store.add_documents(PETS)

    cats = store.similarity_search("animals", k=5, filter={"animal": "cat"})
    recent = store.similarity_search("animals", k=5, filter={"year": {"$gte": 2022}})

    assert sorted(d.metadata["year"] for d in cats) == [2020, 2024]
    assert sorted(d.metadata["year"] for d in recent) == [2022, 2024]


async def test_async_filter_selects_by_document_metadata(amemory: AsyncMemory) -> None:
    store = MemadaptVectorStore(amemory)
    await store.aadd_documents(PETS)

    dogs = await store.asimilarity_search("animals", k=5, filter={"animal": "dog"})

    assert [d.page_content for d in dogs] == ["Dogs need a walk every day"]


def test_a_filter_key_with_a_dot_is_that_metadata_key_as_in_langchains_stores(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)
    store.add_documents([Document(page_content="Q3 revenue grew", metadata={"file.name": "q3.pdf"}),
                         Document(page_content="Q2 revenue fell", metadata={"file name": "q2.pdf"})])  # fmt: skip

    assert [d.page_content for d in store.similarity_search("revenue", filter={"file.name": "q3.pdf"})] == [
        "Q3 revenue grew"
    ]
    assert [d.page_content for d in store.similarity_search("revenue", filter={"file name": "q2.pdf"})] == [
        "Q2 revenue fell"
    ]


def test_an_operator_at_the_top_of_a_filter_is_refused_naming_it(memory: Memory) -> None:
    with pytest.raises(ValidationError) as refused:
        MemadaptVectorStore(memory).similarity_search("revenue", filter={"$and": [{"a": 1}]})
    assert refused.value.field == "filter.$and"


def test_scores_are_relevances_between_zero_and_one_best_first(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)
    store.add_documents(PETS)

    scored = store.similarity_search_with_relevance_scores("cats sleeping all day", k=3)

    assert scored[0][0].page_content == "Cats sleep for most of the day"
    assert all(0.0 <= score <= 1.0 for _, score in scored)
    assert [s for _, s in scored] == sorted((s for _, s in scored), reverse=True)


def test_relevance_scores_stay_in_range_when_a_boost_lifts_the_score(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)
    store.add_texts(["The meeting notes from the planning session", "Lunch menu"])

    raw = store.similarity_search_with_score("meeting notes from today", k=2)
    relevance = store.similarity_search_with_relevance_scores("meeting notes from today", k=2)

    assert raw[0][1] > 1.0  # the date boost: "today" names when the document was added
    assert [score for _, score in relevance] == [1.0, raw[1][1]]


def test_as_retriever_returns_the_nearest_documents(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)
    store.add_documents(PETS)

    docs = store.as_retriever(search_kwargs={"k": 1}).invoke("walking the dog")

    assert [d.page_content for d in docs] == ["Dogs need a walk every day"]


async def test_as_retriever_answers_async(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)
    store.add_documents(PETS)

    docs = await store.as_retriever(search_kwargs={"k": 1}).ainvoke("walking the dog")

    assert [d.page_content for d in docs] == ["Dogs need a walk every day"]


def test_score_threshold_retriever_drops_weak_matches(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)
    store.add_documents(PETS)
    retriever = store.as_retriever(
        search_type="similarity_score_threshold", search_kwargs={"k": 3, "score_threshold": 0.99}
    )

    assert [d.page_content for d in retriever.invoke("Dogs need a walk every day")] == ["Dogs need a walk every day"]


def test_from_texts_fills_a_store_over_the_given_engine(memory: Memory) -> None:
    store = MemadaptVectorStore.from_texts(["alpha", "beta"], None, [{"n": 1}, {"n": 2}], ids=["a", "b"], memory=memory)

    assert store.get_by_ids(["a"]) == [Document(id="a", page_content="alpha", metadata={"n": 1})]


def test_from_texts_refuses_langchain_embeddings(memory: Memory) -> None:
    with pytest.raises(ValueError, match="embedding"):
        MemadaptVectorStore.from_texts(["alpha"], DeterministicFakeEmbedding(size=4), memory=memory)


def test_metadata_must_be_json(memory: Memory) -> None:
    store = MemadaptVectorStore(memory)

    with pytest.raises(ValidationError):
        store.add_documents([Document(page_content="x", metadata={"when": datetime(2024, 1, 1, tzinfo=UTC)})])


def test_from_texts_needs_an_engine() -> None:
    with pytest.raises(ValueError, match="memory"):
        MemadaptVectorStore.from_texts(["alpha"], None)


def test_a_76000_character_document_is_stored_whole_and_found(memory: Memory) -> None:
    text = ("The Berlin marathon route passes the Brandenburg Gate. " * 1400)[:76_000]
    store = MemadaptVectorStore(memory)
    store.add_documents([Document(page_content=text)], ids=["route"])

    [found] = store.similarity_search("Berlin marathon route", k=1)

    assert (found.id, found.page_content) == ("route", text)
