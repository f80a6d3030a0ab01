"""The serialisable configuration of a `MemadaptMemory` (what `dump_component` writes)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_serializer

from memadapt_core import EmbedderSettings, Kind

__all__ = ["MemadaptMemoryConfig"]


class MemadaptMemoryConfig(BaseModel):
    """Scope, retrieval settings, where the store lives and which embedder made it, or which server it is a client of.

    ``api_key``, the embedder's key and ``token`` are excluded from every dump, so a dumped agent never carries a
    secret: the loaded memory reads them from ``MEMADAPT_API_KEY`` / ``MEMADAPT_EMBEDDER__API_KEY`` (or
    ``OPENAI_API_KEY``) and, for a client of ``memadapt serve`` (``server``), ``MEMADAPT_TOKEN``. The embedder is
    dumped because it names the store's collection: a memory reloaded without it would open another, empty
    collection.
    """

    model_config = ConfigDict(extra="forbid")

    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    limit: int = Field(5, ge=1, description="memories injected into the model context per turn")
    threshold: float | None = Field(None, description="minimum hit score; None keeps the engine's relevance floor")
    kinds: list[Kind] | None = Field(None, description="kinds to search; None searches all")
    profile: bool = Field(False, description="put a short block of the user's profile before the memories each turn")
    user_sources: list[str] = Field(
        default_factory=lambda: ["user"],
        description="sources that add_messages stores with role 'user'; any other source is 'assistant'",
    )
    path: str | None = Field(None, description="embedded store folder")
    location: str | None = Field(None, description='":memory:" for a store that lives until close')
    url: str | None = Field(None, description="a Qdrant server or cluster")
    backend: str | None = Field(None, description='"edge", "qdrant" or "qdrant-local"; None picks from the rest')
    collection: str | None = None
    api_key: SecretStr | None = Field(None, exclude=True, description="never dumped")
    embedder: EmbedderSettings | None = Field(None, description="the engine's embedder; its api_key is never dumped")
    server: str | None = Field(None, description="a memadapt serve URL: the memory is a client of that service")
    token: SecretStr | None = Field(None, exclude=True, description="server's bearer token; never dumped")

    @field_serializer("embedder")
    def _embedder_without_key(self, embedder: EmbedderSettings | None) -> dict[str, Any] | None:
        if embedder is None:
            return None
        return embedder.model_dump(mode="json", exclude={"api_key"}, exclude_none=True)
