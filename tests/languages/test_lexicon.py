"""BM25 cuts words by script: Chinese and Japanese runs into words, everything else as before
(memadapt_core.vectors.sparse)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memadapt_core import Memory
from memadapt_core.backends.edge import EdgeBackend
from memadapt_core.testing import HashEmbedder
from memadapt_core.vectors.sparse import SparseEncoder, SparseVector

SCRIPTS = SparseEncoder(lexicon="scripts")
WORDS = SparseEncoder(lexicon="words")


def _shared(query: SparseVector, document: SparseVector) -> set[int]:
    return set(query.indices) & set(document.indices)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2FFF, exclude_categories=("Cs",))))
def test_a_text_without_cjk_keeps_the_ids_and_weights_it_had(text: str) -> None:
    if any(c in text for c in "\u200b\u200c\u200d\u2060\ufeff"):
        return  # zero-width characters are read apart (below)
    assert SCRIPTS.document(text) == WORDS.document(text)
    assert SCRIPTS.query(text) == WORDS.query(text)


def test_a_chinese_word_is_found_inside_a_sentence() -> None:
    assert _shared(SCRIPTS.query("吉他"), SCRIPTS.document("我的爱好是吉他。"))
    assert not _shared(WORDS.query("吉他"), WORDS.document("我的爱好是吉他。"))  # the old lexicon: one token


def test_a_question_shares_its_content_word_not_its_grammar() -> None:
    question = SCRIPTS.query("我有什么食物过敏吗？")
    assert _shared(question, SCRIPTS.document("我对花生过敏。"))
    assert not _shared(question, SCRIPTS.document("我的爱好是吉他。"))  # 我, 的, 是 are stop words


def test_japanese_is_cut_into_words() -> None:
    assert _shared(SCRIPTS.query("東京に行きたい"), SCRIPTS.document("東京に住んでいます"))


def test_full_width_digits_and_letters_are_read_as_ascii() -> None:
    assert _shared(SCRIPTS.query("GPT 2023"), SCRIPTS.document("我在２０２３年用ＧＰＴ写代码"))


def test_zero_width_characters_do_not_split_a_word() -> None:
    assert SCRIPTS.query("guitar") == SCRIPTS.query("gui\u200btar")


def test_latin_words_in_a_chinese_sentence_keep_their_english_ids() -> None:
    assert set(WORDS.query("ChatGPT").indices) <= set(SCRIPTS.document("我用ChatGPT写代码").indices)


@pytest.mark.parametrize(
    "text",
    [
        "我用ChatGPT写代码🎸",
        "\uff21\uff22\uff23１２３",
        "\u200b\u200b",
        "。，？！",
        "안녕하세요 저는 학생입니다",
        "Привет, мир",
        "🎸🎸🎸",
    ],
)
def test_any_script_is_stored_and_searchable_without_error(text: str) -> None:
    with Memory(location=":memory:", embedder=HashEmbedder()) as mem:
        mem.add(text, user_id="u", kind="fact")
        assert [h.record.text for h in mem.search(text, user_id="u", threshold=0.0)] == [text]


def test_a_new_store_records_that_it_cuts_words_by_script(tmp_path: Path) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder()) as mem:
        assert mem.stats()["lexicon"] == "scripts"
    with Memory(path=tmp_path, embedder=HashEmbedder()) as mem:
        assert mem.stats()["lexicon"] == "scripts"


def _forget_lexicon(mem: Memory) -> None:
    """Make the store look as one made before lexicons were recorded (its info point without the key)."""
    backend = mem._resources.backend
    assert isinstance(backend, EdgeBackend)
    assert backend.info is not None
    backend._write_info(dataclasses.replace(backend.info, lexicon="words"))  # "words" is written as no key at all


def test_a_store_made_before_lexicons_is_read_as_it_was_made(tmp_path: Path) -> None:
    with Memory(path=tmp_path, embedder=HashEmbedder()) as mem:
        _forget_lexicon(mem)
    with Memory(path=tmp_path, embedder=HashEmbedder()) as mem:
        assert mem.stats()["lexicon"] == "words"
        mem.add("I moved to Berlin", user_id="u", kind="fact")
        assert [h.record.text for h in mem.search("Berlin", user_id="u", threshold=0.0)] == ["I moved to Berlin"]
