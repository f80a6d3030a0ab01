"""memadapt for AutoGen: `MemadaptMemory` is an `autogen_core.memory.Memory` backed by the memadapt engine.

The AG2 capability lives in `memadapt_autogen.ag2` (it needs the ``ag2`` extra).
"""

from .config import MemadaptMemoryConfig
from .experience import MemadaptExperienceMemory
from .memory import MemadaptMemory

__all__ = ["MemadaptExperienceMemory", "MemadaptMemory", "MemadaptMemoryConfig"]
