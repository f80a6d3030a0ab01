"""The child process of ``memadapt doctor``: read a damaged embedded store without letting its files take the caller
down (a memory limit; the parent adds a timeout), and print one JSON report.

``python -m memadapt_core.cli.doctor_child store OPTIONS EXPORT_TO [rebuild-indexes]`` opens the store itself and
exports every readable record. The checks of the seal and of the payload indexes (``backends/edge/checks/``)
are noted, not raised, and the seal of a damaged store is kept, so the store goes on refusing to open until it is
salvaged; with ``rebuild-indexes`` a damaged payload index is rebuilt from the payloads before the export.

``python -m memadapt_core.cli.doctor_child log OPTIONS EXPORT_TO SCRATCH`` reads the store's write-ahead log instead: it
copies each collection's ``wal/`` and ``edge_config.json`` (nothing from ``segments/``) into ``SCRATCH``, marks the
log unacknowledged (``first-index`` back to 0) and lets qdrant-edge replay all of it into fresh segments. qdrant-edge
keeps the log from the store's creation until a 32 MiB log file is closed and a later one too (it keeps one closed
file); such a replay rebuilds the store exactly as last written, and holds the info point written at creation
(``complete``). A longer history leaves only the log's tail: the records written since, reported as a partial replay.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

__all__ = ["main"]

MEMORY_LIMIT = 4 << 30  # bytes of address space: damaged files can allocate without bound


def _limit_memory() -> None:
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ImportError, ValueError, OSError):
        pass


def _root(options: dict[str, Any]) -> Path:
    from memadapt_core.config import default_path
    from memadapt_core.engine.resources import build_settings

    path = build_settings(None, {"path": options.get("path")}).path
    return Path(path).expanduser() if path else default_path()


def _read(options: dict[str, Any], export_to: str) -> dict[str, Any]:
    from memadapt_core import MemadaptError, Memory

    report: dict[str, Any] = {"opened": False}
    try:
        with Memory(**options) as mem:
            report["opened"] = True
            report["points"] = mem.stats().get("points")
            report["readable"] = mem.export(export_to)
    except MemadaptError as exc:
        report["error"] = f"{type(exc).__name__}: {exc}"
    return report


def _store(options: dict[str, Any], export_to: str, *, rebuild_indexes: bool) -> dict[str, Any]:
    from memadapt_core.backends.edge.checks import seal as edge_seal

    seen = edge_seal.inspect(rebuild_indexes=rebuild_indexes)
    report = _read(options, export_to)
    if seen.expected is not None:
        report["expected"] = max(0, seen.expected - 1)  # records: the info point is not one
    if seen.problems:
        report["problems"] = seen.problems
    if seen.rebuilt:
        report["rebuilt_indexes"] = seen.rebuilt
    return report


def _log(options: dict[str, Any], export_to: str, scratch: Path) -> dict[str, Any]:
    import qdrant_edge as qe

    from memadapt_core.backends.edge.schema import INFO_IDS

    root = _root(options)
    complete = True
    copied = 0
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if not (folder / "wal").is_dir():
            continue
        target = scratch / folder.name
        target.mkdir(parents=True)
        shutil.copytree(folder / "wal", target / "wal")
        if (folder / "edge_config.json").is_file():
            shutil.copy2(folder / "edge_config.json", target / "edge_config.json")
        (target / "wal" / "first-index").write_text('{"ack_index":0}', encoding="utf-8")
        shard = qe.EdgeShard.load(str(target))  # the replay: every entry the log still holds
        try:
            ids: list[Any] = list(INFO_IDS)
            complete = complete and bool(shard.retrieve(ids, with_payload=False, with_vector=False))
        finally:
            shard.close()
        copied += 1
    if not copied:
        return {"opened": False, "error": f"no write-ahead log under {root}"}
    report = _read({**options, "path": str(scratch), "check_unclean_open": False}, export_to)  # loaded just now
    report["complete"] = complete
    return report


def main(argv: list[str]) -> None:
    _limit_memory()
    mode, options, export_to = argv[1], json.loads(argv[2]), argv[3]
    try:
        if mode == "store":
            report = _store(options, export_to, rebuild_indexes=argv[4:5] == ["rebuild-indexes"])
        else:
            report = _log(options, export_to, Path(argv[4]))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a Rust panic on bad bytes is a BaseException: the parent reports it
        report = {"opened": False, "error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv)
