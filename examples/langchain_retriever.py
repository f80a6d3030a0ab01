"""LangChain on memadapt: a chat history that feeds long-term memory, a retriever over it, and a vector store.

Runs offline (the engine's embedded store and embedder; no model is called):

    python examples/langchain_retriever.py

1. Alice's conversation is kept by MemadaptChatMessageHistory: each turn is a memory record.
2. MemadaptRetriever recalls her turns by meaning (sync and async), best first, with scores.
3. MemadaptVectorStore holds a small FAQ with metadata; a filtered search and an LCEL chain use it.
"""

from __future__ import annotations

import asyncio
import tempfile

from langchain_core.documents import Document
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough

from memadapt_core import Memory
from memadapt_langchain import MemadaptChatMessageHistory, MemadaptRetriever, MemadaptVectorStore

FAQ = [
    Document(page_content="Returns are free within 30 days of delivery.", metadata={"topic": "returns"}, id="faq-1"),
    Document(page_content="Orders ship within two working days.", metadata={"topic": "shipping"}, id="faq-2"),
    Document(page_content="Express shipping arrives the next day.", metadata={"topic": "shipping"}, id="faq-3"),
    Document(page_content="Gift cards never expire.", metadata={"topic": "payments"}, id="faq-4"),
]


def show(docs: list[Document]) -> None:
    for doc in docs:
        score = doc.metadata.get("score")
        print(f"    {'' if score is None else f'{score:.2f}  '}{doc.page_content}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder, Memory(path=folder) as memory:
        print("1. Alice's conversation, kept as memories")
        history = MemadaptChatMessageHistory(memory, "2024-05-01", user_id="alice")
        history.add_messages(
            [
                HumanMessage("We adopted a greyhound called Biscuit last week!"),
                AIMessage("Congratulations! Greyhounds are gentle dogs."),
                HumanMessage("I'm allergic to peanuts, so no peanut treats for me."),
                AIMessage("Noted, I'll keep that in mind."),
            ]
        )
        print(f"    {len(history.messages)} messages in session 2024-05-01")

        print("2. The retriever recalls by meaning")
        retriever = MemadaptRetriever(memory=memory, user_id="alice", k=2)
        print("  'what is my dog called?'")
        show(retriever.invoke("what is my dog called?"))
        print("  'any food allergies?' (async, k=1)")
        show(await retriever.ainvoke("any food allergies?", k=1))
        print("  'capital of France?' (unrelated: the relevance floor returns nothing)")
        show(retriever.invoke("what is the capital of France?"))

        print("3. A vector store for documents")
        faq = MemadaptVectorStore(memory, agent_id="shop-faq")
        faq.add_documents(FAQ)
        print("  'how fast is delivery?' among shipping documents")
        for doc, score in faq.similarity_search_with_score("how fast is delivery?", k=2, filter={"topic": "shipping"}):
            print(f"    {score:.2f}  [{doc.id}] {doc.page_content}")

        prompt = ChatPromptTemplate.from_template("Answer from these notes:\n{context}\n\nQuestion: {question}")
        chain = {
            "context": faq.as_retriever(search_kwargs={"k": 1})
            | (lambda docs: "\n".join(d.page_content for d in docs)),
            "question": RunnablePassthrough(),
        } | prompt
        print("  the prompt an LCEL chain builds for 'can I send it back?':")
        print("    " + chain.invoke("can I send it back?").to_string().replace("\n", "\n    "))


if __name__ == "__main__":
    asyncio.run(main())
