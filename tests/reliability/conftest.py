"""Fixtures of the reliability tests: small filesystems to fill or make read-only, and the ``soak`` marker."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

Mount = Callable[[str], Path]


def pytest_configure(config: pytest.Config) -> None:
    # Registered here so `--strict-markers` accepts it until pyproject.toml lists it (see test_soak.py).
    config.addinivalue_line("markers", "soak: long mixed-load runs, only with MEMADAPT_SOAK=1 (make soak)")


def _mount_tool_missing() -> str | None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    if shutil.which("mount") is None or shutil.which("umount") is None:
        return "no mount/umount command"
    return None


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Mount]:
    """``tmpfs("48m")``: a fresh tmpfs of that size under ``tmp_path`` (skips without root); unmounted after."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        missing = _mount_tool_missing()
        if missing:
            pytest.skip(missing)
        point = tmp_path / f"fs{len(mounted)}"
        point.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in reversed(mounted):
        if subprocess.run(["umount", str(point)], capture_output=True, check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(point)], capture_output=True, check=False)
