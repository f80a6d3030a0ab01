"""``memadapt doctor``: check an embedded store, salvage what is readable into a new one, say what was lost.

Damaged files can make qdrant-edge abort the process or allocate without bound, so the store is read in a child
process with a memory limit and a timeout (``memadapt_core.cli.doctor_child``). ``check`` opens the store, reads every
record (an export of them all, which also checks each against its scope) and compares their number with the points
the store counts and with those it held at its last clean close (the seal, ``backends/edge/checks/seal.py``). When that
fails (the store does not open, aborts, or reads back short), ``check`` also replays the store's write-ahead log
into a scratch folder (``doctor_child``): a complete log rebuilds the store as last written; a partial one gives the
records written since its start.

A payload index that does not agree with the payloads (``backends/edge/checks/indexes.py``) hides records that are still
on disk: ``check`` reports it, and ``salvage`` first rebuilds it from the payloads in place (``rebuilt_indexes``), so
every record reads back again.

``salvage`` imports into a new store (re-embedded) the whole replay when the log is complete, and otherwise every
record the store reads back plus those only the log holds; the report says how many were salvaged and how many the
store held (at its last clean close, or as it counts them now) but could not give back (``lost``).
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

_CHILD_SECONDS = 600


def _child(args: list[str]) -> dict[str, Any]:
    env = {**os.environ, "RUST_BACKTRACE": "0"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memadapt_core.cli.doctor_child", *args],
            capture_output=True, text=True, timeout=_CHILD_SECONDS, env=env, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"opened": False, "error": f"reading the store did not finish in {_CHILD_SECONDS} s"}
    lines = done.stdout.strip().splitlines()
    if lines:
        report: dict[str, Any] = json.loads(lines[-1])
        return report
    tail = " ".join(done.stderr.strip().splitlines()[-2:])[-300:]
    return {"opened": False, "error": f"reading the store ended the process (exit {done.returncode}): {tail}"}


def _store_ok(report: dict[str, Any]) -> bool:
    if not report.get("opened") or "error" in report or report.get("problems"):
        return False
    points, readable, expected = report.get("points"), report.get("readable", 0), report.get("expected")
    return not (isinstance(points, int) and points > readable) and (expected is None or expected == points)


def check(
    options: dict[str, Any], export_to: str | Path, log_export_to: str | Path | None = None, *,
    rebuild_indexes: bool = False,
) -> dict[str, Any]:  # fmt: skip
    """Read the store ``options`` name (``Memory``'s keyword arguments) in a child process, exporting every readable
    record to ``export_to``. The report: ``opened``, ``points`` (what the store counts), ``expected`` (records at
    its last clean close, if it was closed cleanly), ``readable`` (records exported), ``problems`` (what did not
    match the seal), ``error`` (why it could not be read), ``verdict``. If the store is not whole, its write-ahead
    log is replayed too (exported to ``log_export_to``, by default beside ``export_to``): ``log`` reports it. With
    ``rebuild_indexes``, damaged payload indexes are rebuilt from the payloads before reading (``rebuilt_indexes``
    names them)."""
    rebuild = ["rebuild-indexes"] if rebuild_indexes else []
    report = _child(["store", json.dumps(options), str(export_to), *rebuild])
    if not _store_ok(report) and not _in_use(report):  # a store in use is not damaged: its log is being written
        log_to = Path(log_export_to) if log_export_to is not None else Path(f"{export_to}.log.jsonl")
        with tempfile.TemporaryDirectory(prefix="memadapt-doctor-log-") as scratch:
            log = _child(["log", json.dumps(options), str(log_to), scratch])
        report["log"] = {k: log[k] for k in ("opened", "readable", "complete", "error") if k in log}
    report["verdict"] = _verdict(report)
    return report


def _in_use(report: dict[str, Any]) -> bool:
    return str(report.get("error", "")).startswith("StoreLockedError")


def _verdict(report: dict[str, Any]) -> str:
    if _store_ok(report) and report.get("rebuilt_indexes"):
        return (
            f"repaired: the payload indexes of {', '.join(report['rebuilt_indexes'])} did not match the payloads and "
            "were rebuilt from them; every record the store counts reads back"
        )
    if _store_ok(report):
        return "ok: every record the store counts reads back"
    if _in_use(report):
        return "in use: another process holds the store; close it there, then run doctor again"
    if not report.get("opened") or "error" in report:
        found = f"damaged: the store cannot be read ({report.get('error', 'no report')})"
    else:
        held = report.get("expected", report.get("points"))
        found = f"damaged: {report.get('readable', 0)} records read back of {held}"
        if report.get("problems"):
            found += f" ({'; '.join(report['problems'][:3])})"
        if any("payload index" in p for p in report.get("problems", [])):
            found += ". --salvage rebuilds the payload indexes from the payloads first"
    log = report.get("log", {})
    if log.get("opened") and log.get("complete"):
        return (
            f"{found}. Its write-ahead log is whole and replays {log.get('readable', 0)} records: --salvage copies them"
        )
    if log.get("opened") and log.get("readable"):
        return (
            f"{found}. Its write-ahead log holds only its latest writes ({log['readable']} records): --salvage copies "
            "them with every record the store reads back; restore a backup for the rest"
        )
    if report.get("readable"):
        return f"{found}. --salvage copies the records that read back; restore a backup for the rest"
    return (
        f"{found}. Neither the store nor its write-ahead log gave back a record through qdrant-edge (it has no way "
        "to read segments it cannot load): restore a backup of the folder"
    )


def _merge(first: Path, second: Path, out: Path) -> None:
    """JSON lines of ``first``, then those of ``second`` whose record id ``first`` does not hold."""
    seen: set[str] = set()
    with out.open("w", encoding="utf-8") as dst:
        for src in (first, second):
            if not src.exists():
                continue
            with src.open(encoding="utf-8") as lines:
                for line in lines:
                    rid = json.loads(line).get("id")
                    if rid not in seen:
                        seen.add(rid)
                        dst.write(line if line.endswith("\n") else line + "\n")


def salvage(options: dict[str, Any], target: str | Path) -> dict[str, Any]:
    """``check`` the store, then import what was readable into a new store at ``target`` (which must not hold a
    store yet): the log's replay if it is whole, else what the store reads back and what only the log holds. The
    report adds ``salvaged`` and ``lost`` (records the store held but that could not be given back)."""
    from memadapt_core.engine import Memory

    with tempfile.TemporaryDirectory(prefix="memadapt-doctor-") as tmp:
        store_dump, log_dump, merged = Path(tmp, "store.jsonl"), Path(tmp, "log.jsonl"), Path(tmp, "salvage.jsonl")
        report = check(options, store_dump, log_dump, rebuild_indexes=True)
        log = report.get("log", {})
        if log.get("opened") and log.get("complete"):
            source = log_dump
        else:
            _merge(store_dump, log_dump, merged)
            source = merged
        if not source.exists() or not source.stat().st_size:
            report["salvaged"] = 0
        else:
            with Memory(**{**options, "path": str(target)}) as new:
                report["salvaged"] = new.import_(source)
    held = report.get("expected", report.get("points"))
    if held is None and log.get("complete"):
        held = log.get("readable")
    report["lost"] = max(0, held - report["salvaged"]) if isinstance(held, int) else None
    return report


def check_in_scratch(options: dict[str, Any]) -> dict[str, Any]:
    """``check`` with its readable records written into a scratch folder that is removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="memadapt-doctor-") as tmp:
        return check(options, f"{tmp}/readable.jsonl")
