"""What the ``memadapt`` command's modules share: its exit codes, the scope options, and its output (results on
stdout, as human lines by default or ``--json`` for scripts; progress on stderr)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import pydantic

from memadapt_core.errors import ConfigurationError
from memadapt_core.models import MemoryRecord

__all__ = [
    "EXIT_CODES",
    "EXIT_CONFIG",
    "EXIT_ERROR",
    "EXIT_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_NOT_FOUND",
    "EXIT_OK",
    "EXIT_STORE",
    "emit",
    "fail",
    "progress_bar",
    "record_line",
    "scope",
    "scope_args",
]

EXIT_OK, EXIT_NOT_FOUND, EXIT_INPUT, EXIT_STORE, EXIT_CONFIG, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 5, 130
EXIT_CODES = {
    EXIT_OK: "done",
    EXIT_NOT_FOUND: "nothing found (search; get, update, history or delete of an id)",
    EXIT_INPUT: "bad input or usage",
    EXIT_STORE: "store unavailable or locked",
    EXIT_CONFIG: "configuration error: a setting, or a missing extra (the message gives the install line)",
    EXIT_ERROR: "any other error",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
}


def scope_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--user", dest="user_id", help="user id")
    p.add_argument("--agent", dest="agent_id", help="agent id")
    p.add_argument("--session", dest="session_id", help="session id")


def scope(ns: argparse.Namespace) -> dict[str, Any]:
    return {"user_id": ns.user_id, "agent_id": ns.agent_id, "session_id": ns.session_id}


def record_line(r: MemoryRecord) -> str:
    who = r.name or r.role or r.kind
    return f"{r.id}  {r.observed_at:%Y-%m-%d %H:%M}  [{r.kind}] {who}: {r.text}"


def emit(ns: argparse.Namespace, data: Any, lines: Sequence[str]) -> None:
    print(json.dumps(data, ensure_ascii=False, default=str) if ns.json else "\n".join(lines))


def progress_bar(total_label: str, quiet: bool) -> tuple[AbstractContextManager[Any], Callable[[int], None]]:
    """A progress line on stderr (stdout carries the result): records done, their recent rate, time elapsed."""
    if quiet:
        return nullcontext(), lambda n: None
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TextColumn("{task.completed:,.0f} records"),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = progress.add_task(total_label, total=None, rate="")

    def tick(n: int) -> None:
        progress.advance(task, n)
        speed = progress.tasks[0].speed
        progress.update(task, rate=f"{speed:,.0f}/s" if speed else "")

    return progress, tick


def fail(exc: BaseException, code: int) -> int:
    """Say ``exc`` on one line of stderr; return the exit ``code``."""
    print(f"memadapt: {_one_line(exc)}", file=sys.stderr)
    return code


def _one_line(exc: BaseException) -> str:
    """The error on one line: a settings error as ``field: problem`` (pydantic's report spans several lines)."""
    cause = exc.__cause__
    if isinstance(exc, ConfigurationError) and isinstance(cause, pydantic.ValidationError):
        problems = []
        for error in cause.errors():
            where = ".".join(str(part) for part in error["loc"])
            problem = error["msg"].removeprefix("Value error, ")
            problems.append(f"{where}: {problem}" if where else problem)
        return "invalid settings: " + "; ".join(problems)
    return " ".join(str(exc).split())
