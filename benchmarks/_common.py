"""Shared helpers for the benchmark runners: machine description, percentiles, tables, JSON output, and the
synthetic memories and questions the speed benchmarks store and ask."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
from collections.abc import Iterable, Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")

SUBJECTS = ["my sister", "the dog", "our team", "my landlord", "the new manager", "grandma", "my doctor", "Sam"]
VERBS = ["mentioned", "booked", "cancelled", "loved", "complained about", "planned", "forgot", "finished"]
OBJECTS = [
    "the trip to Kyoto", "a pottery class", "the marathon", "dinner at the Thai place", "the quarterly report",
    "a dentist appointment", "the garden fence", "piano lessons", "the car insurance", "a birthday party",
    "the hiking boots", "a job interview", "the leaking roof", "a chess tournament", "the wedding playlist",
]  # fmt: skip
WHEN = ["yesterday", "last week", "on Monday", "this morning", "in March", "two days ago", "at the weekend", ""]


def sentence(rng: random.Random) -> str:
    """A synthetic memory: "<subject> <verb> <object> [<when>]"."""
    return f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(WHEN)}".strip()


def question(rng: random.Random) -> str:
    """A synthetic question about those memories."""
    return f"what did {rng.choice(SUBJECTS)} say about {rng.choice(OBJECTS)}"


def version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "-"


def machine() -> dict[str, Any]:
    mem_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    except OSError:
        pass
    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next(
            (
                ln.split(":", 1)[1].strip()
                for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if "model name" in ln
            ),
            "",
        )

    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "ram_gib": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "qdrant-edge-py": version("qdrant-edge-py"),
        "qdrant-client": version("qdrant-client"),
        "wordllama": version("wordllama"),
        "numpy": version("numpy"),
        "load_avg_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "engine": engine_state(),
    }


def engine_state() -> dict[str, Any]:
    """Which engine the figures come from: a digest of the packages' source as run, and the git commit with whether
    the packages differ from it (read-only git calls; no commit when this is no git checkout)."""
    root = Path(__file__).resolve().parents[1]
    packages = ["memadapt_core", "memadapt_autogen", "memadapt_agentscope", "memadapt_langchain"]
    digest = hashlib.sha256()
    for pkg in packages:
        for path in sorted((root / pkg).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout if done.returncode == 0 else ""

    return {
        "code_sha256": digest.hexdigest()[:12],
        "commit": git("rev-parse", "--short", "HEAD").strip() or None,
        "uncommitted_changes": bool(git("status", "--porcelain", "--", *packages).strip()),
    }


def machine_line(info: dict[str, Any]) -> str:
    """One line for a report: cores, memory, CPU, load when the run started, versions."""
    return (
        f"machine: {info['cores']} cores, {info['ram_gib']} GiB, {info['cpu']}, load {info.get('load_avg_1m')}; "
        f"python {info['python']}, qdrant-edge-py {info['qdrant-edge-py']}, qdrant-client {info['qdrant-client']}, "
        f"wordllama {info['wordllama']}; engine {_engine_text(info.get('engine'))}"
    )


def _engine_text(state: dict[str, Any] | None) -> str:
    if not state:
        return "unknown"
    where = state.get("commit") or "no git"
    dirty = " + uncommitted changes" if state.get("uncommitted_changes") else ""
    return f"{where}{dirty} (code {state['code_sha256']})"


def engine_changed(before: dict[str, Any]) -> str | None:
    """A warning when the engine's code changed on disk while a benchmark ran. The running process keeps the code it
    imported, but child processes started later would run the new code: the figures could mix two engines."""
    now = engine_state()
    was = (before.get("engine") or {}).get("code_sha256")
    return None if now["code_sha256"] == was else f"WARNING: the engine's code changed during this run: {now}"


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mib() -> float:
    """This process's resident memory now."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def progress(items: Iterable[T], desc: str, total: int | None = None, unit: str = "it") -> Iterator[T]:
    """A tqdm bar on stderr when tqdm is installed and stderr is a terminal or ``BENCH_PROGRESS=1``; else plain."""
    want = os.environ.get("BENCH_PROGRESS")
    show = want == "1" or (want != "0" and sys.stderr.isatty())
    if show:
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover
            pass
        else:
            yield from tqdm(items, desc=desc, total=total, unit=unit, leave=False, dynamic_ncols=True)
            return
    yield from items


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def make_embedder(name: str | None) -> Any:
    """A provider name for ``Memory(embedder=...)``; ``hash`` is the deterministic test embedder (smoke tests)."""
    if name == "hash":
        from memadapt_core.testing import HashEmbedder

        return HashEmbedder()
    return name


def write_json(path: str | None, data: Any) -> None:
    if path:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(data, indent=2, default=str))
