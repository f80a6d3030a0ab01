"""memadapt for AG2 (``autogen`` 0.14, the fork): a capability that gives a ``ConversableAgent`` memory.

AG2 hooks are synchronous, so the capability works through the engine's sync twin (`memadapt_core.Memory`)::

    engine = Memory(path="./memories")
    MemadaptCapability(engine, user_id="alice").add_to_agent(assistant)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

try:
    import autogen  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    msg = "memadapt_autogen.ag2 needs AG2: pip install 'memadapt[ag2]'"
    raise ImportError(msg) from exc

from memadapt_core import JSON, Kind, Scope, ValidationError, check_count, engine_views, fit_query
from memadapt_core.api import AsyncMemoryAPI, MemoryAPI

__all__ = ["MemadaptCapability"]

logger = logging.getLogger(__name__)

_SKIPPED_ROLES = frozenset({"function", "tool", "system"})


class MemadaptCapability:
    """Before each reply, search with the last received message and show the model one system message
    rendered by the engine's ``format_context``. The message goes into the list the model sees for that reply
    only, never into the agent's stored history, so nothing piles up. With ``record=True`` every message the
    agent receives or sends is stored as a message record (the engine drops exact repeats), so consolidation
    can learn from the conversation; a message the engine refuses (over ``max_text_chars``) is skipped with a
    warning instead of ending the chat.

    Follows AG2's ``AgentCapability`` protocol (``add_to_agent``) without importing its untyped base class.
    """

    def __init__(
        self,
        memory: MemoryAPI | AsyncMemoryAPI,
        *,
        user_id: str | None = None,
        agent_id: str | None = None,
        session_id: str | None = None,
        limit: int = 5,
        threshold: float | None = None,
        kinds: Sequence[Kind] | None = None,
        record: bool = True,
    ) -> None:
        self._scope = Scope.of(user_id, agent_id, session_id)
        self._engine = engine_views(memory)[0]
        self._search_options: dict[str, Any] = {
            "limit": check_count("limit", limit),
            "threshold": threshold,
            "kinds": None if kinds is None else list(kinds),
        }
        self._record = record

    def add_to_agent(self, agent: Any) -> None:
        """Register the hooks on an AG2 ``ConversableAgent``."""
        agent.register_hook("process_all_messages_before_reply", self._inject)
        if self._record:
            agent.register_hook("update_agent_state", self._record_received)
            agent.register_hook("process_message_before_send", self._record_sent)

    def _inject(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        query = fit_query(_last_text(messages), self._engine.settings.max_text_chars)
        if not query:
            return messages
        hits = self._engine.search(query, **self._search_options, **self._scope.ids())
        if not hits:
            return messages
        return [*messages, {"role": "system", "content": self._engine.format_context(query, hits)}]

    def _record_received(self, agent: Any, messages: list[dict[str, Any]]) -> None:
        if messages:
            self._store(messages[-1], default_role="user", default_name=None)

    def _record_sent(
        self, sender: Any, message: dict[str, Any] | str, recipient: Any, silent: bool
    ) -> dict[str, Any] | str:
        entry = {"content": message} if isinstance(message, str) else message
        self._store(entry, default_role="assistant", default_name=str(getattr(sender, "name", "assistant")))
        return message

    def _store(self, message: dict[str, Any], *, default_role: str, default_name: str | None) -> None:
        role = message.get("role") or default_role
        if role in _SKIPPED_ROLES or message.get("tool_calls") or message.get("function_call"):
            return
        text = _text(message.get("content"))
        if not text.strip():
            return
        record: dict[str, JSON] = {"role": role, "content": text}
        name = message.get("name") or default_name
        if name:
            record["name"] = str(name)
        try:
            self._engine.add(record, kind="message", **self._scope.ids())
        except ValidationError as exc:  # e.g. a pasted document over max_text_chars: the chat goes on
            logger.warning("memadapt did not store a %s message: %s", role, exc)


def _last_text(messages: Sequence[dict[str, Any]]) -> str:
    """The last received message with text: what the agent is about to answer."""
    for message in reversed(messages):
        if message.get("role", "user") != "user":
            continue
        text = _text(message.get("content"))
        if text.strip():
            return text
    return ""


def _text(content: object) -> str:
    """AG2 content is a str or OpenAI-style parts (``{"type": "text", "text": ...}``); keep the text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part["text"]) for part in content if isinstance(part, dict) and part.get("type") == "text")
    return ""
