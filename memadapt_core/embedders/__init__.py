"""Embedders: the ABC and the built-in providers (registered through the built-in plugin)."""

from memadapt_core.embedders.base import Embedder, Vectors
from memadapt_core.embedders.wordllama import WordLlamaEmbedder

__all__ = ["Embedder", "Vectors", "WordLlamaEmbedder"]
