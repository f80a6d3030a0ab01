"""The client's export file: opened for writing (a refusal names ``path``), and the records each chunk completes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from memadapt_core.errors import ValidationError

__all__ = ["counted", "open_export"]


def open_export(path: Path) -> BinaryIO:
    try:
        return path.open("wb")
    except OSError as exc:
        field = "path"
        raise ValidationError(field, f"cannot write {path}: {exc}") from exc


def counted(chunk: bytes, progress: Callable[[int], None] | None) -> int:
    """The records a chunk of an export completes (its line ends), reported to ``progress`` when there are any."""
    n = chunk.count(b"\n")
    if n and progress is not None:
        progress(n)
    return n
