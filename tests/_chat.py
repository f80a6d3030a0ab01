"""A scripted LLM for chat with memory: it answers from the memories in its prompt and consolidates nothing.

``answer`` requests get "You told me: <the recalled memories>" (or "I do not remember that."); consolidation
requests get empty but valid answers, so a background worker never fails on them.
"""

from __future__ import annotations

import re

from memadapt_core.testing import ChatRequest, ScriptItem

__all__ = ["NOT_REMEMBERED", "recalled", "remembering_llm"]

NOT_REMEMBERED = "I do not remember that."
_MEMORY_LINE = re.compile(r"^\d+\. \[[^\]]*\](?: \(user\))? (.+)$", re.MULTILINE)


def recalled(request: ChatRequest) -> list[str]:
    """The recalled memories' texts in an answer request's system prompt."""
    return _MEMORY_LINE.findall(request.system)


def remembering_llm(request: ChatRequest) -> ScriptItem:
    if request.operation == "answer":
        found = recalled(request)
        return "You told me: " + " | ".join(found) if found else NOT_REMEMBERED
    if request.operation == "extract":
        return {"facts": []}
    if request.operation == "reconcile":
        return {"decisions": []}
    return {"insights": [], "obsolete": []}
