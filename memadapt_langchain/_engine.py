"""Both twins of one engine, so every adapter class has a native sync path and a native async path."""

from __future__ import annotations

from memadapt_core import engine_views

__all__ = ["LANGCHAIN_KEY", "engine_views"]

LANGCHAIN_KEY = "langchain"
"""The record metadata key under which LangChain's own data lives (a document's metadata, a serialised message):
nested, so any key round-trips (the engine refuses system field names such as ``id`` at the top level)."""
