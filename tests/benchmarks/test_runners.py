"""Smoke tests: each benchmark runner's quick mode runs end to end on tiny data, so the runners cannot rot.

They check that the runners produce well-formed figures, never what the figures are: benchmarks measure, tests do not
time anything. LoCoMo itself is never needed here: a tiny conversation in LoCoMo's shape is written per test.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import first_search, latency, locomo, peers, scale, scope_scale, tenant_flood
from benchmarks._locomo_data import EvidenceReport, load, normalise_evidence

TURNS = [
    ("Ana", "I adopted a grey cat called Pepper last weekend."),
    ("Ben", "Congratulations! How is Pepper settling in?"),
    ("Ana", "She hides under the sofa but loves the balcony."),
    ("Ben", "I started pottery classes at the community centre."),
]
LATER = [
    ("Ana", "Pepper knocked my pottery bowl off the shelf yesterday."),
    ("Ben", "Oh no, was it the blue bowl from my class?"),
    ("Ana", "Yes, but I glued it back together."),
]


def tiny_locomo(path: Path) -> Path:
    session_1 = [{"speaker": s, "dia_id": f"D1:{i + 1}", "text": t} for i, (s, t) in enumerate(TURNS)]
    session_2 = [{"speaker": s, "dia_id": f"D2:{i + 1}", "text": t} for i, (s, t) in enumerate(LATER)]
    sample = {
        "sample_id": "conv-tiny",
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1_date_time": "1:56 pm on 8 May, 2023", "session_1": session_1,
            "session_2_date_time": "10:04 am on 20 May, 2023", "session_2": session_2,
        },
        "qa": [
            {"question": "What is the name of Ana's cat?", "answer": "Pepper", "evidence": ["D1:1"], "category": 4},
            {"question": "What class did Ben start?", "answer": "pottery", "evidence": ["D1:04"], "category": 4},
            {"question": "What broke the bowl and was it fixed?", "answer": "Pepper; glued",
             "evidence": ["D2:1; D2:3"], "category": 1},
            {"question": "When did Ana adopt Pepper?", "answer": "early May 2023", "evidence": ["D:1:1"],
             "category": 2},
            {"question": "What does Ana's dog eat?", "answer": "-", "evidence": ["D9:9", "D"], "category": 5},
        ],
    }  # fmt: skip
    path.write_text(json.dumps([sample]))
    return path


def test_malformed_evidence_ids_are_normalised_and_counted() -> None:
    report = EvidenceReport()
    known = {"D1:4", "D2:1", "D2:3", "D11:26"}

    got = normalise_evidence(["D1:04", "D2:1; D2:3", "D:11:26", "D", "D9:9"], known, report)

    assert got == frozenset(known)
    assert (report.split, report.rewritten) == (1, 2)
    assert (report.dropped_malformed, report.dropped_missing) == (["D"], ["D9:9"])


def test_a_question_left_without_evidence_is_not_scored(tmp_path: Path) -> None:
    convs, report = load(tiny_locomo(tmp_path / "tiny.json"))

    assert [len(c.questions) for c in convs] == [4]
    assert report.unscored_questions == 1


def _recalls(row: dict[str, Any]) -> list[float]:
    return [v for key in ("r@5", "r@10") for v in row[key].values() if v is not None]


def test_locomo_quick_writes_every_row_with_recall_per_category(tmp_path: Path) -> None:
    out = tmp_path / "locomo.json"

    result = locomo.main(["--data", str(tiny_locomo(tmp_path / "tiny.json")), "--quick", "--out", str(out)])

    names = [r["name"] for r in result["rows"]]
    assert "memadapt default" in names
    assert "BM25 (rank-bm25 Okapi)" in names
    assert "agentscope-runtime InMemory (keyword substring)" in names
    assert all(0.0 <= v <= 1.0 for row in result["rows"] for v in _recalls(row))
    assert set(result["rows"][0]["r@10"]) >= {"1", "2", "4", "overall"}
    assert json.loads(out.read_text())["data"]["evidence"]["dropped_malformed"] == ["D"]
    assert not Path(result["data"]["file"]).is_absolute()


def tiny_longmemeval(path: Path) -> Path:
    """Two haystacks in LongMemEval's shape, one session each."""
    haystack = [{"session_id": "s1", "date": "2023/05/08 (Mon) 13:56",
                 "turns": [{"role": "user", "content": t} for _, t in TURNS]}]  # fmt: skip
    questions = [{"question_id": f"q{i}", "question_type": "single-session-user", "question": "the cat's name?",
                  "question_date": "2023/05/20 (Sat) 10:04", "answer_session_ids": ["s1"], "haystack": haystack}
                 for i in range(2)]  # fmt: skip
    path.write_text(json.dumps(questions))
    return path


