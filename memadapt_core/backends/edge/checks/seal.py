"""The seal of a cleanly closed embedded store: damage between a close and the next open is found at open.

qdrant-edge does not notice every damaged file: a truncated ``mutable_id_tracker`` file loaded fine and lost one
record of 400 without a word, and a flipped byte at its end aborted the process. So when a store closes cleanly,
memadapt writes a seal beside it (``<root>/.<collection>.seal``, JSON): the number of points the shard counts, and a
BLAKE2b digest of each of its small files: every id tracker (the map from point ids to offsets), the pages of the
mutable payload indexes, and every file under 64 KiB (configurations, status files, the log's first index). On open,
before qdrant-edge reads a byte, the files are checked against the seal, and once the shard is loaded its point
count too; a mismatch is a ``StoreCorruptedError`` naming the recovery step (``memadapt doctor --salvage``). The
seal is removed before the first write, so a store that was not closed cleanly (a killed process) has none: its
state is whatever the log replays, which no count taken earlier can predict. One exception: a store found short at
an unclean open (``checks/precheck.py``) gets a seal of the points it should hold and of no file (``seal_expected``),
so it goes on refusing to open, and doctor reports what was lost.

Costs (measured, ``benchmarks`` not needed): see docs/reliability-and-security.md.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from memadapt_core.backends.edge.shard import aside, fsync_dir, recovery_step
from memadapt_core.errors import StoreCorruptedError, StoreUnavailableError

__all__ = [
    "Inspection", "break_seal", "check_count", "check_files", "inspect", "inspection", "seal", "seal_expected",
    "seal_path",
]  # fmt: skip

_SMALL = 64 << 10  # files at most this size are digested whatever they are
_VERSION = 1


class Inspection:
    """``memadapt doctor`` reads a damaged store: what the seal says and what did not match it, noted instead of
    raised; a store that did not match keeps its seal (it goes on refusing to open until it is salvaged)."""

    def __init__(self, *, rebuild_indexes: bool = False) -> None:
        self.expected: int | None = None  # points at the last clean close
        self.problems: list[str] = []
        self.rebuild_indexes = rebuild_indexes  # damaged payload indexes are built again from the payloads
        self.rebuilt: list[str] = []  # the fields whose payload index was rebuilt (checks/indexes.py)


_inspecting: Inspection | None = None  # set only in doctor's child process


def inspect(*, rebuild_indexes: bool = False) -> Inspection:
    """From now on, in this process, seal checks are noted in the returned ``Inspection`` instead of raised (and
    damaged payload indexes rebuilt, with ``rebuild_indexes``)."""
    global _inspecting  # a process-wide mode of doctor's child, never of a library user
    _inspecting = Inspection(rebuild_indexes=rebuild_indexes)
    return _inspecting


def inspection() -> Inspection | None:
    """The ``Inspection`` of doctor's child; None in every other process."""
    return _inspecting


def _keeps_seal() -> bool:
    return _inspecting is not None and bool(_inspecting.problems)


def seal_path(folder: Path) -> Path:
    return folder.parent / aside(folder, "seal")


def _sealed_files(folder: Path) -> list[Path]:
    out = []
    for path in folder.rglob("*"):
        try:
            if path.is_file() and (_always_sealed(path) or path.stat().st_size <= _SMALL):
                out.append(path)
        except OSError:
            continue
    return sorted(out)


def _always_sealed(path: Path) -> bool:
    """Digested whatever their size: the id trackers, and the pages and trackers of the mutable payload indexes
    (a gridstore per field in a segment taking writes: ``page_N.dat``, ``tracker.dat``, a few MB each). A zeroed
    page of the ``observed_at`` index opened with every count agreeing and listed 500 of 1,505 records; a flipped
    byte of its tracker, 1 of 20 (the corruption campaign)."""
    if "id_tracker" in path.name:
        return True
    in_index = path.parent.parent.name == "payload_index"
    return in_index and (path.name == "tracker.dat" or (path.name.startswith("page_") and path.suffix == ".dat"))


def _digest(path: Path) -> str:
    h = hashlib.blake2b(digest_size=16)
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def seal(folder: Path, points: int) -> None:
    """After a clean close: record ``points`` and the digests of ``folder``'s small files. Best effort: a seal that
    cannot be written (a full disk) is no seal, and the next open simply checks less."""
    if _keeps_seal():
        return
    try:
        files = {str(p.relative_to(folder)): _digest(p) for p in _sealed_files(folder)}
    except OSError:
        return
    _write(folder, {"version": _VERSION, "points": points, "files": files})


def seal_expected(folder: Path, points: int) -> None:
    """A store found short at an unclean open (``checks/precheck.py``): a seal of the ``points`` it should hold and of
    no file, so every later open refuses it too (``check_count``) and doctor reads what was lost, as after a clean
    close."""
    _write(folder, {"version": _VERSION, "points": points, "files": {}})


def _write(folder: Path, data: dict[str, Any]) -> None:
    target = seal_path(folder)
    tmp = target.with_name(target.name + ".tmp")
    try:
        tmp.write_text(json.dumps(data), encoding="utf-8")
        with tmp.open("rb") as f:
            os.fsync(f.fileno())
        tmp.replace(target)
        fsync_dir(folder.parent)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


def _read(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(seal_path(folder).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        _fail(folder, f"its seal {seal_path(folder).name} cannot be read ({exc})")
        return None
    if not isinstance(data, dict) or data.get("version") != _VERSION:
        return None  # written by another version of memadapt: not ours to judge
    return data


def check_files(folder: Path) -> int | None:
    """Before qdrant-edge loads ``folder``: if it was sealed, check every sealed file; the number of points it held
    at its close (None when it was not closed cleanly)."""
    data = _read(folder)
    if data is None:
        return None
    files = data.get("files")
    points = data.get("points")
    if not isinstance(files, dict) or not isinstance(points, int):
        _fail(folder, f"its seal {seal_path(folder).name} is malformed")
        return None
    if _inspecting is not None:
        _inspecting.expected = points
    for rel, digest in files.items():
        try:
            found = _digest(folder / rel)
        except FileNotFoundError:
            _fail(folder, f"{rel} is missing")
            continue
        except OSError as exc:
            _fail(folder, f"{rel} cannot be read ({exc})")
            continue
        if found != digest:
            _fail(folder, f"{rel} changed since the store was closed")
    return points


def check_count(folder: Path, expected: int | None, found: int) -> None:
    """Once loaded: a sealed store holds exactly the points it held at its close."""
    if expected is not None and found != expected:
        _fail(folder, f"it holds {found} points where {expected} were stored")


def break_seal(folder: Path) -> None:
    """Before the first write after an open: the seal no longer describes the store."""
    if _keeps_seal():
        return
    path = seal_path(folder)
    try:
        path.unlink()
    except FileNotFoundError:
        return
    except OSError as exc:  # kept, it would vouch for files about to change
        msg = f"cannot open the embedded store {folder}: cannot remove its seal {path}: {exc}"
        raise StoreUnavailableError(msg) from exc
    fsync_dir(folder.parent)


def _fail(folder: Path, what: str) -> None:
    if _inspecting is None:
        raise _damaged(folder, what)
    _inspecting.problems.append(what)


def _damaged(folder: Path, what: str) -> StoreCorruptedError:
    seal_file = seal_path(folder)
    return StoreCorruptedError(
        f"the embedded store {folder} is damaged: {what}. {recovery_step(folder.parent)} If the folder itself was "
        f"restored from a backup or written by an older memadapt, remove {seal_file} and open it again."
    )
