"""What ``RemoteMemory`` and ``AsyncRemoteMemory`` share without I/O: requests built, responses read, errors mapped.

Also what the engine does without I/O and the adapters call on it (``record_id``, ``format_context``,
``format_experience``, ``track``, ``settings``), so a remote client stands in for an engine in every adapter. A
client and its views of the other twin (``as_sync()``, ``as_async()``) share one ``_Link``: the server, the token,
the background writes adapters hand over and the plugins that format context.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx

from memadapt_core.api.background import BackgroundWrites, Pending
from memadapt_core.config import MemorySettings
from memadapt_core.errors import (
    ConfigurationError,
    LLMError,
    MemadaptError,
    StoreError,
    StoreFullError,
    StoreUnavailableError,
    ValidationError,
)
from memadapt_core.formatting import check_context_args, context_with_tiers, render_guidance
from memadapt_core.models import PERSONAL_KINDS, Kind, MemoryRecord, SearchHit
from memadapt_core.plugins import Hooks, create_plugin_manager
from memadapt_core.profile import UserProfile
from memadapt_core.record_codec import parse_id
from memadapt_core.record_codec import record_id as _record_id
from memadapt_core.validation import parse_scope

__all__ = ["TOKEN_ENV", "Moment", "RemoteBase", "scope_of"]

# A 429 (the token has its limit of requests in flight) is sent again after Retry-After, longer each time; after
# that it is a StoreUnavailableError, as for a server that cannot take the request.
_BUSY_RETRIES = 5
_BUSY_WAIT_MAX_S = 5.0

Moment = datetime | str | None

TOKEN_ENV = "MEMADAPT_TOKEN"
"""Where a client's bearer token is read when none is given: the CLI's ``--server``, a loaded AutoGen dump."""


@dataclass
class _Call:
    """One HTTP request to make; ``missing`` is what a 404 means (None: an error)."""

    method: str
    path: str
    json: dict[str, Any] | None = None
    params: dict[str, Any] = field(default_factory=dict)
    missing: object = None
    missing_is_value: bool = False


class _Link:
    """One server as a client and its views of the other twin see it."""

    def __init__(self, url: str, token: str, timeout: float, plugins: Sequence[object]) -> None:
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"}
        self.timeout = timeout
        self.background = BackgroundWrites()
        self.plugins = plugins
        self.hooks: Hooks | None = None
        # The engine's default limits: the server checks its own and answers 422 beyond them.
        self.settings = MemorySettings.model_construct()
        self._token_scope: dict[str, Any] | None = None

    def token_scope(self) -> dict[str, Any]:
        """The ids the token stands for, asked once (a short request on first use, then kept)."""
        if self._token_scope is None:
            try:
                response = httpx.get(f"{self.url}/v1/scope", headers=self.headers, timeout=self.timeout)
            except httpx.HTTPError as exc:
                raise RemoteBase._transport_error(exc) from exc
            if response.is_error:
                raise _error(response)
            self._token_scope = {k: v for k, v in response.json().items() if v is not None}
        return self._token_scope


def _moment(value: Moment) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def _json_value(value: Any) -> Any:
    """An option's value as JSON carries it: a moment in ISO 8601, a tuple or other sequence as a list."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_json_value(item) for item in value]
    return value


def _messages(messages: Any) -> Any:
    """Messages as JSON can carry them: a message's datetime (its ``timestamp``) in ISO 8601, which the server reads
    back as the engine reads the datetime."""
    if isinstance(messages, dict):
        return {key: _moment(value) if isinstance(value, datetime) else value for key, value in messages.items()}
    if isinstance(messages, list | tuple):
        return [_messages(message) if isinstance(message, dict) else message for message in messages]
    return messages


def scope_of(user_id: str | None, agent_id: str | None, session_id: str | None) -> dict[str, Any]:
    given = {"user_id": user_id, "agent_id": agent_id, "session_id": session_id}
    return {k: v for k, v in given.items() if v is not None}


def _error(response: httpx.Response) -> MemadaptError:
    try:
        body = response.json()
    except ValueError:
        body = {}
    message = body.get("message") if isinstance(body, dict) else None
    message = message or f"HTTP {response.status_code}: {response.text[:200]}"
    status = response.status_code
    if status in (404, 422):
        name = body.get("field") or "id"
        return ValidationError(name, message.removeprefix(f"{name}: "))
    if status in (401, 403):
        return ConfigurationError(f"the server refused this token: {message}")
    if status == 413:
        return ValidationError("body", message)
    if status == 507:
        return StoreFullError(message)
    if status in (429, 503):
        return StoreUnavailableError(message)
    if status == 501:
        return ConfigurationError(message)
    if status == 502:
        return LLMError(message)
    return StoreError(message)


