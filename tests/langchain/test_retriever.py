"""MemadaptRetriever: the engine's search as LangChain Documents, natively sync and async."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from langchain_core.documents import Document

from memadapt_core import AsyncMemory, Memory
from memadapt_langchain import MemadaptRetriever

MAY = datetime(2024, 5, 10, 12, 0, tzinfo=UTC)
JUNE = datetime(2024, 6, 10, 12, 0, tzinfo=UTC)


@pytest.fixture
def facts(memory: Memory) -> Memory:
    memory.add("Ann's favourite fruit is mango", user_id="ann", kind="fact", metadata={"source": "chat"})
    memory.add("Bob's favourite fruit is kiwi", user_id="bob", kind="fact")
    return memory


def test_documents_carry_the_memory_id_text_and_provenance(facts: Memory) -> None:
    [record] = facts.list(user_id="ann").records

    [doc] = MemadaptRetriever(memory=facts, user_id="ann").invoke("which fruit does Ann like")

    assert isinstance(doc, Document)
    assert (doc.id, doc.page_content) == (record.id, "Ann's favourite fruit is mango")
    assert doc.metadata["kind"] == "fact"
    assert doc.metadata["observed_at"] == record.observed_at.isoformat()
    assert (doc.metadata["user_id"], doc.metadata["agent_id"], doc.metadata["session_id"]) == ("ann", None, None)
    assert doc.metadata["metadata"] == {"source": "chat"}
    assert isinstance(doc.metadata["score"], float)


def test_only_the_given_scope_is_searched(facts: Memory) -> None:
    docs = MemadaptRetriever(memory=facts, user_id="bob", threshold=0.0).invoke("favourite fruit mango")

    assert [d.page_content for d in docs] == ["Bob's favourite fruit is kiwi"]


def test_the_default_floor_drops_unrelated_queries(facts: Memory) -> None:
    retriever = MemadaptRetriever(memory=facts, user_id="ann")

    assert retriever.invoke("tax return deadline for freelancers") == []


def test_threshold_zero_turns_the_floor_off(facts: Memory) -> None:
    retriever = MemadaptRetriever(memory=facts, user_id="ann", threshold=0.0)

    assert len(retriever.invoke("tax return deadline for freelancers")) == 1


def test_kinds_restrict_what_is_searched(memory: Memory) -> None:
    memory.add("I booked a table at the Thai place", user_id="ann")
    memory.add("Ann likes Thai food", user_id="ann", kind="fact")

    docs = MemadaptRetriever(memory=memory, user_id="ann", kinds=["fact"]).invoke("Thai food")

    assert [d.page_content for d in docs] == ["Ann likes Thai food"]


def test_time_range_restricts_by_when_a_memory_was_said(memory: Memory) -> None:
    memory.add("We talked about the garden", user_id="ann", observed_at=MAY)
    memory.add("We talked about the garden shed", user_id="ann", observed_at=JUNE)

    june = (datetime(2024, 6, 1, tzinfo=UTC), datetime(2024, 7, 1, tzinfo=UTC))
    docs = MemadaptRetriever(memory=memory, user_id="ann", time_range=june).invoke("garden")

    assert [d.page_content for d in docs] == ["We talked about the garden shed"]


def test_filters_select_by_user_metadata(memory: Memory) -> None:
    memory.add("Ann plays tennis", user_id="ann", kind="fact", metadata={"topic": "sport"})
    memory.add("Ann plays the cello", user_id="ann", kind="fact", metadata={"topic": "music"})

    docs = MemadaptRetriever(memory=memory, user_id="ann", filters={"topic": "music"}).invoke("what does Ann play")

    assert [d.page_content for d in docs] == ["Ann plays the cello"]


async def test_ainvoke_finds_what_invoke_finds(facts: Memory) -> None:
    retriever = MemadaptRetriever(memory=facts, user_id="ann")

    assert await retriever.ainvoke("which fruit does Ann like") == retriever.invoke("which fruit does Ann like")


async def test_a_retriever_over_the_async_engine_also_answers_sync(amemory: AsyncMemory) -> None:
    await amemory.add("Ann's favourite fruit is mango", user_id="ann", kind="fact")
    retriever = MemadaptRetriever(memory=amemory, user_id="ann", k=1)

    sync_docs = retriever.invoke("which fruit does Ann like")
    async_docs = await retriever.ainvoke("which fruit does Ann like")

    assert (
        [d.page_content for d in sync_docs]
        == [d.page_content for d in async_docs]
        == ["Ann's favourite fruit is mango"]
    )
