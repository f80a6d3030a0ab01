"""Any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, Ollama, vLLM, DashScope, a local server)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import SecretStr

from memadapt_core.config import EmbedderSettings, openai_base_url, openai_key
from memadapt_core.embedders.base import Embedder, Vectors
from memadapt_core.errors import ConfigurationError, EmbeddingError
from memadapt_core.redaction import redact_urls

__all__ = ["OpenAIEmbedder"]

_CHUNK = 256  # inputs per request; well under every server's limit
_PLACEHOLDER_KEY = "not-needed"  # keyless servers (Ollama, vLLM) ignore it; the openai client requires one


class OpenAIEmbedder(Embedder):
    """Calls the server natively from both sync and async code; nothing runs on a thread."""

    cpu_bound = False

    def __init__(self, settings: EmbedderSettings) -> None:
        import openai

        if not settings.model:
            msg = (
                "embedder.model: the openai embedder needs a model name: set MEMADAPT_EMBEDDER__MODEL "
                "(e.g. text-embedding-3-small)"
            )
            raise ConfigurationError(msg)
        # Read now, when the engine is built: memadapt's own settings, else the openai SDK's environment variables.
        base_url = openai_base_url(settings.base_url)
        key = openai_key(settings.api_key)
        if key is None and base_url is None:
            msg = (
                "embedder.api_key: the openai embedder at api.openai.com needs a key: set MEMADAPT_EMBEDDER__API_KEY "
                "or OPENAI_API_KEY (or MEMADAPT_EMBEDDER__BASE_URL for a server that needs none)"
            )
            raise ConfigurationError(msg)
        # The key stays a SecretStr on this object (its repr, a debugger, a dump of vars() show stars); it is read
        # only in _client_options, when a client is built. No key: a keyless server (Ollama, vLLM).
        self._key = key if key is not None else SecretStr(_PLACEHOLDER_KEY)
        self._base_url = base_url
        self._timeout = settings.timeout
        self._client = openai.OpenAI(**self._client_options())
        self._aclient: openai.AsyncOpenAI | None = None  # made on first async use, inside the running loop
        self.model = settings.model
        self.name = f"openai-{settings.model}"
        self.dim = settings.dim or self._probe_dim()

    def _client_options(self) -> dict[str, Any]:
        return {
            "api_key": self._key.get_secret_value(),
            "base_url": self._base_url,
            "timeout": self._timeout,
            "max_retries": 2,
        }

    def _probe_dim(self) -> int:
        return int(self._embed(["dimension probe"]).shape[1])

    def _embed(self, texts: Sequence[str]) -> Vectors:
        rows: list[list[float]] = []
        for start in range(0, len(texts), _CHUNK):
            try:
                resp = self._client.embeddings.create(model=self.model, input=list(texts[start : start + _CHUNK]))
            except Exception as exc:
                msg = f"embedding server failed: {type(exc).__name__}: {redact_urls(str(exc))}"
                raise EmbeddingError(msg) from exc
            rows.extend(item.embedding for item in sorted(resp.data, key=lambda d: d.index))
        return np.asarray(rows, dtype=np.float32)

    def _async_client(self) -> Any:
        if self._aclient is None:
            import openai

            self._aclient = openai.AsyncOpenAI(**self._client_options())
        return self._aclient

    def close(self) -> None:
        self._client.close()

    async def aclose(self) -> None:
        client, self._aclient = self._aclient, None
        if client is not None:
            await client.close()
        self.close()

    async def _aembed(self, texts: Sequence[str]) -> Vectors:
        rows: list[list[float]] = []
        for start in range(0, len(texts), _CHUNK):
            try:
                resp = await self._async_client().embeddings.create(
                    model=self.model, input=list(texts[start : start + _CHUNK])
                )
            except Exception as exc:
                msg = f"embedding server failed: {type(exc).__name__}: {redact_urls(str(exc))}"
                raise EmbeddingError(msg) from exc
            rows.extend(item.embedding for item in sorted(resp.data, key=lambda d: d.index))
        return np.asarray(rows, dtype=np.float32)
