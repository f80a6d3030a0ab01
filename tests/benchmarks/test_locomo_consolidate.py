"""Smoke test of ``locomo.py --consolidate``: a tiny LoCoMo-shaped conversation, consolidated by the replaying server.

It checks the report's shape and that facts were stored, linked to their turns and found; never what the figures are.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import locomo

SESSION_1 = [
    ("Ana", "I adopted a grey cat called Pepper last weekend."),
    ("Ben", "Congratulations! How is Pepper settling in?"),
    ("Ana", "She hides under the sofa but loves the balcony."),
    ("Ben", "I started pottery classes at the community centre."),
]
SESSION_2 = [
    ("Ana", "Pepper knocked my pottery bowl off the shelf yesterday."),
    ("Ben", "Oh no, was it the blue bowl from my class?"),
    ("Ana", "Yes, but I glued it back together."),
]
OBSERVATIONS = {
    "session_1_observation": {
        "Ana": [["Ana adopted a grey cat named Pepper.", "D1:1"], ["Pepper likes the balcony.", "D1:3"]],
        "Ben": [["Ben started pottery classes at the community centre.", "D1:4"]],
    },
    "session_2_observation": {
        "Ana": [["Pepper broke Ana's pottery bowl, and Ana glued it.", ["D2:1", "D2:3"]]],
        "Ben": [["Ben made a blue bowl in his pottery class.", "D2:2"]],
    },
}


def tiny_locomo(path: Path) -> Path:
    def turns(session: int, said: list[tuple[str, str]]) -> list[dict[str, str]]:
        return [{"speaker": s, "dia_id": f"D{session}:{i + 1}", "text": t} for i, (s, t) in enumerate(said)]

    sample = {
        "sample_id": "conv-tiny",
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": turns(1, SESSION_1),
            "session_2_date_time": "10:04 am on 20 May, 2023", "session_2": turns(2, SESSION_2),
        },
        "qa": [
            {"question": "What is the name of Ana's cat?", "answer": "Pepper", "evidence": ["D1:1"], "category": 4},
            {"question": "What class did Ben start?", "answer": "pottery", "evidence": ["D1:4"], "category": 4},
            {"question": "What broke the bowl and was it fixed?", "answer": "Pepper; glued",
             "evidence": ["D2:1", "D2:3"], "category": 1},
        ],
        "observation": OBSERVATIONS,
    }  # fmt: skip
    path.write_text(json.dumps([sample]))
    return path


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """One consolidating run, shared by the tests (they only read its report)."""
    folder = tmp_path_factory.mktemp("locomo_consolidate")
    out = folder / "locomo_consolidate.json"
    # Each LLM answer comes 250 ms late: an add that waited for consolidation would show it.
    argv = ["--data", str(tiny_locomo(folder / "tiny.json")), "--consolidate", "--llm-delay-ms", "250"]
    return locomo.main([*argv, "--out", str(out)]), out


def test_consolidate_reports_recall_per_category_for_facts_messages_and_both(
    run: tuple[dict[str, Any], Path],
) -> None:
    result, out = run

    rows = {r["name"]: r for r in result["rows"]}
    assert set(rows) == {
        "consolidated: facts only",
        "consolidated: messages only",
        "consolidated: both (default kinds)",
    }
    for row in rows.values():
        for key in ("r@5", "r@10"):
            assert set(row[key]) >= {"1", "4", "overall"}
            assert all(0.0 <= v <= 1.0 for v in row[key].values() if v is not None)
            assert 0.0 <= row["turns"][key]["overall"] <= 1.0
    assert json.loads(out.read_text())["consolidation"]["settings"]["consolidation_batch"] >= 1


def test_consolidate_stores_facts_linked_to_their_turns_and_finds_them(run: tuple[dict[str, Any], Path]) -> None:
    result, _ = run

    section = result["consolidation"]
    facts_only = next(r for r in result["rows"] if r["name"] == "consolidated: facts only")
    assert section["stored"]["facts"] == section["observations_in_data"] == 5
    assert section["stored"]["facts_without_source_ids"] == 0
    assert section["stored"]["facts_with_unknown_source_ids"] == 0
    assert section["stored"]["duplicate_fact_texts"] == 0
    assert section["stored"]["evidence_cited_by_facts"]["overall"] == 1.0
    assert section["worker"]["messages"] == 7
    assert facts_only["kinds_in_top_10"].keys() == {"fact"}
    assert facts_only["r@10"]["overall"] > 0.0
    assert section["llm_calls"]["extract"]["requests"] >= 2
    assert section["llm_calls"]["extract"]["total_tokens"] > 0


def test_consolidate_times_add_with_consolidation_off_and_on(run: tuple[dict[str, Any], Path]) -> None:
    result, _ = run

    add = result["consolidation"]["add"]
    assert add["consolidation_off"]["calls"] == add["consolidation_on"]["calls"] == 2
    assert add["consolidation_on"]["turns"] == 7
    assert add["consolidation_on"]["per_call_ms"]["p50"] > 0
    assert add["consolidation_on"]["calls_returned_before_their_turns_were_consolidated"] == 2
