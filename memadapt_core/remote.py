"""``RemoteMemory`` / ``AsyncRemoteMemory``, where users import them; they live in ``memadapt_core.client``."""

from .client import LOCAL_ONLY, AsyncRemoteMemory, RemoteEmbedder, RemoteMemory

__all__ = ["LOCAL_ONLY", "AsyncRemoteMemory", "RemoteEmbedder", "RemoteMemory"]
