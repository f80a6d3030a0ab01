"""Who holds an embedded store: a note in its lock file, so a process refused the store is told which one has it.

The note is JSON: the holder's pid and what the process said of itself through ``set_holder`` (``memadapt serve``:
its program and URL; other ``memadapt`` commands: their program). No command line is written (it may carry a
token), and the lock file is readable by its owner only.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

__all__ = ["forget_holder", "locked_message", "read_note", "set_holder", "write_note"]

_HOLDER: dict[str, str] = {}
_NOTE_BYTES = 4096


def set_holder(*, program: str, url: str | None = None) -> None:
    """Describe this process in the lock files of the stores it opens from now on."""
    _HOLDER.clear()
    _HOLDER["program"] = program
    if url is not None:
        _HOLDER["url"] = url


def forget_holder() -> None:
    """This process says nothing of itself any more (``memadapt_core.cli.main`` returned)."""
    _HOLDER.clear()


def write_note(fd: int) -> None:
    """Write this process's note into the lock file it has just locked (best effort: the lock is what counts)."""
    note = json.dumps({"pid": os.getpid(), **_HOLDER}).encode()
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, note, 0)
    except OSError:
        pass


def read_note(path: Path) -> dict[str, object]:
    """The note of the process holding ``path`` ({} when there is none or it cannot be read)."""
    try:
        with open(path, "rb") as file:
            note = json.loads(file.read(_NOTE_BYTES) or b"{}")
    except (OSError, ValueError):
        return {}
    return note if isinstance(note, dict) else {}


def locked_message(folder: Path, note: dict[str, object]) -> str | None:
    """The lock error's words when the holder left a note, naming it and what to do; None without one."""
    pid, program, url = note.get("pid"), note.get("program"), note.get("url")
    if not isinstance(pid, int) or pid == os.getpid() or not isinstance(program, str):
        return None  # no note, or this process's own (qdrant-edge's lock refused a holder that takes no flock)
    if isinstance(url, str):
        return (
            f"the embedded store {folder} is held by `{program}` at {url} (pid {pid}), and the embedded store "
            f"serves one process. Talk to that service instead (`memadapt --server {url} --token TOKEN search ...`, or "
            f"RemoteMemory({url!r}, token=...) in Python), or stop it (pid {pid}) first."
        )
    return (
        f"the embedded store {folder} is already open in `{program}` (pid {pid}), and the embedded store serves "
        f"one process: wait for it to finish or stop it first; to share one store, run `memadapt serve` over it "
        "and talk to that (`--server URL`, RemoteMemory), or run a Qdrant server and pass url=..."
    )
