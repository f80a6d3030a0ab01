"""The README is the front door: every Python example in it runs as printed, and prints what the README says.

Each ```python block runs in its own interpreter (the .venv's, where AutoGen, AgentScope 2.x, LangChain and LangGraph
are installed), in a temporary folder, offline: no MEMADAPT_* setting and no model key leaks in from the caller's
environment. A block whose fence is followed by a line ``It prints:`` and a ```text block must print exactly that.

A block can be left out only by a comment on the line above its fence, with the reason::

    <!-- skip-test: needs a running OpenAI-compatible LLM endpoint -->

The README uses it for the consolidation example (it needs a live LLM); docs/adapters.md for the agentscope-runtime
wiring with AgentScope 1.x (which cannot live in .venv beside AgentScope 2.x; the runtime's adapter is tested in
tests/agentscope_runtime/ in .venv-runtime). Every other block runs.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ._pages import README, ROOT

SKIP = re.compile(r"<!--\s*skip-test:\s*(?P<reason>.+?)\s*-->")
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
COMMIT = re.compile(r"\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
MAX_BYTES = 15_000  # the front door: the details live in docs/


@dataclass(frozen=True)
class Block:
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    skip: str | None = None  # the reason given in a skip-test comment
    prints: str | None = None  # the ```text block announced by "It prints:" right after it


def blocks(text: str) -> list[Block]:
    lines = text.splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if opening is None or not opening["lang"]:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marker = SKIP.search(lines[i - 1]) if i else None
        found.append(
            Block(i + 1, opening["lang"], "\n".join(lines[i + 1 : end]) + "\n", marker["reason"] if marker else None)
        )
        i = end + 1
    return _with_outputs(found, lines)


def _with_outputs(found: list[Block], lines: list[str]) -> list[Block]:
    out = []
    for i, block in enumerate(found):
        after = found[i + 1] if i + 1 < len(found) else None
        if after is not None and after.lang == "text":
            between = [s.strip() for s in lines[block.line + block.code.count("\n") + 1 : after.line - 1] if s.strip()]
            if between == ["It prints:"]:
                block = Block(block.line, block.lang, block.code, block.skip, after.code)
        out.append(block)
    return out


README_TEXT = README.read_text(encoding="utf-8")
PYTHON = [b for b in blocks(README_TEXT) if b.lang == "python"]


def offline_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMADAPT_", "OPENAI_", "DASHSCOPE_"))}
    env.update({"HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)})
    return env


def run_example(block: Block, folder: Path) -> subprocess.CompletedProcess[str]:
    """``block`` run as a script of its own in ``folder``, offline, with its output captured."""
    script = folder / "example.py"
    script.write_text(block.code, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(script)], cwd=folder, env=offline_env(folder), capture_output=True, text=True,
        timeout=300, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "block",
    [pytest.param(b, id=f"line{b.line}", marks=[pytest.mark.skip(b.skip)] if b.skip else []) for b in PYTHON],
)
def test_a_readme_example_runs_as_printed(block: Block, tmp_path: Path) -> None:
    run = run_example(block, tmp_path)

    assert run.returncode == 0, f"README line {block.line} failed:\n{run.stderr[-3000:]}"
    if block.prints is not None:
        assert run.stdout == block.prints, f"README line {block.line} printed something else than it says"


def test_the_first_example_shows_its_output() -> None:
    first = PYTHON[0]

    assert first.skip is None
    assert first.prints is not None
    assert 'Memory(location=":memory:")' in first.code


def test_only_examples_that_cannot_run_here_are_skipped() -> None:
    skipped = [b for b in PYTHON if b.skip]

    assert len(skipped) <= 2, [b.line for b in skipped]
    assert all(b.skip for b in skipped)


def test_the_readme_stays_a_front_door() -> None:
    assert len(README_TEXT.encode()) <= MAX_BYTES, "move details to docs/ and link them"


def test_the_readme_quotes_no_commit_hashes() -> None:
    assert COMMIT.findall(README_TEXT) == []


def test_the_readme_links_only_to_files_that_exist() -> None:
    links = re.findall(r"\]\((?!https?://|#)([^)\s]+)\)", README_TEXT)

    assert links
    assert [link for link in links if not (ROOT / link).exists()] == []


def test_the_readme_has_no_relative_images() -> None:
    # It is also the package's long description, where a relative image would be broken.
    assert re.findall(r"!\[[^\]]*\]\((?!https://)[^)]*\)", README_TEXT) == []
