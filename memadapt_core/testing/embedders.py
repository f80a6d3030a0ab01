"""A deterministic embedder for tests of plugins and adapters: no model, no download, the same vector every run."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from memadapt_core.embedders.base import Embedder, Vectors

__all__ = ["HashEmbedder"]

_TOKEN = re.compile(r"\w+")


class HashEmbedder(Embedder):
    """A deterministic bag-of-words embedder: texts sharing words are close. For tests of plugins and adapters."""

    inline_batch = 32  # tens of microseconds a text: a thread would cost more

    def __init__(self, dim: int = 64, name: str = "hash") -> None:
        self.dim = dim
        self.name = f"{name}-{dim}"

    def _embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in _TOKEN.findall(text.lower()):
                digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest[:4], "little") % self.dim] += 1.0
        return out
