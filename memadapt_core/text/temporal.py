"""Time expressions in text -> absolute ranges, resolved against a reference time.

``find_time_range("what did I say last week about hiking", now)`` gives last week's Monday..Monday in ``now``'s
time zone. The reference is *when the text was said* for messages and the query's ``now`` for searches. Ranges
are half-open ``[start, end)``. English and Chinese expressions are understood (Chinese in ``temporal_zh``, consulted
only when a text holds CJK characters, so English text takes the same path as before); anything else returns None.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta
from typing import NamedTuple

from . import temporal_zh
from .scripts import has_unspaced

__all__ = ["TimeRange", "as_aware", "find_time_range", "is_time_only", "is_when_question", "mentions_time"]

MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}
WEEKDAYS = {d: i for i, d in enumerate(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])}
NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a couple": 2, "a few": 3, "several": 3,
}  # fmt: skip

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(WEEKDAYS) + r")s?"
_NUM = r"(?P<num>\d{1,3}|" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b")),
    ("day_month", re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MONTH}(?:,?\s+{_YEAR})?\b")),
    ("month_day", re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,?\s+{_YEAR})?\b(?!\s*(?:am|pm|:))")),
    ("month_year", re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b")),
    ("ago", re.compile(rf"\b{_NUM}\s+{_UNIT}\s+ago\b")),
    ("past_n", re.compile(rf"\b(?:past|last|previous)\s+{_NUM}\s+{_UNIT}\b")),
    ("day_before_yesterday", re.compile(r"\bthe\s+day\s+before\s+yesterday\b")),
    ("yesterday", re.compile(r"\b(?:yesterday|last\s+night)\b")),
    ("today", re.compile(r"\b(?:today|tonight|this\s+(?:morning|afternoon|evening))\b")),
    ("tomorrow", re.compile(r"\btomorrow\b")),
    ("weekend", re.compile(r"\b(?P<which>last|this|past|previous|next)\s+weekend\b")),
    ("rel_unit", re.compile(r"\b(?P<which>last|this|past|previous|next)\s+(?P<unit>week|month|year)\b")),
    ("rel_weekday", re.compile(rf"\b(?P<which>last|this|past|previous|next|on)\s+{_WEEKDAY}\b")),
    ("in_month", re.compile(rf"\b(?:in|during|since|throughout|early|late|mid|from)\s+{_MONTH}\b")),
    ("in_year", re.compile(rf"\b(?:in|during|since|throughout|from)\s+{_YEAR}\b")),
]

_ABSOLUTE = frozenset({"iso", "day_month", "month_day", "month_year", "in_month", "in_year"})
# All the patterns in one, without their group names: a text none of them matches (most queries) is refused in
# one scan instead of fifteen. It matches wherever one of them does, so it never hides an expression.
_ANY = re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[a-z_]+>', '(?:', p.pattern)})" for _, p in _PATTERNS))

_TIME_WORDS = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|weekend|(?:last|next|this|past)\s+(?:night|week|month|year|few)"
    r"|(?:19|20)\d\d|"
    + "|".join(WEEKDAYS)
    + "|"
    + "|".join(m for m in MONTHS if len(m) > 3 and m != "may")
    + r"|\d{1,2}(?::\d\d)?\s*(?:am|pm))\b"
)  # searched in lower-cased text: IGNORECASE made it three times slower (it runs on every stored record)
_WHEN = re.compile(r"^\s*(?:when|what\s+(?:date|day|time|year|month)|how\s+long\s+ago)\b", re.IGNORECASE)


class TimeRange(NamedTuple):
    start: datetime
    end: datetime
    #: True for expressions relative to the reference time ("last week", "yesterday"): they name when something
    #: was said. Absolute dates ("20 May 2023") more often name an event that is talked about later.
    relative: bool = False

    def widened(self, before: timedelta, after: timedelta) -> TimeRange:
        return TimeRange(_shifted(self.start, -before), _shifted(self.end, after), self.relative)

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def _shifted(moment: datetime, delta: timedelta) -> datetime:
    """``moment + delta``, stopping at the ends of the calendar (a window around 9999-12-30 ends there)."""
    try:
        return moment + delta
    except OverflowError:
        end = datetime.max if delta > timedelta(0) else datetime.min
        return end.replace(tzinfo=moment.tzinfo)


def as_aware(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def mentions_time(text: str) -> bool:
    """Whether ``text`` names a time: a date, a weekday, a month, 'yesterday', '3 weeks ago', '5pm'…"""
    lowered = text.lower()
    if _TIME_WORDS.search(lowered) is not None:
        return True
    return has_unspaced(text) and temporal_zh.mentions_time(text)


def is_when_question(text: str) -> bool:
    if _WHEN.search(text) is not None:
        return True
    return has_unspaced(text) and temporal_zh.is_when_question(text)


def find_time_range(text: str, now: datetime) -> TimeRange | None:
    """The first time expression in ``text`` (most specific patterns first) as a range, or None. In a text with
    CJK characters, Chinese expressions are looked for first."""
    lowered = text.lower()
    if has_unspaced(lowered):
        now = as_aware(now)
        span = temporal_zh.find_span(lowered, now.date())
        if span is not None:
            return TimeRange(_day(span.start, now), _day(span.end, now), span.relative)
    if _ANY.search(lowered) is None:
        return None
    now = as_aware(now)
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(lowered):
            found = _resolve(kind, match, now)
            if found is not None:
                return found._replace(relative=kind not in _ABSOLUTE)
    return None


def _day(d: date, tz: datetime) -> datetime:
    return datetime.combine(d, time(), tzinfo=tz.tzinfo)


def _days(start: date, n: int, now: datetime) -> TimeRange:
    begin = _day(start, now)
    return TimeRange(begin, begin + timedelta(days=n))


def _month(year: int, month: int, now: datetime) -> TimeRange:
    nxt = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return TimeRange(_day(date(year, month, 1), now), _day(nxt, now))


def _number(raw: str) -> int:
    return int(raw) if raw.isdigit() else NUMBERS[raw]


def _shift_months(d: date, months: int) -> tuple[int, int]:
    total = d.year * 12 + (d.month - 1) + months
    return total // 12, total % 12 + 1


def _resolve(kind: str, m: re.Match[str], now: datetime) -> TimeRange | None:
    today = now.date()
    g = m.groupdict()
    try:
        if kind == "iso":
            return _days(date(int(g["y"]), int(g["m"]), int(g["d"])), 1, now)
        if kind in ("day_month", "month_day"):
            month, day = MONTHS[g["month"]], int(g["day"])
            year = int(g["year"]) if g.get("year") else _recent_year(today, month, day)
            return _days(date(year, month, day), 1, now)
        if kind == "month_year":
            return _month(int(g["year"]), MONTHS[g["month"]], now)
        if kind == "in_month":
            month = MONTHS[g["month"]]
            year = today.year if month <= today.month else today.year - 1
            return _month(year, month, now)
        if kind == "in_year":
            year = int(g["year"])
            return TimeRange(_day(date(year, 1, 1), now), _day(date(year + 1, 1, 1), now))
        if kind in ("ago", "past_n"):
            n, unit = _number(g["num"]), g["unit"]
            if unit == "day":
                back = today - timedelta(days=n)
                return (
                    _days(back, 1, now)
                    if kind == "ago"
                    else TimeRange(_day(back, now), _day(today, now) + timedelta(days=1))
                )
            if unit == "week":
                back = today - timedelta(weeks=n)
                if kind == "ago":
                    return _days(back - timedelta(days=3), 7, now)
                return TimeRange(_day(back, now), _day(today, now) + timedelta(days=1))
            if unit == "month":
                y, mo = _shift_months(today, -n)
                return (
                    _month(y, mo, now)
                    if kind == "ago"
                    else TimeRange(_month(y, mo, now).start, _day(today, now) + timedelta(days=1))
                )
            y = today.year - n
            if kind == "ago":
                return TimeRange(_day(date(y, 1, 1), now), _day(date(y + 1, 1, 1), now))
            return TimeRange(_day(date(y, today.month, 1), now), _day(today, now) + timedelta(days=1))
        if kind == "day_before_yesterday":
            return _days(today - timedelta(days=2), 1, now)
        if kind == "yesterday":
            return _days(today - timedelta(days=1), 1, now)
        if kind == "today":
            return _days(today, 1, now)
        if kind == "tomorrow":
            return _days(today + timedelta(days=1), 1, now)
        if kind == "weekend":
            offset = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1}[g["which"]]
            saturday = today - timedelta(days=today.weekday()) + timedelta(days=5 + 7 * offset)
            return _days(saturday, 2, now)
        if kind == "rel_unit":
            offset = {"last": -1, "past": -1, "previous": -1, "this": 0, "next": 1}[g["which"]]
            unit = g["unit"]
            if unit == "week":
                monday = today - timedelta(days=today.weekday()) + timedelta(weeks=offset)
                return _days(monday, 7, now)
            if unit == "month":
                y, mo = _shift_months(today, offset)
                return _month(y, mo, now)
            y = today.year + offset
            return TimeRange(_day(date(y, 1, 1), now), _day(date(y + 1, 1, 1), now))
        if kind == "rel_weekday":
            target = WEEKDAYS[g["weekday"]]
            which = g["which"]
            if which == "next":
                ahead = (target - today.weekday()) % 7 or 7
                return _days(today + timedelta(days=ahead), 1, now)
            days_back = (today.weekday() - target) % 7
            if which in ("last", "past", "previous") and days_back == 0:
                days_back = 7
            return _days(today - timedelta(days=days_back), 1, now)
    except (ValueError, KeyError, OverflowError):
        return None
    return None


def _recent_year(today: date, month: int, day: int) -> int:
    """A day named without a year is the most recent such day not after today."""
    try:
        return today.year if date(today.year, month, day) <= today else today.year - 1
    except ValueError:
        return today.year - 1


# Words that ask about a conversation without saying what it was about: a question made only of these and a time
# expression ("what did I tell you yesterday?", "anything from March?") asks for that period, not for a topic.
_ABOUT_NOTHING = frozenset(
    {
        "a", "about", "again", "all", "an", "and", "any", "anything", "are", "back", "be", "been", "between",
        "can", "chat", "chats", "chatted", "could", "did", "discuss", "discussed", "do", "does", "else",
        "everything", "from", "go", "happened", "happen", "have", "i", "in", "is", "it", "me", "mention",
        "mentioned", "my", "of", "on", "our", "please", "recall", "remember", "remind", "said", "say", "says",
        "show", "so", "something", "talk", "talked", "talking", "tell", "the", "there", "these", "this",
        "those", "to", "told", "us", "was", "we", "went", "were", "what", "whatever", "which", "you", "your",
        "conversation", "conversations", "earlier", "before", "during", "since", "ago", "last", "past",
        "previous", "recently", "recent", "note", "notes", "memory", "memories", "list", "give", "stuff",
        "things", "thing",
    }
)  # fmt: skip
_QUERY_WORD = re.compile(r"[a-z0-9']+")


def is_time_only(text: str) -> bool:
    """Whether ``text`` asks only about a period: it names a time and, that left out, nothing but words like
    "what did I tell you"."""
    lowered = text.lower()
    if has_unspaced(lowered):
        named, rest = temporal_zh.without_time_only_words(lowered)
        if not named and _ANY.search(rest) is None:
            return False
        rest = _ANY.sub(" ", rest)
        return not has_unspaced(rest) and all(w in _ABOUT_NOTHING for w in _QUERY_WORD.findall(rest))
    if _ANY.search(lowered) is None:
        return False
    rest = _ANY.sub(" ", lowered)
    return all(w in _ABOUT_NOTHING for w in _QUERY_WORD.findall(rest))
