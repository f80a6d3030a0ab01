"""``memadapt_core.testing``: public test doubles that import without pytest, and a pinned public surface."""

from __future__ import annotations

import subprocess
import sys

import pytest

import memadapt_core.testing


def test_the_test_doubles_import_without_pytest() -> None:
    code = (
        "import sys; sys.modules['pytest'] = None\n"  # `import pytest` now fails, as where it is not installed
        "import memadapt_core.testing as t\n"
        "from memadapt_core.testing import HashEmbedder, ScriptedLLMServer\n"
        "assert t.HashEmbedder is HashEmbedder and t.ScriptedLLMServer is ScriptedLLMServer\n"
    )

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 0, done.stderr


def test_the_behaviour_suite_is_loaded_when_asked_for() -> None:
    from memadapt_core.testing.contract import MemoryContract

    assert memadapt_core.testing.MemoryContract is MemoryContract


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="LocomoReplay"):
        memadapt_core.testing.LocomoReplay  # noqa: B018


def test_the_public_names_are_pinned_and_sorted() -> None:
    assert memadapt_core.testing.__all__ == [
        "ChatRequest", "Failure", "Garbage", "Hang", "HashEmbedder", "MemoryContract", "RecordedRequest", "Reply",
        "Responder", "ScriptItem", "ScriptedLLMServer", "hashed_embedding", "serve_scripted_llm",
        "trial_llm_server", "trial_responder",
    ]  # fmt: skip
    assert memadapt_core.testing.__all__ == sorted(memadapt_core.testing.__all__)
    for name in memadapt_core.testing.__all__:
        assert hasattr(memadapt_core.testing, name), name
