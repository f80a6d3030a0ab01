"""The default embedder tokenizes a word at a time through a cache: the ids are exactly the tokenizer's own, and the
shortcut is refused for a tokenizer where words could merge."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from tokenizers import Regex, Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import BPE

from memadapt_core.embedders._words import WordTokens
from memadapt_core.embedders.wordllama import WordLlamaEmbedder

# The shared data folder sits beside the project root (../shared/data); MEMADAPT_LOCOMO overrides it.
_DEFAULT = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo_dev.json"
LOCOMO = Path(os.environ.get("MEMADAPT_LOCOMO", str(_DEFAULT)))


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return WordLlamaEmbedder()._model.tokenizer


def _own_ids(tokenizer: Any, texts: list[str]) -> list[list[int]]:
    return [e.ids for e in tokenizer.encode_batch_fast(texts, add_special_tokens=False)]


def _cached_ids(words: WordTokens, texts: list[str]) -> list[list[int]]:
    return [list(ids) for ids in words.ids(texts)]


def test_the_wordllama_embedder_uses_the_word_cache(tokenizer: Any) -> None:
    assert WordLlamaEmbedder()._model.words is not None


@pytest.mark.parametrize(
    "text",
    [
        "I adopted a cat named Miso",
        "two  spaces",
        " leading space",
        "trailing space ",
        "   ",
        "",
        "tabs\tand\nnewlines stay inside words",
        "a literal \u2581 block",
        "\u2581\u2581 at the start",
        "no-break\u00a0space and ideographic\u3000space",
        "emoji 😀 and 漢字 and café",
        "punctuation, right? yes!",
        "an added token <s> between words",
        "a <unk> and a</s>glued",
        "<s>",
        "less < more and a<b",
    ],
)
def test_a_text_gets_the_ids_the_tokenizer_gives_it(tokenizer: Any, text: str) -> None:
    words = WordTokens.for_tokenizer(tokenizer)
    assert words is not None

    assert _cached_ids(words, [text]) == _own_ids(tokenizer, [text])


def test_random_texts_get_the_tokenizers_ids(tokenizer: Any) -> None:
    rng = random.Random(5)
    alphabet = [*"ab c  \t\n.,!?'\"-_é漢字😀\u2581\u00a0xyzABC0123<>", "<s>", "</s>", "<unk>"]
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    words = WordTokens.for_tokenizer(tokenizer)
    assert words is not None

    assert _cached_ids(words, texts) == _own_ids(tokenizer, texts)


@pytest.mark.skipif(not LOCOMO.is_file(), reason="LoCoMo data not available (set MEMADAPT_LOCOMO)")
def test_a_real_conversation_gets_the_tokenizers_ids(tokenizer: Any) -> None:
    data = json.loads(LOCOMO.read_text())
    texts: list[str] = []

    def walk(x: Any) -> None:
        if isinstance(x, str):
            texts.append(x)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(data)
    words = WordTokens.for_tokenizer(tokenizer)
    assert words is not None

    assert len(texts) > 1000
    assert _cached_ids(words, texts) == _own_ids(tokenizer, texts)


def test_a_full_cache_starts_again_and_still_gives_the_right_ids(tokenizer: Any) -> None:
    words = WordTokens(tokenizer, size=5)
    texts = [f"word{i} and more words {i}" for i in range(20)]

    for text in texts:
        assert _cached_ids(words, [text]) == _own_ids(tokenizer, [text])
    assert len(words._ids) <= 5


def test_a_tokenizer_with_a_pre_tokenizer_is_tokenized_whole(tokenizer: Any) -> None:
    changed = Tokenizer.from_str(tokenizer.to_str())
    changed.pre_tokenizer = pre_tokenizers.Split(Regex("x"), behavior="isolated")

    assert WordTokens.for_tokenizer(changed) is None


def _sentencepiece_like(vocab: dict[str, int], merges: list[tuple[str, str]]) -> Tokenizer:
    tok = Tokenizer(BPE(vocab=vocab, merges=merges, unk_token="<unk>"))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("\u2581"), normalizers.Replace(" ", "\u2581")])
    return tok


def test_a_vocabulary_that_joins_words_is_tokenized_whole() -> None:
    chars = {"<unk>": 0, "\u2581": 1, "a": 2, "b": 3, "\u2581a": 4, "\u2581b": 5}
    plain = _sentencepiece_like(chars, [("\u2581", "a"), ("\u2581", "b")])
    joining = _sentencepiece_like({**chars, "a\u2581": 6}, [("\u2581", "a"), ("\u2581", "b"), ("a", "\u2581")])

    assert WordTokens.for_tokenizer(plain) is not None
    assert WordTokens.for_tokenizer(joining) is None
