"""Tool usage guides, without I/O: the call that (re)writes a tool's guidelines from its latest calls, and the plan.

The LLM sees the tool's current guidelines (if any), statistics of the new calls and the calls themselves
(arguments, result, success, duration, tokens), and answers with updated guidelines: when to use the tool, how to
call it, the failures seen and how to avoid them, what it costs. The new guide supersedes the old one (kept as
history) and the calls are marked consolidated, so the next guide waits for ``tool_guide_every`` new calls.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from memadapt_core.consolidation.planning.plan import ConsolidationPlan, NewRecord, Supersession, experience_id
from memadapt_core.models import JSON, MemoryRecord, Scope

__all__ = ["ToolGuideCall", "build_tool_guide", "pending_by_tool", "plan_tool_guide"]

PROMPT = """\
You maintain the usage guidelines of one tool an agent calls. From the current guidelines (may be empty), the \
statistics and the latest calls (arguments, result, success, seconds, tokens), write updated guidelines: when to \
use the tool, how to call it (arguments that work), the failures seen and how to avoid them, and its cost. \
Keep what still holds, drop what the calls contradict. At most eight short bullet points. No personal data.
Write the guidelines in the same language as the calls' own text (their queries, messages and results, not the \
JSON keys); do not translate. Tool names, argument names and values stay as they are.

Answer with one JSON object and nothing else:
{"guidelines": "- ...\\n- ..."}"""


class GuideAnswer(BaseModel):
    guidelines: str = Field(min_length=1)


def pending_by_tool(calls: Sequence[MemoryRecord], every: int) -> dict[str, list[MemoryRecord]]:
    """The tools with at least ``every`` pending calls (0: never), with those calls (oldest first)."""
    if every <= 0:
        return {}
    grouped: dict[str, list[MemoryRecord]] = {}
    for call in calls:
        tool = call.metadata.get("tool")
        if isinstance(tool, str):
            grouped.setdefault(tool, []).append(call)
    return {tool: found for tool, found in grouped.items() if len(found) >= every}


@dataclass(frozen=True)
class ToolGuideCall:
    tool: str
    messages: list[dict[str, str]]

    def parse(self, answer: Any) -> str:
        return GuideAnswer.model_validate(answer).guidelines.strip()


def build_tool_guide(
    tool: str, calls: Sequence[MemoryRecord], current: MemoryRecord | None, stats: dict[str, JSON]
) -> ToolGuideCall:
    payload = {
        "tool": tool,
        "current_guidelines": None if current is None else current.metadata.get("guidelines", current.text),
        "statistics": stats,
        "calls": [
            {k: c.metadata.get(k) for k in ("success", "duration_s", "tokens")} | {"call": c.text} for c in calls
        ],
    }
    chat = [
        {"role": "system", "content": PROMPT},
        {"role": "user", "content": json.dumps(payload, ensure_ascii=False, default=str)},
    ]
    return ToolGuideCall(tool, chat)


def plan_tool_guide(
    scope: Scope, tool: str, calls: Sequence[MemoryRecord], current: MemoryRecord | None, guidelines: str,
    stats: dict[str, JSON],
) -> ConsolidationPlan:  # fmt: skip
    """The new guide (superseding ``current``) in the agent's ``scope``; the calls marked last."""
    at = max(c.observed_at for c in calls)
    new_id = experience_id(scope, [c.id for c in calls], f"tool guide {tool}\n{guidelines}")
    record = NewRecord(
        id=new_id,
        text=f"{tool}: {guidelines}",
        kind="tool_guide",
        observed_at=at,
        valid_from=at,
        source_ids=[c.id for c in calls],
        supersedes=None if current is None else current.id,
        metadata={"tool": tool, "guidelines": guidelines, "stats": stats},
    )
    supersessions = [] if current is None else [Supersession(old_id=current.id, new_id=new_id, at=at)]
    return ConsolidationPlan(
        scope=scope, records=[record], supersessions=supersessions, consolidated_ids=[c.id for c in calls]
    )
