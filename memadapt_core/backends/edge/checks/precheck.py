"""A store that was not closed cleanly is loaded in a child process first, with a memory limit and a timeout.

On damaged bytes qdrant-edge can abort the process (a flipped last byte of an id tracker: a 100 GB allocation that
failed) or allocate without bound. A cleanly closed store is checked by its seal (``checks/seal.py``) before anything
reads it; one that has no seal (a killed process, a power cut, a store last closed by an older memadapt) is loaded
once in a child first: only qdrant-edge is imported there, the log is replayed and the shard closed (its segments
then hold what the log held, so the load in-process that follows replays nothing). If the child dies, runs out of
its memory or time, or raises, opening is refused with ``StoreCorruptedError`` naming the recovery step, and the
process that opens the store survives.

Some damage loads without a word and only leaves the store shorter. So before the child, each segment's id tracker
is read against its versions file (``checks/trackers.py``, a few milliseconds): a cut id tracker is refused there and
then. The points an id tracker maps past the end of its versions file are handed to the child, which asks for them
once the log is replayed: one missing was lost (a cut versions file). As the child's load has flushed the store by
then, the refusal is made lasting with a seal of the number of points the store should hold (``seal_expected``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memadapt_core.backends.edge.checks.seal import seal_expected
from memadapt_core.backends.edge.checks.trackers import VERSIONS, PointId, read_trackers
from memadapt_core.backends.edge.shard import not_damage, recovery_step
from memadapt_core.errors import StoreCorruptedError

__all__ = ["precheck"]

_BASE_MEMORY = 2 << 30  # bytes of address space beside twice the store's files (qdrant-edge maps them)
_SECONDS = 300

_CHILD = """
import json, resource, sys
try:
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
except (ValueError, OSError):
    pass
import qdrant_edge
asked = json.loads(sys.stdin.read() or "[]")
shard = qdrant_edge.EdgeShard.load(sys.argv[1])
points = shard.info().points_count
back = len(shard.retrieve(asked, with_payload=False, with_vector=False)) if asked else 0
shard.close()
print("ok", json.dumps([points, len(asked) - back]), flush=True)
"""


def _files_size(folder: Path) -> int:
    total = 0
    for base, _, names in os.walk(folder):
        for name in names:
            try:
                total += os.stat(os.path.join(base, name)).st_size
            except OSError:
                continue
    return total


def precheck(folder: Path) -> None:
    """Read ``folder``'s id trackers, then load its shard in a child process; ``StoreCorruptedError`` if either does
    not end well."""
    trackers = read_trackers(folder)  # first: the child's load would cut a damaged id tracker to what it read
    if trackers.problems:
        raise _refusal(folder, "; ".join(trackers.problems))
    found = _load_in_child(folder, trackers.unversioned)
    if found is not None and found[1]:
        points, missing = found
        seal_expected(folder, points + missing)  # the child's load flushed: from now on only a count can tell
        why = (
            f"after replaying its write-ahead log it holds {points} points where {points + missing} were stored "
            f"({missing} of the points its id trackers map past their {VERSIONS} did not come back)"
        )
        raise _refusal(folder, why)


def _load_in_child(folder: Path, asked: list[PointId]) -> tuple[int, int] | None:
    """The points the child's load counts and how many of ``asked`` it did not find; None if it could not tell."""
    limit = _BASE_MEMORY + 2 * _files_size(folder)
    env = {**os.environ, "RUST_BACKTRACE": "0"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(folder), str(limit)], input=json.dumps(asked),
            capture_output=True, text=True, timeout=_SECONDS, env=env, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        why = f"loading it did not finish in {_SECONDS} s"
    except OSError:  # no interpreter could be started (a frozen app): opened unchecked, as before this check
        return None
    else:
        said = done.stdout.strip()
        if done.returncode == 0 and said.startswith("ok "):
            points, missing = json.loads(said[3:])
            return int(points), int(missing)
        if not_damage(done.stderr):
            return None  # locked or unusable now: the open in-process says which
        tail = " ".join(done.stderr.strip().splitlines()[-2:])[-300:]
        why = f"loading it in a child process failed (exit {done.returncode}): {tail}"
    raise _refusal(folder, why)


def _refusal(folder: Path, why: str) -> StoreCorruptedError:
    msg = f"the embedded store {folder} was not closed cleanly and is damaged: {why}. {recovery_step(folder.parent)}"
    return StoreCorruptedError(msg)
