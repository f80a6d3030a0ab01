"""Records only consolidation writes (profile statements, experiences, tool guides), planted in a store the way
its owner may restore them: an export line imported. ``add`` refuses these kinds (models.WRITABLE_KINDS)."""

from __future__ import annotations

import json
import os
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memadapt_core import AsyncMemory, Memory
from memadapt_core.models import Kind


def export_line(text: str, *, kind: Kind, metadata: dict[str, Any] | None = None, **scope: str | None) -> str:
    """One line of an export: a valid record of ``kind`` in ``scope``, stored now."""
    now = datetime.now(UTC).isoformat()
    record = {"id": str(uuid.uuid4()), "text": text, "kind": kind, "observed_at": now, "created_at": now,
              "updated_at": now, "valid_from": now, "metadata": metadata or {}, **scope}  # fmt: skip
    return json.dumps(record)


def _file(line: str) -> Path:
    fd, name = tempfile.mkstemp(prefix="memadapt-planted-", suffix=".jsonl")
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(line + "\n")
    return Path(name)


def plant(memory: Memory, text: str, *, kind: Kind, **fields: Any) -> None:
    path = _file(export_line(text, kind=kind, **fields))
    try:
        memory.import_(path)
    finally:
        path.unlink()


async def aplant(memory: AsyncMemory, text: str, *, kind: Kind, **fields: Any) -> None:
    path = _file(export_line(text, kind=kind, **fields))
    try:
        await memory.import_(path)
    finally:
        path.unlink()
