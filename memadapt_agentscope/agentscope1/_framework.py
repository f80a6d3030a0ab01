"""The one place that imports AgentScope 1.x (agentscope<2), which agentscope-runtime 1.0.x is built on."""

from __future__ import annotations

INSTALL_HINT = (
    "MemadaptLongTermMemory needs AgentScope 1.x (agentscope<2, as used by agentscope-runtime 1.0.x): "
    "pip install 'memadapt[agentscope-runtime]'"
)

try:
    from agentscope.memory import LongTermMemoryBase  # type: ignore[import-not-found, unused-ignore]
    from agentscope.message import Msg, TextBlock
    from agentscope.tool import ToolResponse
except ImportError as exc:
    raise ImportError(INSTALL_HINT) from exc

__all__ = ["INSTALL_HINT", "LongTermMemoryBase", "Msg", "TextBlock", "ToolResponse"]
