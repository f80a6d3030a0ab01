"""The client of ``memadapt serve``: ``RemoteMemory`` and ``AsyncRemoteMemory``, the API's HTTP door."""

from .doors import AsyncRemoteMemory, RemoteEmbedder, RemoteMemory
from .local_only import LOCAL_ONLY

__all__ = ["LOCAL_ONLY", "AsyncRemoteMemory", "RemoteEmbedder", "RemoteMemory"]
