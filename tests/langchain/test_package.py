"""The package's public surface, and what happens without LangChain installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import memadapt_langchain

ROOT = Path(__file__).resolve().parents[2]


def test_public_names_are_pinned() -> None:
    assert memadapt_langchain.__all__ == [
        "MemadaptChatMessageHistory",
        "MemadaptExperienceRetriever",
        "MemadaptProfileRetriever",
        "MemadaptRetriever",
        "MemadaptStore",
        "MemadaptVectorStore",
        "create_experience_tool",
        "create_save_memory_tool",
        "create_search_memory_tool",
        "create_trajectory_tool",
    ]


def test_without_langchain_the_import_error_says_what_to_install() -> None:
    # A fresh interpreter in which langchain_core cannot be imported (None in sys.modules blocks the import).
    code = (
        "import sys\n"
        "sys.modules['langchain_core'] = None\n"
        "try:\n"
        "    import memadapt_langchain\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True, timeout=120
    )

    assert "pip install 'memadapt[langchain]'" in out.stdout
