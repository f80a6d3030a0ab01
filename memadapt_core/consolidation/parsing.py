"""Getting one JSON value out of an LLM's text answer, whatever the endpoint wrapped around it."""

from __future__ import annotations

import json
import re
from typing import Any

from memadapt_core.errors import LLMError

__all__ = ["MalformedAnswerError", "extract_json"]

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)


class MalformedAnswerError(LLMError):
    """The LLM answered, but not what the schema asks: retried, then the batch is skipped (never half-applied)."""

    def __init__(self, problem: str, *, answer: str | None = None) -> None:
        self.problem = problem
        self.answer = answer
        super().__init__(problem)


def extract_json(text: str) -> Any:
    """The JSON in ``text``: the whole text, else a fenced block (```json ... ```), else the outer ``{...}``.

    Reasoning models' ``<think>`` blocks are ignored. Endpoints without JSON mode (some Ollama and vLLM
    models) wrap answers in fences or prose; this accepts those and nothing vaguer.
    """
    cleaned = _THINK.sub("", text).strip()
    attempts = [cleaned, *(m.group(1).strip() for m in _FENCE.finditer(cleaned))]
    start, end = cleaned.find("{"), cleaned.rfind("}")
    if 0 <= start < end:
        attempts.append(cleaned[start : end + 1])
    for attempt in attempts:
        try:
            return json.loads(attempt)
        except ValueError:
            continue
    msg = "the answer holds no JSON object"
    raise MalformedAnswerError(msg, answer=text[:500])
