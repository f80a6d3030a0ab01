"""A warning, once per feature and process, when a feature that needs an LLM is used without one.

Without an LLM the profile stays empty, trajectories teach nothing and ``consolidate()`` returns 0: a newcomer
would never learn why. The warning names the feature and the settings to give (``MEMADAPT_LLM__*``).
"""

from __future__ import annotations

import logging
import threading

from memadapt_core.config import MemorySettings

__all__ = ["warn_without_llm"]

log = logging.getLogger("memadapt")

_WARNED: set[str] = set()
_LOCK = threading.Lock()

_MESSAGE = (
    "%s needs an LLM and none is configured, so %s. Set llm.model and llm.base_url (MEMADAPT_LLM__MODEL and "
    "MEMADAPT_LLM__BASE_URL, any OpenAI-compatible endpoint; or MEMADAPT_LLM__API_KEY for api.openai.com); see "
    "docs/configuration.md#llm-llmsettings."
)
_EFFECT = {
    "tiers.profile": "no profile is written",
    "add_trajectories": "the trajectories are stored but no experience is drawn from them",
    "experience_guidance": "there are no experiences to guide with (they are drawn by the LLM)",
    "consolidate()": "nothing is consolidated (no facts, insights or profile)",
}


def warn_without_llm(settings: MemorySettings, feature: str) -> None:
    """Log a warning naming ``feature`` (a key of ``_EFFECT``) the first time it is used without an LLM."""
    if settings.llm.configured:
        return
    with _LOCK:
        if feature in _WARNED:
            return
        _WARNED.add(feature)
    log.warning(_MESSAGE, feature, _EFFECT[feature])
