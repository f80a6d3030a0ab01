"""memadapt_core: long-term memory for LLM agents on Qdrant, framework-neutral."""

from .adapter_args import check_count, engine_views
from .config import EmbedderSettings, LLMSettings, MemorySettings, RetrievalSettings, TierSettings
from .embedders.base import Embedder
from .engine import AsyncMemory, Memory
from .errors import (
    ConfigurationError,
    EmbeddingError,
    LLMError,
    MemadaptError,
    PluginError,
    StoreCorruptedError,
    StoreError,
    StoreForkedError,
    StoreFullError,
    StoreLockedError,
    StoreUnavailableError,
    ValidationError,
)
from .formatting import BLOCK_END, BLOCK_START
from .hookspecs import hookimpl
from .models import JSON, Answer, HistoryEvent, Kind, LibraryImport, MemoryRecord, Page, Scope, ScopeIds, SearchHit
from .profile import ProfileStatement, UserProfile
from .validation import fit_query, parse_json_object

__all__ = [
    "BLOCK_END",
    "BLOCK_START",
    "JSON",
    "Answer",
    "AsyncMemory",
    "ConfigurationError",
    "Embedder",
    "EmbedderSettings",
    "EmbeddingError",
    "HistoryEvent",
    "Kind",
    "LLMError",
    "LLMSettings",
    "LibraryImport",
    "MemadaptError",
    "Memory",
    "MemoryRecord",
    "MemorySettings",
    "Page",
    "PluginError",
    "ProfileStatement",
    "RetrievalSettings",
    "Scope",
    "ScopeIds",
    "SearchHit",
    "StoreCorruptedError",
    "StoreError",
    "StoreForkedError",
    "StoreFullError",
    "StoreLockedError",
    "StoreUnavailableError",
    "TierSettings",
    "UserProfile",
    "ValidationError",
    "check_count",
    "engine_views",
    "fit_query",
    "hookimpl",
    "parse_json_object",
]
