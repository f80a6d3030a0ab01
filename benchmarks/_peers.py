"""One small adapter per memory library, so peers.py drives each the same way: add a batch of items for a user,
search a user's memories, delete one user's memories. Each adapter uses the library's documented public API and
its defaults, except for the embedder: every vector peer embeds with the same offline WordLlama model memadapt uses.

A peer whose package is missing raises ImportError when built; peers.py reports it as not installed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["PEERS", "Item", "Peer", "make_peer"]


@dataclass(frozen=True)
class Item:
    key: str  # what a search hit is mapped back to (a LoCoMo dia_id, or a synthetic note id)
    text: str
    speaker: str | None = None
    role: str = "user"
    when: datetime | None = None
    session: str | None = None


class Peer:
    name = ""
    install = ""

    def add(self, user: str, items: Sequence[Item]) -> None:
        raise NotImplementedError

    def search(self, user: str, query: str, k: int) -> list[str]:
        raise NotImplementedError

    def delete_all(self, user: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        return None


def _text(item: Item) -> str:
    """What a peer without speaker or date fields indexes: memadapt's dense text, ``<speaker>: <text>``."""
    return f"{item.speaker}: {item.text}" if item.speaker else item.text


class _WordLlama:
    """WordLlama as a LangChain ``Embeddings`` (the interface both mem0 and langchain-qdrant accept)."""

    def __new__(cls) -> Any:
        from langchain_core.embeddings import Embeddings

        from memadapt_core.embedders.wordllama import WordLlamaEmbedder

        class WordLlamaEmbeddings(Embeddings):
            def __init__(self) -> None:
                self.model = WordLlamaEmbedder()

            def embed_documents(self, texts: list[str]) -> list[list[float]]:
                return self.model.embed_documents(list(texts)).tolist()  # type: ignore[no-any-return]

            def embed_query(self, text: str) -> list[float]:
                return self.model.embed_query(text).tolist()  # type: ignore[no-any-return]

        return WordLlamaEmbeddings()


