"""Maximal marginal relevance on MemadaptVectorStore and MemadaptRetriever: diverse picks from the engine's
stored vectors."""

from __future__ import annotations

import pytest
from langchain_core.documents import Document

from memadapt_core import AsyncMemory, Memory
from memadapt_langchain import MemadaptRetriever, MemadaptVectorStore

QUERY = "cats sleeping in the sun"
DOCS = [
    Document(page_content="My cat loves sleeping in the sun", metadata={"n": 1}),
    Document(page_content="My cat loves sleeping in the sun all day", metadata={"n": 2}),
    Document(page_content="The stock market fell sharply on Monday", metadata={"n": 3}),
]


@pytest.fixture
def store(memory: Memory) -> MemadaptVectorStore:
    vs = MemadaptVectorStore(memory)
    vs.add_documents(DOCS, ids=["a", "b", "c"])
    return vs


def test_the_engine_hands_back_each_stored_vector(memory: Memory) -> None:
    [record] = memory.add("Cats sleep a lot", kind="fact", user_id="u")

    vectors = memory.vectors([record.id, "missing"], user_id="u")

    assert list(vectors) == [record.id]
    assert len(vectors[record.id]) == memory.embedder.dim
    assert memory.vectors([record.id], user_id="someone-else") == {}


def test_plain_similarity_puts_the_near_duplicates_first(store: MemadaptVectorStore) -> None:
    assert {d.id for d in store.similarity_search(QUERY, k=2)} == {"a", "b"}


def test_mmr_picks_the_distinct_document_second(store: MemadaptVectorStore) -> None:
    picked = store.max_marginal_relevance_search(QUERY, k=2, fetch_k=3, lambda_mult=0.5)

    assert [d.id for d in picked][1] == "c"
    assert picked[0].id in {"a", "b"}


def test_mmr_returns_whole_documents(store: MemadaptVectorStore) -> None:
    [first] = store.max_marginal_relevance_search(QUERY, k=1)

    expected = dict(zip("abc", DOCS, strict=True))[first.id]

    assert (first.page_content, first.metadata) == (expected.page_content, expected.metadata)


def test_mmr_with_lambda_one_is_plain_relevance(store: MemadaptVectorStore) -> None:
    picked = store.max_marginal_relevance_search(QUERY, k=2, fetch_k=3, lambda_mult=1.0)

    assert {d.id for d in picked} == {"a", "b"}


def test_mmr_respects_the_filter(store: MemadaptVectorStore) -> None:
    picked = store.max_marginal_relevance_search(QUERY, k=3, filter={"n": {"$gte": 2}})

    assert {d.id for d in picked} == {"b", "c"}


def test_mmr_returns_at_most_k(store: MemadaptVectorStore) -> None:
    assert len(store.max_marginal_relevance_search(QUERY, k=1, fetch_k=3)) == 1


def test_mmr_chooses_among_the_fetch_k_best_only(store: MemadaptVectorStore) -> None:
    picked = store.max_marginal_relevance_search(QUERY, k=2, fetch_k=2, lambda_mult=0.5)

    assert {d.id for d in picked} == {"a", "b"}


def test_mmr_by_vector_picks_the_distinct_document_second(store: MemadaptVectorStore, memory: Memory) -> None:
    embedding = [float(x) for x in memory.embedder.embed_query(QUERY)]

    picked = store.max_marginal_relevance_search_by_vector(embedding, k=2, fetch_k=3)

    assert [d.id for d in picked][1] == "c"


def test_mmr_by_vector_respects_the_filter_and_fetch_k(store: MemadaptVectorStore, memory: Memory) -> None:
    embedding = [float(x) for x in memory.embedder.embed_query(QUERY)]

    assert {d.id for d in store.max_marginal_relevance_search_by_vector(embedding, k=3, filter={"n": 3})} == {"c"}
    assert {d.id for d in store.max_marginal_relevance_search_by_vector(embedding, k=2, fetch_k=2)} == {"a", "b"}


def test_mmr_by_vector_scans_past_one_page(memory: Memory) -> None:
    vs = MemadaptVectorStore(memory)
    vs.add_texts([f"filler note number {i} about gardening" for i in range(300)])
    vs.add_documents(DOCS, ids=["a", "b", "c"])
    embedding = [float(x) for x in memory.embedder.embed_query(QUERY)]

    picked = vs.max_marginal_relevance_search_by_vector(embedding, k=1, fetch_k=5)

    assert picked[0].id in {"a", "b"}


def test_mmr_retriever(store: MemadaptVectorStore) -> None:
    retriever = store.as_retriever(search_type="mmr", search_kwargs={"k": 2, "fetch_k": 3, "lambda_mult": 0.5})

    assert [d.id for d in retriever.invoke(QUERY)][1] == "c"


async def test_mmr_async_twins(amemory: AsyncMemory) -> None:
    vs = MemadaptVectorStore(amemory)
    await vs.aadd_documents(DOCS, ids=["a", "b", "c"])
    embedding = [float(x) for x in await amemory.embedder.aembed_query(QUERY)]

    by_text = await vs.amax_marginal_relevance_search(QUERY, k=2, fetch_k=3)
    by_vector = await vs.amax_marginal_relevance_search_by_vector(embedding, k=2, fetch_k=3, filter={"n": {"$lte": 3}})
    retrieved = await vs.as_retriever(search_type="mmr", search_kwargs={"k": 2}).ainvoke(QUERY)

    assert [d.id for d in by_text][1] == [d.id for d in by_vector][1] == [d.id for d in retrieved][1] == "c"


def test_memadapt_retriever_mmr_picks_the_distinct_memory_second(store: MemadaptVectorStore, memory: Memory) -> None:
    retriever = MemadaptRetriever(memory=memory, agent_id="langchain", k=2, threshold=0.0, search_type="mmr")

    docs = retriever.invoke(QUERY)

    assert [d.page_content for d in docs][1] == DOCS[2].page_content
    assert docs[0].page_content in {DOCS[0].page_content, DOCS[1].page_content}


def test_memadapt_retriever_without_mmr_returns_the_near_duplicates(store: MemadaptVectorStore, memory: Memory) -> None:
    docs = MemadaptRetriever(memory=memory, agent_id="langchain", k=2, threshold=0.0).invoke(QUERY)

    assert {d.page_content for d in docs} == {DOCS[0].page_content, DOCS[1].page_content}


async def test_memadapt_retriever_mmr_async(amemory: AsyncMemory) -> None:
    await MemadaptVectorStore(amemory).aadd_documents(DOCS, ids=["a", "b", "c"])
    retriever = MemadaptRetriever(memory=amemory, agent_id="langchain", threshold=0.0, search_type="mmr")

    docs = await retriever.ainvoke(QUERY, k=2)

    assert [d.page_content for d in docs][1] == DOCS[2].page_content
