"""BM25 sparse vectors with Qdrant's own tokenizers and token ids, so the embedded store and a server agree.

Stemming and stopword removal come from ``qdrant_edge.Bm25``; the IDF part is the collection's ``Modifier.IDF``,
counted over the whole collection and over the searched scope, blended by ``retrieval.scope_idf`` (the backends).

A store records its *lexicon*, how its words were cut (``LEXICONS``). "words", the first one, runs Qdrant's word
tokenizer over the whole text, which keeps a Chinese sentence as one token. "scripts" (new stores) cuts a text by
script as Lucene's analyzers do: the runs of Chinese and Japanese characters (``scripts.split_unspaced``) go through
Qdrant's multilingual tokenizer, which segments them into words (a dictionary for Chinese, morphology for
Japanese), less the function words of ``cjk_stopwords``; the rest goes through the word tokenizer as before. A
text with nothing but spaced scripts (``scripts.needs_care`` False: every English text) gets exactly the ids and
weights it got under "words", so English search is unchanged and an older store keeps being read as it was made.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import qdrant_edge

from memadapt_core.text.cjk_stopwords import STOPWORDS
from memadapt_core.text.scripts import needs_care, normalized, split_unspaced

__all__ = ["LEXICONS", "SparseEncoder", "SparseVector"]

#: How a store's words were cut, oldest first (recorded with the store: docs/storage.md).
LEXICONS = ("words", "scripts")

_COUNT_K = 1e6  # see SparseEncoder.__init__: exact counts up to ~100,000 of one term in one text
_COUNTED_TEXTS = 1024  # texts whose counts are kept (the latest turns of the sessions being added to)
_COUNTED_CHARS = 10_000  # ... if this short at most (a neighbour lends no more: record_codec.NEIGHBOUR_CHARS)


#: A text's term ids (ascending) and how often each occurs in it.
_Counts = tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]


class SparseVector(NamedTuple):
    indices: list[int]
    values: list[float]

    def is_empty(self) -> bool:
        return not self.indices


class SparseEncoder:
    """Encodes documents (term frequencies, length-normalised) and queries (term presence)."""

    def __init__(self, avg_len: float = 48.0, lexicon: str = "scripts") -> None:
        if lexicon not in LEXICONS:
            msg = f"lexicon: {lexicon!r} is not one of {', '.join(LEXICONS)} (a newer memadapt made this store?)"
            raise ValueError(msg)
        self.lexicon = lexicon
        config = qdrant_edge.Bm25Config(avg_len=avg_len)
        self._bm25 = qdrant_edge.Bm25(config)
        self._k1, self._b, self._avg_len = config.k, config.b, avg_len
        # The same tokens, counted: with b = 0 and a huge k, a term's weight n (k + 1) / (k + n) gives n back.
        self._counter = qdrant_edge.Bm25(qdrant_edge.Bm25Config(k=_COUNT_K, b=0.0))
        self._kept = lru_cache(maxsize=_COUNTED_TEXTS)(self._count)
        self._segmenter: tuple[qdrant_edge.Bm25, frozenset[int]] | None = None  # loaded at the first CJK text
        self._loading = threading.Lock()

    def document(self, text: str) -> SparseVector:
        if self.lexicon != "words" and needs_care(text):
            ids, counts = self._count(text)
            return SparseVector(ids.tolist(), self._weights(counts).tolist())
        vec = self._bm25.embed_document(text)
        return SparseVector(list(vec.indices), list(vec.values))

    def documents(self, texts: Sequence[str]) -> list[SparseVector]:
        return [self.document(t) for t in texts]

    def turn(self, own: Sequence[str], neighbours: Sequence[str], weight: float = 1.0) -> SparseVector:
        """A turn's vector (its words: the texts in ``own``, read as one) with its neighbours' words, ``weight``
        times as much as its own. The two are weighed apart and summed: in one text, a long neighbour (a pasted
        document, a long answer) would lengthen the turn and so shrink its own words' weight (BM25's length norm).
        Measured: LongMemEval session recall_all@10 0.52 -> 0.72 and turn recall@10 0.64 -> 0.74; LoCoMo r@10
        0.763 -> 0.760 (benchmarks/results/history.md).

        Each text's words are counted once and kept (``counts``): a turn is its neighbours' neighbour, so a
        session's add would otherwise tokenize each text up to seven times. The weights are BM25's, as
        ``document`` gives them for the texts joined by spaces."""
        if not neighbours or not weight:
            return self.document(" ".join(own))
        mine, theirs = self._summed(own), self._summed(neighbours)
        indices, inverse = np.unique(np.concatenate([mine[0], theirs[0]]), return_inverse=True)
        values = np.concatenate([self._weights(mine[1]), weight * self._weights(theirs[1])])
        return SparseVector(indices.tolist(), np.bincount(inverse, weights=values).tolist())

    def query(self, text: str) -> SparseVector:
        if self.lexicon != "words" and needs_care(text):
            ids = self._count(text)[0].tolist()
            return SparseVector(ids, [1.0] * len(ids))
        vec = self._bm25.embed_query(text)
        return SparseVector(list(vec.indices), list(vec.values))

    def counts(self, text: str) -> _Counts:
        """A text's term ids and counts; kept for the latest texts of up to ``_COUNTED_CHARS`` characters (at
        most ~40 MB of them)."""
        return self._kept(text) if len(text) <= _COUNTED_CHARS else self._count(text)

    def _count(self, text: str) -> _Counts:
        if self.lexicon == "words" or not needs_care(text):
            return self._counted(self._counter, text)
        runs, rest = split_unspaced(normalized(text))
        if not runs:
            return self._counted(self._counter, rest)
        segmenter, stop = self._segmenter or self._load_segmenter()
        ids, counts = self._counted(segmenter, " ".join(runs))
        if stop:
            kept = ~np.isin(ids, np.fromiter(stop, dtype=np.int64, count=len(stop)))
            ids, counts = ids[kept], counts[kept]
        if rest.strip():
            words = self._counted(self._counter, rest)
            ids, inverse = np.unique(np.concatenate([ids, words[0]]), return_inverse=True)
            counts = np.bincount(inverse, weights=np.concatenate([counts, words[1]])).astype(np.float64)
        return ids.astype(np.int64), counts

    @staticmethod
    def _counted(counter: qdrant_edge.Bm25, text: str) -> _Counts:
        vec = counter.embed_document(text)
        values = np.asarray(vec.values, dtype=np.float64)
        return np.asarray(vec.indices, dtype=np.int64), np.rint(values * _COUNT_K / (_COUNT_K + 1.0 - values))

    def _load_segmenter(self) -> tuple[qdrant_edge.Bm25, frozenset[int]]:
        """Qdrant's multilingual tokenizer, counting, and the ids of the stop words it cuts out (each stop word
        that it keeps as one token). Its dictionaries take ~0.4 s to load: done once, at the first CJK text."""
        with self._loading:
            if self._segmenter is None:
                config = qdrant_edge.Bm25Config(k=_COUNT_K, b=0.0, tokenizer=qdrant_edge.TokenizerType.Multilingual)
                segmenter = qdrant_edge.Bm25(config)
                stop = set()
                for word in STOPWORDS:
                    vec = segmenter.embed_document(word)
                    if len(vec.indices) == 1:
                        stop.add(int(vec.indices[0]))
                self._segmenter = segmenter, frozenset(stop)
            return self._segmenter

    def _summed(self, texts: Sequence[str]) -> _Counts:
        """The counts of the texts read as one."""
        if len(texts) == 1:
            return self.counts(texts[0])
        parts = [self.counts(t) for t in texts]
        indices, inverse = np.unique(np.concatenate([p[0] for p in parts]), return_inverse=True)
        summed = np.bincount(inverse, weights=np.concatenate([p[1] for p in parts])).astype(np.float64)
        return indices.astype(np.int64), summed

    def _weights(self, counts: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """BM25's term-frequency weight of each count (``qdrant_edge.Bm25.embed_document``'s formula)."""
        k1 = self._k1
        norm = k1 * (1.0 - self._b + self._b * float(counts.sum()) / self._avg_len)
        return counts * (k1 + 1.0) / (norm + counts)
