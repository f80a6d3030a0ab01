"""Paraphrase recall: can a question find the memory that answers it when they share no word?

``benchmarks/data/paraphrase.json`` (written by hand for this project) holds one user's first-person statements
(memories), unrelated chat lines stored alongside them (distractors), questions each answered by one memory with which
it shares no content word, and questions no memory answers. All memories and distractors go into one user scope
through ``Memory.add``; each question is one ``Memory.search(question, user_id=..., limit=10)``, with the default
relevance floor and with ``threshold=0.0`` (no floor). Reported per split (``dev`` to tune on, ``test`` to judge):
hit@1 and hit@3 of the paraphrased questions, how many of them the floor emptied, and the empty rate of the unrelated
questions (the share that return ``[]``; with ``threshold=0.0`` nothing is ever empty, so only hit@k is reported).

``--lang zh`` reads ``benchmarks/data/paraphrase_zh.json``, the same shape written natively in Chinese; ``--lang cross``
stores its Chinese lines beside English ones of the same user (its ``cross`` part) and asks English questions answered
by a Chinese memory and Chinese questions answered by an English one (reported per direction, ``en->zh``/``zh->en``).

The runner first checks the dataset's promise: no question shares a content word with its answer, after lowercasing,
dropping stopwords, and treating two words as one when they share a prefix of 4+ characters or one is a prefix of
the other (3+ characters): "live"/"lives", "run"/"running". Chinese is held to more: no character in common beyond a
short list of function characters (我, 的, 什么...), so no word segmentation can match them. It refuses to measure a
dataset that breaks it.

    python benchmarks/paraphrase.py
    python benchmarks/paraphrase.py --out benchmarks/results/paraphrase.json
    python benchmarks/paraphrase.py --lang zh --out benchmarks/results/paraphrase-zh.json
    python benchmarks/paraphrase.py --lang cross --embedder wordllama
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import engine_changed, machine, machine_line, make_embedder, pct, table, write_json

DEFAULT_DATA = Path(__file__).resolve().parent / "data" / "paraphrase.json"
ZH_DATA = Path(__file__).resolve().parent / "data" / "paraphrase_zh.json"
LANGS = {"en": DEFAULT_DATA, "zh": ZH_DATA, "cross": ZH_DATA}
DIRECTIONS = ("en->zh", "zh->en")
SPLITS = ("dev", "test", "later")
CONFIGS = {"default floor": None, "no floor (threshold=0.0)": 0.0}
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)  # the stored lines are one minute apart from here; searches run a day later

# NLTK's English stopword list (179 words), unchanged: the check must not be tailored to the dataset.
STOPWORDS = frozenset(
    """i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his
    himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom this
    that that'll these those am is are was were be been being have has had having do does did doing a an the and but
    if or because as until while of at by for with about against between into through during before after above below
    to from up down in out on off over under again further then once here there when where why how all any both each
    few more most other some such no nor not only own same so than too very s t can will just don don't should
    should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't
    haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't
    weren weren't won won't wouldn wouldn't""".split()  # noqa: SIM905 (a 179-line list literal otherwise)
)
_WORD = re.compile(r"[a-z0-9]+")
# Chinese function characters a question may share with its answer (pronouns, particles, question words, the
# commonest auxiliaries and measure words); every other character in common counts as a shared word.
ZH_FUNCTION = frozenset(
    "我你他她它们的了是在有吗呢吧啊呀么什怎哪谁几个一不没这那和也都就还要会能可以对给把被从到上下里过着很太最又再才只得地之其与或而为如何些点多少自己"
)
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOPWORDS}


def content_characters(text: str) -> set[str]:
    return {c for c in _HAN.findall(text) if c not in ZH_FUNCTION}


def same_stem(a: str, b: str) -> bool:
    """Crude stemming: equal, a common prefix of 4+ characters, or one a prefix of the other (3+ characters)."""
    if a == b or (len(a) >= 4 and len(b) >= 4 and a[:4] == b[:4]):
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= 3 and long.startswith(short)


def shared(question: str, memory: str) -> list[tuple[str, str]]:
    words = [(q, m) for q in content_words(question) for m in content_words(memory) if same_stem(q, m)]
    return sorted(words + [(c, c) for c in content_characters(question) & content_characters(memory)])


def view(data: dict[str, Any], lang: str) -> dict[str, Any]:
    """What one run stores and asks: the file as it is, or (``cross``) its lines beside its ``cross`` part's and the
    cross-lingual questions only."""
    if lang != "cross":
        return {k: data[k] for k in ("user_id", "memories", "distractors", "questions", "unrelated")}
    if "cross" not in data:
        raise SystemExit("--lang cross: the dataset has no cross part")
    cross = data["cross"]
    return {"user_id": data["user_id"], "memories": data["memories"] + cross["memories"],
            "distractors": data["distractors"] + cross["distractors"], "questions": cross["questions"],
            "unrelated": cross.get("unrelated", [])}  # fmt: skip


