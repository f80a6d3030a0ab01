"""docs/configuration.md is generated from the settings models: these tests keep the page and the code in step."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memadapt_core import MemorySettings

from ._pages import DOCS, load_config_generator

gen = load_config_generator()


def test_the_configuration_page_is_what_the_generator_writes_today() -> None:
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert page == gen.render(), "docs/configuration.md is stale: run `.venv/bin/python docs/_gen_config.py`"


def test_every_setting_is_explained() -> None:
    assert gen.undocumented() == [], "give these settings a description= or a line in NOTES of docs/_gen_config.py"


def test_every_note_names_a_setting() -> None:
    assert gen.stale_notes() == []


@pytest.mark.parametrize(
    ("variable", "value", "read"),
    [
        ("MEMADAPT_PATH", "/tmp/somewhere", lambda s: s.path),
        ("MEMADAPT_EMBEDDER__MODEL", "text-embedding-3-small", lambda s: s.embedder.model),
        ("MEMADAPT_RETRIEVAL__DENSE_WEIGHT", "0.3", lambda s: str(s.retrieval.dense_weight)),
        ("MEMADAPT_LLM__MODEL", "qwen2.5:7b", lambda s: s.llm.model),
    ],
)
def test_a_documented_environment_variable_is_read(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, read: Callable[[MemorySettings], object]
) -> None:
    monkeypatch.setenv("MEMADAPT_LLM__BASE_URL", "http://localhost:11434/v1")  # an LLM needs model and endpoint
    monkeypatch.setenv("MEMADAPT_LLM__MODEL", "qwen2.5:7b")
    monkeypatch.setenv(variable, value)
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")

    settings = MemorySettings()

    assert f"`{variable}`" in page
    assert read(settings) == value
