"""Run the server: ``memadapt mcp`` (MCP over stdio, one user per process) and ``memadapt serve`` (HTTP).

These are process entry points: each opens one engine, runs its own event loop until the client goes (stdio) or
the process is stopped (HTTP), and closes the engine.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memadapt_core.backends.edge.holder import set_holder
from memadapt_core.engine import AsyncMemory
from memadapt_core.errors import ConfigurationError
from memadapt_core.models import Scope

from .auth import TOKENS_ENV, is_loopback, load_tokens
from .start_line import service_url, start_lines

__all__ = ["DEFAULT_SERVICE_TEXT_CHARS", "SERVICE_TEXT_ENV", "USER_ENV", "run_stdio", "serve", "service_text_limit"]

USER_ENV = "MEMADAPT_MCP_USER_ID"
SERVICE_TEXT_ENV = "MEMADAPT_SERVE_MAX_TEXT_CHARS"
DEFAULT_SERVICE_TEXT_CHARS = 32_000
"""The longest text one message (or query, or trajectory) may have on ``memadapt serve``: embedding costs about
25 ms of CPU per 1,000 characters, and the engine's own limit (``max_text_chars``, 1,000,000) lets one
authenticated request hold a core for close to a minute (docs/reliability-and-security.md)."""


def _require_extra() -> None:
    try:
        import mcp  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        msg = f"the memadapt server needs the mcp extra ({exc.name} is missing): pip install 'memadapt[mcp]'"
        raise ImportError(msg) from exc


def stdio_scope(user_id: str | None, agent_id: str | None) -> Scope:
    user_id = user_id or os.environ.get(USER_ENV) or None
    if user_id is None:
        msg = f"memadapt mcp acts for one user: give --user-id or set {USER_ENV}"
        raise ConfigurationError(msg)
    return Scope.of(user_id=user_id, agent_id=agent_id)


def run_stdio(options: dict[str, Any], *, user_id: str | None, agent_id: str | None) -> None:
    """Serve MCP on stdin/stdout for one user until the client closes the pipe."""
    _require_extra()
    import anyio

    from .mcp.task_tools import register_task_tools
    from .mcp.tools import build_mcp_server

    scope = stdio_scope(user_id, agent_id)

    async def main() -> None:
        memory = await AsyncMemory.open(**options)  # off the loop: opening loads the embedder
        try:
            server = build_mcp_server(memory, lambda _ctx: scope, fixed_scope=scope)
            register_task_tools(server, memory, lambda _ctx: scope)
            await server.run_stdio_async()
        finally:
            await memory.close()

    anyio.run(main)


def service_text_limit(given: int | None) -> int:
    """``--max-text-chars``, else ``MEMADAPT_SERVE_MAX_TEXT_CHARS``, else 32,000; ``ConfigurationError`` below 1."""
    raw: object = given if given is not None else os.environ.get(SERVICE_TEXT_ENV, DEFAULT_SERVICE_TEXT_CHARS)
    try:
        limit = int(str(raw))
    except ValueError:
        limit = 0
    if limit < 1:
        msg = f"--max-text-chars / {SERVICE_TEXT_ENV}: give a whole number of characters, 1 or more (not {raw!r})"
        raise ConfigurationError(msg)
    return limit


def library_folder(library_dir: str | Path | None) -> Path | None:
    """``--library-dir``: an existing folder, or ``ConfigurationError`` naming it."""
    if library_dir is None:
        return None
    folder = Path(library_dir)
    if not folder.is_dir():
        msg = f"--library-dir {library_dir}: not a folder (create it, or name the folder holding the libraries)"
        raise ConfigurationError(msg)
    return folder


def serve(
    options: dict[str, Any],
    *,
    host: str,
    port: int,
    tokens_file: str | Path | None,
    agent_id: str | None = None,
    max_body_bytes: int | None = None,
    max_text_chars: int | None = None,
    allowed_hosts: Sequence[str] = (),
    allowed_origins: Sequence[str] = (),
    library_dir: str | Path | None = None,
    requests_per_token: int | None = None,
    trial_llm: bool = False,
) -> None:
    """Serve the HTTP API and streamable-HTTP MCP until stopped. Refuses to start without tokens: every request
    needs one, and a host other than loopback without them would be an open door. ``trial_llm``: answer and
    consolidate with the trial LLM (``memadapt serve --llm scripted``), started here and stopped with the service."""
    _require_extra()
    if trial_llm:
        from memadapt_core.testing.trial_llm import trial_options

        with trial_options(options) as tried:
            serve(
                tried, host=host, port=port, tokens_file=tokens_file, agent_id=agent_id, max_body_bytes=max_body_bytes,
                max_text_chars=max_text_chars, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins,
                library_dir=library_dir, requests_per_token=requests_per_token,
            )  # fmt: skip
        return
    import anyio
    import uvicorn

    from .app import DEFAULT_MAX_BODY_BYTES, build_app
    from .idle_trim import limit_arenas
    from .token_limit import DEFAULT_REQUESTS_PER_TOKEN

    limit_arenas()  # before the store, the embedder and the server start their threads
    tokens = load_tokens(tokens_file, agent_id=agent_id)
    if not tokens:
        where = "" if is_loopback(host) else f" (and {host} is not a loopback address: that would be an open door)"
        msg = (
            f"memadapt serve needs tokens: give --tokens FILE or MEMADAPT_TOKENS, a JSON object token -> user_id{where}"
        )
        raise ConfigurationError(msg)
    options = {**options, "max_text_chars": service_text_limit(max_text_chars)}  # the service's, not the engine's
    set_holder(program="memadapt serve", url=service_url(host, port))  # named in another process's lock error
    memory = AsyncMemory(**options)  # opened here, so a locked folder or a bad setting fails with the CLI's codes
    try:
        lines = start_lines(
            memory.settings, memory._resources.collection.name, host=host, port=port, users=tokens.users,
            source=str(tokens_file) if tokens_file is not None else TOKENS_ENV, agent_id=agent_id,
        )  # fmt: skip
        print("\n".join(lines), file=sys.stderr, flush=True)
        app = build_app(
            memory, tokens, host=host, max_body_bytes=max_body_bytes or DEFAULT_MAX_BODY_BYTES,
            allowed_hosts=allowed_hosts, allowed_origins=allowed_origins, library_dir=library_folder(library_dir),
            requests_per_token=DEFAULT_REQUESTS_PER_TOKEN if requests_per_token is None else requests_per_token,
        )  # fmt: skip
        try:
            uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
        except SystemExit as exc:  # uvicorn exits when it cannot bind: a port in use is a setting to change
            msg = f"cannot serve on {host}:{port} (uvicorn stopped with {exc.code}; is the port in use?)"
            raise ConfigurationError(msg) from None
    finally:  # the app's shutdown closed it, unless it never started (a port in use): closing twice is harmless
        anyio.run(memory.close)
