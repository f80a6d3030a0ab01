"""Settings: every one is a constructor argument and an environment variable (prefix ``MEMADAPT_``).

Read when an engine is built, never at import. Nested groups use ``__``: ``MEMADAPT_LLM__BASE_URL``,
``MEMADAPT_RETRIEVAL__DENSE_WEIGHT``. Secrets are ``SecretStr``: never logged, never serialised.
The fields are in ``settings.py`` (``MemorySettings``), ``groups.py`` and ``retrieval.py``; docs/configuration.md is
generated from them.
"""

from memadapt_core.config.groups import (
    EmbedderSettings,
    LLMSettings,
    TaskMemorySettings,
    TierSettings,
    openai_base_url,
    openai_key,
)
from memadapt_core.config.retrieval import RetrievalSettings
from memadapt_core.config.settings import MemorySettings, default_path

__all__ = [
    "EmbedderSettings",
    "LLMSettings",
    "MemorySettings",
    "RetrievalSettings",
    "TaskMemorySettings",
    "TierSettings",
    "default_path",
    "openai_base_url",
    "openai_key",
]
