"""A keyword search returns the memories holding the word, not its neighbours in meaning (agentscope-runtime's own
``test_search_memory_multiple_sessions``: "apple" must not return "banana orange")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memadapt_core import Memory
from memadapt_core.scoring.ranking import is_keyword_search


@pytest.fixture(scope="module", params=["multilingual", "minilm"])
def fruit(request: pytest.FixtureRequest) -> Iterator[Memory]:
    with Memory(location=":memory:", embedder=request.param) as mem:
        mem.add("apple banana", user_id="u", session_id="s1")
        mem.add("banana orange", user_id="u", session_id="s2")
        yield mem


def test_a_keyword_finds_only_the_memories_that_hold_it(fruit: Memory) -> None:
    assert [h.record.text for h in fruit.search("apple", user_id="u")] == ["apple banana"]


def test_a_keyword_both_memories_hold_finds_both(fruit: Memory) -> None:
    assert sorted(h.record.text for h in fruit.search("banana", user_id="u")) == ["apple banana", "banana orange"]


def test_a_chinese_keyword_finds_only_the_memory_that_holds_it() -> None:
    with Memory(location=":memory:", embedder="multilingual") as mem:
        mem.add(["我的爱好是吉他。", "我喜欢弹钢琴。"], user_id="u")
        assert [h.record.text for h in mem.search("吉他", user_id="u")] == ["我的爱好是吉他。"]


@pytest.mark.parametrize(
    ("query", "keyword"),
    [("apple", True), ("apple pie", True), ("吉他", True), ("花生过敏", True), ("apple pie recipe", False),
     ("你知道我的乐器爱好是什么？", False), ("what instrument do I play?", False)],
)  # fmt: skip
def test_only_one_or_two_words_make_a_keyword_search(query: str, keyword: bool) -> None:
    assert is_keyword_search(query) is keyword
