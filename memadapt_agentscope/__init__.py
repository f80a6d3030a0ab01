"""memadapt for AgentScope, one subpackage per framework generation.

- `MemadaptMemoryService` (`memadapt_agentscope.runtime`): agentscope-runtime 1.0.x's ``MemoryService``
  (imports with or without the runtime).
- `MemadaptMiddleware`, `MemadaptExperienceMiddleware` (task memory), `memadapt_middleware_factory`,
  `memadapt_tools_factory` (`memadapt_agentscope.agentscope2`):
  AgentScope 2.x (``pip install 'memadapt[agentscope]'``).
- `MemadaptLongTermMemory` (`memadapt_agentscope.agentscope1`): AgentScope 1.x's ``LongTermMemoryBase``
  (``pip install 'memadapt[agentscope-runtime]'``).

AgentScope 1.x and 2.x cannot share an environment, so the framework-specific names are imported on first use:
the one your AgentScope lacks raises ``ImportError`` with the line to run.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from .runtime import MemadaptMemoryService

if TYPE_CHECKING:
    from .agentscope1 import MemadaptLongTermMemory
    from .agentscope2 import (
        MemadaptExperienceMiddleware,
        MemadaptMiddleware,
        memadapt_middleware_factory,
        memadapt_tools_factory,
    )

__all__ = [
    "MemadaptExperienceMiddleware",
    "MemadaptLongTermMemory",
    "MemadaptMemoryService",
    "MemadaptMiddleware",
    "memadapt_middleware_factory",
    "memadapt_tools_factory",
]

_LAZY = {
    "MemadaptExperienceMiddleware": ".agentscope2",
    "MemadaptLongTermMemory": ".agentscope1",
    "MemadaptMiddleware": ".agentscope2",
    "memadapt_middleware_factory": ".agentscope2",
    "memadapt_tools_factory": ".agentscope2",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    return getattr(import_module(module, __name__), name)
