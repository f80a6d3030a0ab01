"""What the async and the sync LLM clients share, without I/O: settings, requests, answers, retry decisions.

Works with any OpenAI-compatible ``chat.completions`` endpoint (OpenAI, Ollama, vLLM, DashScope's compatible
mode): asks for ``response_format={"type": "json_object"}`` and drops it for good when the endpoint refuses it,
reads JSON from plain or fenced answers, validates it with the caller's parser, retries 408/409/429/5xx,
timeouts and unreadable bodies with exponential backoff (honouring ``Retry-After``), and re-asks on a
malformed answer.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import openai
import pydantic
from pydantic import SecretStr

from memadapt_core.config import LLMSettings
from memadapt_core.consolidation.parsing import MalformedAnswerError, extract_json
from memadapt_core.consolidation.stats import UsageStats
from memadapt_core.errors import ConfigurationError, LLMError
from memadapt_core.redaction import redact_url

__all__ = ["OPERATION_HEADER", "AnswerParser", "Attempts", "LLMClientBase"]

OPERATION_HEADER = "X-Memadapt-Operation"
"""Names the operation of a request (``extract``, ``reconcile``, ``reflect``); real servers ignore it."""

T = TypeVar("T")
AnswerParser = Callable[[Any], T]
"""Decoded JSON -> a validated value; raises ``MalformedAnswerError`` or ``pydantic.ValidationError``."""

_RETRY_STATUSES = frozenset({408, 409, 429})
_PLACEHOLDER_KEY = "not-needed"  # keyless servers (Ollama, vLLM) ignore it; the openai client requires one


@dataclass
class Attempts:
    """How one call has gone so far."""

    failures: int = 0
    malformed: int = 0


class LLMClientBase:
    """Shared base of ``AsyncLLMClient`` and ``LLMClient``; does no I/O."""

    def __init__(
        self,
        settings: LLMSettings | None = None,
        *,
        base_url: str | None = None,
        api_key: str | SecretStr | None = None,
        model: str | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        temperature: float | None = None,
        parse_retries: int = 2,
        backoff: float = 0.5,
        backoff_max: float = 8.0,
        json_mode: bool = True,
    ) -> None:
        overrides = {
            "base_url": base_url,
            "api_key": api_key,
            "model": model,
            "timeout": timeout,
            "max_retries": max_retries,
            "temperature": temperature,
        }
        values = (settings or LLMSettings.model_validate({})).model_dump() | {
            k: v for k, v in overrides.items() if v is not None
        }
        try:
            settings = LLMSettings.model_validate(values)
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            msg = f"llm.{'.'.join(str(p) for p in first['loc'])}: {first['msg']}"
            raise ConfigurationError(msg) from exc
        self.settings = settings.with_environment()  # OPENAI_API_KEY / OPENAI_BASE_URL, read now
        if not self.settings.model:
            msg = "llm.model: name the chat model (MEMADAPT_LLM__MODEL or model=...)"
            raise ConfigurationError(msg)
        if (problem := self.settings.missing()) is not None:
            raise ConfigurationError(problem)
        if parse_retries < 0 or backoff < 0 or backoff_max < 0:
            msg = "llm: parse_retries, backoff and backoff_max must not be negative"
            raise ConfigurationError(msg)
        self.parse_retries = parse_retries
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.json_mode = json_mode
        self._usage = UsageStats()

    @property
    def model(self) -> str:
        return str(self.settings.model)

    @property
    def stats(self) -> dict[str, dict[str, float]]:
        """Per operation: requests, answers, retries, errors, malformed, skipped, tokens, summed latency."""
        return self._usage.as_dict()

    def _client_options(self) -> dict[str, Any]:
        # Retries are ours (they also cover malformed answers and count per operation), so the SDK's are off.
        # No key at all (neither memadapt's nor OPENAI_API_KEY) only reaches here with a base_url: a keyless server.
        key = self.settings.api_key.get_secret_value() if self.settings.api_key else _PLACEHOLDER_KEY
        return {
            "base_url": self.settings.base_url,
            "api_key": key,
            "timeout": self.settings.timeout,
            "max_retries": 0,
        }

    def _request(self, operation: str, messages: list[dict[str, str]]) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "extra_headers": {OPERATION_HEADER: operation},
        }
        if self.json_mode:
            request["response_format"] = {"type": "json_object"}
        return request

    def _text_request(self, operation: str, messages: list[dict[str, str]], *, stream: bool = False) -> dict[str, Any]:
        """A request for prose (``answer``): no JSON mode; streamed on request."""
        request: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "extra_headers": {OPERATION_HEADER: operation},
        }
        if stream:
            request["stream"] = True
        return request

    def _text(self, operation: str, response: Any, latency: float) -> str:
        """The answer's text, counted (an answer without text is "")."""
        usage = getattr(response, "usage", None)
        self._usage.add(
            operation,
            latency_s=latency,
            answers=1,
            prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
            completion_tokens=getattr(usage, "completion_tokens", None) or 0,
        )
        choices = getattr(response, "choices", None) or []
        return str(choices[0].message.content or "") if choices else ""

    @staticmethod
    def _delta(chunk: Any) -> str:
        """The text one streamed chunk adds ("" for a chunk with none: the role, the usage, the finish)."""
        choices = getattr(chunk, "choices", None) or []
        return str(getattr(choices[0].delta, "content", None) or "") if choices else ""

    def _answer(self, operation: str, response: Any, latency: float, parse: AnswerParser[T]) -> T:
        """Count the response, then decode and validate it (``MalformedAnswerError`` when it does not fit)."""
        usage = getattr(response, "usage", None)
        self._usage.add(
            operation,
            latency_s=latency,
            prompt_tokens=getattr(usage, "prompt_tokens", None) or 0,
            completion_tokens=getattr(usage, "completion_tokens", None) or 0,
        )
        choices = getattr(response, "choices", None) or []
        content = choices[0].message.content if choices else None
        if not content:
            msg = "the answer is empty"
            raise MalformedAnswerError(msg)
        try:
            value = parse(extract_json(content))
        except pydantic.ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "answer"
            msg = f"{where}: {first['msg']}"
            raise MalformedAnswerError(msg, answer=content[:500]) from exc
        except MalformedAnswerError as exc:
            exc.answer = exc.answer or content[:500]
            raise
        self._usage.add(operation, answers=1)
        return value

    def _after_malformed(
        self, operation: str, messages: list[dict[str, str]], error: MalformedAnswerError, attempts: Attempts
    ) -> list[dict[str, str]]:
        """The messages for the next try (the answer and what was wrong with it); raises when out of tries."""
        attempts.malformed += 1
        self._usage.add(operation, malformed=1)
        if attempts.malformed > self.parse_retries:
            self._usage.add(operation, skipped=1)
            raise error
        self._usage.add(operation, retries=1)
        correction = f"That answer was not valid: {error.problem}. Answer again with the JSON object only."
        return [
            *messages,
            {"role": "assistant", "content": error.answer or ""},
            {"role": "user", "content": correction},
        ]

    def _after_failure(self, operation: str, exc: Exception, attempts: Attempts, *, json: bool = True) -> float:
        """Seconds to wait before the next try, or raise ``LLMError`` when the failure is final."""
        self._usage.add(operation, errors=1)
        status = exc.status_code if isinstance(exc, openai.APIStatusError) else None
        if json and status in (400, 422) and self.json_mode and _about_json_mode(exc):
            self.json_mode = False  # the endpoint refuses response_format: plain prompting from now on
            self._usage.add(operation, retries=1)
            return 0.0
        retryable = status is None or status in _RETRY_STATUSES or status >= 500
        attempts.failures += 1
        if not retryable or attempts.failures > self.settings.max_retries:
            where = redact_url(self.settings.base_url) if self.settings.base_url else "api.openai.com"
            tries = "" if not retryable else f" after {attempts.failures} attempts"
            msg = f"{operation}: the LLM at {where} failed{tries}: {_describe(exc)}"
            raise LLMError(msg) from exc
        self._usage.add(operation, retries=1)
        delay = min(self.backoff_max, self.backoff * 2.0 ** (attempts.failures - 1)) * random.uniform(0.75, 1.0)
        retry_after = _retry_after(exc)
        return min(self.backoff_max, max(delay, retry_after)) if retry_after is not None else delay


def _about_json_mode(exc: Exception) -> bool:
    message = str(getattr(exc, "message", exc)).lower()
    return "response_format" in message or "json" in message


def _retry_after(exc: Exception) -> float | None:
    if not isinstance(exc, openai.APIStatusError):
        return None
    try:
        return max(0.0, float(str(exc.response.headers.get("retry-after", ""))))
    except ValueError:
        return None


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        return f"cannot connect ({exc.__cause__ or exc})"
    return f"unreadable response ({type(exc).__name__}: {exc})"
