"""LangChain's own retriever suite, unmodified, against MemadaptRetriever."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_tests.integration_tests.retrievers import RetrieversIntegrationTests

from memadapt_core import Memory
from memadapt_langchain import MemadaptRetriever

FACTS = [
    "My sister Ana lives in Lisbon and works as an architect.",
    "Ana, my sister, has two cats called Miso and Tofu.",
    "I visit my sister Ana in Lisbon every summer.",
    "My sister's birthday is on the ninth of May.",
]


class TestMemadaptRetrieverStandard(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _engine(self, memory: Memory) -> None:
        # The suite builds retrievers from a property, so the engine rides on the test instance.
        memory.add(FACTS, user_id="u1", kind="fact")
        self.memory = memory

    @property
    def retriever_constructor(self) -> type[MemadaptRetriever]:
        return MemadaptRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"memory": self.memory, "user_id": "u1"}

    @property
    def retriever_query_example(self) -> str:
        return "Where does my sister Ana live?"
