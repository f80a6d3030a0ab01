"""A store that was not closed cleanly: each segment's id tracker is read against its versions file before loading.

A segment that takes writes keeps two append-only files (qdrant's ``lib/segment/src/id_tracker/mutable_id_tracker``):
``mutable_id_tracker.mappings``, a log of changes (an insert links a point id to an internal offset, a delete unlinks
it), and ``mutable_id_tracker.versions``, one little-endian u64 per internal offset. qdrant flushes the mappings
first, then the vectors and payloads, and the versions last, so however a process is killed:

- the mappings cover at least as many offsets as the versions file holds (qdrant asserts it in debug builds: "can
  never have more versions than internal point mappings"). A mappings file cut short loads without a word and drops
  the points it no longer names, while its versions file still counts them: a versions file longer than its mappings
  is damage (``problems``).
- a point the mappings name past the end of the versions file was written after the last complete flush: qdrant
  drops it on load and the write-ahead log, not yet acknowledged past it, writes it again. memadapt never writes while
  a flush runs, so no logged delete can have removed it since. Those points (``unversioned``) must all be back once
  the log is replayed; one that is not was lost with a versions file cut short (``checks/precheck.py`` asks the child).

Reading costs one pass over the mappings file (about 0.3 ms per 1,000 points, measured).

An optimized segment's id tracker (``lib/segment/src/id_tracker/immutable_id_tracker``) is written once: its
``id_tracker.mappings`` starts with the number of points as a little-endian u64, ``id_tracker.versions`` holds one u64
each and ``id_tracker.deleted`` one bit each (in u64 words). A versions or deleted file shorter than that loads without
a word and drops the points past its end (a versions file cut to half: bob listed 0 of his 180 records), so it is
damage. A flipped bit of ``deleted`` looks like a deletion: only the seal's digests see it.
"""

from __future__ import annotations

import struct
import uuid
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MAPPINGS", "VERSIONS", "TrackerReport", "read_mappings", "read_trackers"]

MAPPINGS, VERSIONS = "mutable_id_tracker.mappings", "mutable_id_tracker.versions"
FIXED_MAPPINGS, FIXED_VERSIONS, FIXED_DELETED = "id_tracker.mappings", "id_tracker.versions", "id_tracker.deleted"
_INSERT_NUM, _INSERT_UUID, _DELETE_NUM, _DELETE_UUID = 1, 2, 3, 4
_SIZES = {_INSERT_NUM: 13, _INSERT_UUID: 21, _DELETE_NUM: 9, _DELETE_UUID: 17}  # the first byte says the size
_VERSION_SIZE = 8
_CHUNK = 1 << 20

PointId = int | str


@dataclass
class TrackerReport:
    problems: list[str] = field(default_factory=list)  # one sentence per damaged segment
    unversioned: list[PointId] = field(default_factory=list)  # live points with no version yet: the log's to bring back


def _point_id(kind: int, raw: bytes) -> PointId:
    if kind in (_INSERT_NUM, _DELETE_NUM):
        value: int = struct.unpack("<Q", raw)[0]
        return value
    return str(uuid.UUID(bytes=raw))  # qdrant writes a UUID's 16 bytes in their usual order


def read_mappings(path: Path, versions: int) -> tuple[int, list[PointId]]:
    """The number of internal offsets the mappings file ``path`` covers (the highest inserted one + 1), and the points
    it leaves linked at an offset of ``versions`` or more; read as qdrant reads it, up to the first incomplete or
    unknown change."""
    top, carry = -1, b""
    past: dict[PointId, int] = {}
    with path.open("rb") as f:
        while chunk := f.read(_CHUNK):
            data = carry + chunk
            pos, end = 0, len(data)
            while pos < end:
                kind = data[pos]
                size = _SIZES.get(kind)
                if size is None:
                    return top + 1, list(past)  # qdrant refuses such a file itself: the load in the child says so
                if pos + size > end:
                    break
                if kind <= _INSERT_UUID:
                    offset = struct.unpack_from("<I", data, pos + size - 4)[0]
                    top = max(top, offset)
                    if offset >= versions:
                        past[_point_id(kind, data[pos + 1 : pos + size - 4])] = offset
                    elif past:
                        past.pop(_point_id(kind, data[pos + 1 : pos + size - 4]), None)
                elif past:
                    past.pop(_point_id(kind, data[pos + 1 : pos + size]), None)
                pos += size
            carry = data[pos:]
    return top + 1, list(past)


def _segments(folder: Path) -> list[Path]:
    """The segment folders qdrant-edge would load (it deletes ``*.deleted`` ones and those without ``version.info``)."""
    try:
        found = sorted((folder / "segments").iterdir())
    except OSError:
        return []
    return [
        d for d in found
        if d.is_dir() and not d.name.startswith(".") and d.suffix != ".deleted" and (d / "version.info").is_file()
    ]  # fmt: skip


def _fixed_tracker_problem(segment: Path) -> str | None:
    """Whether an optimized segment's versions and deleted files cover every point its mappings file counts."""
    try:
        with (segment / FIXED_MAPPINGS).open("rb") as f:
            head = f.read(8)
        if len(head) < 8:
            return f"segment {segment.name}'s {FIXED_MAPPINGS} is cut short"
        points: int = struct.unpack("<Q", head)[0]
        sizes = {name: (segment / name).stat().st_size for name in (FIXED_VERSIONS, FIXED_DELETED)}
    except OSError as exc:
        return f"segment {segment.name}'s id tracker cannot be read ({exc})"
    if sizes[FIXED_VERSIONS] < points * _VERSION_SIZE or sizes[FIXED_DELETED] < (points + 7) // 8:
        return (
            f"segment {segment.name} counts {points} points, but its {FIXED_VERSIONS} ({sizes[FIXED_VERSIONS]} bytes) "
            f"or {FIXED_DELETED} ({sizes[FIXED_DELETED]} bytes) is shorter"
        )
    return None


def read_trackers(folder: Path) -> TrackerReport:
    """Read the id trackers of the shard in ``folder`` against their versions files."""
    report = TrackerReport()
    for segment in _segments(folder):
        if (segment / FIXED_MAPPINGS).exists():
            if (why := _fixed_tracker_problem(segment)) is not None:
                report.problems.append(why)
            continue
        try:
            versions = (segment / VERSIONS).stat().st_size // _VERSION_SIZE
        except FileNotFoundError:
            versions = 0  # none written yet: every mapped point is the log's to bring back
        except OSError as exc:
            report.problems.append(f"{segment.name}/{VERSIONS} cannot be read ({exc})")
            continue
        try:
            offsets, unversioned = read_mappings(segment / MAPPINGS, versions)
        except FileNotFoundError:
            offsets, unversioned = 0, []
        except OSError as exc:
            report.problems.append(f"{segment.name}/{MAPPINGS} cannot be read ({exc})")
            continue
        if versions > offsets:
            report.problems.append(
                f"segment {segment.name} maps {offsets} points where {versions} were stored (its {MAPPINGS} "
                f"is shorter than its {VERSIONS})"
            )
        report.unversioned += unversioned
    return report
