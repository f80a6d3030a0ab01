"""The ``memadapt`` command: add, search, list, get, update, history, delete, export, import, stats, optimize,
doctor; chat; mcp and serve.

Human output by default, ``--json`` for scripts; global options go before or after the command. Exit codes
(``EXIT_CODES``, shown by ``--help``): 0 done; 1 nothing found (search; get, update, history, delete of an id); 2 bad
input or usage; 3 store unavailable or locked; 4 configuration error (a setting, or a missing extra); 5 any other
error; 130 interrupted.

The argument tables of most subcommands are here, so that ``--help`` is read in one place; what a command does
beyond its arguments lives in its own module (``records``, ``chat``, ``doctor``, ``server``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Sequence
from datetime import datetime
from importlib import metadata
from typing import Any, cast

from memadapt_core.backends.edge.holder import forget_holder, set_holder
from memadapt_core.engine import Memory
from memadapt_core.errors import ConfigurationError, MemadaptError, StoreUnavailableError, ValidationError
from memadapt_core.models import KINDS, WRITABLE_KINDS, SearchHit
from memadapt_core.validation import parse_moment, parse_time_range

from . import chat
from . import records as record_commands
from .chat import TRIAL_LLM_HELP, TRIAL_LLMS
from .output import (
    EXIT_CODES,
    EXIT_CONFIG,
    EXIT_ERROR,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_NOT_FOUND,
    EXIT_OK,
    EXIT_STORE,
    emit,
    fail,
    progress_bar,
    record_line,
    scope,
    scope_args,
)

__all__ = ["EXIT_CODES", "main"]

FORMATS = ("memadapt", "reme")
_FORMAT_HELP = "memadapt's records (default), or ReMe's experience library lines (an agent's lessons)"


def _global_options(*, after_command: bool) -> argparse.ArgumentParser:
    """The options every command takes, before or after its name. After it they default to "not given"
    (``SUPPRESS``), so a subcommand's defaults never overwrite what was given before the command."""
    options = argparse.ArgumentParser(add_help=False)
    unset: dict[str, Any] = {"default": argparse.SUPPRESS} if after_command else {}
    options.add_argument("--path", help="embedded store folder (default: MEMADAPT_PATH or the user data dir)", **unset)
    options.add_argument("--url", help="a Qdrant server, instead of the embedded store", **unset)
    options.add_argument(
        "--server", help="a running memadapt serve (http://127.0.0.1:8765) instead of a store", **unset
    )  # fmt: skip
    options.add_argument("--token", help="--server's bearer token (default: MEMADAPT_TOKEN)", **unset)
    options.add_argument(
        "--embedder",
        help="dense embedder: multilingual (default: MiniLM + USE-m3), minilm (English only), use (USE-m3), "
        "wordllama (fast), openai, fastembed, or a plugin's (MEMADAPT_EMBEDDER__*; docs/languages.md)",
        **unset,
    )
    options.add_argument("--json", action="store_true", help="machine-readable output", **unset)
    return options


