"""AgentScope 1.x (agentscope<2, as used by agentscope-runtime 1.0.x): `MemadaptLongTermMemory`.

Importing this package without AgentScope 1.x raises ``ImportError`` with the line to run.
"""

from .long_term_memory import MemadaptLongTermMemory

__all__ = ["MemadaptLongTermMemory"]
