"""Storage backends behind one ``VectorBackend`` protocol."""

from memadapt_core.filters import FilterSpec, MetaCondition

from .base import Candidate, CollectionInfo, StoredPoint, VectorBackend

__all__ = ["Candidate", "CollectionInfo", "FilterSpec", "MetaCondition", "StoredPoint", "VectorBackend"]
