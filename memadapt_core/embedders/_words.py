"""Token ids of texts, a word at a time through a cache, for tokenizers where that gives the same ids. No I/O.

WordLlama's tokenizer (Llama 2's SentencePiece BPE) has no pre-tokenizer: it runs BPE over a whole text, about
10 µs for a sentence, most of a stored memory's embedding. But it only turns spaces into "▁" and puts one in front,
and no token of its vocabulary holds a "▁" after any other character (the only tokens with an inner "▁" are runs
of "▁"). So no merge ever joins a word to the single space before the next one, and a text's ids are the ids of
its space-separated words, one after the other, each tokenized alone (the "▁" in front is the one the tokenizer
prepends). Words repeat, so each is tokenized once; new words are tokenized together, joined by single spaces, and
told apart again by the "▁" that starts each one's first token. Texts with other spaces (two in a row, at an end,
or a literal "▁"), or with a character that starts one of the tokenizer's added tokens ("<s>" is cut out before
normalising, which then prepends a "▁" to each side), are tokenized whole. ``WordTokens.for_tokenizer`` checks the
conditions and gives None when they do not hold.
"""

from __future__ import annotations

import json
import re
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
_JOINED = 256  # new words tokenized in one call


class WordTokens:
    def __init__(self, tokenizer: Any, size: int = 100_000, spec: dict[str, Any] | None = None) -> None:
        self._tokenizer = tokenizer  # tokenizers.Tokenizer, without padding or truncation
        self._size = size
        self._ids: dict[str, tuple[int, ...]] = {}  # word -> its ids; tuples of ints, untracked by the GC
        if spec is None:  # the tokenizer as JSON: ~100 ms to write and parse for WordLlama's, so done once
            spec = json.loads(tokenizer.to_str())
        self._spaced = frozenset(i for token, i in spec["model"]["vocab"].items() if token.startswith(SPACE))
        # A text holding one of these is tokenized whole: "a" and "b" in "a<s>b" are normalised apart.
        starts = "".join(sorted({t["content"][:1] for t in spec.get("added_tokens") or []}))
        self._special = re.compile(f"[{re.escape(SPACE + starts)}]").search

    @classmethod
    def for_tokenizer(cls, tokenizer: Any, size: int = 100_000) -> WordTokens | None:
        """A cache for ``tokenizer`` when tokenizing word by word gives the ids it gives (see the module)."""
        spec = json.loads(tokenizer.to_str())
        model = spec.get("model") or {}
        if spec.get("normalizer") != _NORMALIZER or spec.get("pre_tokenizer") is not None:
            return None
        if spec.get("truncation") is not None or model.get("type") != "BPE" or model.get("dropout") is not None:
            return None
        vocab = model.get("vocab") or {}
        if SPACE not in vocab or any(SPACE in token.lstrip(SPACE) for token in vocab):  # "▁" after another character
            return None
        return cls(tokenizer, size, spec)

    def ids(self, texts: Sequence[str]) -> list[Sequence[int]]:
        """Each text's token ids, as ``tokenizer.encode(text, add_special_tokens=False).ids`` gives them."""
        words_of = [self._words(t) for t in texts]
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
            if len(cache) + len(missing) > self._size:
                cache.clear()  # crude, but a vocabulary of words rarely outgrows it
            for word, ids in self._tokenize(missing):
                known[word] = cache[word] = ids
        return [known[words[0]] if len(words) == 1 else [i for w in words for i in known[w]] for words in words_of]

    def _words(self, text: str) -> Sequence[str]:
        """The pieces tokenized alone: the words between single spaces, or the whole text (see the module)."""
        if "  " in text or text[:1] == " " or text[-1:] == " " or self._special(text):
            return (text,)
        return text.split(" ")

    def _tokenize(self, pieces: list[str]) -> list[tuple[str, tuple[int, ...]]]:
        alone = [p for p in pieces if not p or " " in p or self._special(p)]  # whole texts, and ""
        words = [p for p in pieces if p and " " not in p and not self._special(p)]
        out = [(p, tuple(e.ids)) for p, e in zip(alone, self._encode(alone), strict=True)]
        for first in range(0, len(words), _JOINED):
            part = words[first : first + _JOINED]
            (enc,) = self._encode([" ".join(part)])
            ids: list[list[int]] = []
            for token in enc.ids:
                if token in self._spaced:  # each word's first token, and only that, starts with the "▁" before it
                    ids.append([token])
                else:
                    ids[-1].append(token)
            out += [(word, tuple(i)) for word, i in zip(part, ids, strict=True)]
        return out

    def _encode(self, texts: list[str]) -> list[Any]:
        return self._tokenizer.encode_batch_fast(texts, add_special_tokens=False) if texts else []
