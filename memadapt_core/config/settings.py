"""``MemorySettings``: every setting is a constructor argument and an environment variable (prefix ``MEMADAPT_``).

The groups it nests are in ``groups.py`` and ``retrieval.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Self

import platformdirs
from pydantic import Field, SecretStr, field_serializer, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memadapt_core.config.groups import (
    EmbedderSettings,
    LLMSettings,
    RedactedURLs,
    TaskMemorySettings,
    TierSettings,
)
from memadapt_core.config.retrieval import RetrievalSettings
from memadapt_core.redaction import redact_url

__all__ = ["BackendName", "MemorySettings", "default_path"]

BackendName = Literal["edge", "qdrant", "qdrant-local"]


class MemorySettings(RedactedURLs, BaseSettings):
    """Everything an engine needs; all optional. ``Memory()`` with nothing set opens the embedded default store."""

    model_config = SettingsConfigDict(
        env_prefix="MEMADAPT_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
        hide_input_in_errors=True,  # the input holds the keys: an error names the field, never echoes its value
    )

    path: str | None = Field(None, description="embedded store folder (edge, or qdrant-local with a path)")
    location: str | None = Field(None, description='":memory:" for a store that lives until close')
    url: str | None = Field(None, description="a Qdrant server or cluster: selects the qdrant backend")
    api_key: SecretStr | None = None
    backend: BackendName | None = None
    collection: str | None = None
    shard_key: str | None = Field(None, description="custom-sharded clusters: the shard key to read and write")
    timeout: float = Field(10.0, gt=0, description="seconds, for a Qdrant server")
    max_text_chars: int = Field(
        1_000_000, ge=1, description="longest text accepted (a guard against absurd input; longer is refused)"
    )
    passage_chars: int = Field(
        2_000, ge=100, description="a text longer than this is embedded a passage at a time (vectors averaged)"
    )
    embed_batch_chars: int = Field(
        65_536, ge=1_000, description="characters handed to the embedder in one call (bounds its memory per call)"
    )
    max_limit: int = Field(1_000, ge=1)
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    tiers: TierSettings = Field(default_factory=TierSettings)
    task_memory: TaskMemorySettings = Field(default_factory=TaskMemorySettings)
    consolidation_batch: int = Field(20, ge=1, description="messages per extraction call")
    reflect_every: int = Field(10, ge=0, description="new facts per scope between reflections (0: never)")
    queue_size: int = Field(1_000, ge=1, description="pending consolidation jobs before add applies backpressure")
    history_limit: int = Field(100, ge=2, description="events kept per record: the add and the newest changes")
    history_max_chars: int = Field(
        32_000, ge=0, description="characters of old and new text kept in a record's events (0: no cap)"
    )  # a record's events live in its payload, which every read decodes whole: this bounds what they cost
    # The embedded store writes through memory maps: on a full disk that is SIGBUS, not an error. Opening a store
    # touched 74 MiB of a fresh tmpfs (two 32 MiB WAL segments and the segment files' first pages), and the WAL
    # prepares its next 32 MiB segment in the background: 128 MiB covers both plus a batch (see README).
    min_free_disk_mb: int = Field(
        128, ge=0, description="embedded store: refuse to open or write below this much free disk (0: never)"
    )
    pooling_scopes: int = Field(
        256, ge=1, description="scopes whose token counts (embedder.pooling 'scope_idf') stay in memory, ~240 KiB each"
    )
    payload_cache: int = Field(
        100_000, ge=0, description="embedded store: records whose decoded payloads stay in memory (0: none)"
    )  # ~1 KB each; a search's candidates found there skip decoding (~5 µs each at 100k records, see README)
    payload_cache_mb: int = Field(
        256, ge=0, description="embedded store: ... and at most this many MiB of them (large metadata weighs more)"
    )
    dense_int8: bool = Field(
        True,
        description="embedded store: optimized segments also hold each dense vector in int8, which a search scans "
        "before rescoring twice its candidates with the full vectors (a 100k-memory scope searched ~1.6x faster)",
    )
    vacuum_after_deletes: int = Field(
        10_000, ge=0, description="embedded store: vacuum in the background after this many deletes (0: never)"
    )
    durability: Literal["fsync", "interval", "process"] = Field(
        "fsync",
        description="embedded store: when a write reaches the disk. fsync: before it returns (survives a power cut); "
        "interval: within sync_interval seconds; process: survives a killed process, not a power cut",
    )  # costs: docs/reliability-and-security.md
    sync_interval: float = Field(
        1.0, gt=0, le=3600, description="embedded store, durability='interval': seconds a write may wait for its sync"
    )
    check_unclean_open: bool = Field(
        True,
        description="embedded store: load a store that was not closed cleanly in a memory-limited child process "
        "first, so damaged files cannot abort this one, and read its id trackers against their versions files, so "
        "one damaged short is refused rather than read (0.3-0.8 s, once after a crash)",
    )  # backends/edge/checks/precheck.py; costs: docs/reliability-and-security.md

    @field_serializer("url", when_used="json")
    def _redacted(self, url: str | None) -> str | None:
        return redact_url(url)

    @field_validator("path")
    @classmethod
    def _folder(cls, path: str | None) -> str | None:
        """A folder the file system can name: NUL or a lone surrogate would fail deep in the store instead."""
        if path is not None and ("\0" in path or any("\ud800" <= c <= "\udfff" for c in path)):
            msg = "path must be a folder name without NUL or lone surrogate characters"
            raise ValueError(msg)
        return path

    @field_validator("collection")
    @classmethod
    def _collection_name(cls, name: str | None) -> str | None:
        """The embedded store's folder and a server's collection: a name both a file system and Qdrant take (a
        32k-character one reached the file system as "File name too long"; ".." would leave the store's folder)."""
        if name is None:
            return name
        try:
            size = len(name.encode())
        except UnicodeEncodeError:  # a lone surrogate
            size = 0
        if not 0 < size <= 255 or name in (".", "..") or any(c in name for c in "/\\\0"):
            msg = "collection must be 1-255 bytes of UTF-8, without '/', '\\' or NUL, and not '.' or '..'"
            raise ValueError(msg)
        return name

    @model_validator(mode="after")
    def _complete_llm(self) -> Self:
        """The LLM's key and endpoint from the environment (now: when an engine is built), then a clear error for
        a half-configured LLM instead of a memory that silently consolidates nothing."""
        self.llm = self.llm.with_environment()
        problem = self.llm.missing()
        if problem is not None:
            raise ValueError(problem)
        return self

    def resolved_backend(self) -> BackendName:
        if self.backend is not None:
            return self.backend
        return "qdrant" if self.url else "edge"


def default_path() -> Path:
    """The embedded store's folder when neither ``path`` nor ``location`` is given (``MEMADAPT_PATH`` wins)."""
    return Path(platformdirs.user_data_dir("memadapt", appauthor=False)) / "store"
