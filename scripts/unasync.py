"""Write the sync copy of the async consolidation steps: ``python scripts/unasync.py`` (``--check`` only compares).

The async module is the one written by hand; its sync copy is made by the word substitutions below, applied in
order. A substitution that no longer matches anything fails the run, so the table cannot rot. A test runs
``--check`` so that a change to one file without the other fails CI.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAIRS = [
    (
        ROOT / "memadapt_core" / "consolidation" / "steps.py",
        ROOT / "memadapt_core" / "consolidation" / "sync_steps.py",
    ),
]
HEADER = "# Generated from {source} by scripts/unasync.py: edit that file and rerun, never this one.\n"
SUBSTITUTIONS = [
    (r"\basync def\b", "def"),
    (r"\basync with\b", "with"),
    (r"\bawait ", ""),
    (r"^import asyncio\nimport logging$", "import logging\nimport threading"),
    (r"\basyncio\.Lock\b", "threading.Lock"),
    (r"\bAsyncLLMClient\b", "LLMClient"),
    (r"\bConsolidationStore\b", "SyncConsolidationStore"),
    (r"\bConsolidationSteps\b", "SyncConsolidationSteps"),
    (r"the caller's task", "the caller's thread"),
]


def unasync(text: str, used: set[str]) -> str:
    """``text`` with every substitution applied; the patterns that matched are added to ``used``."""
    for pattern, replacement in SUBSTITUTIONS:
        text, count = re.subn(pattern, replacement, text, flags=re.MULTILINE)
        if count:
            used.add(pattern)
    return text


def generated(source: Path, used: set[str]) -> str:
    return HEADER.format(source=source.relative_to(ROOT).as_posix()) + unasync(source.read_text(), used)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    used: set[str] = set()
    stale = []
    for source, target in PAIRS:
        text = generated(source, used)
        if target.exists() and target.read_text() == text:
            continue
        stale.append(target)
        if not check:
            target.write_text(text)
    unused = [pattern for pattern, _ in SUBSTITUTIONS if pattern not in used]
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
