"""The one place that imports AgentScope 2.x: a missing (or too old) framework fails with the line to run."""

from __future__ import annotations

INSTALL_HINT = "this part of memadapt_agentscope needs AgentScope 2.x: pip install 'memadapt[agentscope]'"

try:
    from agentscope.agent import Agent
    from agentscope.event import (
        AgentEvent,
        ExternalExecutionResultEvent,
        ReplyStartEvent,
        UserConfirmResultEvent,
    )
    from agentscope.message import (
        AssistantMsg,
        HintBlock,
        Msg,
        TextBlock,
        ToolCallBlock,
        ToolResultBlock,
        ToolResultState,
    )
    from agentscope.middleware import MiddlewareBase
    from agentscope.permission import PermissionBehavior, PermissionDecision
    from agentscope.state import AgentState
    from agentscope.tool import FunctionTool, ToolBase, ToolChunk
except ImportError as exc:
    raise ImportError(INSTALL_HINT) from exc

__all__ = [
    "INSTALL_HINT",
    "Agent",
    "AgentEvent",
    "AgentState",
    "AssistantMsg",
    "ExternalExecutionResultEvent",
    "FunctionTool",
    "HintBlock",
    "MiddlewareBase",
    "Msg",
    "PermissionBehavior",
    "PermissionDecision",
    "ReplyStartEvent",
    "TextBlock",
    "ToolBase",
    "ToolCallBlock",
    "ToolChunk",
    "ToolResultBlock",
    "ToolResultState",
    "UserConfirmResultEvent",
]
