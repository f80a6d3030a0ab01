"""A store that was not closed cleanly is loaded in a child process first, with a memory limit and a timeout.

On damaged bytes qdrant-edge can abort the process (a flipped last byte of an id tracker: a 100 GB allocation that
failed) or allocate without bound. A cleanly closed store is checked by its seal (``edge_seal.py``) before anything
reads it; one that has no seal (a killed process, a power cut, a store last closed by an older memadapt) is loaded
once in a child first: only qdrant-edge is imported there, the log is replayed and the shard closed (its segments
then hold what the log held, so the load in-process that follows replays nothing). If the child dies, runs out of
its memory or time, or raises, opening is refused with ``StoreCorruptedError`` naming the recovery step, and the
process that opens the store survives.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from memadapt_core.backends.edge_shard import not_damage, recovery_step
from memadapt_core.errors import StoreCorruptedError

__all__ = ["precheck"]

_BASE_MEMORY = 2 << 30  # bytes of address space beside twice the store's files (qdrant-edge maps them)
_SECONDS = 300

_CHILD = """
import resource, sys
try:
    resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))
except (ValueError, OSError):
    pass
import qdrant_edge
shard = qdrant_edge.EdgeShard.load(sys.argv[1])
shard.info()
shard.close()
print("ok", flush=True)
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
    """Load ``folder``'s shard in a child process; ``StoreCorruptedError`` if that does not end well."""
    limit = _BASE_MEMORY + 2 * _files_size(folder)
    env = {**os.environ, "RUST_BACKTRACE": "0"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, str(folder), str(limit)],
            capture_output=True, text=True, timeout=_SECONDS, env=env, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        why = f"loading it did not finish in {_SECONDS} s"
    except OSError:  # no interpreter could be started (a frozen app): opened unchecked, as before this check
        return
    else:
        if (done.returncode == 0 and done.stdout.strip() == "ok") or not_damage(done.stderr):
            return  # whole, or locked or unusable now: the open in-process says which
        tail = " ".join(done.stderr.strip().splitlines()[-2:])[-300:]
        why = f"loading it in a child process failed (exit {done.returncode}): {tail}"
    msg = f"the embedded store {folder} was not closed cleanly and is damaged: {why}. {recovery_step(folder.parent)}"
    raise StoreCorruptedError(msg)