class RemoteBase:
    """Requests and responses, and the engine's no-I/O calls; no I/O."""

    def __init__(
        self, url: str, *, token: str, timeout: float = 30.0, plugins: Sequence[object] = (), _link: _Link | None = None
    ) -> None:
        self._link = _link if _link is not None else _Link(url, token, timeout, plugins)
        self._url, self._headers, self._timeout = self._link.url, self._link.headers, timeout

    @property
    def url(self) -> str:
        """The server this client talks to (what an AutoGen dump of a memory over it keeps)."""
        return self._url

    # -- what the engine does without I/O, for the adapters ----------------------------------------------------------
    @property
    def settings(self) -> MemorySettings:
        """The engine's default settings: adapters read their limits (``max_limit``, ``max_text_chars``)."""
        return self._link.settings

    def record_id(
        self, external_id: str, *, user_id: str | None = None, agent_id: str | None = None,
        session_id: str | None = None,
    ) -> str:  # fmt: skip
        """The record id that ``add`` gives a message whose ``id`` is ``external_id`` in this scope, completed, as the
        server completes it, with the token's user (and agent): asked of the server once, on first use."""
        ids = self._link.token_scope() | scope_of(user_id, agent_id, session_id)
        return _record_id(parse_scope(**ids), parse_id(external_id, "external_id"))

    def track(self, pending: Pending) -> None:
        """A background write an adapter acknowledged before it ran: ``close()`` and ``flush()`` wait for it."""
        self._link.background.track(pending)

    def format_context(
        self, query: str, hits: Sequence[SearchHit], *, recent: Sequence[MemoryRecord] | None = None,
        profile: UserProfile | None = None,
    ) -> str:  # fmt: skip
        """The engine's context block, formatted here by this client's plugins (``plugins=``, entry points)."""
        check_context_args(query, hits)
        if self._link.hooks is None:
            self._link.hooks = Hooks(create_plugin_manager(self._link.plugins))
        hooks = self._link.hooks
        if recent is None and profile is None:
            return hooks.format_context(query, hits)
        return context_with_tiers(hooks.format_context, query, hits, recent, profile, self.settings.tiers.profile_block)

    def format_experience(self, hits: Sequence[SearchHit]) -> str:
        """Experiences as the delimited guidance block for a system prompt."""
        return render_guidance(hits)

    # -- requests ----------------------------------------------------------------------------------------------------
    @staticmethod
    def _add(
        messages: Any, scope: dict[str, Any], kind: Kind, metadata: dict[str, Any] | None, observed_at: Moment,
        on_conflict: str,
    ) -> _Call:  # fmt: skip
        body: dict[str, Any] = {"messages": _messages(messages), "kind": kind, "on_conflict": on_conflict, **scope}
        if metadata is not None:
            body["metadata"] = metadata
        if observed_at is not None:
            body["observed_at"] = _moment(observed_at)
        return _Call("POST", "/v1/memories", json=body)

    @staticmethod
    def _search(query: str, scope: dict[str, Any], options: Mapping[str, Any]) -> _Call:
        body: dict[str, Any] = {"query": query, **scope}
        for key, value in options.items():  # each as JSON carries it, whatever the option
            if value is not None:
                body[key] = _json_value(value)
        return _Call("POST", "/v1/search", json=body)

    @staticmethod
    def _answer(question: str, scope: dict[str, Any], limit: int, remember: bool, now: Moment) -> _Call:
        body: dict[str, Any] = {"question": question, "limit": limit, "remember": remember, **scope}
        if now is not None:
            body["now"] = _moment(now)
        return _Call("POST", "/v1/answer", json=body)

    @staticmethod
    def _list(
        scope: dict[str, Any], kinds: Sequence[Kind] | None, limit: int, cursor: str | None,
        filters: dict[str, Any] | None, include_archived: bool,
    ) -> _Call:  # fmt: skip
        params: dict[str, Any] = {**scope, "limit": limit}
        if kinds is not None:
            params["kinds"] = list(kinds)
        if cursor is not None:
            params["cursor"] = cursor
        if filters is not None:
            params["filters"] = json.dumps(filters)
        if include_archived:
            params["include_archived"] = "true"
        return _Call("GET", "/v1/memories", params=params)

    @staticmethod
    def _by_id(method: str, id: str, scope: dict[str, Any], suffix: str = "", **kw: Any) -> _Call:
        return _Call(method, f"/v1/memories/{quote(id, safe='')}{suffix}", params=scope, **kw)

    @staticmethod
    def _ids(path: str, ids: Sequence[str], scope: dict[str, Any]) -> _Call:
        return _Call("POST", path, json={"ids": list(ids), **scope})

    @staticmethod
    def _count(scope: dict[str, Any], kinds: Sequence[Kind] | None, filters: dict[str, Any] | None) -> _Call:
        body: dict[str, Any] = {**scope}
        if kinds is not None:
            body["kinds"] = list(kinds)
        if filters is not None:
            body["filters"] = filters
        return _Call("POST", "/v1/count", json=body)

    @staticmethod
    def _profile(user_id: str | None, agent_id: str | None, as_of: Moment) -> _Call:
        params = scope_of(user_id, agent_id, None)
        if as_of is not None:
            params["as_of"] = _moment(as_of)
        return _Call("GET", "/v1/profile", params=params)

    @staticmethod
    def _embed(text: str, scope: dict[str, Any] | None = None) -> _Call:
        return _Call("POST", "/v1/embed", json={"query": text, **(scope or {})})

    # -- task memory and working memory (tasks) -------------------------------------------------------------------
    @staticmethod
    def _trajectories(
        trajectories: Any, scope: dict[str, Any], task: str | None, metadata: dict[str, Any] | None
    ) -> _Call:
        body: dict[str, Any] = {"trajectories": trajectories, **scope}
        if task is not None:
            body["task"] = task
        if metadata is not None:
            body["metadata"] = metadata
        return _Call("POST", "/v1/trajectories", json=body)

    @staticmethod
    def _experiences(task: str, agent_id: str | None, limit: int, threshold: float | None) -> _Call:
        body: dict[str, Any] = {"task": task, "limit": limit, **scope_of(None, agent_id, None)}
        if threshold is not None:
            body["threshold"] = threshold
        return _Call("POST", "/v1/experiences/search", json=body)

    @staticmethod
    def _tool_calls(calls: Any, scope: dict[str, Any]) -> _Call:
        return _Call("POST", "/v1/tool_calls", json={"calls": calls, **scope})

    @staticmethod
    def _tool(route: str, tool_name: str, agent_id: str | None) -> _Call:
        """``tool_stats`` or ``tool_guide``: the name goes in the query, where any character a tool's name holds
        survives (a path segment would not keep a ``/``)."""
        return _Call("GET", f"/v1/{route}", params={"tool_name": tool_name, **scope_of(None, agent_id, None)})

    @staticmethod
    def _recent(scope: dict[str, Any], limit: int | None, kinds: Sequence[Kind] | None) -> _Call:
        """``kinds`` None (or empty) means every personal kind, as in the engine: a query cannot say None, so the
        kinds are named."""
        params: dict[str, Any] = {**scope, "kinds": list(kinds or PERSONAL_KINDS)}
        if limit is not None:
            params["limit"] = limit
        return _Call("GET", "/v1/recent", params=params)

    @staticmethod
    def _records(data: Any) -> list[MemoryRecord]:
        return [MemoryRecord.model_validate(r) for r in data["records"]]

    @staticmethod
    def _hits(data: Any) -> list[SearchHit]:
        return [SearchHit.model_validate(h) for h in data["hits"]]

    @staticmethod
    def _read(call: _Call, response: httpx.Response) -> Any:
        if response.status_code == 404 and call.missing_is_value:
            return call.missing
        if response.is_error:
            raise _error(response)
        return response.json()

    @staticmethod
    def _busy_wait(response: httpx.Response, attempt: int) -> float | None:
        """How long to wait before sending again when the server says the token has its limit of requests in flight
        (429 with ``Retry-After``), up to ``_BUSY_RETRIES`` times; None: read the response as it is."""
        if response.status_code != 429 or attempt >= _BUSY_RETRIES:
            return None
        try:
            after = float(response.headers.get("Retry-After", "1"))
        except ValueError:
            after = 1.0
        return min(max(after, 0.05), _BUSY_WAIT_MAX_S) * (attempt + 1)

    @staticmethod
    def _transport_error(exc: httpx.HTTPError) -> StoreUnavailableError:
        return StoreUnavailableError(f"the memadapt server cannot be reached: {exc}")

    @staticmethod
    def _export_error(response: httpx.Response) -> MemadaptError:
        return _error(response)