class MemadaptPeer(Peer):
    def __init__(self, backend: str, durability: str = "fsync") -> None:
        from memadapt_core import Memory

        self.name = f"memadapt ({backend})"
        self.folder = tempfile.mkdtemp(prefix="bench-memadapt-")
        if backend == "edge":
            self.mem = Memory(path=self.folder, embedder="wordllama", durability=durability)
        else:
            self.mem = Memory(backend="qdrant-local", location=":memory:", embedder="wordllama")
        self.ids: dict[str, str] = {}

    def add(self, user: str, items: Sequence[Item]) -> None:
        msgs: list[dict[str, Any]] = []
        for it in items:
            msg: dict[str, Any] = {"role": it.role, "content": it.text, "id": it.key}
            if it.speaker:
                msg["name"] = it.speaker
            if it.when is not None:
                msg["timestamp"] = it.when
            msgs.append(msg)
        self.mem.add(msgs, user_id=user, session_id=items[0].session if items else None)

    def search(self, user: str, query: str, k: int, now: datetime | None = None) -> list[str]:
        hits = self.mem.search(query, user_id=user, limit=k, now=now)
        return [h.record.external_id or h.record.id for h in hits]

    def delete_all(self, user: str) -> None:
        self.mem.delete_all(user_id=user)

    def close(self) -> None:
        self.mem.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Mem0Peer(Peer):
    """mem0 OSS with ``infer=False`` (raw messages, no LLM) on its default embedded Qdrant (qdrant-client local mode
    with a path). Its LLM is configured with a placeholder key and never called; telemetry is off."""

    name = "mem0 (infer=False)"
    install = "pip install mem0ai langchain"

    def __init__(self) -> None:
        os.environ.setdefault("MEM0_TELEMETRY", "False")
        os.environ.setdefault("MEM0_DIR", tempfile.mkdtemp(prefix="bench-mem0-home-"))
        for noisy in ("mem0", "mem0.memory.main", "mem0.vector_stores.qdrant", "httpx"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        from mem0 import Memory

        folder = tempfile.mkdtemp(prefix="bench-mem0-")
        self.mem = Memory.from_config(
            {
                "embedder": {"provider": "langchain", "config": {"model": _WordLlama(), "embedding_dims": 256}},
                "vector_store": {
                    "provider": "qdrant",
                    "config": {"path": f"{folder}/qdrant", "embedding_model_dims": 256, "collection_name": "bench"},
                },
                "llm": {"provider": "openai", "config": {"api_key": "never-called", "model": "gpt-4o-mini"}},
                "history_db_path": f"{folder}/history.db",
            }
        )
        self.keys: dict[str, str] = {}

    def add(self, user: str, items: Sequence[Item]) -> None:
        msgs = [{"role": it.role, "content": _text(it), **({"name": it.speaker} if it.speaker else {})} for it in items]
        out = self.mem.add(msgs, user_id=user, infer=False)
        for it, res in zip(items, out["results"], strict=True):
            self.keys[res["id"]] = it.key

    def search(self, user: str, query: str, k: int) -> list[str]:
        res = self.mem.search(query, filters={"user_id": user}, top_k=k)
        return [self.keys.get(r["id"], r["id"]) for r in res["results"]]

    def delete_all(self, user: str) -> None:
        self.mem.delete_all(user_id=user)


class LangchainQdrantPeer(Peer):
    """langchain-qdrant ``QdrantVectorStore`` on qdrant-client local mode in memory; the user is a metadata field."""

    name = "langchain-qdrant (local)"
    install = "pip install langchain-qdrant"

    def __init__(self) -> None:
        from langchain_qdrant import QdrantVectorStore
        from qdrant_client import QdrantClient, models

        self.models = models
        self.client = QdrantClient(location=":memory:")
        self.client.create_collection(
            "bench", vectors_config=models.VectorParams(size=256, distance=models.Distance.COSINE)
        )
        self.store = QdrantVectorStore(client=self.client, collection_name="bench", embedding=_WordLlama())

    def _user(self, user: str) -> Any:
        m = self.models
        return m.Filter(must=[m.FieldCondition(key="metadata.user_id", match=m.MatchValue(value=user))])

    def add(self, user: str, items: Sequence[Item]) -> None:
        self.store.add_texts(
            [_text(it) for it in items],
            metadatas=[{"user_id": user, "key": it.key} for it in items],
            ids=[str(uuid.uuid4()) for _ in items],
        )

    def search(self, user: str, query: str, k: int) -> list[str]:
        docs = self.store.similarity_search(query, k=k, filter=self._user(user))
        return [d.metadata["key"] for d in docs]

    def delete_all(self, user: str) -> None:
        self.client.delete("bench", points_selector=self.models.FilterSelector(filter=self._user(user)))

    def close(self) -> None:
        self.client.close()


class AgentScopeRuntimePeer(Peer):
    """agentscope-runtime 1.0.5's ``InMemoryMemoryService`` (keyword substring match, last ``top_k`` matches)."""

    name = "agentscope-runtime InMemory"
    install = "pip install -r requirements/agentscope-runtime.txt"

    def __init__(self) -> None:
        from agentscope_runtime.engine.schemas.agent_schemas import Message, TextContent
        from agentscope_runtime.engine.services.memory import InMemoryMemoryService

        self.Message, self.TextContent = Message, TextContent
        self.loop = asyncio.new_event_loop()
        self.service = InMemoryMemoryService()
        self.loop.run_until_complete(self.service.start())
        self.keys: dict[str, str] = {}

    def _msg(self, role: str, text: str) -> Any:
        return self.Message(role=role, content=[self.TextContent(text=text)])

    def add(self, user: str, items: Sequence[Item]) -> None:
        msgs = []
        for it in items:
            msg = self._msg(it.role, _text(it))
            self.keys[msg.id] = it.key
            msgs.append(msg)
        self.loop.run_until_complete(self.service.add_memory(user, msgs, session_id=items[0].session))

    def search(self, user: str, query: str, k: int) -> list[str]:
        found = self.loop.run_until_complete(
            self.service.search_memory(user, [self._msg("user", query)], filters={"top_k": k})
        )
        return [self.keys[m.id] for m in reversed(found)]  # newest first: top_k keeps the last matches

    def delete_all(self, user: str) -> None:
        self.loop.run_until_complete(self.service.delete_memory(user))

    def close(self) -> None:
        self.loop.run_until_complete(self.service.stop())
        self.loop.close()


PEERS: dict[str, tuple[str, str]] = {  # key -> (display name, how to install)
    "memadapt-edge": ("memadapt (edge)", "pip install -e ."),
    # The peers' stores sync nothing to disk at each add (langchain-qdrant is in memory): memadapt without its
    # per-add fsync, for a like-for-like write figure.
    "memadapt-edge-nosync": ("memadapt (edge, durability=process)", "pip install -e ."),
    "memadapt-qdrant-local": ("memadapt (qdrant-local)", "pip install -e ."),
    "mem0": (Mem0Peer.name, Mem0Peer.install),
    "langchain-qdrant": (LangchainQdrantPeer.name, LangchainQdrantPeer.install),
    "agentscope-runtime": (AgentScopeRuntimePeer.name, AgentScopeRuntimePeer.install),
}


def make_peer(key: str) -> Peer:
    if key == "memadapt-edge":
        return MemadaptPeer("edge")
    if key == "memadapt-edge-nosync":
        return MemadaptPeer("edge", durability="process")
    if key == "memadapt-qdrant-local":
        return MemadaptPeer("qdrant-local")
    if key == "mem0":
        return Mem0Peer()
    if key == "langchain-qdrant":
        return LangchainQdrantPeer()
    if key == "agentscope-runtime":
        return AgentScopeRuntimePeer()
    msg = f"unknown peer {key!r}; choose from {', '.join(PEERS)}"
    raise ValueError(msg)
