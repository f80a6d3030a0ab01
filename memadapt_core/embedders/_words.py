"""Token ids of texts, a word at a time through a cache, for tokenizers where that gives the same ids. No I/O.

WordLlama's tokenizer (Llama 2's SentencePiece BPE) has no pre-tokenizer: it runs BPE over a whole text, about
10 µs for a sentence, most of a stored memory's embedding. But it only turns spaces into "▁" and puts one in front,
and no token of its vocabulary holds a "▁" after any other character (the only tokens with an inner "▁" are runs
of "▁"). So no merge ever joins a word to the single space before the next one, and a text's ids are the ids of
its space-separated words, one after the other, each tokenized alone (the "▁" in front is the one the tokenizer
prepends). Words repeat, so each is tokenized once. Texts with other spaces (two in a row, at an end, or a literal
"▁") are tokenized whole. ``WordTokens.for_tokenizer`` checks the conditions and gives None when they do not hold.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["WordTokens"]

SPACE = "\u2581"  # SentencePiece's visible space
_NORMALIZER = {
    "type": "Sequence",
    "normalizers": [
        {"type": "Prepend", "prepend": SPACE},
        {"type": "Replace", "pattern": {"String": " "}, "content": SPACE},
    ],
}


class WordTokens:
    def __init__(self, tokenizer: Any, size: int = 100_000) -> None:
        self._tokenizer = tokenizer  # tokenizers.Tokenizer, without padding
        self._size = size
        self._ids: dict[str, tuple[int, ...]] = {}  # word -> its ids; tuples of ints, untracked by the GC

    @classmethod
    def for_tokenizer(cls, tokenizer: Any, size: int = 100_000) -> WordTokens | None:
        """A cache for ``tokenizer`` when tokenizing word by word gives the ids it gives (see the module)."""
        spec = json.loads(tokenizer.to_str())
        model = spec.get("model") or {}
        if spec.get("normalizer") != _NORMALIZER or spec.get("pre_tokenizer") is not None:
            return None
        if model.get("type") != "BPE" or model.get("dropout") is not None:
            return None
        if any(SPACE in token.lstrip(SPACE) for token in model.get("vocab", {})):  # a "▁" after another character
            return None
        return cls(tokenizer, size)

    def ids(self, texts: Sequence[str]) -> list[Sequence[int]]:
        """Each text's token ids, as ``tokenizer.encode(text, add_special_tokens=False).ids`` gives them."""
        words_of = [_words(t) for t in texts]
        cache = self._ids
        known: dict[str, tuple[int, ...]] = {}  # this call's words: what another thread does to the cache is moot
        missing: list[str] = []
        for words in words_of:
            for word in words:
                if word not in known:
                    found = cache.get(word)
                    if found is None:
                        missing.append(word)
                        known[word] = ()
                    else:
                        known[word] = found
        if missing:
            encoded = self._tokenizer.encode_batch_fast(missing, add_special_tokens=False)
            if len(cache) + len(missing) > self._size:
                cache.clear()  # crude, but a vocabulary of words rarely outgrows it
            for word, enc in zip(missing, encoded, strict=True):
                known[word] = cache[word] = tuple(enc.ids)
        return [known[words[0]] if len(words) == 1 else [i for w in words for i in known[w]] for words in words_of]


def _words(text: str) -> Sequence[str]:
    """The pieces tokenized alone: the words between single spaces, or the whole text if it has other spaces."""
    if "  " in text or text[:1] == " " or text[-1:] == " " or SPACE in text:
        return (text,)
    return text.split(" ")
