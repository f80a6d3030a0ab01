"""Old path of ``consolidation/planning/experience_plan.py``, kept for ``server/reme_routes.py`` (another owner)."""

from memadapt_core.consolidation.planning.experience_plan import experience_content

__all__ = ["experience_content"]
