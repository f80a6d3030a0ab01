"""The public API declared once: the Protocols every door implements (the engine and the client of ``memadapt
serve``), so adapters are typed to the API rather than to one door."""

from .async_api import AsyncMemoryAPI
from .embedder import QueryEmbedder
from .sync_api import MemoryAPI

__all__ = ["AsyncMemoryAPI", "MemoryAPI", "QueryEmbedder"]
