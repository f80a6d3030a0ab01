"""Old path of ``engine/tasks/tool_memory.py``, kept for the engine twins and ``remote_tasks.py`` (other owners)."""

from memadapt_core.engine.tasks.tool_memory import ToolGuide, guide_of, tool_call_inputs

__all__ = ["ToolGuide", "guide_of", "tool_call_inputs"]
