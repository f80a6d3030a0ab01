"""What ``memadapt serve`` prints when it starts: where it listens, which store, whose tokens, whether an LLM is set.

Without it the service started silently: a newcomer could not tell it was up, nor why ``answer`` was refused or no
profile appeared. No token is ever printed, only the users they stand for.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from memadapt_core.config import MemorySettings, default_path
from memadapt_core.redaction import redact_url
from memadapt_core.testing.trial_llm import is_trial

__all__ = ["service_url", "start_lines"]

_SHOWN_USERS = 5


def service_url(host: str, port: int) -> str:
    """The URL a client on this machine uses (a wildcard bind is reached at loopback)."""
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    try:
        if ipaddress.ip_address(host).version == 6:
            host = f"[{host}]"
    except ValueError:
        pass  # a name
    return f"http://{host}:{port}"


def _store(settings: MemorySettings, collection: str) -> str:
    if settings.location == ":memory:":
        return f"in memory (collection {collection}; gone when the service stops)"
    if settings.resolved_backend() == "qdrant":
        return f"Qdrant server {redact_url(settings.url)}, collection {collection}"
    return f"embedded store {settings.path or default_path()} (collection {collection})"


def _users(users: Sequence[str], source: str, agent_id: str | None) -> str:
    names = ", ".join(users[:_SHOWN_USERS]) + (
        f" and {len(users) - _SHOWN_USERS} more" if len(users) > _SHOWN_USERS else ""
    )
    whose = f"one user ({names})" if len(users) == 1 else f"{len(users)} users ({names})"
    agent = f", every request scoped to agent {agent_id}" if agent_id else ""
    return f"{whose}, a bearer token each, from {source}{agent}"


def _llm(settings: MemorySettings) -> str:
    llm = settings.llm
    if not llm.configured:
        return (
            "none: /v1/answer is refused (501) and nothing is consolidated (no facts, profile or lessons); set "
            "MEMADAPT_LLM__MODEL and MEMADAPT_LLM__BASE_URL to give it one"
        )
    where = redact_url(llm.base_url) if llm.base_url else "api.openai.com"
    profile = ", profile on" if settings.tiers.profile else ""
    if is_trial(llm.model):
        profile = profile or "; profile off (MEMADAPT_TIERS__PROFILE=true keeps one)"
        return (
            f"a scripted trial at {where}, not a model: canned answers (facts are the user's own sentences, answers "
            f"echo the memories recalled), to try consolidation offline{profile}; a real model: MEMADAPT_LLM__MODEL "
            "and MEMADAPT_LLM__BASE_URL"
        )
    return f"{llm.model} at {where}: answer and consolidation on{profile}"


def start_lines(
    settings: MemorySettings, collection: str, *, host: str, port: int, users: Sequence[str], source: str,
    agent_id: str | None = None,
) -> list[str]:  # fmt: skip
    """The lines ``memadapt serve`` prints on start."""
    url = service_url(host, port)
    return [
        f"memadapt serve: listening on {url} (MCP at {url}/mcp, JSON API under {url}/v1, {url}/openapi.json)",
        f"  store: {_store(settings, collection)}",
        f"  users: {_users(users, source, agent_id)}",
        f"  llm:   {_llm(settings)}",
        "  stop with Ctrl-C",
    ]
