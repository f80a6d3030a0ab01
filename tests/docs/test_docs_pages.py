"""The pages in docs/: their Python examples run, and their links lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ._pages import DOCS, ROOT
from .test_readme import Block, blocks, run_example

PAGES = sorted(DOCS.glob("*.md"))
EXAMPLES = [
    pytest.param(page, block, id=f"{page.name}:{block.line}")
    for page in PAGES
    for block in blocks(page.read_text(encoding="utf-8"))
    if block.lang == "python" and not block.skip
]


def test_the_pages_the_readme_promises_exist() -> None:
    names = {page.name for page in PAGES}

    assert {
        "architecture.md",
        "configuration.md",
        "benchmarks.md",
        "storage.md",
        "reliability-and-security.md",
        "troubleshooting.md",
    } <= names


@pytest.mark.parametrize(("page", "block"), EXAMPLES)
def test_a_docs_example_runs(page: Path, block: Block, tmp_path: Path) -> None:
    run = run_example(block, tmp_path)

    assert run.returncode == 0, f"{page.name} line {block.line} failed:\n{run.stderr[-3000:]}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_docs_page_links_only_to_files_that_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    links = [link.split("#")[0] for link in re.findall(r"\]\((?!https?://|#)([^)\s]+)\)", text)]

    missing = [link for link in links if not (page.parent / link).resolve().exists()]

    assert missing == [], f"{page.relative_to(ROOT)} links to missing files"
