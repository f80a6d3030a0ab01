"""Settings: every one is a constructor argument and an environment variable (prefix ``MEMADAPT_``).

Read when an engine is built, never at import. Nested groups use ``__``: ``MEMADAPT_LLM__BASE_URL``,
``MEMADAPT_RETRIEVAL__DENSE_WEIGHT``. Secrets are ``SecretStr``: never logged, never serialised.

Why this module passes 400 lines: it is one table of settings, each a field with its bounds and one-line meaning
(docs/configuration.md is generated from it); the groups nest in one another, and a reader looks a setting up here.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, Self

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_serializer, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from .redaction import redact_url

__all__ = [
    "EmbedderSettings",
    "LLMSettings",
    "MemorySettings",
    "RetrievalSettings",
    "TaskMemorySettings",
    "TierSettings",
    "default_path",
    "openai_base_url",
    "openai_key",
]

BackendName = Literal["edge", "qdrant", "qdrant-local"]


class _RedactedURLs:
    """A URL may carry credentials (``https://user:password@host``): a settings object shows it redacted in its
    repr and str, and dumps it redacted as JSON. A dump to Python objects keeps it whole, as it keeps a
    ``SecretStr``: that is how settings are copied inside memadapt."""

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():  # type: ignore[misc]
            yield name, redact_url(value) if name in ("url", "base_url") and isinstance(value, str) else value


class RetrievalSettings(BaseModel):
    """The hybrid-search recipe (docs/architecture.md). The boosts were tuned with ``benchmarks/locomo.py --tune`` on 4
    LoCoMo dev conversations, then rounded to one decimal (round numbers fit the dev data less: r@10 on the other 3
    conversations is the same, 0.762, with WordLlama). The fused score is the weighted mean of the normalised
    signals (in [0, 1]); boosts are added to it."""

    dense_weight: float | None = Field(
        None,
        ge=0,
        description="weight of meaning against words (sparse_weight); unset: the embedder's (0.2)",
    )
    sparse_weight: float = Field(0.5, ge=0)
    candidates: int = Field(40, ge=1, le=1000, description="candidates per signal before fusion")
    rerank_depth: int = Field(
        80, ge=1, le=2000, description="fused candidates boosted (at least 3 x limit): more finds more, fetches more"
    )
    # Relevance floor on the raw signals: a query is relevant when its best cosine reaches `floor_dense`, or when
    # some BM25 term matched and its best cosine reaches `floor_dense_with_sparse`. Below that, nothing is returned.
    # None: the embedder's own calibration (Embedder.floor_dense / floor_dense_with_sparse).
    floor_dense: float | None = Field(
        None,
        description="relevance floor: the best cosine a query needs; unset: the embedder's (minilm 0.3, wordllama .32)",
    )
    floor_dense_with_sparse: float | None = Field(
        None,
        description="... or on a memory sharing a word with it; unset: the embedder's (0.25; 0.2 wordllama by scope)",
    )
    # The same three for a question mostly in another script than the Latin (Chinese, Japanese, Korean, Cyrillic...:
    # memadapt_core.scripts.route_of): the default embedder reads those with its multilingual model alone, whose
    # cosines and ranking weigh differently (docs/languages.md).
    floor_dense_nonlatin: float | None = Field(
        None, description="relevance floor of a question in a non-Latin script; unset: the embedder's (0.3)"
    )
    floor_dense_with_sparse_nonlatin: float | None = Field(
        None, description="... or on a memory sharing a word with it; unset: the embedder's (0.25)"
    )
    # Once a question passed the floor, a memory sharing no word with it is returned down to this cosine.
    floor_dense_kept: float | None = Field(
        None, description="a memory without a word in common is returned down to this cosine; unset: floor_dense"
    )
    floor_dense_kept_nonlatin: float | None = Field(
        None, description="the same for a question in a non-Latin script; unset: the embedder's (0.25)"
    )
    dense_weight_nonlatin: float | None = Field(
        None, ge=0, description="weight of meaning against words for such a question; unset: the embedder's (0.5)"
    )
    # Two questions are near in meaning by their form alone (USE-m3: "一年有多少天？" 0.48 from a stored
    # "长江有多长？"): a question's cosine with a stored one-sentence question counts this much less, in the floor
    # and the ranking.
    question_margin: float | None = Field(
        None,
        ge=0,
        le=1,
        description="a question's cosine with a stored question counts this much less; unset: the embedder's (0.1)",
    )
    question_margin_nonlatin: float | None = Field(
        None, ge=0, le=1, description="the same for a question in a non-Latin script; unset: the embedder's (0.2)"
    )
    # A Chinese or Japanese question that names no one in the conversation (no 我, no 记得...: ranking.impersonal)
    # asks about the world, not the user: its cosines count this much less, in the floor and the ranking.
    impersonal_margin_nonlatin: float | None = Field(
        None,
        ge=0,
        le=1,
        description="a Chinese/Japanese question naming no one counts this much less; unset: the embedder's (0.15)",
    )
    dense_min_span: float = Field(0.25, ge=0, description="cosine span min-max normalisation spreads at least over")
    sparse_min_span: float = Field(0.5, ge=0, le=1, description="the same for BM25, as a fraction of the best score")
    speaker_boost: float = Field(0.3, ge=0, description="when the query names exactly one speaker")
    session_prior: float = Field(0.15, ge=0, description="x the best score in the hit's session")
    date_boost: float = Field(0.4, ge=0, description="when the query names a time and the hit falls near it")
    date_window_before_days: float = Field(1.0, ge=0)
    date_window_after_days: float = Field(14.0, ge=0)
    when_boost: float = Field(0.3, ge=0, description="'when' questions favour memories that mention a time")
    recency_boost: float = Field(
        0.02, ge=0, description="x a hit's recency among the candidates (0 oldest .. 1 newest): near-ties go newest"
    )
    present_boost: float = Field(
        0.05, ge=0, description="the recency weight instead, for questions in the present tense ('where do I live?')"
    )
    current_boost: float = Field(
        0.1, ge=0, description="the recency weight instead, for 'current', 'now', 'latest', 'still' questions"
    )
    heat_boost: float = Field(
        0.0, ge=0, description="x a hit's visits over the most visited candidate's (0..1); 0: off (docs/tiers.md)"
    )
    lexical_tie_cosine: float = Field(
        0.1, ge=0, description="equal BM25 matches whose cosines differ by less than this tie (recency decides)"
    )
    assistant_weight: float = Field(
        0.9, ge=0, le=1, description="x the fused score of the assistant's messages: the user's own words first"
    )
    session_diversity: float = Field(
        0.05, ge=0, description="each further hit from a session already in the results loses this much"
    )
    context_prev: int = Field(4, ge=0, le=10, description="previous turns whose words index a message")
    context_next: int = Field(2, ge=0, le=10, description="following turns whose words index a message")
    context_weight: float = Field(
        1.0, ge=0, le=1, description="how much those neighbours' words count against the turn's own (1: as much)"
    )
    dense_context_prev: float = Field(
        0.3, ge=0, le=1, description="share of the turn before's meaning in a message's dense vector (0: none)"
    )
    dense_context_next: float = Field(
        0.2, ge=0, le=1, description="share of the turn after's meaning in a message's dense vector (0: none)"
    )
    index_dates: bool = Field(True, description="index a message's sparse vector with the date it was said")
    bm25_avg_len: float = Field(48.0, gt=0, description="average indexed length in tokens, for BM25's length norm")
    scope_idf: float = Field(
        0.5,
        ge=0,
        le=1,
        description="share of BM25 whose word rarity is counted in the searched scope's memories, the rest in the "
        "whole store's (1: one tenant's memories never change another's ranking; 0: the store's only; a Qdrant "
        "server needs 1.19 or later for more than 0)",
    )


class TaskMemorySettings(BaseModel):
    """Task memory (docs/task-memory.md): how experiences are ranked for a new task, and when tool guides are
    rewritten. An experience's rank is its task similarity (the best hit 1.0) plus ``score_weight`` x the strength
    of its evidence (the score of a success or comparison, 1 - score of a failure) plus ``recency_weight`` x its
    recency (halving every ``recency_half_life_days``)."""

    trajectory_batch: int = Field(5, ge=1, description="trajectories per experience extraction call")
    score_weight: float = Field(0.2, ge=0, description="weight of the evidence's strength in an experience's rank")
    recency_weight: float = Field(0.1, ge=0, description="weight of an experience's recency in its rank")
    recency_half_life_days: float = Field(30.0, gt=0, description="days after which recency counts half")
    tool_guide_every: int = Field(
        10, ge=0, description="new calls of a tool before its usage guide is rewritten by the LLM (0: never)"
    )
    tool_stats_window: int = Field(1_000, ge=1, description="a tool's latest calls its statistics are drawn from")


class EmbedderSettings(_RedactedURLs, BaseModel):
    """Which embedder makes the dense vectors. Changing it on an existing collection is a ConfigurationError."""

    model_config = ConfigDict(hide_input_in_errors=True)  # an error never echoes what it was given: keys

    provider: str = "multilingual"  # MiniLM + USE-m3 (docs/languages.md); "minilm": English only; "wordllama": fast
    model: str | None = None  # wordllama: "l2_supercat" dims 256; openai: "text-embedding-3-small"; fastembed: a name
    dim: int | None = Field(None, ge=1)
    base_url: str | None = None
    api_key: SecretStr | None = None
    model_path: str | None = None  # fastembed: a local ONNX model folder
    timeout: float = Field(30.0, gt=0)
    pooling: Literal["mean", "scope_idf"] | None = Field(
        None, description="token vectors' pooling: a new store gets the embedder's default ('scope_idf' for minilm, "
        "'mean' for the others); a store keeps the one it was made with (docs/storage.md)",
    )  # fmt: skip

    @field_serializer("base_url", when_used="json")
    def _redacted(self, url: str | None) -> str | None:
        return redact_url(url)


class LLMSettings(_RedactedURLs, BaseModel):
    """An OpenAI-compatible chat model for consolidation: a ``model`` and an endpoint (``base_url``, or a key for
    api.openai.com). With neither a model nor an endpoint nothing is consolidated; with only one of them
    ``MemorySettings`` refuses to build (``missing()`` says what is missing)."""

    model_config = ConfigDict(hide_input_in_errors=True)  # an error never echoes what it was given: keys

    provider: str = "openai"  # any OpenAI-compatible chat endpoint; plugins register others
    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str | None = None
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(3, ge=0, le=10)
    temperature: float = 0.0

    @field_serializer("base_url", when_used="json")
    def _redacted(self, url: str | None) -> str | None:
        return redact_url(url)

    @property
    def configured(self) -> bool:
        return bool(self.model) and bool(self.base_url or self.api_key)

    @property
    def requested(self) -> bool:
        """Whether any of model, endpoint or key is set: the user asked for consolidation."""
        return bool(self.model or self.base_url or self.api_key)

    def with_environment(self) -> LLMSettings:
        """The openai provider's endpoint and key completed from ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY``, as
        the openai SDK does, when memadapt's own are not set; other providers are left as they are."""
        if self.provider != "openai" or not (self.model or self.base_url):
            return self  # an unused LLM does not pick up a key meant for something else
        update = {"base_url": openai_base_url(self.base_url), "api_key": openai_key(self.api_key)}
        update = {name: value for name, value in update.items() if value is not None}
        return self.model_copy(update=update) if update else self

    def missing(self) -> str | None:
        """What a half-configured LLM lacks, as ``field: fix``; None when it is complete or not asked for. A key
        alone asks for nothing (it may be set for other tools)."""
        if self.model and not (self.base_url or self.api_key):
            return (
                "llm.base_url: llm.model is set but there is no endpoint: set MEMADAPT_LLM__BASE_URL (a local "
                "server), or MEMADAPT_LLM__API_KEY or OPENAI_API_KEY (api.openai.com)"
            )
        if self.base_url and not self.model:
            return "llm.model: llm.base_url is set but no chat model is named: set MEMADAPT_LLM__MODEL (or model=...)"
        return None


def openai_key(explicit: SecretStr | None) -> SecretStr | None:
    """memadapt's own key, else ``OPENAI_API_KEY`` (read now, when a client is built, never at import)."""
    if explicit is not None and explicit.get_secret_value():
        return explicit
    env = os.environ.get("OPENAI_API_KEY", "").strip()
    return SecretStr(env) if env else None


def openai_base_url(explicit: str | None) -> str | None:
    """memadapt's own endpoint, else ``OPENAI_BASE_URL`` (the openai SDK's fallback, made visible here)."""
    return explicit or os.environ.get("OPENAI_BASE_URL", "").strip() or None


class TierSettings(BaseModel):
    """MemoryOS's tiers (docs/tiers.md): working memory, the profile, heat and the capacity of long-term knowledge."""

    model_config = ConfigDict(extra="forbid")

    working_memory: int = Field(7, ge=1, le=1_000, description="latest turns recent() returns by default")
    profile: bool = Field(False, description="with an LLM: consolidation keeps a profile per user (and per agent)")
    profile_max_facts: int = Field(60, ge=1, description="facts and insights shown in one profile update call")
    profile_block: int = Field(12, ge=0, description="profile statements format_context(profile=...) shows")
    assistant_knowledge: bool = Field(
        True, description="what the assistant says about itself goes to the agent's scope (scopes with an agent)"
    )
    heat: bool = Field(False, description="count each record's retrievals (visits, last access) for its heat")
    heat_visit_weight: float = Field(1.0, ge=0, description="heat per retrieval into a context")
    heat_length_weight: float = Field(1.0, ge=0, description="heat per turn of the interaction behind a record")
    heat_recency_weight: float = Field(1.0, ge=0, description="heat of a record used (or said) just now")
    heat_half_life_hours: float = Field(168.0, gt=0, description="hours in which the recency part halves")
    heat_threshold: float | None = Field(
        None, ge=0, description="with an LLM: consolidate a pending segment only once its heat reaches this"
    )
    llm_calls_per_hour: int | None = Field(
        None,
        ge=1,
        description="with an LLM: every LLM batch of the worker waits once this many calls ran in the last hour",
    )
    knowledge_capacity: int | None = Field(
        None, ge=1, description="valid facts kept in search per user (or agent); the coldest beyond are archived"
    )


class MemorySettings(_RedactedURLs, BaseSettings):
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
    )  # backends/edge_precheck.py; costs: docs/reliability-and-security.md

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
