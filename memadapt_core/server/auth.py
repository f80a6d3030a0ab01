"""Who a request acts for: bearer tokens mapped to user ids (and the agents each may reach), and the rule that an
open port needs them.

The map comes from ``--tokens FILE`` or ``MEMADAPT_TOKENS``, both a JSON object whose values are a user id
(``{"token": "user_id"}``: the token may name any agent or workspace) or a grant
(``{"token": {"user": "ann", "agents": ["travel"]}}``: only those agents, 403 for any other). A grant with
``"operator": true`` (``{"token": {"user": "ops", "operator": true}}``) also reaches the operator's routes
(``/vector_store``: loading and dumping experience libraries); no other token does. A model never names its user:
the token (HTTP) or the server's own ``--user-id`` (stdio) does.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from memadapt_core.errors import ConfigurationError
from memadapt_core.models import Scope

__all__ = [
    "MIN_TOKEN_CHARS",
    "TOKENS_ENV",
    "Access",
    "Forbidden",
    "TokenMap",
    "bearer_token",
    "is_loopback",
    "load_tokens",
]

TOKENS_ENV = "MEMADAPT_TOKENS"
MIN_TOKEN_CHARS = 16
log = logging.getLogger("memadapt.server")


@dataclass(frozen=True)
class Access:
    """What one token reaches: its scope (user, and the server's agent if any) and, for a grant, its agents."""

    scope: Scope
    agents: frozenset[str] | None = None  # None: any agent (a token given as a plain user id, or no "agents")
    operator: bool = False  # the store's operator: may load and dump libraries (/vector_store)

    def check_agent(self, agent_id: str | None, field: str = "agent_id") -> None:
        """``Forbidden`` when ``agent_id`` is not granted to this token (None names no agent: always allowed)."""
        if agent_id is None or self.agents is None or agent_id in self.agents:
            return
        granted = ", ".join(repr(a) for a in sorted(self.agents)) or "none"
        msg = f"{field}: this token is granted agents {granted} only, not {agent_id!r}"
        raise Forbidden(msg)

    def check_operator(self, what: str) -> None:
        """``Forbidden`` unless this token is the operator's (a grant with ``"operator": true``)."""
        if not self.operator:
            msg = f'{what} is the operator\'s: only a token granted {{"operator": true}} in the tokens file may'
            raise Forbidden(msg)


class Forbidden(Exception):
    """The request names a scope its token does not stand for."""


class TokenMap:
    """Tokens -> what each reaches; compared in constant time so a wrong guess learns nothing from the clock."""

    def __init__(self, tokens: Mapping[str, str | Access], *, agent_id: str | None = None) -> None:
        self._tokens = {
            token.encode(): grant if isinstance(grant, Access) else Access(Scope.of(user_id=grant, agent_id=agent_id))
            for token, grant in tokens.items()
        }

    def __bool__(self) -> bool:
        return bool(self._tokens)

    @property
    def users(self) -> list[str]:
        """The users the tokens stand for, each once, sorted (what ``memadapt serve`` says on start)."""
        return sorted({a.scope.user_id for a in self._tokens.values() if a.scope.user_id is not None})

    def access_of(self, token: str | None) -> Access | None:
        """What a token reaches, or None for no token or an unknown one."""
        if not token:
            return None
        given = token.encode("utf-8", "replace")
        found = None
        for known, access in self._tokens.items():
            if hmac.compare_digest(known, given):
                found = access
        return found

    def scope_of(self, token: str | None) -> Scope | None:
        """The scope a token stands for, or None for no token or an unknown one."""
        found = self.access_of(token)
        return None if found is None else found.scope


def _entry(source: str, value: object, agent_id: str | None) -> Access:
    """One token's value: a user id, or ``{"user": ..., "agents": [...], "operator": true}`` (both optional)."""
    if isinstance(value, str) and value.strip():
        return Access(Scope.of(user_id=value, agent_id=agent_id))
    shape = '{"user": "user_id", "agents": ["agent_id", ...], "operator": true}'
    if not isinstance(value, dict) or set(value) - {"user", "agents", "operator"} or "user" not in value:
        msg = f"{source}: the value of a token is a user id or {shape}"
        raise ConfigurationError(msg)
    user, agents = value["user"], value.get("agents", [])
    if not isinstance(user, str) or not user.strip():
        msg = f"{source}: a grant's user must be a non-empty string ({shape})"
        raise ConfigurationError(msg)
    if not isinstance(agents, list) or not all(isinstance(a, str) and a.strip() for a in agents):
        msg = f"{source}: a grant's agents must be a list of non-empty strings ({shape})"
        raise ConfigurationError(msg)
    operator = value.get("operator", False)
    if not isinstance(operator, bool):
        msg = f"{source}: a grant's operator must be true or false ({shape})"
        raise ConfigurationError(msg)
    granted = frozenset(agents) if "agents" in value or not operator else None  # an operator without a list: any
    return Access(Scope.of(user_id=user, agent_id=agent_id), granted, operator)


def load_tokens(file: str | Path | None, *, agent_id: str | None = None) -> TokenMap:
    """The token map from ``file``, else from ``MEMADAPT_TOKENS``, else empty. ``ConfigurationError`` names the
    source of a map that is not a JSON object of user ids or grants."""
    if file is not None:
        source = str(file)
        try:
            text = Path(file).read_text(encoding="utf-8")
        except OSError as exc:
            msg = f"--tokens {source}: cannot read it ({exc.strerror or exc})"
            raise ConfigurationError(msg) from exc
    elif (env := os.environ.get(TOKENS_ENV)) is not None:
        source, text = TOKENS_ENV, env
    else:
        return TokenMap({})
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        msg = f'{source}: not JSON ({exc.msg}); give an object {{"token": "user_id"}}'
        raise ConfigurationError(msg) from exc
    if not isinstance(data, dict) or not all(isinstance(k, str) and k.strip() for k in data):
        msg = f'{source}: give a JSON object of non-empty strings {{"token": "user_id"}}'
        raise ConfigurationError(msg)
    _warn_if_weak(source, file, data)
    try:
        return TokenMap({token: _entry(source, value, agent_id) for token, value in data.items()})
    except ConfigurationError:
        raise
    except ValueError as exc:  # a user id the engine would refuse
        msg = f"{source}: {exc}"
        raise ConfigurationError(msg) from exc


def _warn_if_weak(source: str, file: str | Path | None, tokens: Mapping[str, object]) -> None:
    """A warning (never the token itself) for a token short enough to guess and a file others may read."""
    short = sum(len(t) < MIN_TOKEN_CHARS for t in tokens)
    if short:
        log.warning(
            "%s: %d token(s) shorter than %d characters are easy to guess; generate them with "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'", source, short, MIN_TOKEN_CHARS,
        )  # fmt: skip
    if file is not None and os.name == "posix":
        mode = Path(file).stat().st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            log.warning("%s: other accounts may read this tokens file (mode %03o); chmod 600 it", source, mode & 0o777)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
