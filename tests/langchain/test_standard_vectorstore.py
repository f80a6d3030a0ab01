"""LangChain's own vector-store suite, unmodified, against MemadaptVectorStore (sync and async)."""

from __future__ import annotations

import pytest
from langchain_core.vectorstores import VectorStore
from langchain_tests.integration_tests.vectorstores import VectorStoreIntegrationTests

from memadapt_core import Memory
from memadapt_langchain import MemadaptVectorStore


class TestMemadaptVectorStoreStandard(VectorStoreIntegrationTests):
    @pytest.fixture
    def vectorstore(self, memory: Memory) -> VectorStore:
        """An empty store on a fresh engine (the engine embeds; the suite's fake embeddings are not used)."""
        return MemadaptVectorStore(memory)
