"""Fixtures of the LangChain adapter tests: the store under test, and a scripted chat model for agents."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore
from langgraph.warnings import LangGraphDeprecatedSinceV10

from memadapt_core import Embedder, Memory
from memadapt_langchain import MemadaptStore


class EngineEmbeddings(Embeddings):
    """The engine's own embedder as LangChain embeddings, so InMemoryStore ranks like the engine's dense signal."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in row] for row in self._embedder.embed_documents(texts)]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self._embedder.embed_query(text)]


@pytest.fixture(params=["memadapt", "in-memory"])
def store(request: pytest.FixtureRequest, memory: Memory) -> BaseStore:
    """The store behaviour suite runs against MemadaptStore and, to check the suite itself, LangGraph's own
    InMemoryStore (with the engine's embedder, so semantic expectations are the same)."""
    if request.param == "memadapt":
        return MemadaptStore(memory)
    return InMemoryStore(index={"dims": memory.embedder.dim, "embed": EngineEmbeddings(memory.embedder)})


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel answers from a script; agents also need ``bind_tools``, which here changes nothing."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Runnable[Any, Any]:
        return self


@pytest.fixture
def scripted_model() -> Callable[[list[AIMessage]], BaseChatModel]:
    def build(replies: list[AIMessage]) -> BaseChatModel:
        return ScriptedChatModel(messages=iter(replies))

    return build


@pytest.fixture(scope="session")
def langmem() -> ModuleType:
    """langmem, imported here because its dependency trustcall imports ``Send`` from ``langgraph.constants``
    (deprecated in LangGraph 1.0): that one warning is allowed, only while langmem is imported."""
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message="Importing Send from langgraph.constants", category=LangGraphDeprecatedSinceV10
        )
        return importlib.import_module("langmem")