def _version() -> str:
    try:
        return metadata.version("memadapt")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _parser() -> argparse.ArgumentParser:
    epilog = "exit codes:\n" + "\n".join(f"  {code:<4} {meaning}" for code, meaning in EXIT_CODES.items())
    parser = argparse.ArgumentParser(
        prog="memadapt",
        description="Long-term memory for LLM agents.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[_global_options(after_command=False)],
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    after = [_global_options(after_command=True)]

    add = sub.add_parser("add", parents=after, help="store a message or a fact")
    add.add_argument("text")
    scope_args(add)
    add.add_argument("--kind", default="message", choices=list(WRITABLE_KINDS))
    add.add_argument("--role", default="user")
    add.add_argument("--name")
    add.add_argument("--id", dest="external_id", help="the message's own id (re-adding it stores nothing)")
    add.add_argument("--timestamp", help="when it was said (ISO 8601)")
    add.add_argument("--metadata", help="JSON object")

    search = sub.add_parser("search", parents=after, help="hybrid, time-aware search in one scope")
    search.add_argument("query")
    scope_args(search)
    search.add_argument("--limit", type=int, default=5)
    search.add_argument("--kinds", nargs="+", choices=list(KINDS))
    search.add_argument("--threshold", type=float)
    search.add_argument("--now", help="the moment the query's time words count from (ISO 8601; default: now)")
    search.add_argument(
        "--time-range", nargs=2, metavar=("START", "END"),
        help="only records observed from START up to END (ISO 8601 dates or date-times, UTC unless an offset is "
        "given; - leaves that end open)",
    )  # fmt: skip

    lst = sub.add_parser("list", parents=after, help="records of a scope, oldest first")
    scope_args(lst)
    lst.add_argument("--limit", type=int, default=50)
    lst.add_argument("--cursor")
    lst.add_argument("--kinds", nargs="+", choices=list(KINDS))

    profile = sub.add_parser("profile", parents=after, help="the user's profile (or, with only --agent, the agent's)")
    profile.add_argument("--user", dest="user_id", help="user id")
    profile.add_argument("--agent", dest="agent_id", help="agent id")
    profile.add_argument("--as-of", dest="as_of", help="the profile as it stood then (ISO 8601)")

    record_commands.add_commands(sub, after)

    export = sub.add_parser("export", parents=after, help="write records as JSON Lines")
    export.add_argument("file")
    scope_args(export)
    export.add_argument("--agent-id", dest="agent_id", help="the agent (with --format reme: whose lessons)")
    export.add_argument("--format", choices=FORMATS, default="memadapt", help=_FORMAT_HELP)
    imp = sub.add_parser("import", parents=after, help="read a JSON Lines export (re-embedding)")
    imp.add_argument("file", help="an export; with --format reme, a .jsonl library or a folder of them")
    imp.add_argument("--format", choices=FORMATS, default="memadapt", help=_FORMAT_HELP)
    imp.add_argument("--agent-id", dest="agent_id", help="with --format reme: the agent the lessons are for")
    imp.add_argument(
        "--resume", action="store_true", help="skip records already stored (finish an import that stopped half-way)"
    )
    sub.add_parser("stats", parents=after, help="what the store holds")
    sub.add_parser(
        "optimize",
        parents=after,
        help="compact the embedded store (faster search), vacuum deleted records, flush the log",
    )
    doctor = sub.add_parser(
        "doctor", parents=after, help="check the embedded store (in a child process); --salvage copies what reads"
    )
    doctor.add_argument(
        "--salvage", metavar="NEW_PATH",
        help="import every readable record into a new store there (from a replay of its write-ahead log if whole)",
    )  # fmt: skip
    chat.add_command(sub, after)
    _server_commands(sub, after)
    return parser


def _doctor(ns: argparse.Namespace, options: dict[str, Any]) -> int:
    """``memadapt doctor``: exit 0 when every record reads back, 3 when the store is damaged
    (memadapt_core.cli.doctor)."""
    from . import doctor

    report = doctor.salvage(options, ns.salvage) if ns.salvage else doctor.check_in_scratch(options)
    emit(ns, report, [f"{k}: {v}" for k, v in report.items()])
    return EXIT_OK if report["verdict"].startswith("ok") else EXIT_STORE


def _server_commands(sub: Any, after: list[argparse.ArgumentParser]) -> None:
    """``mcp`` and ``serve``: the server runs until stopped (docs/mcp.md); it needs the ``mcp`` extra."""
    mcp = sub.add_parser("mcp", parents=after, help="serve MCP tools on stdio, for one user (an MCP client starts it)")
    mcp.add_argument("--user-id", help="the user every tool call acts for (default: MEMADAPT_MCP_USER_ID)")
    mcp.add_argument("--agent-id", help="also scope every call to this agent")
    serve = sub.add_parser("serve", parents=after, help="serve the HTTP API and MCP at /mcp, scoped by bearer tokens")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8765, help="port (default 8765)")
    serve.add_argument("--tokens", help="JSON file {token: user_id} (default: MEMADAPT_TOKENS, the same JSON)")
    serve.add_argument("--agent-id", help="also scope every request to this agent")
    serve.add_argument("--max-body-bytes", type=int, help="larger request bodies get 413 (default 2 MB)")
    serve.add_argument("--llm", choices=TRIAL_LLMS, help=TRIAL_LLM_HELP)
    serve.add_argument(
        "--max-requests-per-token", type=int, metavar="N",
        help="a token with N requests in flight gets 429 and Retry-After (default 8; 0: no limit)",
    )  # fmt: skip
    serve.add_argument(
        "--library-dir", metavar="DIR",
        help="the folder the operator's /vector_store may load experience libraries from and dump them to "
        "(default: none)",
    )  # fmt: skip
    serve.add_argument(
        "--max-text-chars", type=int,
        help="longest text of one message, query or trajectory: longer gets 422 (default 32000; "
        "MEMADAPT_SERVE_MAX_TEXT_CHARS)",
    )  # fmt: skip
    serve.add_argument(
        "--allowed-host", action="append", default=[], metavar="HOST",
        help="serve only requests whose Host is this (repeatable; default: any); others get 421",
    )  # fmt: skip
    serve.add_argument(
        "--allowed-origin", action="append", default=[], metavar="ORIGIN",
        help="a browser Origin allowed to call the service (repeatable; default: none, a request with an Origin "
        "gets 403)",
    )  # fmt: skip


