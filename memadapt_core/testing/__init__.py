"""Public test doubles for plugin and adapter authors; importing them needs no pytest.

``HashEmbedder`` is a deterministic embedder; ``ScriptedLLMServer`` an OpenAI-compatible HTTP server on 127.0.0.1
that answers from a script; ``trial_llm_server`` one answering as the trial LLM (canned, rule-based answers to each
consolidation step, for trying memadapt offline). ``MemoryContract``, the behaviour suite to subclass, needs pytest:
it is loaded only when asked for, so ``import memadapt_core.testing`` works in an environment without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .embedders import HashEmbedder
from .scripted_server import (
    ChatRequest,
    Failure,
    Garbage,
    Hang,
    RecordedRequest,
    Reply,
    Responder,
    ScriptedLLMServer,
    ScriptItem,
    hashed_embedding,
    serve_scripted_llm,
)
from .trial_llm import trial_llm_server, trial_responder

if TYPE_CHECKING:
    from .contract import MemoryContract

__all__ = [
    "ChatRequest",
    "Failure",
    "Garbage",
    "Hang",
    "HashEmbedder",
    "MemoryContract",
    "RecordedRequest",
    "Reply",
    "Responder",
    "ScriptItem",
    "ScriptedLLMServer",
    "hashed_embedding",
    "serve_scripted_llm",
    "trial_llm_server",
    "trial_responder",
]


def __getattr__(name: str) -> object:
    if name == "MemoryContract":  # imports pytest, so only on demand
        from .contract import MemoryContract

        return MemoryContract
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