def problems(data: dict[str, Any]) -> list[str]:
    """Everything that makes the dataset unfit to measure with; empty when it keeps its promises."""
    found = []
    texts = {m["id"]: m["text"] for m in data["memories"]}
    ids = [x["id"] for part in ("memories", "distractors", "questions", "unrelated") for x in data[part]]
    found += [f"duplicate id {i}" for i in sorted({i for i in ids if ids.count(i) > 1})]
    for q in data["questions"]:
        if q["answer"] not in texts:
            found.append(f"{q['id']}: answer {q['answer']} is no memory")
        elif pairs := shared(q["text"], texts[q["answer"]]):
            found.append(f"{q['id']} shares {pairs} with {q['answer']}")
    found += [f"{x['id']}: split {x.get('split')!r}" for part in ("questions", "unrelated") for x in data[part]
              if x.get("split") not in SPLITS]  # fmt: skip
    return found


def load(path: str | Path, lang: str = "en") -> dict[str, Any]:
    """The dataset as ``lang`` runs it (``en`` and ``zh``: the file as it is), checked."""
    data = view(json.loads(Path(path).read_text(encoding="utf-8")), lang)
    if found := problems(data):
        raise SystemExit("paraphrase dataset broken:\n  " + "\n  ".join(found))
    return data