def _serve(ns: argparse.Namespace, options: dict[str, Any]) -> int:
    from memadapt_core.server import run_stdio, serve

    if ns.command == "mcp":
        run_stdio(options, user_id=ns.user_id, agent_id=ns.agent_id)
    else:
        serve(
            options, host=ns.host, port=ns.port, tokens_file=ns.tokens, agent_id=ns.agent_id,
            max_body_bytes=ns.max_body_bytes, max_text_chars=ns.max_text_chars,
            allowed_hosts=ns.allowed_host, allowed_origins=ns.allowed_origin, library_dir=ns.library_dir,
            requests_per_token=ns.max_requests_per_token, trial_llm=ns.llm == "scripted",
        )  # fmt: skip
    return EXIT_OK


def _hit_line(h: SearchHit) -> str:
    return f"{h.score:6.3f}  {record_line(h.record)}"


def _run(ns: argparse.Namespace, mem: Memory) -> int:
    out: Any
    if ns.command == "add":
        message: dict[str, Any] = {"role": ns.role, "content": ns.text}
        for key, value in (("name", ns.name), ("id", ns.external_id), ("timestamp", ns.timestamp)):
            if value is not None:
                message[key] = value
        try:
            meta = json.loads(ns.metadata) if ns.metadata else None
        except json.JSONDecodeError as exc:
            field = "--metadata"
            raise ValidationError(field, f"is not JSON: {exc}") from exc
        records = mem.add(message, kind=ns.kind, metadata=meta, **scope(ns))
        out = [r.model_dump(mode="json") for r in records]
        emit(ns, out, [record_line(r) for r in records] or ["(not stored: a plugin declined it)"])
        return EXIT_OK
    if ns.command == "search":
        hits = mem.search(
            ns.query, limit=ns.limit, kinds=ns.kinds, threshold=ns.threshold, now=_now(ns.now),
            time_range=_time_range(ns.time_range), **scope(ns),
        )  # fmt: skip
        emit(
            ns,
            [h.model_dump(mode="json") for h in hits],
            [_hit_line(h) for h in hits] or ["(nothing relevant)"],
        )
        return EXIT_OK if hits else EXIT_NOT_FOUND
    if ns.command == "list":
        page = mem.list(limit=ns.limit, cursor=ns.cursor, kinds=ns.kinds, **scope(ns))
        lines = [record_line(r) for r in page.records]
        if page.next_cursor:
            lines.append(f"(more: --cursor {page.next_cursor})")
        emit(ns, page.model_dump(mode="json"), lines or ["(empty)"])
        return EXIT_OK
    if ns.command == "profile":
        found = mem.profile(user_id=ns.user_id, agent_id=ns.agent_id, as_of=ns.as_of)
        lines = [f"version {found.version}", *found.lines()] if not found.is_empty() else ["(no profile yet)"]
        emit(ns, found.model_dump(mode="json"), lines)
        return EXIT_OK if not found.is_empty() else EXIT_NOT_FOUND
    if ns.command in record_commands.COMMANDS:
        return record_commands.run(ns, mem)
    if ns.command in ("export", "import") and ns.format == "reme":
        return _reme(ns, mem)
    if ns.command in ("export", "import"):
        if ns.command == "import" and ns.agent_id is not None:
            field = "--agent-id"
            raise ValidationError(field, "only with --format reme (a memadapt export names each record's scope)")
        bar, tick = progress_bar(f"{ns.command}ing", ns.json or not sys.stderr.isatty())
        with bar:
            if ns.command == "export":
                n = mem.export(ns.file, progress=tick, **scope(ns))
            else:
                n = mem.import_(ns.file, progress=tick, resume=ns.resume)
        emit(ns, {ns.command + "ed": n}, [f"{ns.command}ed {n} records ({ns.file})"])
        return EXIT_OK
    if ns.command == "stats":
        stats = mem.stats()
        emit(ns, stats, [f"{k}: {v}" for k, v in stats.items()])
        return EXIT_OK
    mem.optimize()
    emit(ns, {"optimized": True}, ["optimized"])
    return EXIT_OK


