"""``QueryEmbedder``: what every door's ``embedder`` offers, a query's dense vector (the LangChain adapters' MMR)."""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["QueryEmbedder"]


class QueryEmbedder(Protocol):
    """What a door's ``embedder`` offers every door: a query's dense vector (the LangChain adapters' MMR)."""

    def embed_query(self, text: str) -> npt.NDArray[np.float32]: ...

    async def aembed_query(self, text: str) -> npt.NDArray[np.float32]: ...
