"""The scope a memory reads and writes, checked by the engine's own rules when the memory is built."""

from __future__ import annotations

from typing import TypedDict

from memadapt_core import Scope
from memadapt_core.validation import parse_scope

__all__ = ["ScopeIds", "require_scope", "scope_ids"]


class ScopeIds(TypedDict):
    user_id: str | None
    agent_id: str | None
    session_id: str | None


def require_scope(user_id: str | None, agent_id: str | None, session_id: str | None) -> Scope:
    """Fail when the memory is built, not at its first call, if no id (or a malformed one) is given."""
    return parse_scope(user_id, agent_id, session_id)


def scope_ids(scope: Scope) -> ScopeIds:
    return {"user_id": scope.user_id, "agent_id": scope.agent_id, "session_id": scope.session_id}
