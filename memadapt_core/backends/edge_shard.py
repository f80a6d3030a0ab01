"""Old path of ``backends/edge/shard.py``, kept for the benchmarks that import it (issue 36 moves them next)."""

from memadapt_core.backends.edge.shard import DENSE, SPARSE, release, shard_config

__all__ = ["DENSE", "SPARSE", "release", "shard_config"]
