"""One engine, every framework: what an AutoGen agent or an AgentScope service stored, LangChain retrieves."""

from __future__ import annotations

from autogen_core.memory import MemoryContent, MemoryMimeType

from memadapt_agentscope import MemadaptMemoryService
from memadapt_autogen import MemadaptMemory
from memadapt_core import AsyncMemory
from memadapt_langchain import MemadaptRetriever


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
