"""``RemoteCalls``: the calls of ``RemoteMemory`` (``doors``) that are a request to ``memadapt serve``; the sync twin
of ``AsyncRemoteCalls`` (``async_calls``), written by hand over the same ``RemoteBase``."""

from __future__ import annotations

import builtins
import itertools
import time
from collections.abc import Callable, Generator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Unpack

import httpx

from memadapt_core.api import composed
from memadapt_core.api.options import SearchOptions
from memadapt_core.models import Answer, HistoryEvent, Kind, MemoryRecord, Page, SearchHit
from memadapt_core.profile import UserProfile
from memadapt_core.validation import parse_path

from .base import RemoteBase, _Call, _Link
from .base import scope_of as _scope
from .exports import counted, open_export
from .tasks import RemoteTasks

__all__ = ["RemoteCalls"]


class RemoteCalls(RemoteTasks):
    """``Memory``'s calls as requests: the I/O half of ``RemoteMemory``."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, transport: httpx.BaseTransport | None = None,
        plugins: Sequence[object] = (), _link: _Link | None = None,
    ) -> None:  # fmt: skip
        super().__init__(url, token=token, timeout=timeout, plugins=plugins, _link=_link)
        self._client = httpx.Client(base_url=self._url, headers=self._headers, timeout=timeout, transport=transport)

    def _send(self, call: _Call) -> Any:
        for attempt in itertools.count():
            try:
                response = self._client.request(call.method, call.path, json=call.json, params=call.params)
            except httpx.HTTPError as exc:
                raise self._transport_error(exc) from exc
            if (wait := RemoteBase._busy_wait(response, attempt)) is None:
                return self._read(call, response)
            time.sleep(wait)
        raise AssertionError  # pragma: no cover - the loop returns or raises

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

    def search_many(
        self, queries: Sequence[str], *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, limit: int = 5, **options: Any,
    ) -> builtins.list[SearchHit]:  # fmt: skip
        """Several queries in one scope, merged: each record once, in query order then rank (blanks skipped)."""
        scope: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
        per_query = [self.search(q, **scope, limit=limit, **options) for q in composed.usable_queries(queries)]
        return composed.merge_hits(per_query)

    def iter_records(
        self, *, user_id: str | None = None, agent_id: str | None = None, session_id: str | None = None,
        kinds: Sequence[Kind] | None = None, filters: dict[str, Any] | None = None, page_size: int = 500,
    ) -> Generator[MemoryRecord, None, None]:  # fmt: skip
        """Every record of a scope, oldest first, a page at a time."""
        size = min(page_size, self.settings.max_limit)
        where: dict[str, Any] = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id, "kinds": kinds}
        yield from composed.records(lambda cursor: self.list(**where, filters=filters, limit=size, cursor=cursor))

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

    def export(
        self, path: str | Path, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None, kinds: Sequence[Kind] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> int:  # fmt: skip
        """Write the scope's records as JSON Lines at ``path``; returns how many. ``progress`` is called with the
        number of records each received chunk completed, as the engine calls it with each page's."""
        params = _scope(user_id, agent_id, session_id) | ({"kinds": list(kinds)} if kinds is not None else {})
        target = parse_path(path)
        try:
            with self._client.stream("GET", "/v1/export", params=params) as response:
                if response.is_error:
                    response.read()
                    raise self._export_error(response)
                lines = 0
                with open_export(target) as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
                        lines += counted(chunk, progress)
        except httpx.HTTPError as exc:
            raise self._transport_error(exc) from exc
        return lines
