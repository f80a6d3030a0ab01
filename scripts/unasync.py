"""Write the sync copies of the async modules written by hand: ``python scripts/unasync.py`` (``--check`` compares).

Each pair's async module is the one edited; its sync copy is made by word substitutions applied in order: the
pair's own, then the ones every pair shares. A substitution that no longer matches anything in its pair fails the run,
so the tables cannot rot. The copy is then sorted and formatted by ruff, as written code is. A test runs
``--check``, so a change to one file without the other fails CI.
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "memadapt_core"
HEADER = "# Generated from {source} by scripts/unasync.py: edit that file, never this one.\n"
Substitution = tuple[str, str]

COMMON: list[Substitution] = [
    (r"\basync def\b", "def"),
    (r"\basync with\b", "with"),
    (r"\bawait ", ""),
]


@dataclass(frozen=True)
class Pair:
    source: Path
    target: Path
    own: list[Substitution] = field(default_factory=list)

    @property
    def substitutions(self) -> list[Substitution]:
        return self.own + COMMON


PAIRS = [
    Pair(
        CORE / "consolidation" / "steps.py",
        CORE / "consolidation" / "sync_steps.py",
        [
            (r"^import asyncio\nimport logging$", "import logging\nimport threading"),
            (r"\basyncio\.Lock\b", "threading.Lock"),
            (r"\bAsyncLLMClient\b", "LLMClient"),
            (r"\bConsolidationStore\b", "SyncConsolidationStore"),
            (r"\bConsolidationSteps\b", "SyncConsolidationSteps"),
            (r"the caller's task", "the caller's thread"),
        ],
    ),
    Pair(
        CORE / "api" / "async_api.py",
        CORE / "api" / "sync_api.py",
        [
            (r'^"""``AsyncMemoryAPI``: every public call of an async', '"""``MemoryAPI``: every public call of a sync'),
            (r"^class AsyncMemoryAPI\(Protocol\):", "class MemoryAPI(Protocol):"),
            (r"``AsyncMemory`` or the client ``AsyncRemoteMemory``", "``Memory`` or the client ``RemoteMemory``"),
            (r"An async memadapt memory", "A sync memadapt memory"),
            (r'^__all__ = \["AsyncMemoryAPI"\]', '__all__ = ["MemoryAPI"]'),
            (r"^    from \.sync_api import MemoryAPI$", "    from .async_api import AsyncMemoryAPI"),
            (r"\bAsyncIterator\b", "Iterator"),
        ],
    ),
    Pair(
        CORE / "client" / "async_calls.py",
        CORE / "client" / "sync_calls.py",
        [
            (r"^class AsyncRemoteCalls\(RemoteBase\):", "class RemoteCalls(RemoteBase):"),
            (r'^__all__ = \["AsyncRemoteCalls"\]', '__all__ = ["RemoteCalls"]'),
            (
                r'^"""``AsyncRemoteCalls``: the calls of ``AsyncRemoteMemory``',
                '"""``RemoteCalls``: the calls of ``RemoteMemory``',
            ),
            (r"``AsyncMemory``'s calls as requests", "``Memory``'s calls as requests"),
        ],
    ),
    Pair(
        CORE / "engine" / "calls" / "async_calls.py",
        CORE / "engine" / "calls" / "sync_calls.py",
        [
            (r"\bAsyncMemoryCalls\b", "MemoryCalls"),
            (r"\bAsyncIterator\b", "Iterator"),
            (r"\baembed_", "embed_"),
            (r"\baweights\b", "weights"),
            (
                r"\bconsolidation\.worker import ConsolidationWorker\b",
                "consolidation.sync_worker import SyncConsolidationWorker",
            ),
            (r"\bConsolidationWorker \| None\b", "SyncConsolidationWorker | None"),
            (r"(?s)\[\s*r async for r in (self\.iter_records\(.*?\))\s*\]", r"builtins.list(\1)"),
        ],
    ),
]


def unasync(text: str, substitutions: list[Substitution], used: set[str]) -> str:
    """``text`` with every substitution applied; the patterns that matched are added to ``used``."""
    for pattern, replacement in substitutions:
        text, count = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        if count:
            used.add(pattern)
    return text


def _tidy(text: str, name: Path) -> str:
    """``text`` as ruff leaves it (imports sorted, then formatted), so a generated file passes the same checks as
    a written one: a renamed import can fall out of order, a shorter line can be joined."""
    for args in (["check", "--select", "I", "--fix", "--quiet"], ["format", "--quiet"]):
        command = [sys.executable, "-m", "ruff", *args, "--stdin-filename", str(name), "-"]
        text = subprocess.run(command, input=text, capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return text


def generated(pair: Pair, used: set[str]) -> str:
    body = unasync(pair.source.read_text(), pair.substitutions, used)
    return _tidy(HEADER.format(source=pair.source.relative_to(ROOT).as_posix()) + body, pair.target)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale, unused = [], []
    used_anywhere: set[str] = set()
    for pair in PAIRS:
        used: set[str] = set()
        text = generated(pair, used)
        used_anywhere |= used
        unused += [f"{pair.source.name}: {p}" for p, _ in pair.own if p not in used]
        if pair.target.exists() and pair.target.read_text() == text:
            continue
        stale.append(pair.target)
        if not check:
            pair.target.write_text(text)
    unused += [p for p, _ in COMMON if p not in used_anywhere]
    if unused:
        print(f"substitutions that matched nothing (remove them): {unused}", file=sys.stderr)
        return 2
    if check and stale:
        names = ", ".join(t.relative_to(ROOT).as_posix() for t in stale)
        print(f"{names} differ from their async source: run python scripts/unasync.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
