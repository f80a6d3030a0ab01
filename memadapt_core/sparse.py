"""BM25 sparse vectors with Qdrant's own tokenizer and token ids, so the embedded store and a server agree.

Stemming and stopword removal come from ``qdrant_edge.Bm25``; the IDF part is the collection's ``Modifier.IDF``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import qdrant_edge

__all__ = ["SparseEncoder", "SparseVector"]


class SparseVector(NamedTuple):
    indices: list[int]
    values: list[float]

    def is_empty(self) -> bool:
        return not self.indices


class SparseEncoder:
    """Encodes documents (term frequencies, length-normalised) and queries (term presence)."""

    def __init__(self, avg_len: float = 48.0) -> None:
        self._bm25 = qdrant_edge.Bm25(qdrant_edge.Bm25Config(avg_len=avg_len))

    def document(self, text: str) -> SparseVector:
        vec = self._bm25.embed_document(text)
        return SparseVector(list(vec.indices), list(vec.values))

    def documents(self, texts: Sequence[str]) -> list[SparseVector]:
        return [self.document(t) for t in texts]

    def query(self, text: str) -> SparseVector:
        vec = self._bm25.embed_query(text)
        return SparseVector(list(vec.indices), list(vec.values))
