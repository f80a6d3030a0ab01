"""``MemadaptProfileRetriever``: the user's profile as documents, one statement each, in a real LangChain call."""

from __future__ import annotations

from memadapt_core import Memory
from memadapt_langchain import MemadaptProfileRetriever
from tests._planted import plant


def _seed(memory: Memory) -> None:
    plant(memory, "Allergic to peanuts", user_id="ann", kind="profile", metadata={"section": "constraints"})
    plant(memory, "Loves opera", user_id="bob", kind="profile", metadata={"section": "interests"})


def test_the_profile_comes_back_as_one_document_per_statement(memory: Memory) -> None:
    _seed(memory)
    docs = MemadaptProfileRetriever(memory=memory, user_id="ann").invoke("anything")
    assert [d.page_content for d in docs] == ["constraints: Allergic to peanuts"]
    assert docs[0].metadata["section"] == "constraints"


async def test_the_async_path_returns_the_same_profile(memory: Memory) -> None:
    _seed(memory)
    docs = await MemadaptProfileRetriever(memory=memory.as_async(), user_id="ann").ainvoke("anything")
    assert [d.page_content for d in docs] == ["constraints: Allergic to peanuts"]
