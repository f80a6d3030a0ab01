"""The one place that imports AutoGen, so a missing extra fails with the line to run."""

from __future__ import annotations

INSTALL_HINT = "memadapt_autogen needs AutoGen: pip install 'memadapt[autogen]'"

try:
    from autogen_agentchat.messages import (
        BaseAgentEvent,
        BaseChatMessage,
        HandoffMessage,
        MultiModalMessage,
        StopMessage,
        ToolCallExecutionEvent,
        ToolCallRequestEvent,
    )
    from autogen_core import CancellationToken, Component, Image
    from autogen_core.memory import (
        Memory,
        MemoryContent,
        MemoryMimeType,
        MemoryQueryResult,
        UpdateContextResult,
    )
    from autogen_core.model_context import ChatCompletionContext
    from autogen_core.models import SystemMessage, UserMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(INSTALL_HINT) from exc

__all__ = [
    "INSTALL_HINT",
    "BaseAgentEvent",
    "BaseChatMessage",
    "CancellationToken",
    "ChatCompletionContext",
    "Component",
    "HandoffMessage",
    "Image",
    "Memory",
    "MemoryContent",
    "MemoryMimeType",
    "MemoryQueryResult",
    "MultiModalMessage",
    "StopMessage",
    "SystemMessage",
    "ToolCallExecutionEvent",
    "ToolCallRequestEvent",
    "UpdateContextResult",
    "UserMessage",
]
