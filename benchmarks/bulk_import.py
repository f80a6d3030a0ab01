"""Bulk import of a large JSON Lines export: its rate beside batched ``add`` of the same texts, its peak memory, and
the rate of resuming it (every record already stored).

A synthetic export of ``--records`` facts over 100 users (the latency benchmark's sentences, each line as
``memadapt export`` writes it) is imported into a fresh store; the same texts are added in calls of 1,000 into
another. Each run is a child process, so its peak RSS is its own; ``--records`` at two sizes shows whether memory
grows with the file. Embedder: ``--embedder`` (wordllama by default).

    python benchmarks/bulk_import.py --quick                 # 20k lines
    python benchmarks/bulk_import.py --records 20000 200000 --out benchmarks/results/bulk_import.json
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import machine, machine_line, peak_rss_mib, sentence, table, write_json

USERS = 100
STAMP = "2026-01-01T00:00:00Z"


def texts(n: int) -> list[tuple[str, str]]:
    rng = random.Random(7)
    return [(f"user-{i % USERS}", f"{sentence(rng)} (note {i})") for i in range(n)]


def write_export(path: Path, n: int) -> None:
    """``n`` fact lines, as an export writes them."""
    from memadapt_core.record_codec import normalised_hash

    with path.open("w", encoding="utf-8") as out:
        for i, (user, text) in enumerate(texts(n)):
            rid = str(uuid.UUID(int=random.Random(i).getrandbits(128), version=4))
            line = {
                "id": rid, "text": text, "kind": "fact", "user_id": user, "agent_id": None, "session_id": None,
                "role": None, "name": None, "external_id": None, "observed_at": STAMP, "created_at": STAMP,
                "updated_at": STAMP, "valid_from": STAMP, "valid_to": None, "source_ids": [], "supersedes": None,
                "superseded_by": None, "hash": normalised_hash(text), "consolidated": False, "visits": 0,
                "last_access": None, "archived": False, "metadata": {},
                "history": [{"record_id": rid, "event": "add", "at": STAMP, "old_text": None, "new_text": text,
                             "by": None}],
            }  # fmt: skip
            out.write(json.dumps(line) + "\n")


def child(kind: str, n: int, dump: str, embedder: str) -> dict[str, Any]:
    from memadapt_core import Memory

    folder = tempfile.mkdtemp(prefix="memadapt-import-")
    try:
        with Memory(path=folder, embedder=embedder) as mem:
            mem.search("warm up", user_id="user-0")  # the embedder's first call, outside the timing
            base = peak_rss_mib()
            t = time.perf_counter()
            if kind == "add":
                by_user: dict[str, list[str]] = {}
                for user, text in texts(n):
                    by_user.setdefault(user, []).append(text)
                for user, mine in by_user.items():
                    for i in range(0, len(mine), 1000):
                        mem.add(mine[i : i + 1000], user_id=user, kind="fact")
                written = n
            else:
                written = mem.import_(dump)
            took = time.perf_counter() - t
            out = {"per_s": round(n / took), "written": written, "seconds": round(took, 1)}
            if kind == "import":
                t = time.perf_counter()
                out["resume_written"] = mem.import_(dump, resume=True)
                out["resume_per_s"] = round(n / (time.perf_counter() - t))
            out.update(peak_rss_mib=round(peak_rss_mib()), rss_before_mib=round(base), **rss_parts())
            return out
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def rss_parts() -> dict[str, int]:
    """Resident memory now, split: anonymous (the heap: what the process holds) and file-backed (the store's memory
    maps, which the kernel drops under pressure and reads back)."""
    parts = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("RssAnon", "RssFile"):
            parts[f"{key.lower()[:3]}_{key[3:].lower()}_mib"] = round(int(value.split()[0]) / 1024)
    return parts


def run_child(kind: str, n: int, dump: Path, embedder: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--child", kind, str(n), str(dump), embedder],
                          capture_output=True, text=True, check=True)  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: Sequence[str] | None = None) -> dict[str, Any] | None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--records", type=int, nargs="+")
    parser.add_argument("--embedder", default="wordllama")
    parser.add_argument("--out")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, n, dump, embedder = args.child
        print(json.dumps(child(kind, int(n), dump, embedder)))
        return None
    sizes = args.records or ([20_000] if args.quick else [20_000, 200_000])
    info = machine()
    results = []
    work = Path(tempfile.mkdtemp(prefix="memadapt-dump-"))
    try:
        for n in sizes:
            dump = work / f"dump-{n}.jsonl"
            write_export(dump, n)
            mib = dump.stat().st_size / 2**20
            for kind in ("add", "import"):
                res = {"kind": kind, "records": n, "file_mib": round(mib), **run_child(kind, n, dump, args.embedder)}
                results.append(res)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    headers = ["records", "how", "records/s", "resume records/s", "peak RSS MiB", "RSS before MiB",
               "anon / file RSS at end MiB", "file MiB"]  # fmt: skip
    rows = [[r["records"], "add (calls of 1,000)" if r["kind"] == "add" else "import_", r["per_s"],
             r.get("resume_per_s", "-"), r["peak_rss_mib"], r["rss_before_mib"],
             f"{r.get('rss_anon_mib')} / {r.get('rss_file_mib')}", r["file_mib"]] for r in results]  # fmt: skip
    print(machine_line(info))
    print(table(headers, rows))
    report = {"machine": info, "embedder": args.embedder, "results": results}
    write_json(args.out, report)
    return report


if __name__ == "__main__":
    main()
