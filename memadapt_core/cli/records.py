"""``memadapt get``, ``update``, ``history`` and ``delete``: one record by id, scoped by ``--user``/``--agent``/
``--session`` when given, or (``delete`` without an id) every record of a scope.

A record that exists outside the scope given is refused naming its id, rather than reported missing: the command
is the store owner's tool, and "not in user ann's records" is what they need to hear. Deleting a whole scope asks
first on a terminal; elsewhere it needs ``--yes``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memadapt_core.engine import Memory
from memadapt_core.errors import ValidationError
from memadapt_core.models import HistoryEvent

from .output import EXIT_NOT_FOUND, EXIT_OK, emit, record_line, scope, scope_args

__all__ = ["COMMANDS", "add_commands", "run"]

COMMANDS = ("get", "update", "history", "delete")


def add_commands(sub: Any, after: list[argparse.ArgumentParser]) -> None:
    """The record commands' arguments (memadapt_core.cli)."""
    get = sub.add_parser("get", parents=after, help="one record by id")
    get.add_argument("id")
    scope_args(get)
    update = sub.add_parser("update", parents=after, help="change a record's text (re-embedded; the old text is kept)")
    update.add_argument("id")
    update.add_argument("text")
    scope_args(update)
    history = sub.add_parser("history", parents=after, help="the changes to a record, oldest first")
    history.add_argument("id")
    scope_args(history)
    delete = sub.add_parser("delete", parents=after, help="delete one record by id, or everything in a scope")
    delete.add_argument("id", nargs="?", help="the record (with a scope: only if it is in that scope)")
    scope_args(delete)
    delete.add_argument("--yes", action="store_true", help="delete a whole scope without asking")


def run(ns: argparse.Namespace, mem: Memory) -> int:
    if ns.command == "delete" and ns.id is None:
        return _delete_scope(ns, mem)
    if ns.command == "get":
        record = mem.get(ns.id, **scope(ns))
        if record is None:
            return _missing(ns, mem, "nothing to show")
        emit(ns, record.model_dump(mode="json"), [record_line(record)])
        return EXIT_OK
    if ns.command == "update":
        if mem.get(ns.id, **scope(ns)) is None:
            return _missing(ns, mem, "nothing changed")
        record = mem.update(ns.id, text=ns.text, **scope(ns))
        emit(ns, record.model_dump(mode="json"), [record_line(record)])
        return EXIT_OK
    if ns.command == "history":
        events = mem.history(ns.id, **scope(ns))
        if not events and mem.get(ns.id, **scope(ns)) is None:
            return _missing(ns, mem, "no history to show")
        emit(ns, [e.model_dump(mode="json") for e in events], [_event_line(e) for e in events] or ["(no changes)"])
        return EXIT_OK
    if not mem.delete(ns.id, **scope(ns)):
        return _missing(ns, mem, "nothing deleted")
    emit(ns, {"deleted": 1}, [f"deleted {ns.id}"])
    return EXIT_OK


def _missing(ns: argparse.Namespace, mem: Memory, outcome: str) -> int:
    """No record ``ns.id`` in the scope given: a refusal naming the id when it is another scope's, else exit 1."""
    if any(scope(ns).values()) and mem.get(ns.id) is not None:
        field = "id"
        raise ValidationError(field, f"record {ns.id} is not one of the records of {_scope_words(ns)}; {outcome}")
    data: dict[str, Any] | None = {"deleted": 0} if ns.command == "delete" else None
    emit(ns, data, [f"no record {ns.id}"])
    return EXIT_NOT_FOUND


def _delete_scope(ns: argparse.Namespace, mem: Memory) -> int:
    """Every record of the scope, after asking on a terminal (``--yes``: without asking)."""
    n = mem.count(**scope(ns))
    if n and not ns.yes:
        what = f"delete the {n} record{'s' if n != 1 else ''} of {_scope_words(ns)}"
        if not sys.stdin.isatty():
            field = "--yes"
            raise ValidationError(field, f"is required without a terminal to ask on: add --yes to {what}")
        print(f"{what}? [y/N] ", end="", file=sys.stderr, flush=True)
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            emit(ns, {"deleted": 0}, ["nothing deleted"])
            return EXIT_OK
    deleted = mem.delete_all(**scope(ns))
    emit(ns, {"deleted": deleted}, [f"deleted {deleted} records"])
    return EXIT_OK


def _scope_words(ns: argparse.Namespace) -> str:
    """``user ann, session s1``: the scope as the question and the refusals name it."""
    given = {"user": ns.user_id, "agent": ns.agent_id, "session": ns.session_id}
    return ", ".join(f"{word} {value}" for word, value in given.items() if value is not None)


def _event_line(e: HistoryEvent) -> str:
    change = e.new_text if e.old_text is None else f"{e.old_text} -> {e.new_text}"
    by = f" (by {e.by})" if e.by else ""
    return f"{e.at:%Y-%m-%d %H:%M}  {e.event:<9} {e.record_id}{by}: {change}"
