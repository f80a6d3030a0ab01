"""Old path of ``engine/tasks/reme_lines.py``, kept for ``server/library_routes.py`` (another owner)."""

from memadapt_core.engine.tasks.reme_lines import reme_memory

__all__ = ["reme_memory"]
