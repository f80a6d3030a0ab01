"""Opening the embedded store's folder: the qdrant-edge shard's configuration, and the lock that lets one process in.

``<path>/<collection>/`` is an edge shard, loaded if the folder holds one and created otherwise. qdrant-edge takes
an OS lock on it: a second opener gets ``StoreLockedError``, whose message says whether this process holds the
folder already (``release`` forgets a folder once its shard is closed).
"""

from __future__ import annotations

from pathlib import Path

import qdrant_edge as qe

from memadapt_core.backends._upkeep import NO_GRAPH, OPTIMIZERS
from memadapt_core.errors import StoreLockedError, StoreUnavailableError

__all__ = ["DENSE", "SPARSE", "open_shard", "release", "shard_config"]

DENSE, SPARSE = "dense", "bm25"
_OPEN_HERE: set[str] = set()  # folders this process holds open: names the holder in the lock error


def shard_config(dim: int) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine)},
        sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        max_search_threads=1,  # two shared cores: one search thread measured 25-35% faster
        payload_memory=qe.Memory.Cached,
        hnsw_config=NO_GRAPH,  # exact search, on every segment
        optimizers=OPTIMIZERS,  # merge into one tenant-ordered segment, never an HNSW graph
    )


def open_shard(folder: Path, cfg: qe.EdgeConfig, *, existing: bool) -> qe.EdgeShard:
    """The shard in ``folder``: loaded if ``existing``, else created."""
    try:
        shard = qe.EdgeShard.load(str(folder), cfg) if existing else qe.EdgeShard.create(str(folder), cfg)
    except Exception as exc:
        text = str(exc)
        if "WouldBlock" in text:
            holder = "this process" if str(folder.resolve()) in _OPEN_HERE else "another process"
            msg = (
                f"the embedded store {folder} is already open in {holder}. The embedded store serves one "
                "process: within a process, engines opened with the same settings (and no Embedder object or "
                "plugins of their own) share it, or share one Memory (as_sync() / as_async() give the other "
                "twin over the same store); to share memories between processes, run a Qdrant server and pass "
                "url=..."
            )
            raise StoreLockedError(msg) from exc
        msg_0 = f"cannot open the embedded store {folder}: {text}"
        raise StoreUnavailableError(msg_0) from exc
    _OPEN_HERE.add(str(folder.resolve()))
    return shard


def release(folder: Path) -> None:
    """``folder``'s shard is closed (or about to be): this process no longer holds it."""
    _OPEN_HERE.discard(str(folder.resolve()))
