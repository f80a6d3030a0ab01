"""What each ``durability`` costs: add latency, one message at a time and in batches of 100, on a fresh embedded store.

Rows: ``fsync`` (the default: the write-ahead log synced before each add returns), ``interval`` (synced by a timer
within ``sync_interval``, 1 s), ``process`` (no sync per write: survives a killed process, not a power cut), and
``flush-per-add``, what a caller could do instead of ``fsync``: ``flush()`` after every add, which syncs every segment
too. The HashEmbedder keeps embedding out of the figures. The store lives in ``--dir`` (default: a temporary folder
under the system's temp dir): fsync costs depend on that disk, so say which it is when quoting the figures.

    python benchmarks/durability.py                  # 100 single adds and 10 batches of 100 per row (~1 min)
    python benchmarks/durability.py --adds 1000 --out benchmarks/results/durability.json
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, pct, table, write_json
from memadapt_core import Memory
from memadapt_core.testing import HashEmbedder

MODES = ("fsync", "interval", "process", "flush-per-add")


def run(mode: str, adds: int, batches: int, folder: Path) -> dict[str, Any]:
    durability = "process" if mode == "flush-per-add" else mode
    with Memory(path=folder, embedder=HashEmbedder(dim=256), durability=durability) as mem:
        mem.add("warm up", user_id="u0")
        one: list[float] = []
        for i in range(adds):
            started = time.perf_counter()
            mem.add(f"message number {i} about the weather and the garden", user_id=f"u{i % 10}")
            if mode == "flush-per-add":
                mem.flush()
            one.append(time.perf_counter() - started)
        batch: list[float] = []
        for b in range(batches):
            texts = [f"batch {b} message {i} about travel plans" for i in range(100)]
            started = time.perf_counter()
            mem.add(texts, user_id=f"u{b % 10}")
            if mode == "flush-per-add":
                mem.flush()
            batch.append(time.perf_counter() - started)
    one_ms = [t * 1000 for t in one]
    return {
        "mode": mode,
        "add_one_p50_ms": pct(one_ms, 50),
        "add_one_p95_ms": pct(one_ms, 95),
        "add_one_per_s": adds / sum(one),
        "add_100_p50_ms": pct([t * 1000 for t in batch], 50),
    }


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--adds", type=int, default=100)
    parser.add_argument("--batches", type=int, default=10)
    parser.add_argument("--dir", default=None, help="where the stores are made (the disk being measured)")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    results = []
    for mode in MODES:
        folder = Path(tempfile.mkdtemp(prefix="memadapt-durability-", dir=args.dir))
        try:
            results.append(run(mode, args.adds, args.batches, folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    rows = [
        [r["mode"], f"{r['add_one_p50_ms']:.3f}", f"{r['add_one_p95_ms']:.3f}", f"{r['add_one_per_s']:.0f}",
         f"{r['add_100_p50_ms']:.2f}"]
        for r in results
    ]  # fmt: skip
    print(table(["durability", "add one p50 ms", "add one p95 ms", "adds /s", "add of 100 p50 ms"], rows))
    write_json(args.out, {"machine": machine(), "results": results})
    return results


if __name__ == "__main__":
    main()
