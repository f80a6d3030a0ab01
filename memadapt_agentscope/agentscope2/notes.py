"""The one memory note a `MemadaptMiddleware` keeps in an agent's context, replaced on every turn.

An AgentScope 2.x agent keeps every message of its ``state.context`` across turns, so a middleware that only
appends (as AgentScope's own memory middlewares do) piles up one note per turn. Each note carries its scope in
its metadata, which survives the agent state being saved and loaded; before adding the next note the middleware
removes the notes of its scope, and only those (another middleware's notes stay).
"""

from __future__ import annotations

from ._framework import AssistantMsg, HintBlock, Msg

__all__ = ["NOTE_KEY", "NOTE_NAME", "replace_note"]

NOTE_NAME = "memory"
"""The sender name of a note, as in AgentScope's memory middlewares."""
NOTE_KEY = "memadapt_note"
"""The metadata key that marks a note and holds its scope."""


def replace_note(context: list[Msg], scope: dict[str, str | None], hint: str | None) -> None:
    """Remove the notes of ``scope`` from ``context`` (in place), then append ``hint`` (if any) as the new note:
    right after the user's message when called at the start of a reply."""
    context[:] = [msg for msg in context if not (msg.name == NOTE_NAME and msg.metadata.get(NOTE_KEY) == scope)]
    if hint:
        context.append(AssistantMsg(name=NOTE_NAME, content=[HintBlock(hint=hint)], metadata={NOTE_KEY: dict(scope)}))
