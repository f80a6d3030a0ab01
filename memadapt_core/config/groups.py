"""The smaller settings groups: task memory, the embedder, the LLM and the tiers, and the OpenAI fallbacks."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_serializer

from memadapt_core.redaction import redact_url

__all__ = [
    "EmbedderSettings",
    "LLMSettings",
    "RedactedURLs",
    "TaskMemorySettings",
    "TierSettings",
    "openai_base_url",
    "openai_key",
]


# A group holding a URL or a key: an error never echoes what it was given, and an unknown key is refused, not
# ignored (a typo would otherwise silently leave the default in place).
_WITH_SECRETS = ConfigDict(hide_input_in_errors=True, extra="forbid")


class RedactedURLs:
    """A URL may carry credentials (``https://user:password@host``): a settings object shows it redacted in its
    repr and str, and dumps it redacted as JSON. A dump to Python objects keeps it whole, as it keeps a
    ``SecretStr``: that is how settings are copied inside memadapt."""

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        for name, value in super().__repr_args__():  # type: ignore[misc]
            yield name, redact_url(value) if name in ("url", "base_url") and isinstance(value, str) else value


class TaskMemorySettings(BaseModel):
    """Task memory (docs/task-memory.md): how experiences are ranked for a new task, and when tool guides are
    rewritten. An experience's rank is its task similarity (the best hit 1.0) plus ``score_weight`` x the strength
    of its evidence (the score of a success or comparison, 1 - score of a failure) plus ``recency_weight`` x its
    recency (halving every ``recency_half_life_days``)."""

    model_config = ConfigDict(extra="forbid")

    trajectory_batch: int = Field(5, ge=1, description="trajectories per experience extraction call")
    score_weight: float = Field(0.2, ge=0, description="weight of the evidence's strength in an experience's rank")
    recency_weight: float = Field(0.1, ge=0, description="weight of an experience's recency in its rank")
    recency_half_life_days: float = Field(30.0, gt=0, description="days after which recency counts half")
    tool_guide_every: int = Field(
        10, ge=0, description="new calls of a tool before its usage guide is rewritten by the LLM (0: never)"
    )
    tool_stats_window: int = Field(1_000, ge=1, description="a tool's latest calls its statistics are drawn from")


class EmbedderSettings(RedactedURLs, BaseModel):
    """Which embedder makes the dense vectors. Changing it on an existing collection is a ConfigurationError."""

    model_config = _WITH_SECRETS

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


class LLMSettings(RedactedURLs, BaseModel):
    """An OpenAI-compatible chat model for consolidation: a ``model`` and an endpoint (``base_url``, or a key for
    api.openai.com). With neither a model nor an endpoint nothing is consolidated; with only one of them
    ``MemorySettings`` refuses to build (``missing()`` says what is missing)."""

    model_config = _WITH_SECRETS

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
