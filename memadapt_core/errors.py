"""The one error tree of memadapt.

::

    MemadaptError
    ├── ConfigurationError   (also ValueError)    a setting or a store that does not fit
    ├── ValidationError      (also ValueError)    bad input; ``field`` names what to fix
    ├── PluginError                               a plugin broke a hook's contract
    ├── EmbeddingError                            the embedder failed; nothing was stored
    ├── LLMError                                  the consolidation LLM failed or answered garbage
    └── StoreError                                the vector store failed
        ├── StoreUnavailableError (also ConnectionError)   the store cannot be reached or opened
        ├── StoreLockedError                               another process holds the embedded folder
        ├── StoreForkedError                               a forked child used its parent's open store
        ├── StoreFullError                                 the embedded store's disk is (nearly) full
        └── StoreCorruptedError                            the store's files are damaged: memadapt doctor

Third-party exceptions are translated at one boundary (``raise ... from exc``); none escapes the public API.
"""

from __future__ import annotations

__all__ = [
    "ConfigurationError",
    "EmbeddingError",
    "LLMError",
    "MemadaptError",
    "PluginError",
    "StoreCorruptedError",
    "StoreError",
    "StoreForkedError",
    "StoreFullError",
    "StoreLockedError",
    "StoreUnavailableError",
    "ValidationError",
]


class MemadaptError(Exception):
    """Base class of every error memadapt raises on purpose."""


class ConfigurationError(MemadaptError, ValueError):
    """A setting, an embedder or a collection does not fit; the message says which and how to fix it."""


class ValidationError(MemadaptError, ValueError):
    """Bad input. ``field`` names the argument (or ``messages[2].content``) at fault."""

    def __init__(self, field: str, problem: str) -> None:
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class PluginError(MemadaptError):
    """A plugin raised or returned something its hook does not allow."""


class EmbeddingError(MemadaptError):
    """The embedder failed; the call that needed it stored nothing."""


class LLMError(MemadaptError):
    """The LLM failed, timed out or answered something that does not fit the schema."""


class StoreError(MemadaptError):
    """The vector store failed."""


class StoreUnavailableError(StoreError, ConnectionError):
    """The store cannot be reached (closed port, wrong URL) or opened (read-only or missing folder)."""


class StoreLockedError(StoreUnavailableError):
    """Another process holds the embedded folder: one process per folder; use a Qdrant server to share."""


class StoreForkedError(StoreUnavailableError):
    """This process was forked from the one that opened the embedded store: it cannot use that store (both would
    write through the same files). Open the store after forking, or share one through a Qdrant server."""


class StoreFullError(StoreError):
    """The embedded store's filesystem has less free space than ``min_free_disk_mb``: the write was refused before
    it started (qdrant-edge writes through memory maps, which a full disk would crash with SIGBUS). Reads go on."""


class StoreCorruptedError(StoreError):
    """The store's files are damaged: opening or reading them failed, or a read of one scope returned another's
    record. The message names the recovery step (``memadapt doctor``: verify, salvage what is readable)."""
