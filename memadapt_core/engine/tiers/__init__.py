"""The tiers' wing (MemoryOS, docs/tiers.md): working memory, the profile's records, the context block with both,
heat written back (``plans.py``), and archiving beyond the capacity of long-term knowledge (``archiving.py``)."""

from memadapt_core.engine.tiers.plans import (
    ProfilePlan,
    context_with_tiers,
    noted,
    plan_profile,
    plan_recent,
    profile_filter,
    recent_records,
    write_visits,
)

__all__ = [
    "ProfilePlan",
    "context_with_tiers",
    "noted",
    "plan_profile",
    "plan_recent",
    "profile_filter",
    "recent_records",
    "write_visits",
]
