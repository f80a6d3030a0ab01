"""What a scripted LLM server's script holds and what it records (``scripted_server.py``): the answers (``Reply``),
the failures on command (``Failure``, ``Hang``, ``Garbage``), a chat request as the responder reads it, every request
as recorded, and the deterministic embeddings the server answers ``/v1/embeddings`` with. No I/O."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

__all__ = [
    "ChatRequest",
    "Failure",
    "Garbage",
    "Hang",
    "RecordedRequest",
    "Reply",
    "Responder",
    "ScriptItem",
    "hashed_embedding",
]


@dataclass(frozen=True)
class Reply:
    """A normal answer. ``content`` that is not a ``str`` is sent as JSON text."""

    content: Any
    prompt_tokens: int = 10
    completion_tokens: int = 5


@dataclass(frozen=True)
class Failure:
    """An HTTP error answer (500 by default; 429 with ``retry_after`` for a rate limit)."""

    status: int = 500
    message: str = "scripted failure"
    retry_after: float | None = None


@dataclass(frozen=True)
class Hang:
    """No answer for ``seconds`` (None: until ``release()`` or close); the client has to time out."""

    seconds: float | None = None


@dataclass(frozen=True)
class Garbage:
    """HTTP 200 whose body is not JSON at all."""

    body: str = '{"choices": [ this is not json'


ScriptItem: TypeAlias = Reply | Failure | Hang | Garbage | str | dict[str, Any] | list[Any]
"""What a script holds or a responder returns; a bare ``str``/``dict``/``list`` is a ``Reply``."""


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completion request as the server received it."""

    body: dict[str, Any]
    operation: str | None

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def system(self) -> str:
        return "\n".join(str(m.get("content", "")) for m in self.messages if m.get("role") == "system")

    @property
    def user(self) -> str:
        """The last user message's text."""
        users = [m for m in self.messages if m.get("role") == "user"]
        return str(users[-1].get("content", "")) if users else ""

    @property
    def payload(self) -> Any:
        """The first user message that is JSON (memadapt sends its data so; later ones are corrections), or None."""
        for message in self.messages:
            if message.get("role") == "user":
                try:
                    return json.loads(str(message.get("content", "")))
                except ValueError:
                    continue
        return None

    @property
    def json_mode(self) -> bool:
        fmt = self.body.get("response_format")
        return isinstance(fmt, dict) and fmt.get("type") == "json_object"


@dataclass(frozen=True)
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: Any
    status: int = 0  # the status answered (0 while hanging or when the client went away)


Responder: TypeAlias = Callable[[ChatRequest], ScriptItem | None]
"""Answers a chat request once the script is empty; None when it has no answer (the server then answers 500)."""


def hashed_embedding(text: str, dim: int) -> list[float]:
    """A deterministic unit vector: a signed hashed bag of lower-cased words (shared words, similar vectors)."""
    vector = [0.0] * dim
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        number = int.from_bytes(digest, "little")
        vector[number % dim] += 1.0 if (number >> 32) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector))
    if norm == 0.0:
        vector[0], norm = 1.0, 1.0
    return [v / norm for v in vector]