def test_peers_quick_measures_memadapt_and_names_peers_it_cannot_run(tmp_path: Path) -> None:
    out = tmp_path / "peers.json"
    argv = ["--quick", "--sizes", "200", "--queries", "10", "--budget", "1", "--peers", "memadapt-edge", "mem0",
            "--data", str(tiny_locomo(tmp_path / "tiny.json")), "--out", str(out),
            "--lme-data", str(tiny_longmemeval(tmp_path / "lme.json"))]  # fmt: skip

    result = peers.main(argv)

    assert result is not None
    ours = next(r for r in result["results"] if r["peer"] == "memadapt-edge")
    assert ours["add_per_s"] > 0
    assert ours["queries"] >= 10
    assert ours["left_after_delete"] == 0
    assert 0.0 <= ours["locomo"]["r@10"]["overall"] <= 1.0
    assert ours["longmemeval_ingest"]["turns"] == 2 * len(TURNS)
    assert ours["longmemeval_ingest"]["turns_per_s"] > 0
    mem0 = next(r for r in result["results"] if r["peer"] == "mem0")
    if importlib.util.find_spec("mem0") is None:
        assert mem0["error"].startswith("not installed")
    else:
        assert mem0["add_per_s"] > 0


@pytest.mark.parametrize("floor", [True, False])
def test_scale_quick_grows_one_store_and_plots_it(tmp_path: Path, floor: bool) -> None:
    png = tmp_path / "scale.png"
    argv = ["--sizes", "300", "600", "--users", "10", "--queries", "20", "--budget", "1", "--plot", str(png)]

    result = scale.main(argv if floor else [*argv, "--no-floor"])

    assert [r["memories"] for r in result["results"]] == [300, 600]
    assert all(r["search_p50_ms"] > 0 and r["disk_mib"] >= 0 for r in result["results"])
    assert ("floor_p50_ms" in result["results"][0]) is floor
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_scope_scale_grows_one_scope_beside_other_users_and_plots_it_beside_scale(tmp_path: Path) -> None:
    png, out = tmp_path / "scope.png", tmp_path / "scope.json"
    scale_json = tmp_path / "scale.json"
    scale.main(["--sizes", "300", "--users", "10", "--queries", "5", "--budget", "1", "--no-floor", "--optimize",
                "--out", str(scale_json)])  # fmt: skip

    result = scope_scale.main(["--sizes", "100", "300", "--queries", "10", "--others", "20", "--out", str(out),
                               "--plot", str(png), "--beside", str(scale_json)])  # fmt: skip

    rows = result["memadapt"]
    assert [r["scope"] for r in rows] == [100, 300]
    assert all(r["embedder"] == "wordllama" for r in rows)
    assert rows[-1]["stored"] == 300 + 20 * scope_scale.PER_OTHER
    assert all(r["disk_kib_per_record"] > 0 and r["big_p50_ms"] > 0 for r in rows)
    assert set(rows[0]["big_breakdown"]) >= {"dense_p50_ms", "query_batch_p50_ms", "Memory.search_p50_ms"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    png.unlink()
    scope_scale.main(["--replot", str(out), "--plot", str(png), "--beside", str(scale_json)])
    assert png.exists()


def test_scale_with_optimize_searches_each_size_again_after_optimizing(tmp_path: Path) -> None:
    argv = ["--sizes", "300", "600", "--users", "10", "--queries", "20", "--budget", "1", "--no-floor", "--optimize"]

    result = scale.main(argv)

    for row in result["results"]:
        assert row["optimize_s"] > 0
        assert row["optimized_search_p50_ms"] > 0
        assert row["optimized_search_p95_ms"] >= row["optimized_search_p50_ms"]


def test_latency_reports_the_median_of_repeated_runs_of_the_embedded_store(tmp_path: Path) -> None:
    out = tmp_path / "latency.json"

    result = latency.main(["--quick", "--sizes", "1000", "--repeat", "2", "--out", str(out)])

    assert result is not None
    edge, optimized, interleaved, interleaved_optimized, uncached, local, floor = result["results"]
    assert (edge["backend"], edge["runs_count"], len(edge["runs"])) == ("edge", 2, 2)
    assert [(r["backend"], r["runs_count"]) for r in (optimized, interleaved, interleaved_optimized)] == [
        ("edge-optimized", 2),
        ("edge-interleaved", 2),
        ("edge-interleaved-optimized", 2),
    ]
    assert optimized["optimize_s"] > 0
    assert interleaved_optimized["optimize_s"] > 0
    assert edge.get("optimize_s") is None
    assert interleaved.get("optimize_s") is None
    assert (uncached["backend"], uncached["runs_count"]) == ("edge-nocache", 1)
    lo, hi = edge["search_p50_range_ms"]
    assert lo <= edge["search_p50_ms"] <= hi
    assert edge["add_batched_per_s"] > 0
    assert (local["backend"], local["runs_count"], floor["backend"]) == ("qdrant-local", 1, "numpy")
    assert "runs" not in local
    assert json.loads(out.read_text())["results"][0]["runs_count"] == 2


def test_latency_writes_each_user_in_bulk_or_all_users_in_turn() -> None:
    data = latency.corpus(2000)

    bulk = latency.batches(data, interleaved=False)
    mixed = latency.batches(data, interleaved=True)

    assert [u for u, _ in bulk[:2]] == ["user-0", "user-1"]
    assert {len(t) for _, t in bulk} == {20}
    assert [u for u, _ in mixed[:3]] == ["user-0", "user-1", "user-2"]
    assert {len(t) for _, t in mixed} == {10}
    assert mixed[100][0] == "user-0"  # the next 1,000 records start again with the first user
    assert (
        sorted(t for _, ts in bulk for t in ts)
        == sorted(t for _, ts in mixed for t in ts)
        == sorted(t for _, t in data)
    )


def test_combining_runs_takes_each_figures_median() -> None:
    runs = [{"search_p50_ms": p, "add_batched_per_s": a} for p, a in [(0.9, 5000), (0.5, 7000), (0.6, 6000)]]

    combined = latency.combine(runs)

    assert (combined["search_p50_ms"], combined["add_batched_per_s"]) == (0.6, 6000)
    assert combined["search_p50_range_ms"] == [0.5, 0.9]


def test_http_latency_runner_measures_both_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import http_latency

    out = tmp_path / "http.json"
    monkeypatch.setattr("sys.argv", ["http_latency.py", "--quick", "--out", str(out)])
    http_latency.main()
    rows = json.loads(out.read_text())["rows"]
    assert [r[0] for r in rows] == ["in-process (Memory)", "HTTP API (RemoteMemory, 127.0.0.1)"]
    assert all(float(x) > 0 for r in rows for x in r[1:])


def test_first_search_measures_each_scope_with_its_counts_saved_and_without(tmp_path: Path) -> None:
    out = tmp_path / "first_search.json"

    result = first_search.main(["--users", "2", "--per-user", "20", "--big", "40", "--out", str(out)])

    assert [p["counts_saved"] for p in result["passes"]] == [False, True, False, True]
    assert all(p["first_p50_ms"] > 0 and p["big_first_ms"] > 0 for p in result["passes"])
    assert json.loads(out.read_text())["store"]["users"] == 2


def test_tenant_flood_reports_each_quiet_tenant_per_phase_the_flooders_answers_and_the_servers_memory(
    tmp_path: Path,
) -> None:
    out = tmp_path / "flood.json"
    result = tenant_flood.main(["--calls", "1", "--flood-s", "1", "--settle-s", "0", "--out", str(out)])

    assert set(result["tenants"]) == {"b quiet", "c quiet", "b flood", "c flood"}
    assert all(t["calls"] == 2 for t in result["tenants"].values())
    assert result["flooder"]["answers"]  # 201s, and 429s once 8 are in flight
    assert set(result["rss_mib"]) == {"before", "peak", "after_0s"}
    assert json.loads(out.read_text())["max_requests_per_token"] == 8
