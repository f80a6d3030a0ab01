"""Old path of ``engine/tasks/recall.py``, kept for the twins, ``remote_base.py`` and ``server/`` (other owners)."""

from memadapt_core.engine.tasks.recall import agent_scope_id, rank_experiences, recall_pool, render_guidance

__all__ = ["agent_scope_id", "rank_experiences", "recall_pool", "render_guidance"]
