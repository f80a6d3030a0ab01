"""A turn's BM25 vector is Qdrant's BM25 of its own text plus that of its neighbours' text, each text tokenized once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from memadapt_core.vectors.sparse import SparseEncoder, SparseVector

OWN = ("8 May 2023", "I adopted a beagle named Rocky and he loves the beach, the beach most of all")
NEIGHBOURS = [
    "Do you have any pets? Dogs, cats, turtles?",
    "That's lovely! How old is Rocky? " * 3,
    "We walked on the beach at sunrise.",
]


def _as_dict(v: SparseVector) -> dict[int, float]:
    return dict(zip(v.indices, v.values, strict=True))


def test_a_turns_vector_is_bm25_of_its_words_plus_a_share_of_its_neighbours_words() -> None:
    enc = SparseEncoder(avg_len=48.0)
    own, theirs = _as_dict(enc.document(" ".join(OWN))), _as_dict(enc.document(" ".join(NEIGHBOURS)))
    expected = {i: own.get(i, 0.0) + 0.5 * theirs.get(i, 0.0) for i in own.keys() | theirs.keys()}

    got = _as_dict(enc.turn(OWN, NEIGHBOURS, weight=0.5))

    assert got.keys() == expected.keys()
    assert got == pytest.approx(expected, rel=1e-6)


def test_a_turn_without_neighbours_is_its_own_words_only() -> None:
    enc = SparseEncoder()
    assert enc.turn(OWN, []) == enc.document(" ".join(OWN))


class _Counting:
    def __init__(self, bm25: Any) -> None:
        self.bm25, self.texts = bm25, Counter[str]()

    def embed_document(self, text: str) -> Any:
        self.texts[text] += 1
        return self.bm25.embed_document(text)


def test_each_text_is_tokenized_once_across_the_turns_it_neighbours() -> None:
    enc = SparseEncoder()
    counting = enc._counter = _Counting(enc._counter)
    texts = [f"turn {i} says something about topic {i % 3}" for i in range(10)]
    for i, text in enumerate(texts):
        enc.turn((text,), texts[max(0, i - 4) : i] + texts[i + 1 : i + 3])
    assert counting.texts == Counter(texts)
