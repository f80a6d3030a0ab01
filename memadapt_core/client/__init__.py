"""The client of ``memadapt serve``: ``RemoteMemory`` and ``AsyncRemoteMemory``, the API's HTTP door."""

from .base import TOKEN_ENV
from .doors import AsyncRemoteMemory, RemoteEmbedder, RemoteMemory
from .local_only import LOCAL_ONLY

__all__ = ["LOCAL_ONLY", "TOKEN_ENV", "AsyncRemoteMemory", "RemoteEmbedder", "RemoteMemory"]
