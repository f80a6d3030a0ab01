# Generated from memadapt_core/client/async_calls.py by scripts/unasync.py: edit that file, never this one.
"""``RemoteCalls``: the calls of ``RemoteMemory`` (``doors``) that are one request to ``memadapt serve``.

Written once, as async code; ``sync_calls`` (``RemoteCalls``) is generated from it by ``scripts/unasync.py``, so a
new remote call is written here and nowhere else in the client. Each is one route (``RemoteBase`` builds the
request and reads the answer without I/O), with the engine's names, arguments and return models; sending it is
``_send``, the one I/O step, which ``http_io`` gives each twin along with the calls that stream or gather. A client
writes trajectories and tool calls only: the lessons and guides drawn from them are the server's consolidation
worker's to write.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, Unpack

from memadapt_core.api.options import SearchOptions
from memadapt_core.models import Answer, HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from memadapt_core.profile import UserProfile
from memadapt_core.tool_stats import ToolGuide, ToolStats

from .base import RemoteBase, _Call
from .base import scope_of as _scope

__all__ = ["RemoteCalls"]


class RemoteCalls(RemoteBase):
    """``Memory``'s calls as requests, over ``_send`` (``http_io``)."""

    def _send(self, call: _Call) -> Any:
        raise NotImplementedError  # pragma: no cover - each twin sends in its own way

    def add(
        self, messages: str | dict[str, Any] | Sequence[str | dict[str, Any]], *, user_id: str | None = None,
        agent_id: str | None = None, session_id: str | None = None, kind: Kind = "message",
        metadata: dict[str, Any] | None = None, observed_at: datetime | str | None = None,
        on_conflict: Literal["skip", "replace"] = "skip",
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        scope = _scope(user_id, agent_id, session_id)
        data = self._send(self._add(messages, scope, kind, metadata, observed_at, on_conflict))
        return [MemoryRecord.model_validate(r) for r in data["records"]]

    def search(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        **options: Unpack[SearchOptions],
    ) -> builtins.list[SearchHit]:  # fmt: skip
        data = self._send(self._search(query, _scope(user_id, agent_id, session_id), options))
        return [SearchHit.model_validate(h) for h in data["hits"]]

    def list(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, limit: int = 50, cursor: str | None = None,
        filters: dict[str, Any] | None = None, include_archived: bool = False,
    ) -> Page:  # fmt: skip
        call = self._list(_scope(user_id, agent_id, session_id), kinds, limit, cursor, filters, include_archived)
        return Page.model_validate(self._send(call))

    def get(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> MemoryRecord | None:
        call = self._by_id("GET", id, _scope(user_id, agent_id, session_id), missing=None, missing_is_value=True)
        data = self._send(call)
        return None if data is None else MemoryRecord.model_validate(data)

    def update(
        self, id: str, *, text: str | None = None, metadata: dict[str, Any] | None = None,
        user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
    ) -> MemoryRecord:  # fmt: skip
        body: dict[str, Any] = {**_scope(user_id, agent_id, session_id)}
        if text is not None:
            body["text"] = text
        if metadata is not None:
            body["metadata"] = metadata
        return MemoryRecord.model_validate(self._send(self._by_id("PATCH", id, {}, json=body)))

    def delete(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> bool:
        call = self._by_id("DELETE", id, _scope(user_id, agent_id, session_id), missing=None, missing_is_value=True)
        return self._send(call) is not None

    def delete_all(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> int:
        data = self._send(_Call("DELETE", "/v1/memories", params=_scope(user_id, agent_id, session_id)))
        return int(data["deleted"])

    def history(
        self, id: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[HistoryEvent]:
        data = self._send(self._by_id("GET", id, _scope(user_id, agent_id, session_id), "/history"))
        return [HistoryEvent.model_validate(e) for e in data["events"]]

    def answer(
        self, question: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, remember: bool = True, now: datetime | None = None,
    ) -> Answer:  # fmt: skip
        """The service's ``answer`` (its LLM): ``ConfigurationError`` when it was started without one."""
        call = self._answer(question, _scope(user_id, agent_id, session_id), limit, remember, now)
        return Answer.model_validate(self._send(call))

    def get_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        data = self._send(self._ids("/v1/get", ids, _scope(user_id, agent_id, session_id)))
        return [MemoryRecord.model_validate(r) for r in data["records"]]

    def vectors(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> dict[str, builtins.list[float]]:  # fmt: skip
        data = self._send(self._ids("/v1/vectors", ids, _scope(user_id, agent_id, session_id)))
        return dict(data["vectors"])

    def query_vector(
        self, query: str, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None
    ) -> builtins.list[float]:
        data = self._send(self._embed(query, _scope(user_id, agent_id, session_id)))
        return [float(x) for x in data["vector"]]

    def count(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None,
    ) -> int:  # fmt: skip
        return int((self._send(self._count(_scope(user_id, agent_id, session_id), kinds, filters)))["count"])

    def delete_many(
        self, ids: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> int:  # fmt: skip
        data = self._send(self._ids("/v1/delete", ids, _scope(user_id, agent_id, session_id)))
        return int(data["deleted"])

    def profile(
        self, *, user_id: str | None = None, agent_id: str | None = None, as_of: datetime | str | None = None
    ) -> UserProfile:
        return UserProfile.model_validate(self._send(self._profile(user_id, agent_id, as_of)))

    def add_trajectories(
        self, trajectories: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None,
        task: str | None = None, user_id: str | None = None, session_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Store scored trajectories ({messages, score}) under the token's user; the server draws the agent's
        lessons from them in the background."""
        call = RemoteBase._trajectories(trajectories, _scope(user_id, agent_id, session_id), task, metadata)
        return RemoteBase._records(self._send(call))

    def experiences(
        self, task: str, *, agent_id: str | None, limit: int = 3, threshold: float | None = None
    ) -> builtins.list[SearchHit]:
        """The agent's experiences for ``task``, ranked as the engine ranks them."""
        call = RemoteBase._experiences(task, agent_id, limit, threshold)
        return RemoteBase._hits(self._send(call))

    def experience_guidance(self, task: str, *, agent_id: str | None, limit: int = 3) -> str:
        """The top experiences for ``task`` as a delimited block for a system prompt ("" when there are none)."""
        hits = self.experiences(task, agent_id=agent_id, limit=limit)
        return self.format_experience(hits)

    def record_tool_calls(
        self, calls: dict[str, Any] | Sequence[dict[str, Any]], *, agent_id: str | None, user_id: str | None = None,
        session_id: str | None = None,
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Record tool calls ({name, arguments, result, success, duration, tokens}; ReMe's names too)."""
        call = RemoteBase._tool_calls(calls, _scope(user_id, agent_id, session_id))
        return RemoteBase._records(self._send(call))

    def tool_stats(self, tool_name: str, *, agent_id: str | None) -> ToolStats:
        """Success rate, latency percentiles and tokens of the agent's latest calls of ``tool_name``."""
        data = self._send(RemoteBase._tool("tool_stats", tool_name, agent_id))
        return ToolStats.model_validate(data)

    def tool_guide(self, tool_name: str, *, agent_id: str | None) -> ToolGuide:
        """The agent's usage guide of ``tool_name``: its statistics and guidelines (None until written)."""
        data = self._send(RemoteBase._tool("tool_guide", tool_name, agent_id))
        return ToolGuide.model_validate(data)

    def recent(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        limit: int | None = None, kinds: Sequence[Kind] | None = ("message",),
    ) -> builtins.list[MemoryRecord]:  # fmt: skip
        """Working memory: the latest ``limit`` messages of a scope (other ``kinds`` if given), oldest first."""
        call = RemoteBase._recent(_scope(user_id, agent_id, session_id), limit, kinds)
        return RemoteBase._records(self._send(call))
