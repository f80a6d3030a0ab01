"""The one memory message a `MemadaptMemory` keeps in a model context, replaced on every turn.

AutoGen model contexts keep every message they are given, so a memory that only appends piles up one memory
message per turn. Before adding its next message a memory removes the system messages that are its own: the
text it injected last into that context, and any memadapt block (the engine's delimiter) that no other live
memory injected there — e.g. one restored with the agent's saved state after a restart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from weakref import WeakKeyDictionary

from memadapt_core import BLOCK_START, fit_query

from ._framework import ChatCompletionContext, SystemMessage, UserMessage

__all__ = ["last_user_text", "replace_memory_message"]

# context -> {owner -> the text that owner injected last}; weak, so a finished agent's context is freed.
_INJECTED: WeakKeyDictionary[ChatCompletionContext, dict[str, str]] = WeakKeyDictionary()


def last_user_text(messages: Sequence[object], max_chars: int) -> str:
    """The text of the last user message (its text parts, for a multimodal one) as a query (`fit_query`), or
    "" when there is none."""
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            if isinstance(message.content, str):
                text = message.content
            else:
                text = "\n".join(part for part in message.content if isinstance(part, str))
            return fit_query(text, max_chars)
    return ""


async def replace_memory_message(context: ChatCompletionContext, owner: str, text: str | None) -> None:
    """Remove ``owner``'s memory message from ``context``, then append ``text`` (if any) as a system message
    after the newest user message. Uses only the context's public API: any `ChatCompletionContext` works."""
    injected = _INJECTED.setdefault(context, {})
    previous = injected.pop(owner, None)
    others = frozenset(injected.values())

    def is_own(content: object) -> bool:
        if not isinstance(content, str) or content in others:
            return False
        return content == previous or BLOCK_START in content

    visible = await context.get_messages()
    if previous is not None or any(isinstance(m, SystemMessage) and is_own(m.content) for m in visible):
        await _remove_system_messages(context, is_own)
    if text:
        await context.add_message(SystemMessage(content=text))
        injected[owner] = text


async def _remove_system_messages(context: ChatCompletionContext, is_own: Callable[[object], bool]) -> None:
    state: dict[str, Any] = dict(await context.save_state())
    messages: list[Mapping[str, Any]] = list(state.get("messages", []))
    kept = [m for m in messages if not (m.get("type") == "SystemMessage" and is_own(m.get("content")))]
    if len(kept) != len(messages):
        state["messages"] = kept
        await context.load_state(state)
