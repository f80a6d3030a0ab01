"""WordLlama: the fast profile, offline. 256-d static embeddings whose weights ship inside the ``wordllama`` wheel."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from memadapt_core.embedders._words import WordTokens
from memadapt_core.embedders.base import Embedder, TokenWeights, Vectors
from memadapt_core.errors import ConfigurationError
from memadapt_core.vectors.passages import char_batches

__all__ = ["WordLlamaEmbedder"]

_LOAD_LOCK = threading.Lock()
_CHUNK = 64  # texts summed together: their token vectors (~1 MB) stay in cache; 512 took 8.2 µs a text, 64 5.1
_CHUNK_CHARS = 8_192  # ... and at most this many characters (one emoji may be 4 tokens: 32 MiB of token vectors)
_TOKEN_SLICE = 16_384  # a longer text's token vectors are summed this many at a time (16 MiB at dim 256)


def _import_wordllama() -> Any:
    """``import wordllama`` calls ``logging.basicConfig(level=INFO)``, which would make every application using
    the embedder log at INFO (each HTTP request of its LLM client, for one): undo that."""
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    try:
        import wordllama
    finally:
        root.setLevel(level)
        for handler in [h for h in root.handlers if h not in handlers]:
            root.removeHandler(handler)
    return wordllama


class _Model(NamedTuple):
    tokenizer: Any  # tokenizers.Tokenizer, without padding
    table: npt.NDArray[np.float32]  # one row per token id
    words: WordTokens | None  # the tokenizer a word at a time, cached (the same ids, several times faster)


@lru_cache(maxsize=4)
def _load(config: str, dim: int) -> _Model:
    # Loading from the package folder with downloads disabled works offline; a plain `WordLlama.load()` looks
    # for its tokenizer in the wrong folder and tries the hub.
    wordllama = _import_wordllama()

    with _LOAD_LOCK:
        try:
            model = wordllama.WordLlama.load(
                config=config, cache_dir=Path(wordllama.__file__).parent, dim=dim, disable_download=True
            )
        except Exception as exc:
            msg = f"cannot load WordLlama model {config!r} (dim {dim}) from the installed package: {exc}"
            raise ConfigurationError(msg) from exc
    tokenizer = Tokenizer.from_str(model.tokenizer.to_str())  # a copy: WordLlama's pads every batch
    tokenizer.no_padding()
    return _Model(
        tokenizer, np.ascontiguousarray(model.embedding, dtype=np.float32), WordTokens.for_tokenizer(tokenizer)
    )


class WordLlamaEmbedder(Embedder):
    """The fast profile's embedder: no server, no key, no download (22-33k short sentences/s on two cores).

    A text's vector is the sum of its token vectors (the direction of WordLlama's mean pooling; rows are normalised
    afterwards), computed here rather than by ``WordLlama.embed``, which pads and masks. Token ids come a word at a
    time through a cache (``_words.py``): the tokenizer's own ids, at ~10 µs a stored text and ~9 µs a query where
    the tokenizer took ~22 and ~17-25 (the latency benchmark's texts, two runs each).
    """

    inline_batch = 32  # tens of microseconds a text: a thread would cost more

    def __init__(self, model: str | None = None, dim: int | None = None) -> None:
        self.config = model or "l2_supercat"
        self.dim = dim or 256
        self.name = f"wordllama-{self.config}"
        self._model = _load(self.config, self.dim)
        self.vocab_size = self._model.table.shape[0]

    def _embed(self, texts: Sequence[str]) -> Vectors:
        return self._summed(texts, None)

    def _embed_weighted(self, texts: Sequence[str], weights: TokenWeights) -> Vectors:
        """Each text's token vectors summed, each times its token's weight (the direction of a weighted mean)."""
        return self._summed(texts, weights)

    def _summed(self, texts: Sequence[str], weights: TokenWeights | None) -> Vectors:
        _, table, _ = self._model
        if len(texts) == 1:
            return self._one(texts[0], weights)[None, :]
        out: Vectors = np.zeros((len(texts), table.shape[1]), dtype=np.float32)
        for batch in char_batches(texts, _CHUNK_CHARS, _CHUNK):  # token vectors of a chunk only: bounded memory
            first, chunk = batch.start, list(texts[batch])
            if len(chunk) == 1:
                out[first] = self._one(chunk[0], weights)
                continue
            encoded = self._ids(chunk)
            lengths = np.fromiter(map(len, encoded), dtype=np.intp, count=len(encoded))
            flat = np.fromiter(chain.from_iterable(encoded), dtype=np.intp, count=int(lengths.sum()))
            filled = lengths > 0  # a text with no token stays zero (Embedder._checked handles it)
            if filled.any():
                starts = (np.cumsum(lengths) - lengths)[filled]
                vectors = np.take(table, flat, axis=0, mode="clip")
                if weights is not None:
                    vectors *= np.take(weights, flat, mode="clip")[:, None]
                sums = np.add.reduceat(vectors, starts, axis=0)
                out[first : first + len(chunk)][filled] = sums
        return out

    def calibration(self, pooling: str) -> dict[str, float]:
        """Pooled by the scope's token rarity, relevant LoCoMo questions' best cosines are lower (5th percentile 0.29
        against 0.44): 2.6% of them fell under the 0.25 floor for a question with a word in common, 0.8% under
        0.2, the floor used then."""
        calibrated = super().calibration(pooling)
        if pooling == "scope_idf":
            calibrated["floor_dense_with_sparse"] = 0.2
        return calibrated

    def token_ids(self, texts: Sequence[str]) -> list[npt.NDArray[np.int64]]:
        return [np.asarray(ids, dtype=np.int64) for ids in self._ids(texts)]

    def _one(self, text: str, weights: TokenWeights | None) -> Vectors:
        """One text's vector: its token vectors summed (by weight, if any) a slice at a time."""
        _, table, _ = self._model
        ids = self._ids([text])[0]
        row: Vectors = np.zeros(table.shape[1], dtype=np.float32)
        for start in range(0, len(ids), _TOKEN_SLICE):
            part = ids[start : start + _TOKEN_SLICE]
            if weights is None:
                row += np.take(table, part, axis=0, mode="clip").sum(axis=0, dtype=np.float32)
            else:
                row += np.take(weights, part, mode="clip") @ np.take(table, part, axis=0, mode="clip")
        return row

    def _ids(self, texts: Sequence[str]) -> Sequence[Sequence[int]]:
        tokenizer, _, words = self._model
        if words is not None:
            return words.ids(texts)
        return [e.ids for e in tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)]
