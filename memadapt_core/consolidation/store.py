"""What the consolidation worker needs from the store: the engine implements these over its backend.

Kept small on purpose. Every call is scoped by exactly the ``Scope`` given (ids not given are not constrained
only where a method takes no scope: ``facts_by_ids`` and ``apply``, whose plan carries its scope).
"""

from __future__ import annotations

from typing import Protocol

from memadapt_core.consolidation.planning.plan import ConsolidationPlan
from memadapt_core.models import MemoryRecord, Scope

__all__ = ["ConsolidationStore", "SyncConsolidationStore"]


class ConsolidationStore(Protocol):
    """The async store protocol of ``ConsolidationWorker``."""

    async def pending_messages(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        """Messages (kind ``message``) of exactly this scope, not consolidated, oldest ``observed_at`` first."""
        ...

    async def pending_scopes(self, limit: int) -> list[Scope]:
        """Scopes that have pending messages (to resume after a restart)."""
        ...

    async def similar_facts(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        """The valid facts (kind ``fact``, no ``valid_to``) of this scope nearest to ``text``, best first."""
        ...

    async def pending_trajectories(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        """Trajectories (kind ``trajectory``) of exactly this scope, not consolidated, oldest first."""
        ...

    async def similar_experiences(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]:
        """The valid experiences of this (agent) scope nearest to ``text``, best first."""
        ...

    async def pending_tool_calls(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        """Tool calls of this agent (any user or session) not yet taken into a guide, oldest first."""
        ...

    async def tool_guide(self, scope: Scope, tool: str) -> MemoryRecord | None:
        """The agent's valid guide of ``tool``, if any."""
        ...

    async def facts_by_ids(self, ids: list[str]) -> list[MemoryRecord]:
        """The records with these ids that exist, valid or not, in input order."""
        ...

    async def insights_citing(self, fact_ids: list[str], scope: Scope) -> list[MemoryRecord]:
        """The valid insights of this scope whose ``source_ids`` include any of ``fact_ids``."""
        ...

    async def unreflected_facts(self, scope: Scope, limit: int) -> list[str]:
        """Ids of the valid facts of exactly this scope that no reflection has taken (not ``consolidated``).

        The worker counts new facts per scope to know when to reflect; after a restart it starts from these."""
        ...

    async def profile_statements(self, scope: Scope) -> list[MemoryRecord]:
        """The valid profile statements (kind ``profile``) of exactly this profile scope."""
        ...

    async def recent_knowledge(self, scope: Scope, limit: int) -> list[MemoryRecord]:
        """The newest valid facts and insights a profile scope rests on (a user's across agents and sessions;
        an agent's own, about no user), newest first."""
        ...

    async def heat(self, messages: list[MemoryRecord]) -> float:
        """The heat of a pending segment (``memadapt_core.scoring.heat.segment_heat``), visits not yet written included.
        Called only with a heat threshold."""
        ...

    async def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]:
        """Carry out ``plan`` and return the records it created.

        Store the new records (embedded, in the plan's scope, ``supersedes`` as given), set ``valid_to`` (and
        ``superseded_by``) on the ended records, record history events (``reject`` ones on the trajectories of
        refused experiences), and LAST mark ``consolidated_ids``.
        Idempotent: record ids are deterministic, so a replay overwrites.
        """
        ...


class SyncConsolidationStore(Protocol):
    """The sync twin of ``ConsolidationStore`` (for ``SyncConsolidationWorker``)."""

    def pending_messages(self, scope: Scope, limit: int) -> list[MemoryRecord]: ...

    def pending_scopes(self, limit: int) -> list[Scope]: ...

    def similar_facts(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]: ...

    def pending_trajectories(self, scope: Scope, limit: int) -> list[MemoryRecord]: ...

    def similar_experiences(self, text: str, scope: Scope, limit: int) -> list[MemoryRecord]: ...

    def pending_tool_calls(self, scope: Scope, limit: int) -> list[MemoryRecord]: ...

    def tool_guide(self, scope: Scope, tool: str) -> MemoryRecord | None: ...

    def facts_by_ids(self, ids: list[str]) -> list[MemoryRecord]: ...

    def insights_citing(self, fact_ids: list[str], scope: Scope) -> list[MemoryRecord]: ...

    def unreflected_facts(self, scope: Scope, limit: int) -> list[str]: ...

    def profile_statements(self, scope: Scope) -> list[MemoryRecord]: ...

    def recent_knowledge(self, scope: Scope, limit: int) -> list[MemoryRecord]: ...

    def heat(self, messages: list[MemoryRecord]) -> float: ...

    def apply(self, plan: ConsolidationPlan) -> list[MemoryRecord]: ...
