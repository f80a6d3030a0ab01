"""A record's content hash ignores case and runs of whitespace; stores written before keep matching it."""

from __future__ import annotations

import hashlib
import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from memadapt_core.record_codec import normalised_hash

_WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
_TEXT = st.text(st.one_of(st.characters(exclude_categories=["Cs"]), st.sampled_from(_WHITESPACE)), max_size=60)


def _hash_before(text: str, role: str | None, name: str | None) -> str:
    """The hash as stores were first written: a regular expression collapsed the whitespace."""
    norm = re.sub(r"\s+", " ", text.strip().lower())
    return hashlib.sha256(f"{role or ''}\x1f{name or ''}\x1f{norm}".encode()).hexdigest()[:32]


@settings(max_examples=3000)
@given(_TEXT, st.none() | st.sampled_from(["user", "assistant"]), st.none() | _TEXT)
def test_the_hash_is_the_one_stores_were_written_with(text: str, role: str | None, name: str | None) -> None:
    assert normalised_hash(text, role=role, name=name) == _hash_before(text, role, name)


def test_case_and_runs_of_whitespace_do_not_change_the_hash() -> None:
    assert normalised_hash("  I moved to\u00a0 Berlin\n") == normalised_hash("i MOVED to berlin")