def stored_lines(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Memories and distractors interleaved (one of each in turn), as user messages one minute apart."""
    mems, dist = data["memories"], data["distractors"]
    mixed = [x for pair in zip(mems, dist, strict=False) for x in pair]
    mixed += mems[len(dist) :] + dist[len(mems) :]
    return [
        {"role": "user", "content": x["text"], "id": x["id"], "timestamp": T0 + timedelta(minutes=i)}
        for i, x in enumerate(mixed)
    ]


def run(
    data: dict[str, Any],
    *,
    questions: Sequence[str] | None = None,
    retrieval: dict[str, Any] | None = None,
    embedder: Any = None,
) -> dict[str, Any]:
    """Store the lines in one in-memory store, ask every question (or those with these ids) in both configs."""
    from memadapt_core import Memory

    user, lines = data["user_id"], stored_lines(data)
    now = T0 + timedelta(days=1)
    asked = [dict(q, kind="paraphrase") for q in data["questions"]] + [
        dict(u, kind="unrelated") for u in data["unrelated"]
    ]
    if questions:
        asked = [q for q in asked if q["id"] in questions]
    rows: list[dict[str, Any]] = []
    latency: dict[str, list[float]] = {c: [] for c in CONFIGS}
    with Memory(location=":memory:", embedder=embedder, retrieval=retrieval or {}) as mem:
        mem.search("warm up", user_id="warm-up")  # loads the embedder outside the timings
        mem.add(lines, user_id=user)
        for q in asked:
            row: dict[str, Any] = {k: q[k] for k in ("id", "kind", "split", "text", "direction") if k in q}
            if q["kind"] == "paraphrase":
                row["answer"] = q["answer"]
            for name, threshold in CONFIGS.items():
                t0 = time.perf_counter()
                hits = mem.search(q["text"], user_id=user, limit=10, now=now, threshold=threshold)
                latency[name].append((time.perf_counter() - t0) * 1e3)
                row[name] = [h.record.external_id for h in hits]
            deep = mem.search(q["text"], user_id=user, limit=len(lines), now=now, threshold=0.0)
            row["top_raw"] = {k: round(v, 3) for k, v in deep[0].scores.items()} if deep else {}
            row["any_word_matched"] = any(h.scores.get("sparse", 0.0) > 0 for h in deep)
            if q["kind"] == "paraphrase":
                rank = next((i + 1 for i, h in enumerate(deep) if h.record.external_id == q["answer"]), None)
                answer = deep[rank - 1].scores if rank else {}
                row["answer_deep_rank"] = rank
                row["answer_raw"] = {k: round(v, 3) for k, v in answer.items()}
            rows.append(row)
    return {
        "stored": len(lines),
        "summary": summarise(rows),
        "search_ms": {c: {"p50": round(pct(v, 50), 3), "p95": round(pct(v, 95), 3)} for c, v in latency.items()},
        "questions": rows,
    }


def summarise(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    directions = [d for d in DIRECTIONS if any(r.get("direction") == d for r in rows)]
    groups = [*SPLITS, "all"] + [f"{d} {split}" for d in directions for split in (*SPLITS, "all")]
    for group in groups:
        direction, _, split = group.rpartition(" ")
        mine = [r for r in rows if split in ("all", r["split"]) and direction in ("", r.get("direction"))]
        if not mine:
            continue  # a split this dataset does not have (the English set has no later split)
        para = [r for r in mine if r["kind"] == "paraphrase"]
        other = [r for r in mine if r["kind"] == "unrelated"]
        per: dict[str, Any] = {"paraphrase_questions": len(para), "unrelated_questions": len(other)}
        for name in CONFIGS:
            cell: dict[str, Any] = {f"hit@{k}": _share([r["answer"] in r[name][:k] for r in para]) for k in (1, 3, 10)}
            cell["paraphrase_empty"] = sum(not r[name] for r in para)
            if CONFIGS[name] is None:
                cell["unrelated_empty_rate"] = _share([not r[name] for r in other])
            per[name] = cell
        out[group] = per
    return out


def _share(flags: Sequence[bool]) -> float | None:
    return round(sum(flags) / len(flags), 4) if flags else None


def render(summary: dict[str, Any]) -> str:
    def f(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    rows = []
    for split, per in summary.items():
        for name in CONFIGS:
            c = per[name]
            rows.append([split, name, per["paraphrase_questions"], f(c["hit@1"]), f(c["hit@3"]), f(c["hit@10"]),
                         c["paraphrase_empty"], f(c.get("unrelated_empty_rate"))])  # fmt: skip
    headers = ["split", "config", "n", "hit@1", "hit@3", "hit@10", "answerable emptied", "unrelated empty rate"]
    return table(headers, rows)


SWEEP = (0.28, 0.24, 0.2)


def _floor(value: float) -> dict[str, float]:
    """A lower ``floor_dense``; ``floor_dense_with_sparse`` (0.25 by default) is kept no higher than it."""
    return {"floor_dense": value, "floor_dense_with_sparse": min(0.25, value)}


def render_sweep(sweep: dict[str, Any]) -> str:
    rows = []
    name = next(iter(CONFIGS))
    for floor, summary in sweep.items():
        for split, per in summary.items():
            c = per[name]
            rows.append([floor, split, f"{c['hit@1']:.3f}", f"{c['hit@3']:.3f}", c["paraphrase_empty"],
                         "-" if c["unrelated_empty_rate"] is None else f"{c['unrelated_empty_rate']:.3f}"])  # fmt: skip
    return table(["floor_dense", "split", "hit@1", "hit@3", "answerable emptied", "unrelated empty rate"], rows)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", choices=sorted(LANGS), default="en", help="en (default), zh, or cross (en<->zh)")
    parser.add_argument(
        "--data", help="the dataset (default: benchmarks/data/paraphrase.json, paraphrase_zh.json for zh and cross)"
    )
    parser.add_argument("--embedder", help="an embedder provider (default: the engine's; hash: the test embedder)")
    parser.add_argument("--retrieval", default="{}", help="RetrievalSettings as JSON: '{\"question_margin\": 0.1}'")
    parser.add_argument("--quick", action="store_true", help="the dev split only")
    parser.add_argument("--floor-sweep", action="store_true", help="also: lower floor_dense values (diagnostic)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)

    path = args.data or str(LANGS[args.lang])
    data = load(path, args.lang)
    embedder = make_embedder(args.embedder)
    retrieval = json.loads(args.retrieval)
    only = None
    if args.quick:
        only = [x["id"] for part in ("questions", "unrelated") for x in data[part] if x["split"] == "dev"]
    info = machine()
    started = time.perf_counter()
    result: dict[str, Any] = {
        "machine": info,
        "data": {
            "file": Path(path).name,
            "lang": args.lang,
            "embedder": args.embedder or "default",
            "retrieval": retrieval,
            "memories": len(data["memories"]),
            "distractors": len(data["distractors"]),
            "paraphrase_questions": len(data["questions"]),
            "unrelated_questions": len(data["unrelated"]),
            "check": "no question shares a content word (NLTK stopwords dropped; same stem = common 4-char prefix "
            "or a 3+-char prefix of the other; for Chinese, no character beyond function characters) with its "
            "answer: passed",
        },
        **run(data, questions=only, retrieval=retrieval, embedder=embedder),
    }
    if args.floor_sweep:
        result["floor_sweep"] = {
            str(floor): run(data, questions=only, retrieval={**retrieval, **_floor(floor)}, embedder=embedder)[
                "summary"
            ]
            for floor in SWEEP
        }
    result["wall_s"] = round(time.perf_counter() - started, 1)
    result["engine_changed"] = engine_changed(info)
    print(f"\n{machine_line(info)}")
    if result["engine_changed"]:
        print(result["engine_changed"])
    d = result["data"]
    print(f"data: {d['memories']} memories + {d['distractors']} distractors in one scope; "
          f"{d['paraphrase_questions']} paraphrased and {d['unrelated_questions']} unrelated questions")  # fmt: skip
    print(render(result["summary"]))
    if "floor_sweep" in result:
        print("\nDefault floor with a lower floor_dense (diagnostic: choose on dev, confirm on test):")
        print(render_sweep(result["floor_sweep"]))
    for name, ms in result["search_ms"].items():
        print(f"search p50 {ms['p50']} ms, p95 {ms['p95']} ms ({name})")
    print(f"wall {result['wall_s']} s")
    write_json(args.out, result)
    return result


if __name__ == "__main__":
    main()
