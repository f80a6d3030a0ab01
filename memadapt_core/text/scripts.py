"""Which writing system a text is in, as Lucene's analyzers decide it: by script, character by character. No I/O.

Words of Chinese and Japanese are not separated by spaces, so their runs are segmented apart from the rest of a
text (``sparse``); a text mostly in a script the English model does not read is embedded by the multilingual model
alone (``embedders.multilingual``); time words and recency cues have tables per language (``temporal``,
``ranking``). Deciding by script, not by a language guess, means adding a language never changes how another one is
indexed, and a Latin-only text takes exactly the path it took before any of this existed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

__all__ = ["Route", "has_unspaced", "needs_care", "normalized", "route_of", "split_unspaced"]

#: Han (with the extensions and compatibility ideographs), Hiragana, Katakana (and its half-width forms), the
#: iteration mark and the CJK symbols that are words: the scripts written without spaces between words.
_UNSPACED = (
    "\u3005\u3006\u3007\u303b\u3041-\u309f\u30a0-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\uff66-\uff9f\U00020000-\U0002fa1f\U00030000-\U0003134f"
)
_UNSPACED_RUN = re.compile(f"[{_UNSPACED}]+")
#: Characters after which a text no longer takes the plain path: the unspaced scripts, full-width forms (digits and
#: Latin letters typed on a Chinese keyboard: "２０２３", "ＧＰＴ"), ideographic punctuation and zero-width characters
#: that would glue or split words.
_CARE = re.compile(f"[{_UNSPACED}\u3000-\u303f\uff00-\uffef\u200b-\u200d\u2060\ufeff]")
_INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff]")
# Latin: Basic Latin to Latin Extended-B, IPA, Latin Extended Additional, full-width Latin.
_LATIN = "A-Za-z\u00c0-\u024f\u0250-\u02af\u1e00-\u1eff\uff21-\uff3a\uff41-\uff5a"
_LATIN_RUN = re.compile(f"[{_LATIN}]+")
#: A word of a spaced script (letters of one kind in a row), or a run of unspaced characters.
_WORD_RUN = re.compile(f"[{_UNSPACED}]+|[{_LATIN}]+|[^\\W\\d_{_UNSPACED}{_LATIN}]+")

Route = Literal["latin", "other"]


def has_unspaced(text: str) -> bool:
    """Whether ``text`` holds a character of a script written without spaces (Chinese, Japanese). Cheap for ASCII
    text (most English queries): ``isascii`` answers before the regex runs."""
    return not text.isascii() and _UNSPACED_RUN.search(text) is not None


def needs_care(text: str) -> bool:
    """Whether ``text`` holds anything the plain (English) path would tokenize wrongly; False for most texts, which
    then take exactly the path they took before (their token ids unchanged)."""
    return _CARE.search(text) is not None


def normalized(text: str) -> str:
    """NFKC (full-width letters and digits to ASCII, half-width katakana to full-width) without zero-width
    characters: how a text that ``needs_care`` is read."""
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))


def split_unspaced(text: str) -> tuple[list[str], str]:
    """The runs of unspaced scripts in ``text``, and the rest of it with each run replaced by a space."""
    runs = _UNSPACED_RUN.findall(text)
    return runs, _UNSPACED_RUN.sub(" ", text) if runs else text


def route_of(text: str) -> Route:
    """ "latin" when the text's words are mostly in the Latin script (or it has no letters): the English model reads
    it; "other" when most are in another script (Chinese, Japanese, Korean, Cyrillic, Arabic, Thai...), which only
    the multilingual model reads. A Chinese or Japanese character counts as a word, as does a run of letters of any
    other script ("我用ChatGPT写代码": five against one)."""
    latin = other = 0
    for run in _WORD_RUN.findall(text):
        if _LATIN_RUN.fullmatch(run):
            latin += 1
        elif _UNSPACED_RUN.match(run):
            other += len(run)
        else:
            other += 1
    return "other" if other > latin else "latin"
