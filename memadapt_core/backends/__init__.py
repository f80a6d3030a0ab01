"""Storage backends behind one ``VectorBackend`` protocol."""

from .base import Candidate, CollectionInfo, FilterSpec, MetaCondition, StoredPoint, VectorBackend

__all__ = ["Candidate", "CollectionInfo", "FilterSpec", "MetaCondition", "StoredPoint", "VectorBackend"]
