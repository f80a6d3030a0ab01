"""``POST /vector_store``: ReMe's workspace actions, for the store's operator only.

``{"workspace_id", "action", "path"?}``, as ReMe 0.3 takes it: ``load`` reads ``<path>/<workspace_id>.jsonl`` (or
``path`` itself when it names a ``.jsonl`` file) into the workspace (the agent) as its lessons; ``dump`` writes the
agent's lessons to ``<path>/<workspace_id>.jsonl``; ``list`` returns them in ReMe's line format; ``delete`` deletes
them (the agent's own lessons: its users' records stay). The answer keeps ReMe's shape, ``{"success", "answer",
"metadata": {"action_result": ...}}``.

Only a token granted ``"operator": true`` may call it (403 for every other); what ``load`` writes is the
operator's write into the agent's scope, through the owner's import path. ``path`` is relative to the folder
``memadapt serve --library-dir`` names: an absolute path, a ``..`` step, or a link leading out of that folder is
refused (403), and without ``--library-dir`` nothing is read or written.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memadapt_core.engine import AsyncMemory
from memadapt_core.engine.tasks.reme_lines import reme_memory
from memadapt_core.errors import ValidationError
from memadapt_core.models import MemoryRecord
from memadapt_core.server.auth import Access, Forbidden
from memadapt_core.server.http_api import ACCESS_STATE, Handler, _json_body, _scope

from .endpoint import Endpoint
from .reme import WORKSPACE, reme_endpoint

__all__ = ["ACTIONS", "ENDPOINT", "confined", "vector_store_endpoint"]

ACTIONS = ("load", "dump", "list", "delete")
_BODY = {"workspace_id", "action", "path"}


def confined(library_dir: Path | None, given: object) -> Path:
    """``given`` (relative to ``library_dir``) resolved, links followed; ``Forbidden`` when it would leave it."""
    if library_dir is None:
        msg = "path: this server reads and writes no library (start memadapt serve with --library-dir DIR)"
        raise Forbidden(msg)
    if given is None or given == "":
        given = "."
    if not isinstance(given, str):
        field = "path"
        raise ValidationError(field, "must be a path relative to the library folder")
    if "\x00" in given or PurePosixPath(given).is_absolute() or PureWindowsPath(given).is_absolute():
        msg = f"path: {given!r} is absolute; give a path relative to the library folder (--library-dir)"
        raise Forbidden(msg)
    if PureWindowsPath(given).drive or ".." in PurePosixPath(given.replace("\\", "/")).parts:
        msg = f"path: {given!r} steps out of the library folder (..)"
        raise Forbidden(msg)
    root = library_dir.resolve()
    resolved = (root / given).resolve()
    if not resolved.is_relative_to(root):
        msg = f"path: {given!r} leads out of the library folder (a link)"
        raise Forbidden(msg)
    return resolved


def _workspace_file(library_dir: Path | None, given: object, workspace: str, *, reading: bool) -> Path:
    """ReMe's rule: a folder holds ``<workspace_id>.jsonl``; a ``.jsonl`` path is the file itself."""
    target = confined(library_dir, given)
    if not (reading and target.is_file() and target.suffix == ".jsonl"):
        if "/" in workspace or "\\" in workspace or workspace.startswith("."):
            field = "workspace_id"
            raise ValidationError(field, "names the library's file <workspace_id>.jsonl: no '/' and no leading '.'")
        if not target.is_dir():
            field = "path"
            raise ValidationError(field, f"{given!r} is not a folder of the library")
        target = target / f"{workspace}.jsonl"
        if target.is_symlink() and not target.resolve().is_relative_to(confined(library_dir, ".")):
            msg = f"path: {target.name} in {given!r} is a link out of the library folder"
            raise Forbidden(msg)
    if reading and not target.is_file():
        field = "path"
        raise ValidationError(field, f"the library has no {target.name} there")
    return target


async def _lessons(memory: AsyncMemory, workspace: str) -> list[MemoryRecord]:
    """The agent's own lessons (no user, no session), superseded ones included."""
    return [
        r
        async for r in memory.iter_records(agent_id=workspace, kinds=["experience"])
        if r.user_id is None and r.session_id is None
    ]


def vector_store(library_dir: Path | None) -> Handler:
    async def handler(request: Request, memory: AsyncMemory) -> Response:
        access: Access = request.scope["state"][ACCESS_STATE]
        access.check_operator("/vector_store")
        body = await _json_body(request, _BODY)
        workspace = body.get("workspace_id")
        if not isinstance(workspace, str) or not workspace.strip():
            field = "workspace_id"
            raise ValidationError(field, "is required: the workspace (agent) whose lessons these are")
        action = body.get("action")
        if action not in ACTIONS:
            field = "action"
            raise ValidationError(field, f"{action!r} is not one of {', '.join(ACTIONS)}")
        _scope(request, {"agent_id": workspace}, "workspace_id")  # the server's --agent-id and the grant's agents
        agent = workspace
        result: Any
        if action == "load":
            file = _workspace_file(library_dir, body.get("path"), agent, reading=True)
            done = await memory.import_reme(file, agent_id=agent)
            result = {"size": done.added + done.already_stored, **done.model_dump()}
        elif action == "dump":
            file = _workspace_file(library_dir, body.get("path"), agent, reading=False)
            result = {"size": await memory.export_reme(file, agent_id=agent)}
        elif action == "list":
            result = [reme_memory(r, agent) for r in await _lessons(memory, agent) if r.valid_to is None]
        else:
            ids = [r.id for r in await _lessons(memory, agent)]
            result = {"deleted": await memory.delete_many(ids, agent_id=agent) if ids else 0}
        return JSONResponse({"success": True, "answer": "", "metadata": {"action_result": result}})

    return handler


# Declared with no library (the document's); served by ``vector_store_endpoint`` with the server's.
ENDPOINT = reme_endpoint(
    "vector_store",
    vector_store(None),
    "the operator's workspace actions: load, dump, list or delete the agent's lessons (an operator token only; "
    "path inside --library-dir)",
    {
        **WORKSPACE,
        "action": {"type": "string", "enum": list(ACTIONS)},
        "path": {"type": "string", "description": "relative to the library folder"},
    },
)


def vector_store_endpoint(library_dir: Path | None) -> Endpoint:
    """``/vector_store`` reading and writing inside ``library_dir``."""
    return replace(ENDPOINT, handler=vector_store(library_dir))
