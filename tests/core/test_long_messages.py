"""A long message (a pasted document, a code listing, a tool's output) is stored and found, not refused."""

from __future__ import annotations

import pytest

from memadapt_core import Memory, ValidationError
from memadapt_core.vectors.passages import plan_passages, split_passages


def _document(words: int) -> str:
    filler = "the quarterly report lists revenue figures for every region and product line"
    return " ".join([filler] * (words // 12)) + ". The warehouse in Tromsø closes on Fridays."


def test_a_76k_character_reply_is_stored_with_the_turn_beside_it(memory: Memory) -> None:
    reply = _document(12_000)
    assert len(reply) > 76_000
    stored = memory.add(
        [{"role": "user", "content": "Summarise the report for me"}, {"role": "assistant", "content": reply}],
        user_id="ann",
        session_id="s1",
    )
    assert [r.text for r in stored] == ["Summarise the report for me", reply]
    assert memory.count(user_id="ann") == 2


def test_a_long_message_is_found_by_what_it_is_about_and_returned_whole(memory: Memory) -> None:
    reply = _document(12_000)
    memory.add([{"role": "assistant", "content": reply}, "I keep bees on the roof"], user_id="ann")
    hits = memory.search("revenue figures in the quarterly report", user_id="ann")
    assert [h.record.text for h in hits[:1]] == [reply]


def test_a_word_deep_inside_a_long_message_is_indexed(memory: Memory) -> None:
    reply = _document(12_000)
    memory.add([{"role": "assistant", "content": reply}, "I keep bees on the roof"], user_id="ann")
    hits = memory.search("Tromsø warehouse", user_id="ann", threshold=0.0)
    assert hits[0].record.text == reply


def test_text_over_max_text_chars_is_refused_naming_the_limit() -> None:
    with (
        Memory(location=":memory:", max_text_chars=1_000) as mem,
        pytest.raises(ValidationError, match="max_text_chars"),
    ):
        mem.add("x" * 1_001, user_id="ann")


def test_passages_break_at_sentences_and_cover_the_whole_text() -> None:
    text = " ".join(f"Sentence number {i} is here." for i in range(200))
    parts = split_passages(text, 500)
    assert all(len(p) <= 500 for p in parts)
    assert all(p.endswith(".") for p in parts)
    assert " ".join(parts) == text


def test_short_texts_pass_through_as_one_input_each() -> None:
    plan = plan_passages(["short", "also short"], 2_000)
    assert plan.inputs == ["short", "also short"]
    assert plan.owners is None


def test_a_long_text_becomes_several_inputs_pooled_into_one_vector() -> None:
    import numpy as np

    plan = plan_passages(["a " * 3_000, "short"], 2_000)
    assert plan.owners is not None
    assert len(plan.inputs) > 2
    pooled = plan.pool(np.ones((len(plan.inputs), 4), dtype=np.float32))
    assert pooled.shape == (2, 4)
    assert np.allclose(np.linalg.norm(pooled, axis=1), 1.0)
