"""Loading ReMe's experience libraries: seconds to load each file into a fresh store as an agent's lessons, to load
it again (idempotent: every line already stored), and the lesson ReMe's README query recalls.

The libraries are not part of this repository (Apache-2.0, ReMe's ``docs/library/`` at tag v0.3.1.9): give their
paths. The store's default embedder is used unless ``--embedder`` names another (the variable
MEMADAPT_EMBEDDER__PROVIDER is ignored here, so the figure is the default's).

    python benchmarks/reme_library.py ReMe/docs/library/appworld.jsonl ReMe/docs/library/bfcl_v3.jsonl
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, table, write_json

QUERY = "How to navigate to settings and update user profile?"


def load(file: Path, embedder: str | None) -> dict[str, Any]:
    from memadapt_core import Memory

    options: dict[str, Any] = {} if embedder is None else {"embedder": {"provider": embedder}}
    with tempfile.TemporaryDirectory(prefix="memadapt-reme-") as folder:
        started = time.perf_counter()
        with Memory(path=folder, **options) as mem:
            opened = time.perf_counter()
            first = mem.import_reme(file, agent_id=file.stem)
            loaded = time.perf_counter()
            again = mem.import_reme(file, agent_id=file.stem)
            reloaded = time.perf_counter()
            hits = mem.experiences(QUERY, agent_id=file.stem, limit=1)
            provider = mem.settings.embedder.provider
        return {
            "file": file.name, "lessons": first.added, "embedder": provider,
            "open_s": round(opened - started, 2), "load_s": round(loaded - opened, 2),
            "lessons_per_s": round(first.added / (loaded - opened), 1), "reload_s": round(reloaded - loaded, 2),
            "reload_added": again.added, "top_lesson": hits[0].record.text if hits else None,
        }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path, help="ReMe library files (.jsonl)")
    parser.add_argument("--embedder", help="an embedder provider (default: the store's default)")
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args()
    os.environ.pop("MEMADAPT_EMBEDDER__PROVIDER", None)
    rows = [load(file, args.embedder) for file in args.files]
    print(machine_line(machine()))
    headers = ["file", "lessons", "embedder", "open_s", "load_s", "lessons_per_s", "reload_s", "reload_added"]
    print(table(headers, [[row[h] for h in headers] for row in rows]))
    for row in rows:
        print(f"{row['file']}: {QUERY!r} -> {row['top_lesson']!r}")
    write_json(args.out, {"machine": machine(), "results": rows})


if __name__ == "__main__":
    main()
