"""The embedded store (qdrant-edge): ``EdgeBackend`` and the modules that open, check and keep up its folder."""

from memadapt_core.backends.edge.backend import EdgeBackend

__all__ = ["EdgeBackend"]
