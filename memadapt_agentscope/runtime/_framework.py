"""The one place that imports agentscope-runtime (1.0.x, the last series with a ``MemoryService``).

It is optional: without it `MemadaptMemoryService` keeps the service's shape (`MemoryServiceShape`) and speaks
the JSON form of the runtime's ``Message``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

__all__ = ["MemoryServiceBase", "RuntimeMessage"]

# Importing the runtime's memory services always prints its notice that they move to AgentScope 1.x's
# ``agentscope.memory`` after 1.0.x (it forces the warning on with its own filter). This adapter targets exactly
# the 1.0.x service, so that one notice is dropped; any other warning raised by the import is passed on.
_OWN_NOTICE = "Module `agentscope_runtime.engine.services.memory` is deprecated"

if TYPE_CHECKING:
    from pydantic import BaseModel

    from ._service_shape import MemoryServiceShape as MemoryServiceBase

    RuntimeMessage: type[BaseModel] | None
else:
    try:
        with warnings.catch_warnings(record=True) as _caught:
            from agentscope_runtime.engine.schemas.agent_schemas import Message as RuntimeMessage
            from agentscope_runtime.engine.services.memory.memory_service import (
                MemoryService as MemoryServiceBase,
            )
    except ImportError:
        from ._service_shape import MemoryServiceShape as MemoryServiceBase

        RuntimeMessage = None
    else:
        for _w in _caught:
            if not (issubclass(_w.category, DeprecationWarning) and _OWN_NOTICE in str(_w.message)):
                warnings.warn_explicit(_w.message, _w.category, _w.filename, _w.lineno)
