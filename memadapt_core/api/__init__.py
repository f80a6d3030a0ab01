"""The public API declared once: the Protocols every door implements (the engine and the client of ``memadapt
serve``), so adapters are typed to the API rather than to one door."""

from .async_api import AsyncMemoryAPI
from .sync_api import MemoryAPI, QueryEmbedder

__all__ = ["AsyncMemoryAPI", "MemoryAPI", "QueryEmbedder"]
