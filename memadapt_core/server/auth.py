"""Who a request acts for: bearer tokens mapped to user ids, and the rule that an open port needs them.

The map comes from ``--tokens FILE`` or ``MEMADAPT_TOKENS``, both a JSON object ``{"token": "user_id"}``. A model
never names its user: the token (HTTP) or the server's own ``--user-id`` (stdio) does.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
from collections.abc import Mapping
from pathlib import Path

from memadapt_core.errors import ConfigurationError
from memadapt_core.models import Scope

__all__ = ["TOKENS_ENV", "TokenMap", "bearer_token", "is_loopback", "load_tokens"]

TOKENS_ENV = "MEMADAPT_TOKENS"


class TokenMap:
    """Tokens -> user ids; compared in constant time so a wrong guess learns nothing from the clock."""

    def __init__(self, tokens: Mapping[str, str], *, agent_id: str | None = None) -> None:
        self._tokens = {token.encode(): Scope.of(user_id=user, agent_id=agent_id) for token, user in tokens.items()}

    def __bool__(self) -> bool:
        return bool(self._tokens)

    def scope_of(self, token: str | None) -> Scope | None:
        """The scope a token stands for, or None for no token or an unknown one."""
        if not token:
            return None
        given = token.encode("utf-8", "replace")
        found = None
        for known, scope in self._tokens.items():
            if hmac.compare_digest(known, given):
                found = scope
        return found


def load_tokens(file: str | Path | None, *, agent_id: str | None = None) -> TokenMap:
    """The token map from ``file``, else from ``MEMADAPT_TOKENS``, else empty. ``ConfigurationError`` names the
    source of a map that is not a JSON object of non-empty strings."""
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
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and k.strip() and isinstance(v, str) and v.strip() for k, v in data.items()
    ):
        msg = f'{source}: give a JSON object of non-empty strings {{"token": "user_id"}}'
        raise ConfigurationError(msg)
    try:
        return TokenMap(data, agent_id=agent_id)
    except ValueError as exc:  # a user id the engine would refuse
        msg = f"{source}: {exc}"
        raise ConfigurationError(msg) from exc


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
