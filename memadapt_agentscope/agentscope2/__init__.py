"""AgentScope 2.x: `MemadaptMiddleware`, and the per-turn factories for AgentScope's service.

Importing this package without AgentScope 2.x raises ``ImportError`` with the line to run.
"""

from .experience import MemadaptExperienceMiddleware
from .factories import memadapt_middleware_factory, memadapt_tools_factory
from .middleware import MemadaptMiddleware

__all__ = [
    "MemadaptExperienceMiddleware",
    "MemadaptMiddleware",
    "memadapt_middleware_factory",
    "memadapt_tools_factory",
]
