"""Old path of ``backends/edge/holder.py``, kept for ``server/run.py``, which imports it (issue 36 moves it next)."""

from memadapt_core.backends.edge.holder import set_holder

__all__ = ["set_holder"]
