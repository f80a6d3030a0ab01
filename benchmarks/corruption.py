"""The full corruption campaign: flip a byte and truncate each file of a populated, cleanly closed embedded store in
turn, and open every case in its own memory-limited child; count the outcomes.

    python benchmarks/corruption.py [--records 400] [--dir /tmp/corruption] [--unclean]

``--unclean`` removes the seal a clean close leaves first (as a killed process leaves the store): the damage is
then met by the check in a child process (backends/edge_precheck.py) or by qdrant-edge itself.

Each case ends one of: ``read`` (both users read back whole), ``short`` (opened, but records missing: the silent
failure), ``StoreCorruptedError`` (or another ``MemadaptError``), ``raw`` (another exception), ``died`` (the process
aborted or ran out of its 3 GiB), ``hung`` (over 120 s). The suite runs a sample (tests/reliability/test_corruption.py).
"""

from __future__ import annotations

import argparse
import collections
import json
import shutil
import subprocess
import sys
from pathlib import Path

CHECK = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
from memadapt_core import Memory, MemadaptError
from memadapt_core.testing import HashEmbedder
try:
    with Memory(path=sys.argv[1], embedder=HashEmbedder(dim=8)) as mem:
        print(json.dumps(["read", [len(list(mem.iter_records(user_id=u))) for u in ("alice", "bob")]]))
except MemadaptError as exc:
    print(json.dumps([type(exc).__name__, str(exc)[:200]]))
except BaseException as exc:
    print(json.dumps(["raw", f"{type(exc).__name__}: {exc}"[:200]]))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=400)
    parser.add_argument("--dir", default="/tmp/memadapt-corruption")
    parser.add_argument("--unclean", action="store_true", help="remove the seal first")
    args = parser.parse_args()
    from memadapt_core import Memory
    from memadapt_core.testing import HashEmbedder

    work = Path(args.dir)
    shutil.rmtree(work, ignore_errors=True)
    original = work / "original"
    half = args.records // 2
    with Memory(path=original, embedder=HashEmbedder(dim=8)) as mem:
        for user in ("alice", "bob"):
            mem.add([f"{user} note {i}" for i in range(half)], user_id=user)
    if args.unclean:
        for sealed in original.glob(".*.seal"):
            sealed.unlink()
    files = sorted(p.relative_to(original) for p in original.rglob("*") if p.is_file() and p.stat().st_size)
    files = [p for p in files if not p.name.endswith(".lock")]
    outcomes: collections.Counter[str] = collections.Counter()
    for rel in files:
        for how in ("flip", "truncate"):
            case = work / "case"
            shutil.rmtree(case, ignore_errors=True)
            shutil.copytree(original, case)
            data = bytearray((case / rel).read_bytes())
            if how == "truncate":
                data = data[: len(data) // 2]
            else:
                data[min(len(data) - 1, 17)] ^= 0xFF
            (case / rel).write_bytes(bytes(data))
            try:
                done = subprocess.run(
                    [sys.executable, "-c", CHECK, str(case)], capture_output=True, text=True, timeout=120, check=False
                )
                line = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
                kind, detail = json.loads(line[0]) if line else ("died", f"exit {done.returncode}")
            except subprocess.TimeoutExpired:
                kind, detail = "hung", ""
            if kind == "read" and detail != [half, half]:
                kind = "short"
            outcomes[kind] += 1
            if kind not in ("read", "StoreCorruptedError"):
                print(f"{rel} {how}: {kind} {detail}", flush=True)
    print(json.dumps({"files": len(files), "cases": 2 * len(files), **outcomes}))


if __name__ == "__main__":
    main()
