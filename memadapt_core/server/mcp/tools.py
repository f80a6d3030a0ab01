"""The MCP tools over one ``AsyncMemory``: add, search, list, delete, the history of memories, the user's profile.

The scope is the server's, never the model's: ``scope_for(ctx)`` gives the user (and agent) each call acts for, from
the server's ``--user-id`` on stdio or from the request's bearer token over HTTP. A ``MemadaptError`` comes back
as a tool error carrying its message; anything else as a tool error without the traceback (the SDK logs it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any, Literal, TypeVar

import pydantic

from memadapt_core.engine import AsyncMemory
from memadapt_core.errors import MemadaptError, ValidationError
from memadapt_core.models import Kind, MemoryRecord, Scope
from memadapt_core.validation import parse_record_id

try:  # mcp 2.x
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError
except ImportError:  # pragma: no cover - mcp 1.x names the same server FastMCP
    from mcp.server.fastmcp import Context  # type: ignore
    from mcp.server.fastmcp import FastMCP as MCPServer  # type: ignore
    from mcp.server.fastmcp.exceptions import ResourceError, ToolError  # type: ignore

__all__ = ["INSTRUCTIONS", "Context", "MCPServer", "ScopeResolver", "ToolError", "build_mcp_server", "memory_view"]

ScopeResolver = Callable[[Context], Scope]
"""The scope a tool call acts for (raises ``ToolError`` when the request has none)."""

T = TypeVar("T")
WritableKind = Literal["message", "fact", "insight"]  # models.WRITABLE_KINDS: what a client may store (a test pins it)

INSTRUCTIONS = (
    "Long-term memory of the user you are talking with. Search it (search_memory) before answering anything that "
    "may depend on what the user told you earlier: preferences, facts about them, plans, past decisions. Store "
    "(add_memory) what is worth remembering in later conversations, one self-contained statement at a time. The "
    "memories belong to the user this server was started for; you never name the user."
)

ADD = (
    "Store something worth remembering in later conversations: a fact about the user, a preference, a decision, "
    'a plan. Write `content` as one self-contained statement ("The user is allergic to peanuts"), not a '
    "reference to this chat. `kind`: 'message' for something said verbatim (default), 'fact' for a distilled "
    "statement, 'insight' for a conclusion drawn from several. `timestamp` (ISO 8601) is when it was said or "
    "became true, default now. Storing the same content twice stores it once. Returns the ids of the stored "
    "memories."
)
SEARCH = (
    "Search the user's long-term memory before answering a question that may depend on earlier conversations. "
    '`query` is a natural-language question or keywords; time words work ("what did I say last week?"). '
    "Returns the best `limit` hits (id, text, kind, observed_at, score), best first, and `context`: the same "
    "hits as a ready-to-read block. An empty list means nothing relevant is remembered. `kinds` narrows to "
    "'message', 'fact' or 'insight'; `time_range` is [start, end] in ISO 8601 (either may be null); "
    "`session_id` narrows to one conversation."
)
PROFILE = (
    "The user's profile: what is known about them (identity, preferences, interests, habits, goals, "
    "relationships, constraints such as allergies), one statement per line, kept up to date from the "
    "conversations. Read it at the start of a conversation. Empty until the memory has consolidated some."
)
LIST = (
    "List the user's memories, oldest first, a page at a time: to review or audit what is remembered, not to "
    "answer a question (use search_memory for that). Pass `next_cursor` back as `cursor` for the next page; "
    "null means the last page."
)
DELETE = (
    "Delete one memory by its id (from search_memory or list_memories), e.g. when the user asks to forget "
    "something or it is wrong. Returns deleted: false when no such memory exists."
)
HISTORY = (
    "The history of one memory by its id: when it was added, how its text changed, which later fact "
    "superseded it, oldest first. Empty when no such memory exists."
)
ANSWER = (
    "Answer a question about the user from their long-term memory, by the memory server's own LLM: recalls the "
    "relevant memories, answers in the question's language, and remembers the exchange in `session_id` "
    "(`remember`: false to leave no trace). Returns `answer` and the `memories` it used. Prefer search_memory when "
    "you answer yourself; fails when the server has no LLM configured."
)
RECENT_LIMIT, MAX_RECENT = 20, 200
RECENT = "The user's 20 newest memories, newest first, one per line with its date and kind."
RECENT_TEMPLATE = "The user's newest memories (20, or ?limit= up to 200), newest first, one per line with its date."


def memory_view(record: MemoryRecord) -> dict[str, Any]:
    """What a model needs of a record: short, JSON-ready."""
    view: dict[str, Any] = {
        "id": record.id,
        "text": record.text,
        "kind": record.kind,
        "observed_at": record.observed_at.isoformat(),
    }
    if record.session_id is not None:
        view["session_id"] = record.session_id
    if record.metadata:
        view["metadata"] = record.metadata
    return view


_ARGUMENT_OF = {"observed_at": "timestamp", "messages": "content", "id": "memory_id", "ids": "memory_id"}


def _argument(field: str) -> str:
    """The tool argument an engine field stands for (``messages[0].content`` -> ``content``), so the model is
    told which of its own arguments to fix."""
    return _ARGUMENT_OF.get(field.split("[", 1)[0].split(".", 1)[0], field)


async def _guarded(call: Awaitable[T]) -> T:
    try:
        return await call
    except ValidationError as exc:
        msg = f"{_argument(exc.field)}: {exc.problem}"
        raise ToolError(msg) from exc
    except MemadaptError as exc:
        raise ToolError(str(exc)) from exc


class _Server(MCPServer):
    """The SDK's server, whose argument errors read like the rest of memadapt's: ``limit: Input should be a valid
    integer`` rather than pydantic's report with its ``add_memoryArguments`` model and documentation URL."""

    async def call_tool(self, name: str, arguments: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        try:
            return await super().call_tool(name, arguments, *args, **kwargs)
        except ToolError as exc:
            if not isinstance(cause := exc.__cause__, pydantic.ValidationError):
                raise
            raise ToolError(_argument_errors(cause)) from None


def _argument_errors(exc: pydantic.ValidationError) -> str:
    """``argument: problem`` for each error, the argument as the tool's caller named it."""
    found = []
    for error in exc.errors(include_url=False):
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        found.append(f"{where}: {error['msg']}")
    return "; ".join(found)


def _memory_id(value: str) -> str:
    """A memory id as add_memory returned it (a UUID): anything else is a clear error, not ``{"deleted": false}``."""
    if parse_record_id(value, "memory_id") is None:
        msg = f"memory_id: {value!r} is not a memory id (ids are the UUIDs add_memory and search_memory return)"
        raise ToolError(msg)
    return value


def _with_session(scope: Scope, session_id: str | None) -> Scope:
    return scope if session_id is None else Scope.of(scope.user_id, scope.agent_id, session_id)


async def _newest(memory: AsyncMemory, scope: Scope, limit: int) -> str:
    """The scope's ``limit`` newest memories, newest first, a line each."""
    if not 1 <= limit <= MAX_RECENT:
        msg = f"limit: give 1 to {MAX_RECENT}"
        raise ResourceError(msg)
    try:
        latest = await memory.recent(**scope.ids(), limit=limit, kinds=None)  # one ordered read, oldest first
    except MemadaptError as exc:
        raise ResourceError(str(exc)) from exc
    return "\n".join(f"{r.observed_at:%Y-%m-%d %H:%M} [{r.kind}] {r.text}" for r in reversed(latest))


def build_mcp_server(memory: AsyncMemory, scope_for: ScopeResolver, *, fixed_scope: Scope | None = None) -> MCPServer:
    """An MCP server whose tools act on ``memory`` for the scope ``scope_for`` gives. With ``fixed_scope`` (stdio:
    one user per process) it offers the resource ``memory://recent``; without (HTTP), the same as the template
    ``memory://recent{?limit}``, since only a template resource sees the request and so its token."""
    server = _Server(name="memadapt", instructions=INSTRUCTIONS, log_level="WARNING")

    async def add_memory(
        content: str,
        ctx: Context,
        session_id: str | None = None,
        kind: WritableKind = "message",
        metadata: dict[str, Any] | None = None,
        timestamp: str | None = None,
    ) -> dict[str, Any]:
        scope = _with_session(scope_for(ctx), session_id)
        records = await _guarded(
            memory.add(content, **scope.ids(), kind=kind, metadata=metadata, observed_at=timestamp)
        )
        return {"ids": [r.id for r in records]}

    async def search_memory(
        query: str,
        ctx: Context,
        limit: int = 5,
        kinds: list[Kind] | None = None,
        time_range: list[str | None] | None = None,
        session_id: str | None = None,
    ) -> dict[str, Any]:
        scope = _with_session(scope_for(ctx), session_id)
        if time_range is not None and len(time_range) != 2:
            field = "time_range"
            raise ToolError(str(ValidationError(field, "give [start, end], either may be null")))
        window = None if time_range is None else (time_range[0], time_range[1])
        hits = await _guarded(memory.search(query, **scope.ids(), limit=limit, kinds=kinds, time_range=window))
        return {
            "hits": [memory_view(h.record) | {"score": round(h.score, 4)} for h in hits],
            "context": memory.format_context(query, hits) if hits else "",
        }

    async def answer(
        question: str, ctx: Context, session_id: str | None = None, limit: int = 5, remember: bool = True
    ) -> dict[str, Any]:
        scope = _with_session(scope_for(ctx), session_id)
        found = await _guarded(memory.answer(question, **scope.ids(), limit=limit, remember=remember))
        return {
            "answer": found.answer,
            "memories": [memory_view(h.record) | {"score": round(h.score, 4)} for h in found.memories],
        }

    async def list_memories(
        ctx: Context, limit: int = 20, cursor: str | None = None, session_id: str | None = None
    ) -> dict[str, Any]:
        scope = _with_session(scope_for(ctx), session_id)
        page = await _guarded(memory.list(**scope.ids(), limit=limit, cursor=cursor))
        return {"memories": [memory_view(r) for r in page.records], "next_cursor": page.next_cursor}

    async def delete_memory(memory_id: str, ctx: Context) -> dict[str, Any]:
        deleted = await _guarded(memory.delete(_memory_id(memory_id), **scope_for(ctx).ids()))
        return {"deleted": deleted}

    async def get_memory_history(memory_id: str, ctx: Context) -> dict[str, Any]:
        events = await _guarded(memory.history(_memory_id(memory_id), **scope_for(ctx).ids()))
        return {"memory_id": memory_id, "events": [e.model_dump(mode="json", exclude_none=True) for e in events]}

    async def get_user_profile(ctx: Context) -> dict[str, Any]:
        scope = scope_for(ctx)
        found = await _guarded(memory.profile(user_id=scope.user_id, agent_id=scope.agent_id))
        return {"version": found.version, "profile": found.lines(), "statements": found.model_dump(mode="json")}

    for fn, description in (
        (add_memory, ADD),
        (search_memory, SEARCH),
        (answer, ANSWER),
        (list_memories, LIST),
        (delete_memory, DELETE),
        (get_memory_history, HISTORY),
        (get_user_profile, PROFILE),
    ):
        server.add_tool(fn, name=fn.__name__, description=description)

    if fixed_scope is not None:  # stdio: one scope, a plain resource every client lists
        scope = fixed_scope

        async def recent() -> str:
            return await _newest(memory, scope, RECENT_LIMIT)

        server.resource("memory://recent", name="recent", description=RECENT, mime_type="text/plain")(recent)
    else:  # HTTP: only a template resource sees the request (its token); ?limit= makes memory://recent one

        async def recent_for_request(ctx: Context, limit: int = RECENT_LIMIT) -> str:
            return await _newest(memory, scope_for(ctx), limit)

        register = server.resource(
            "memory://recent{?limit}", name="recent", description=RECENT_TEMPLATE, mime_type="text/plain"
        )
        with suppress(ValueError):  # mcp 1.x has no query templates: no resource over HTTP there
            register(recent_for_request)
    return server
