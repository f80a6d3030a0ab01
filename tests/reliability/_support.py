"""Helpers shared by the reliability tests: unique tokens, deadlines, child processes, snapshots, RSS."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings

from memadapt_core import Memory, MemoryRecord
from memadapt_core.testing import ChatRequest, ScriptItem

__all__ = [
    "FUZZ",
    "PROPERTY",
    "TOKEN",
    "ChildProcess",
    "FactPerMessage",
    "all_records",
    "crash_rng",
    "disk_bytes",
    "new_token",
    "remount",
    "reset",
    "rss_bytes",
    "snapshot",
    "tokens_in",
    "wait_until",
]

# Example counts are modest so the whole directory stays fast on two shared cores; `database=None` keeps
# hypothesis from writing `.hypothesis/` into the repository, and `deadline=None` because the first call of a
# store pays one-off costs (warm-up, thread pools) that say nothing about the behaviour under test.
PROPERTY = settings(
    max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow], stateful_step_count=20
)
FUZZ = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

TOKEN = re.compile(r"\btk[0-9a-f]{10}\b")


def new_token() -> str:
    """A word no other memory contains: tests find records by it and tell whose record a hit is."""
    return f"tk{uuid.uuid4().hex[:10]}"


def tokens_in(text: str) -> set[str]:
    return set(TOKEN.findall(text))


def wait_until(condition: Callable[[], bool], *, timeout: float, message: str) -> None:
    """A condition with a deadline (never a bare sleep): fail with ``message`` if it does not hold in time."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(message)
        time.sleep(0.01)


def all_records(mem: Memory, **scope: str | None) -> list[MemoryRecord]:
    """Every record of a scope, paging through ``list``."""
    out: list[MemoryRecord] = []
    cursor = None
    while True:
        page = mem.list(limit=500, cursor=cursor, **scope)
        out += page.records
        if (cursor := page.next_cursor) is None:
            return out


def crash_rng() -> random.Random:
    """The random source of a crash test: seeded from ``MEMADAPT_CRASH_SEED`` when set, and the seed printed (shown on
    failure: rerun the same kills with it)."""
    seed = int(os.environ.get("MEMADAPT_CRASH_SEED", random.randrange(2**32)))
    print(f"MEMADAPT_CRASH_SEED={seed}")
    return random.Random(seed)


def snapshot(mem: Memory) -> list[dict[str, Any]]:
    """The whole store as its export (every record, history included), for "nothing changed" checks."""
    with tempfile.TemporaryDirectory(prefix="memadapt-snap-") as folder:
        path = Path(folder) / "snapshot.jsonl"
        mem.export(path)
        with path.open(encoding="utf-8") as lines:  # by "\n" only: a text may hold U+2028 or U+0085 unescaped
            records = [json.loads(line) for line in lines if line.strip()]
    return sorted(records, key=lambda r: r["id"])


def reset(mem: Memory, keep: set[str]) -> None:
    """Delete every record but ``keep`` (fuzzed examples share a store; keeping it small keeps snapshots cheap)."""
    extra = [r["id"] for r in snapshot(mem) if r["id"] not in keep]
    if extra:
        mem.delete_many(extra)


def disk_bytes(folder: Path) -> int:
    """Space the files under ``folder`` really take (sparse files count what is allocated). A background vacuum
    may remove a segment while this walks: what is gone is not counted."""
    total = 0
    for base, _, names in os.walk(folder):  # os.walk skips folders that vanish; rglob raised
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                total += os.stat(os.path.join(base, name)).st_blocks * 512
    return total


def rss_bytes() -> int:
    """Resident set size of this process (Linux ``/proc``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


class ChildProcess:
    """A Python child running ``script``; a reader thread queues its stdout lines as they come."""

    def __init__(self, script: str, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", script, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **(env or {})},
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def read_line(self, *, timeout: float) -> str:
        """The next stdout line; fails (with the child's stderr) if none comes within ``timeout``."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.kill()
            raise AssertionError(f"child said nothing within {timeout}s; stderr:\n{self.stderr()}") from None
        if line is None:
            raise AssertionError(f"child ended (rc={self.proc.wait()}); stderr:\n{self.stderr()}")
        return line

    def kill(self) -> list[str]:
        """SIGKILL the child; returns the lines it wrote that were not read yet (all of them, to its end)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        rest: list[str] = []
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return rest
            if line is None:
                return rest
            rest.append(line)

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        assert self.proc.stderr is not None
        return self.proc.stderr.read()[-4000:]

    def close(self) -> None:
        self.kill()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


def remount(point: Path, options: str) -> None:
    """Change a mounted tmpfs's options (``ro``, ``rw``, ``size=...``)."""
    subprocess.run(["mount", "-o", f"remount,{options}", str(point)], capture_output=True, text=True, check=True)


class FactPerMessage:
    """An extraction LLM that answers one fact per message ("Fact: <text>") and ADD for every new fact, after a
    short, random thinking time (so kills land anywhere in a consolidation step)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def __call__(self, request: ChatRequest) -> ScriptItem | None:
        with self._lock:
            delay = self._rng.uniform(0, 0.03)
        threading.Event().wait(delay)  # simulated model latency, not a wait for a condition
        payload: Any = request.payload if isinstance(request.payload, dict) else {}
        if request.operation == "extract":
            facts = [{"text": f"Fact: {m['text']}", "sources": [m["n"]], "valid_from": None, "hypothetical": False}
                     for m in payload.get("messages", [])]  # fmt: skip
            return {"facts": facts}
        if request.operation == "reconcile":
            return {"decisions": [{"fact": f["n"], "action": "ADD", "target": None} for f in payload["new_facts"]]}
        return {"insights": [], "obsolete": []}
