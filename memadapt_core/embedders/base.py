"""The ``Embedder`` ABC: one abstract batch method; queries, async twins and safety come free."""

from __future__ import annotations

import asyncio
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from memadapt_core.errors import EmbeddingError

__all__ = ["Embedder", "TokenWeights", "Vectors"]

Vectors = npt.NDArray[np.float32]
"""A ``(n, dim)`` float32 array of unit-length rows."""
TokenWeights = npt.NDArray[np.float32]
"""One weight per token id of an embedder's vocabulary (``vocab_size`` of them): how much a token counts when the
embedder pools a text's token vectors (memadapt_core.vectors.token_stats: the token's rarity in the scope)."""


class Embedder(ABC):
    """Turns text into dense vectors.

    Subclasses set ``name`` (stable: it is recorded in the collection) and ``dim`` and implement ``_embed``.
    CPU embedders inherit async methods that offload large batches to a thread; HTTP embedders override
    ``_aembed`` with a native async call.
    """

    name: str
    dim: int
    #: True for in-process models whose small batches may run on the event loop thread.
    cpu_bound: bool = True
    #: Up to this many texts a CPU embedder runs inline even from async code, where offloading to a thread costs
    #: more than the work (WordLlama embeds a sentence in ~50 µs); 0 for a model whose one text takes milliseconds.
    inline_batch: int = 0
    #: The relevance floor calibrated for this embedder's cosines (``RetrievalSettings`` may override it): a query
    #: is relevant when its best cosine reaches ``floor_dense``, or when a memory sharing a word with it (a BM25
    #: candidate) reaches ``floor_dense_with_sparse``.
    #: WordLlama's values; measured on LoCoMo and the paraphrase probe (benchmarks/results/history.md).
    floor_dense: float = 0.32
    floor_dense_with_sparse: float = 0.25
    #: How much this embedder's cosines count against BM25's in the fused score (``sparse_weight`` is 0.5): a static
    #: embedder such as WordLlama ranks poorly on its own (LoCoMo dense-only r@10 0.44 against BM25's 0.70), so it
    #: leans on words. MiniLM at 0.5 measured lower on LoCoMo (r@10 0.765 against 0.771), so it keeps 0.2 too.
    dense_weight: float = 0.2
    #: How much less a question's cosine with a stored one-sentence question counts (``RetrievalSettings``
    #: ``question_margin``): none unless an embedder measured that its cosines favour two questions for their form.
    question_margin: float = 0.0
    #: Token ids an embedder that pools token vectors knows (0: it does not pool, or cannot weigh its tokens). Such
    #: an embedder implements ``token_ids`` and ``_embed_weighted``, and the engine may weigh each token by its
    #: rarity in the searched scope (``embedder.pooling="scope_idf"``, memadapt_core.vectors.token_stats).
    vocab_size: int = 0
    #: The pooling a new store gets when none is asked for: "scope_idf" only where it was measured to help.
    default_pooling: str = "mean"
    #: For an embedder that reads each script with its own models: how much a memory written in another script than
    #: the question has its cosine scaled by (search divides it back out: ranking.on_one_scale). None: one scale.
    cross_script_scale: float | None = None

    @abstractmethod
    def _embed(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch; return a ``(len(texts), dim)`` array."""

    def _embed_weighted(self, texts: Sequence[str], weights: TokenWeights) -> Vectors:
        """Embed a batch, each token's vector counting ``weights[token id]`` in its text's pooled vector."""
        msg = f"embedder {self.name!r} does not weigh tokens"
        raise NotImplementedError(msg)

    def token_ids(self, texts: Sequence[str]) -> list[npt.NDArray[np.int64]]:
        """The token ids ``_embed_weighted`` pools for each text (the ones it would weigh)."""
        msg = f"embedder {self.name!r} does not weigh tokens"
        raise NotImplementedError(msg)

    def calibration(self, pooling: str) -> dict[str, float]:
        """The relevance floor and the dense weight for this embedder's cosines when its vectors are pooled by
        ``pooling`` ("mean", or "scope_idf" for an embedder with a ``vocab_size``): the class attributes above, unless
        an embedder measured other values for its weighted pooling."""
        del pooling
        return {
            "floor_dense": self.floor_dense,
            "floor_dense_with_sparse": self.floor_dense_with_sparse,
            "dense_weight": self.dense_weight,
            # An embedder that does not route by script scores every question on one scale.
            "floor_dense_nonlatin": self.floor_dense,
            "floor_dense_with_sparse_nonlatin": self.floor_dense_with_sparse,
            "dense_weight_nonlatin": self.dense_weight,
            "question_margin": self.question_margin,
            "question_margin_nonlatin": self.question_margin,
        }

    def _pooled(self, texts: Sequence[str], weights: TokenWeights | None) -> Vectors:
        return self._embed(texts) if weights is None else self._embed_weighted(texts, weights)

    async def _aembed(self, texts: Sequence[str]) -> Vectors:
        return await self._aembed_weighted(texts, None)

    async def _aembed_weighted(self, texts: Sequence[str], weights: TokenWeights | None) -> Vectors:
        if self.cpu_bound and len(texts) <= self.inline_batch:
            return self._pooled(texts, weights)
        vectors: Vectors = await asyncio.to_thread(self._pooled, texts, weights)
        return vectors

    def close(self) -> None:  # noqa: B027 - optional: most embedders hold nothing to release
        """Release clients and connections (the store calls it on close)."""

    async def aclose(self) -> None:
        """Release async clients too (``AsyncMemory.close`` awaits it)."""
        self.close()

    def embed_documents(self, texts: Sequence[str], weights: TokenWeights | None = None) -> Vectors:
        """Unit vectors, one a text; with ``weights`` (an embedder with a ``vocab_size``), tokens pooled by weight."""
        return self._checked(texts, self._call(texts, weights))

    def embed_query(self, text: str, weights: TokenWeights | None = None) -> Vectors:
        """One query as a ``(dim,)`` vector."""
        row: Vectors = self.embed_documents([text], weights)[0]
        return row

    async def aembed_documents(self, texts: Sequence[str], weights: TokenWeights | None = None) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            out = await (self._aembed(texts) if weights is None else self._aembed_weighted(texts, weights))
        except EmbeddingError:
            raise
        except Exception as exc:
            msg = f"embedder {self.name!r} failed: {exc}"
            raise EmbeddingError(msg) from exc
        return self._checked(texts, out)

    async def aembed_query(self, text: str, weights: TokenWeights | None = None) -> Vectors:
        row: Vectors = (await self.aembed_documents([text], weights))[0]
        return row

    def _call(self, texts: Sequence[str], weights: TokenWeights | None = None) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        try:
            return self._pooled(texts, weights)
        except EmbeddingError:
            raise
        except Exception as exc:
            msg = f"embedder {self.name!r} failed: {exc}"
            raise EmbeddingError(msg) from exc

    def _checked(self, texts: Sequence[str], out: Vectors) -> Vectors:
        arr = np.asarray(out, dtype=np.float32)
        if arr.ndim != 2 or arr.shape != (len(texts), self.dim):
            msg = f"embedder {self.name!r} returned shape {arr.shape}, expected ({len(texts)}, {self.dim})"
            raise EmbeddingError(msg)
        if len(arr) == 1:  # a query: scalar arithmetic is ~4x cheaper than the array passes below (6 -> 1.8 µs)
            norm = math.sqrt(float(np.vdot(arr[0], arr[0])))  # no overflow warning, as einsum below
            if math.isfinite(norm) and norm >= 1e-12:
                single: Vectors = arr / norm
                return single
        # Text with no known token embeds to NaN or zero; give it a tiny constant vector instead, so cosine
        # stays defined and the record matches nothing by meaning (it stays findable by its words). A row with a
        # NaN or an infinity has a norm that is not finite: one pass over the array finds both.
        norms = np.sqrt(np.einsum("ij,ij->i", arr, arr))
        bad = ~(np.isfinite(norms) & (norms >= 1e-12))
        if bad.any():
            arr = arr.copy() if arr is out else arr
            arr[bad] = 0.0
            arr[bad, 0] = 1e-6
            norms[bad] = 1e-6
        result: Vectors = arr / norms[:, None]
        return result
