"""agentscope-runtime 1.0.x (the last series with a ``MemoryService``): `MemadaptMemoryService`.

Imports with or without agentscope-runtime: without it the service keeps the same shape and speaks the JSON
form of the runtime's ``Message``.
"""

from .service import MemadaptMemoryService

__all__ = ["MemadaptMemoryService"]
