"""Getting one JSON value out of an LLM's text answer, whatever the endpoint wrapped around it."""

from __future__ import annotations

import json
import re
from typing import Any

from memadapt_core.errors import LLMError

__all__ = ["MalformedAnswerError", "check_numbers", "extract_json"]

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


def check_numbers(numbers: list[int], size: int, where: str, what: str) -> None:
    """An answer cites items by their number in the prompt: one outside ``0..size-1`` makes it malformed."""
    outside = [n for n in numbers if not 0 <= n < size]
    if outside:
        msg = f"{where}: {outside[0]} is not an existing {what} number (0-{size - 1})"
        raise MalformedAnswerError(msg)
