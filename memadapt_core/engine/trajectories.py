"""Old path of ``engine/tasks/trajectories.py``, kept for the engine twins (another owner's files)."""

from memadapt_core.engine.tasks.trajectories import trajectory_inputs

__all__ = ["trajectory_inputs"]
