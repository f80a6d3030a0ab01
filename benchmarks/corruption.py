"""The full corruption campaign: damage each file of a populated, cleanly closed embedded store in turn (truncate it
to half, zero it, flip a byte), open every case in its own memory-limited child and read it; count the outcomes.

    python benchmarks/corruption.py [--records 3300] [--dir /tmp/memadapt-corruption] [--unclean] [--indexes]

The store holds three users (45 % / 45 % / 10 % of ``--records``, each in a session), an agent's records and a few
facts, in two segments: one optimized (immutable indexes) and one taking writes since (mutable indexes), so each
kind of payload index file is there. ``--unclean`` removes the seal a clean close leaves first (as a killed process
leaves the store): the damage is then met by the checks at open (``backends/edge_precheck.py``,
``backends/edge_indexes.py``) or by qdrant-edge itself. ``--indexes`` damages only the payload indexes' files.

Each case ends one of: ``read`` (every read gives what the undamaged store gives: each user's listing, each
session's, the agent's, a count per kind), ``short`` (opened, but a read differs: the silent failure),
``StoreCorruptedError`` (or another ``MemadaptError``), ``raw`` (another exception), ``died`` (the process aborted or
ran out of its 3 GiB), ``hung`` (over 120 s). The suite runs a sample (tests/reliability/test_corruption.py,
tests/reliability/test_payload_index_damage.py).
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
        seen = {u: len(list(mem.iter_records(user_id=u))) for u in ("alice", "bob", "carol")}
        seen |= {u + "/s": len(list(mem.iter_records(user_id=u, session_id=u + "-s"))) for u in ("alice", "bob")}
        seen["helper"] = len(list(mem.iter_records(agent_id="helper")))
        seen |= {k: mem.count(user_id="alice", kinds=[k]) for k in ("message", "fact")}
        print(json.dumps(["read", seen]))
except MemadaptError as exc:
    print(json.dumps([type(exc).__name__, str(exc)[:200]]))
except BaseException as exc:
    print(json.dumps(["raw", f"{type(exc).__name__}: {exc}"[:200]]))
"""
HOWS = ("truncate", "zero", "flip")


def build(folder: Path, records: int) -> None:
    from memadapt_core import Memory
    from memadapt_core.testing import HashEmbedder

    big, small = records * 45 // 100, records // 10
    with Memory(path=folder, embedder=HashEmbedder(dim=8)) as mem:
        for user, n in (("alice", big), ("bob", big), ("carol", small)):
            mem.add([f"{user} note {i}" for i in range(n)], user_id=user, session_id=f"{user}-s")
        mem.optimize()  # an immutable segment; the writes below go to a mutable one
        mem.add([f"helper note {i}" for i in range(20)], agent_id="helper")
        mem.add([f"alice fact {i}" for i in range(20)], user_id="alice", kind="fact")


def damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncate":
        data = data[: len(data) // 2]
    elif how == "zero":
        data = bytearray(len(data))
    else:
        data[min(len(data) - 1, 17)] ^= 0xFF
    path.write_bytes(bytes(data))


def copy_store(source: Path, target: Path) -> None:
    """A copy keeping qdrant's preallocated files sparse (4x faster than ``shutil.copytree`` where ``cp`` can)."""
    shutil.rmtree(target, ignore_errors=True)
    if shutil.which("cp") is None or subprocess.run(["cp", "-a", "--sparse=always", str(source), str(target)],
                                                    check=False).returncode:  # fmt: skip
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target)


def run_case(case: Path) -> tuple[str, object]:
    try:
        done = subprocess.run(
            [sys.executable, "-c", CHECK, str(case)], capture_output=True, text=True, timeout=120, check=False
        )
    except subprocess.TimeoutExpired:
        return "hung", ""
    line = done.stdout.strip().splitlines()[-1:] if done.stdout.strip() else []
    if not line:
        return "died", f"exit {done.returncode}"
    kind, detail = json.loads(line[0])
    return kind, detail


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=3300)
    parser.add_argument("--dir", default="/tmp/memadapt-corruption")
    parser.add_argument("--unclean", action="store_true", help="remove the seal first")
    parser.add_argument("--indexes", action="store_true", help="damage only the payload indexes' files")
    parser.add_argument("--out", help="write the counts and every case neither whole nor refused to this JSON file")
    args = parser.parse_args()

    work = Path(args.dir)
    shutil.rmtree(work, ignore_errors=True)
    original = work / "original"
    build(original, args.records)
    kind, whole = run_case(original)  # its close seals the store again: --unclean takes the seal off each case
    if kind != "read":
        sys.exit(f"the undamaged store does not read back: {kind} {whole}")
    files = sorted(p.relative_to(original) for p in original.rglob("*") if p.is_file() and p.stat().st_size)
    files = [p for p in files if not p.name.endswith(".lock") and (not args.indexes or "payload_index" in p.parts)]
    if args.unclean:  # each case goes without its seal
        files = [p for p in files if not p.name.endswith(".seal")]
    outcomes: collections.Counter[str] = collections.Counter()
    notable: list[dict[str, object]] = []
    for done, rel in enumerate(files):
        for how in HOWS:
            case = work / "case"
            copy_store(original, case)
            if args.unclean:
                for sealed in case.glob(".*.seal"):
                    sealed.unlink()
            damage(case / rel, how)
            kind, detail = run_case(case)
            if kind == "read" and detail != whole:
                kind = "short"
            outcomes[kind] += 1
            if kind not in ("read", "StoreCorruptedError"):
                print(f"{rel} {how}: {kind} {detail}", flush=True)
                notable.append({"file": str(rel), "how": how, "outcome": kind, "detail": detail})
        print(f"{done + 1}/{len(files)} files: {dict(outcomes)}", file=sys.stderr, flush=True)
    report = {"sealed": not args.unclean, "files": len(files), "cases": len(HOWS) * len(files), **outcomes}
    print(json.dumps(report))
    if args.out:
        Path(args.out).write_text(json.dumps({**report, "records": args.records, "notable": notable}, indent=1) + "\n")


if __name__ == "__main__":
    main()