def _now(value: str | None) -> datetime | None:
    return None if value is None else parse_moment("--now", value)


def _time_range(ends: list[str] | None) -> tuple[datetime | None, datetime | None] | None:
    """``--time-range START END``, either ``-`` for open, checked as the engine checks ``time_range``."""
    if ends is None:
        return None
    try:
        return parse_time_range([None if end == "-" else end for end in ends])
    except ValidationError as exc:
        field = "--time-range"
        raise ValidationError(field, exc.problem) from exc


def _reme(ns: argparse.Namespace, mem: Memory) -> int:
    """``import``/``export --format reme``: an agent's lessons from or to ReMe's experience library lines."""
    if ns.agent_id is None:
        field = "--agent-id"
        raise ValidationError(field, "is required with --format reme: the agent whose lessons these are")
    bar, tick = progress_bar(f"{ns.command}ing lessons", ns.json or not sys.stderr.isatty())
    with bar:
        if ns.command == "export":
            n = mem.export_reme(ns.file, agent_id=ns.agent_id, progress=tick)
            emit(ns, {"exported": n}, [f"exported {n} lessons of {ns.agent_id} ({ns.file})"])
            return EXIT_OK
        done = mem.import_reme(ns.file, agent_id=ns.agent_id, progress=tick)
    line = (
        f"stored {done.added} memories (lessons, personal facts) for {ns.agent_id} from {done.files} file(s) "
        f"({ns.file}); {done.already_stored} already stored"
    )
    if done.skipped_personal:
        line += f"; {done.skipped_personal} personal memories skipped (no target user)"
    emit(ns, done.model_dump(), [line])
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (``EXIT_CODES``) instead of raising, usage errors included."""
    try:
        ns = _parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version (0) and usage errors (2): argparse has printed them
        return exc.code if isinstance(exc.code, int) else EXIT_INPUT
    try:
        set_holder(program=f"memadapt {ns.command}")  # named in the lock error of another process
        options: dict[str, Any] = {}
        if ns.path:
            options["path"] = ns.path
        if ns.url:
            options["url"] = ns.url
        if ns.embedder:
            options["embedder"] = {"provider": ns.embedder}  # a dict: MEMADAPT_EMBEDDER__MODEL etc. still apply
        if ns.command in ("mcp", "serve"):
            return _serve(ns, options)
        if ns.command == "doctor":
            return _doctor(ns, options)
        if ns.command == "chat":
            return chat.run_command(ns, options)
        if ns.server is not None:
            return _through_service(ns)
        with Memory(**options) as mem:
            return _run(ns, mem)
    except ValidationError as exc:
        return fail(exc, EXIT_INPUT)
    except StoreUnavailableError as exc:
        return fail(exc, EXIT_STORE)
    except ConfigurationError as exc:
        return fail(exc, EXIT_CONFIG)
    except ImportError as exc:  # a missing extra: its message is the install line
        return fail(exc, EXIT_CONFIG)
    except MemadaptError as exc:
        return fail(exc, EXIT_ERROR)
    except KeyboardInterrupt:
        print("memadapt: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `memadapt list --json | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so the flush at exit writes nowhere
        return EXIT_OK
    except Exception:  # a bug: keep the traceback for the report, but not exit 1 ("nothing found")
        traceback.print_exc()
        return EXIT_ERROR
    finally:
        forget_holder()


# What a running service does for a token: the records of its scope. Importing, statistics and compaction act on
# the store itself (run them where it is); doctor opens its files.
_THROUGH_SERVICE = frozenset({"add", "search", "list", "profile", "export", *record_commands.COMMANDS})


def _through_service(ns: argparse.Namespace) -> int:
    """A command against the ``memadapt serve`` at ``--server``, as its token's user."""
    if ns.command not in _THROUGH_SERVICE or (ns.command == "export" and ns.format == "reme"):
        msg = f"memadapt {ns.command} acts on the store itself: run it without --server, where the store is"
        raise ConfigurationError(msg)
    with chat.remote_memory(ns.server, ns.token) as remote:
        return _run(ns, cast("Memory", remote))  # the same calls, answered by the service


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
