"""The LoCoMo replay behind ``locomo.py --consolidate``: what it makes of LoCoMo's quirks, and the usage it reports."""

from __future__ import annotations

import json
from typing import Any

from benchmarks._locomo_replay import LocomoReplay
from memadapt_core.testing import ChatRequest, Reply


def sample(observations: list[list[Any]], turns: list[str]) -> dict[str, Any]:
    said = [{"speaker": "Ana", "dia_id": f"D1:{i + 1}", "text": t} for i, t in enumerate(turns)]
    return {
        "sample_id": "conv-x",
        "conversation": {"speaker_a": "Ana", "speaker_b": "Ben", "session_1": said},
        "observation": {"session_1_observation": {"Ana": observations}},
    }


def asked(turns: list[str]) -> list[dict[str, Any]]:
    return [{"n": n, "text": t} for n, t in enumerate(turns)]


def test_an_observation_citing_several_ids_in_one_string_cites_each_turn() -> None:
    turns = ["I adopted a cat.", "Her name is Pepper."]
    replay = LocomoReplay([sample([["Ana adopted a cat named Pepper.", "D1:1, D1:02"]], turns)])

    assert replay.extract(asked(turns)) == [
        {"text": "Ana adopted a cat named Pepper.", "sources": [0, 1], "valid_from": None, "hypothetical": False}
    ]


def test_a_text_said_twice_in_a_session_matches_its_turns_in_order() -> None:
    turns = ["Guess what, I run now!", "Every Sunday.", "Guess what, I run now!"]
    replay = LocomoReplay([sample([["Ana runs every Sunday.", ["D1:1", "D1:2"]]], turns)])

    (fact,) = replay.extract(asked(turns))

    assert fact["sources"] == [0, 1]


def test_usage_is_estimated_from_the_request_and_the_answer() -> None:
    turns = ["I adopted a cat called Pepper last weekend, and she already owns the sofa."]
    replay = LocomoReplay([sample([["Ana adopted a cat named Pepper.", "D1:1"]], turns)])
    content = json.dumps({"messages": asked(turns)})
    request = ChatRequest({"messages": [{"role": "user", "content": content}]}, "extract")

    answer = replay(request)

    assert isinstance(answer, Reply)
    assert answer.prompt_tokens == round(len(content) / 4)
    assert answer.completion_tokens == round(len(json.dumps(answer.content)) / 4)
