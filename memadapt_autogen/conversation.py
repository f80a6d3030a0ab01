"""AutoGen chat messages -> the message dicts the engine stores (role, content, name, id, timestamp)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from memadapt_core import JSON

from ._framework import BaseAgentEvent, BaseChatMessage, HandoffMessage, MultiModalMessage, StopMessage

__all__ = ["TYPE_KEY", "engine_messages"]

TYPE_KEY = "autogen_type"
# Control messages say who speaks next or that the run ends; they are not conversation to learn from.
_CONTROL = (HandoffMessage, StopMessage)


def engine_messages(
    messages: Sequence[BaseAgentEvent | BaseChatMessage], user_sources: Collection[str]
) -> list[dict[str, JSON]]:
    """One dict per chat message with text; events (tool calls, memory queries, thoughts) are skipped.

    The message id becomes the record's external id, so sending the same messages again stores nothing new.
    """
    converted: list[dict[str, JSON]] = []
    for message in messages:
        if not isinstance(message, BaseChatMessage) or isinstance(message, _CONTROL):
            continue
        text = _text_of(message)
        if not text.strip():
            continue
        converted.append(
            {
                "role": "user" if message.source in user_sources else "assistant",
                "content": text,
                "name": message.source,
                "id": message.id,
                "timestamp": message.created_at,
                "metadata": {**message.metadata, TYPE_KEY: type(message).__name__},
            }
        )
    return converted


def _text_of(message: BaseChatMessage) -> str:
    if isinstance(message, MultiModalMessage):  # keep the words, not image placeholders
        return "\n".join(part for part in message.content if isinstance(part, str))
    return message.to_model_text()
