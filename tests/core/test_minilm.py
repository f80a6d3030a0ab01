"""The `minilm` embedder (the default): offline, strong on questions that share no word with their answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memadapt_core import Memory

FACTS = ["I moved to Berlin last spring.", "We adopted a beagle named Rocky.", "My sister Lena works as a nurse."]
CHATTER = ["Thanks, that helps a lot", "Can you make it shorter?", "I had pasta for lunch", "The meeting ran late"]


@pytest.fixture(scope="module")
def minilm() -> Iterator[Memory]:
    with Memory(location=":memory:", embedder="minilm") as mem:
        mem.add(FACTS + CHATTER, user_id="ann")
        yield mem


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Which city do I live in?", FACTS[0]),
        ("Do I have any pets?", FACTS[1]),
        ("What does my sibling do for a living?", FACTS[2]),
    ],
)
def test_a_question_sharing_no_word_with_its_answer_finds_it_first(minilm: Memory, question: str, answer: str) -> None:
    assert [h.record.text for h in minilm.search(question, user_id="ann", limit=1)] == [answer]


def test_an_unrelated_question_finds_nothing(minilm: Memory) -> None:
    assert minilm.search("How do I reverse a linked list in C?", user_id="ann") == []


def test_the_relevance_floor_is_the_embedders_own_unless_set(minilm: Memory) -> None:
    assert (minilm.settings.retrieval.floor_dense, minilm.settings.retrieval.floor_dense_with_sparse) == (0.3, 0.3)
    with Memory(location=":memory:", embedder="minilm", retrieval={"floor_dense_with_sparse": 0.4}) as mem:
        assert mem.settings.retrieval.floor_dense_with_sparse == 0.4


def test_wordllama_has_its_own_calibrated_floor() -> None:
    with Memory(location=":memory:", embedder="wordllama") as mem:
        assert (mem.settings.retrieval.floor_dense, mem.settings.retrieval.floor_dense_with_sparse) == (0.32, 0.25)
