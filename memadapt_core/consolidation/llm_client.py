"""The consolidation LLM client: ``AsyncLLMClient`` and its hand-written sync twin ``LLMClient``.

Both run the same loop over ``LLMClientBase``'s no-I/O decisions; only waiting and the HTTP call differ.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

import openai

from memadapt_core.config import LLMSettings
from memadapt_core.consolidation.llm_base import AnswerParser, Attempts, LLMClientBase
from memadapt_core.consolidation.parsing import MalformedAnswerError
from memadapt_core.errors import LLMError

__all__ = ["AsyncLLMClient", "LLMClient"]

T = TypeVar("T")
_TRANSIENT = (openai.APIError, ValueError)  # ValueError: a body that is not JSON at all


class AsyncLLMClient(LLMClientBase):
    """Asks an OpenAI-compatible chat model for JSON that ``parse`` accepts; see ``LLMClientBase``."""

    def __init__(
        self, settings: LLMSettings | None = None, *, client: openai.AsyncOpenAI | None = None, **options: Any
    ) -> None:
        super().__init__(settings, **options)
        self._client = client or openai.AsyncOpenAI(**self._client_options())

    async def complete_json(self, operation: str, messages: list[dict[str, str]], parse: AnswerParser[T]) -> T:
        """The validated answer; ``MalformedAnswerError`` if answers never fit, ``LLMError`` if none came."""
        attempts = Attempts()
        while True:
            request = functools.partial(self._request, operation, messages)
            response, started = await self._created(operation, request, attempts)
            try:
                return self._answer(operation, response, time.perf_counter() - started, parse)
            except MalformedAnswerError as error:
                messages = self._after_malformed(operation, messages, error, attempts)

    async def complete_text(self, operation: str, messages: list[dict[str, str]]) -> str:
        """The answer's text (``Memory.answer``); ``LLMError`` if none came after the retries."""
        request = functools.partial(self._text_request, operation, messages)
        response, started = await self._created(operation, request, Attempts(), json=False)
        return self._text(operation, response, time.perf_counter() - started)

    async def stream_text(self, operation: str, messages: list[dict[str, str]]) -> AsyncIterator[str]:
        """The answer's text a chunk at a time; retried until the first chunk, ``LLMError`` if cut after it."""
        request = functools.partial(self._text_request, operation, messages, stream=True)
        stream, started = await self._created(operation, request, Attempts(), json=False)
        try:
            async for chunk in stream:
                if text := self._delta(chunk):
                    yield text
        except _TRANSIENT as exc:
            msg = f"{operation}: the LLM's answer was cut off: {exc}"
            raise LLMError(msg) from exc
        finally:
            await stream.close()
        self._usage.add(operation, answers=1, latency_s=time.perf_counter() - started)

    async def _created(
        self, operation: str, request: Callable[[], dict[str, Any]], attempts: Attempts, *, json: bool = True
    ) -> tuple[Any, float]:
        """The response to the request ``request()`` builds, built and sent again after each transient failure
        while ``attempts`` allow (then ``LLMError``; a failure may turn JSON mode off), and when the request that
        answered was sent."""
        while True:
            self._usage.add(operation, requests=1)
            started = time.perf_counter()
            try:
                return await self._client.chat.completions.create(**request()), started
            except _TRANSIENT as exc:
                self._usage.add(operation, latency_s=time.perf_counter() - started)
                await asyncio.sleep(self._after_failure(operation, exc, attempts, json=json))

    async def close(self) -> None:
        await self._client.close()

    async def __aenter__(self) -> AsyncLLMClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class LLMClient(LLMClientBase):
    """The sync twin of ``AsyncLLMClient`` (for the thread-based worker of the sync ``Memory``)."""

    def __init__(
        self, settings: LLMSettings | None = None, *, client: openai.OpenAI | None = None, **options: Any
    ) -> None:
        super().__init__(settings, **options)
        self._client = client or openai.OpenAI(**self._client_options())

    def complete_json(self, operation: str, messages: list[dict[str, str]], parse: AnswerParser[T]) -> T:
        """The validated answer; ``MalformedAnswerError`` if answers never fit, ``LLMError`` if none came."""
        attempts = Attempts()
        while True:
            request = functools.partial(self._request, operation, messages)
            response, started = self._created(operation, request, attempts)
            try:
                return self._answer(operation, response, time.perf_counter() - started, parse)
            except MalformedAnswerError as error:
                messages = self._after_malformed(operation, messages, error, attempts)

    def complete_text(self, operation: str, messages: list[dict[str, str]]) -> str:
        """The answer's text (``Memory.answer``); ``LLMError`` if none came after the retries."""
        request = functools.partial(self._text_request, operation, messages)
        response, started = self._created(operation, request, Attempts(), json=False)
        return self._text(operation, response, time.perf_counter() - started)

    def stream_text(self, operation: str, messages: list[dict[str, str]]) -> Iterator[str]:
        """The answer's text a chunk at a time; retried until the first chunk, ``LLMError`` if cut after it."""
        request = functools.partial(self._text_request, operation, messages, stream=True)
        stream, started = self._created(operation, request, Attempts(), json=False)
        try:
            for chunk in stream:
                if text := self._delta(chunk):
                    yield text
        except _TRANSIENT as exc:
            msg = f"{operation}: the LLM's answer was cut off: {exc}"
            raise LLMError(msg) from exc
        finally:
            stream.close()
        self._usage.add(operation, answers=1, latency_s=time.perf_counter() - started)

    def _created(
        self, operation: str, request: Callable[[], dict[str, Any]], attempts: Attempts, *, json: bool = True
    ) -> tuple[Any, float]:
        """The response to the request ``request()`` builds, built and sent again after each transient failure
        while ``attempts`` allow (then ``LLMError``; a failure may turn JSON mode off), and when the request that
        answered was sent."""
        while True:
            self._usage.add(operation, requests=1)
            started = time.perf_counter()
            try:
                return self._client.chat.completions.create(**request()), started
            except _TRANSIENT as exc:
                self._usage.add(operation, latency_s=time.perf_counter() - started)
                time.sleep(self._after_failure(operation, exc, attempts, json=json))

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
