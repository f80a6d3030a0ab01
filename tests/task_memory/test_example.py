"""examples/task_memory.py runs offline and shows what it claims: failure, lesson, success."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.docs.test_readme import offline_env

ROOT = Path(__file__).resolve().parents[2]


def test_the_task_memory_example_fails_learns_and_then_succeeds(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-W", "error", str(ROOT / "examples" / "task_memory.py")], cwd=tmp_path,
        env=offline_env(tmp_path), capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip

    assert run.returncode == 0, run.stderr[-3000:]
    lines = run.stdout.splitlines()
    assert "tool said: error: date must be YYYY-MM-DD  -> score 0.0" in lines[1]
    assert "lesson (failure): book_flight only accepts YYYY-MM-DD" in run.stdout
    assert "<memadapt-experience>" in run.stdout
    assert "tool said: booked: AF1234 on 2026-11-30  -> score 1.0" in lines[-1]
