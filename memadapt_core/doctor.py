"""``memadapt doctor``: check an embedded store, salvage what is readable into a new one, say what was lost.

Damaged files can make qdrant-edge abort the process or allocate without bound, so the store is read in a child
process with a memory limit and a timeout (``check``): it opens the store, reads every record (an export of them
all, which also checks each against its scope) and compares their number with the points the store counts. With a
salvage folder the export is imported into a new store there (re-embedded), and the report says how many records
were salvaged and how many the damaged store counted but could not give back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["check", "salvage"]

_CHILD_MEMORY = 4 << 30  # bytes of address space the checking child may take
_CHILD_SECONDS = 600

_CHILD = """
import json, resource, sys
try:
    resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
except (ValueError, OSError):
    pass
from memadapt_core import Memory, MemadaptError
report = {{"opened": False}}
try:
    with Memory(**json.loads(sys.argv[1])) as mem:
        report["opened"] = True
        report["points"] = mem.stats().get("points")
        report["readable"] = mem.export(sys.argv[2])
except MemadaptError as exc:
    report["error"] = f"{{type(exc).__name__}}: {{exc}}"
print(json.dumps(report), flush=True)
"""


def check(options: dict[str, Any], export_to: str | Path) -> dict[str, Any]:
    """Open the store ``options`` name (``Memory``'s keyword arguments) in a child process and export every
    readable record to ``export_to``. The report: ``opened``, ``points`` (what the store counts), ``readable``
    (records exported), ``error`` (why it could not be read), ``verdict``."""
    code = _CHILD.format(limit=_CHILD_MEMORY)
    env = {**os.environ, "RUST_BACKTRACE": "0"}
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, json.dumps(options), str(export_to)],
            capture_output=True, text=True, timeout=_CHILD_SECONDS, env=env, check=False,
        )  # fmt: skip
        lines = done.stdout.strip().splitlines()
        report: dict[str, Any] = json.loads(lines[-1]) if lines else {"opened": False}
        if not lines:
            tail = " ".join(done.stderr.strip().splitlines()[-2:])[-300:]
            report["error"] = f"reading the store ended the process (exit {done.returncode}): {tail}"
    except subprocess.TimeoutExpired:
        report = {"opened": False, "error": f"reading the store did not finish in {_CHILD_SECONDS} s"}
    report["verdict"] = _verdict(report)
    return report


def _verdict(report: dict[str, Any]) -> str:
    if not report.get("opened") or "error" in report:
        return "damaged: nothing could be read through the engine; restore a backup of the folder"
    points, readable = report.get("points"), report.get("readable", 0)
    if isinstance(points, int) and points > readable:
        return f"damaged: {points - readable} of {points} records could not be read"
    return "ok: every record the store counts reads back"


def salvage(options: dict[str, Any], target: str | Path) -> dict[str, Any]:
    """``check`` the store, then import what was readable into a new store at ``target`` (which must not hold a
    store yet). The report adds ``salvaged`` and ``lost`` (records counted but not readable)."""
    from memadapt_core.engine import Memory

    with tempfile.TemporaryDirectory(prefix="memadapt-doctor-") as tmp:
        dump = Path(tmp) / "readable.jsonl"
        report = check(options, dump)
        if not report.get("opened") or "error" in report:
            report["salvaged"] = 0
            return report
        new_options = {**options, "path": str(target)}
        with Memory(**new_options) as new:
            report["salvaged"] = new.import_(dump)
    points = report.get("points")
    report["lost"] = max(0, points - report["salvaged"]) if isinstance(points, int) else None
    return report
