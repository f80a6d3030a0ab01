"""One engine, every framework: what an AutoGen agent or an AgentScope service stored, LangChain retrieves."""

from __future__ import annotations

from autogen_core.memory import MemoryContent, MemoryMimeType

from memadapt_agentscope import MemadaptMemoryService
from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory
from memadapt_langchain import MemadaptRetriever, MemadaptStore


async def test_a_fact_stored_through_autogen_is_retrieved_through_langchain() -> None:
    async with AsyncMemory(location=":memory:") as engine:
        autogen_memory = MemadaptMemory(memory=engine, user_id="maya")
        await autogen_memory.add(MemoryContent(content="Maya's cat is called Pixel", mime_type=MemoryMimeType.TEXT))
        retriever = MemadaptRetriever(memory=engine, user_id="maya", k=3)
        docs = await retriever.ainvoke("what is the cat called")
        assert [d.page_content for d in docs] == ["Maya's cat is called Pixel"]
        assert await MemadaptRetriever(memory=engine, user_id="tom", k=3).ainvoke("what is the cat called") == []


async def test_a_conversation_stored_through_agentscope_is_retrieved_through_langchain() -> None:
    async with AsyncMemory(location=":memory:") as engine:
        service = MemadaptMemoryService(engine)
        await service.start()
        message = {"role": "user", "content": [{"type": "text", "text": "I am training for the Lisbon marathon"}]}
        await service.add_memory("maya", [message], session_id="s1")
        await service.stop()
        docs = await MemadaptRetriever(memory=engine, user_id="maya", k=3).ainvoke("which marathon am I training for")
        assert "Lisbon marathon" in docs[0].page_content


# A LangGraph item under a user's namespace, found with every adapter's defaults (docs/adapters.md).
LANGGRAPH_NS = ("memories", "maya")
LANGGRAPH_VALUE = {"content": "Maya's sister lives in Porto"}
QUESTION = "where does my sister live"


async def _put_langgraph_item(engine: AsyncMemory) -> None:
    await MemadaptStore(engine).aput(LANGGRAPH_NS, "sister", LANGGRAPH_VALUE)


async def test_a_users_langgraph_item_is_found_by_that_users_retriever() -> None:
    async with AsyncMemory(location=":memory:") as engine:
        await _put_langgraph_item(engine)

        maya = await MemadaptRetriever(memory=engine, user_id="maya").ainvoke(QUESTION)
        tom = await MemadaptRetriever(memory=engine, user_id="tom", threshold=0.0).ainvoke(QUESTION)

        assert [d.page_content for d in maya] == ["Maya's sister lives in Porto"]
        assert tom == []


async def test_a_users_langgraph_item_is_found_by_that_users_autogen_memory() -> None:
    async with AsyncMemory(location=":memory:") as engine:
        await _put_langgraph_item(engine)

        maya = await MemadaptMemory(memory=engine, user_id="maya").query(QUESTION)
        tom = await MemadaptMemory(memory=engine, user_id="tom", threshold=0.0).query(QUESTION)

        assert [r.content for r in maya.results] == ["Maya's sister lives in Porto"]
        assert tom.results == []


async def test_a_users_langgraph_item_is_found_by_that_users_agentscope_service() -> None:
    async with AsyncMemory(location=":memory:") as engine, MemadaptMemoryService(memory=engine) as service:
        await _put_langgraph_item(engine)
        question = [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}]

        maya = await service.search_memory("maya", question)
        tom = await service.search_memory("tom", question)

        assert ["Porto" in str(found) for found in maya] == [True]
        assert tom == []
