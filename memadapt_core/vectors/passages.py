"""Long texts embedded a passage at a time: the dense vector of a text longer than ``passage_chars`` is the mean of
its passages' vectors (normalised). No I/O.

Why: an embedder has a useful length (an OpenAI-compatible server refuses inputs over its token limit; a static
embedder's memory grows with the text), and a chat turn may be a 76k-character document. The record stays one
record (found, returned, deleted and counted as the message it is); its sparse vector indexes all of its words.
Short texts, the usual case, pass through untouched: one input each, no copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["PassagePlan", "char_batches", "plan_passages", "split_passages"]

_BREAKS = ("\n\n", "\n", ". ", "? ", "! ", "; ", ", ", " ")


def split_passages(text: str, size: int) -> list[str]:
    """``text`` cut into passages of at most ``size`` characters, at the last paragraph, line, sentence or word
    break inside each window (mid-word only where a window has no break at all)."""
    out: list[str] = []
    start = 0
    while len(text) - start > size:
        window = text[start : start + size]
        cut = next((i + len(b) for b in _BREAKS if (i := window.rfind(b)) > size // 2), size)
        out.append(window[:cut].strip())
        start += cut
    out.append(text[start:].strip())
    return [p for p in out if p]


@dataclass(frozen=True)
class PassagePlan:
    """What to embed for ``texts``: ``inputs``, and for each input the text it belongs to (None: one each)."""

    inputs: list[str]
    owners: list[int] | None
    count: int

    def pool(self, vectors: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """One normalised vector per text from the vectors of ``inputs``."""
        if self.owners is None:
            return vectors
        sums = np.zeros((self.count, vectors.shape[1]), dtype=np.float32)
        np.add.at(sums, np.asarray(self.owners), vectors)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        return (sums / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def plan_passages(texts: Sequence[str], size: int) -> PassagePlan:
    if all(len(t) <= size for t in texts):
        return PassagePlan(list(texts), None, len(texts))
    inputs: list[str] = []
    owners: list[int] = []
    for n, text in enumerate(texts):
        parts = split_passages(text, size) or [text]
        inputs += parts
        owners += [n] * len(parts)
    return PassagePlan(inputs, owners, len(texts))


def char_batches(texts: Sequence[str], max_chars: int, max_count: int | None = None) -> list[slice]:
    """``texts`` cut into consecutive batches of at most ``max_chars`` characters (a longer text is a batch of its
    own) and ``max_count`` texts: what one embedder call is handed, so its memory follows the characters, not the
    count (64 texts of 32k emoji once peaked near 8 GB)."""
    count = max_count or len(texts)
    if len(texts) <= count and sum(map(len, texts)) <= max_chars:
        return [slice(0, len(texts))]
    out: list[slice] = []
    start, size = 0, 0
    for n, text in enumerate(texts):
        if n > start and (n - start >= count or size + len(text) > max_chars):
            out.append(slice(start, n))
            start, size = n, 0
        size += len(text)
    out.append(slice(start, len(texts)))
    return out
