"""WordLlama: the offline default. 256-d static embeddings whose weights ship inside the ``wordllama`` wheel."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memadapt_core.embedders.base import Embedder, Vectors
from memadapt_core.errors import ConfigurationError

__all__ = ["WordLlamaEmbedder"]

_LOAD_LOCK = threading.Lock()


def _import_wordllama() -> Any:
    """``import wordllama`` calls ``logging.basicConfig(level=INFO)``, which would make every application using
    the default embedder log at INFO (each HTTP request of its LLM client, for one): undo that."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        import wordllama
    finally:
        root.setLevel(level)
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
    return wordllama


@lru_cache(maxsize=4)
def _load(config: str, dim: int) -> Any:
    # Loading from the package folder with downloads disabled works offline; a plain `WordLlama.load()` looks
    # for its tokenizer in the wrong folder and tries the hub (REFERENCE.md).
    wordllama = _import_wordllama()

    with _LOAD_LOCK:
        try:
            return wordllama.WordLlama.load(
                config=config, cache_dir=Path(wordllama.__file__).parent, dim=dim, disable_download=True
            )
        except Exception as exc:
            msg = f"cannot load WordLlama model {config!r} (dim {dim}) from the installed package: {exc}"
            raise ConfigurationError(msg) from exc


class WordLlamaEmbedder(Embedder):
    """The default embedder: no server, no key, no download (~15k sentences/s on two cores)."""

    def __init__(self, model: str | None = None, dim: int | None = None) -> None:
        self.config = model or "l2_supercat"
        self.dim = dim or 256
        self.name = f"wordllama-{self.config}"
        self._model = _load(self.config, self.dim)

    def _embed(self, texts: Sequence[str]) -> Vectors:
        if len(texts) == 1:
            # A query: one tokenizer call and a sum of token vectors (the mean's direction, and rows are normalised
            # afterwards) take ~25 µs; WordLlama's batch path pads and masks, ~80 µs for one text.
            ids = self._model.tokenizer.encode(texts[0], add_special_tokens=False).ids
            row: Vectors = np.take(self._model.embedding, ids, axis=0, mode="clip").sum(axis=0, dtype=np.float32)
            return row[None, :]
        out = self._model.embed(list(texts), norm=False, batch_size=256)
        return np.asarray(out, dtype=np.float32)
