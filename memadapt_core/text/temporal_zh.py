"""Chinese time expressions -> day spans, for ``temporal`` to consult when a text holds CJK characters.

``find_span("我上周说的那家餐厅", date(2023, 5, 25))`` gives last week's Monday..Monday. Chinese has no spaces, so
``\\b`` means nothing here: patterns are bounded by look-arounds on the words that would otherwise be cut in half
("以前天气" holds 前天, "一周一次" holds 周一). Every expression names whole days, so spans are dates; ``temporal``
places them in the reference time's zone. Nothing here imports ``temporal`` (it imports this module).

最近 / 近来 alone name no window: "我最近在读什么书?" may reach back weeks, and a fixed window would hide older
memories from a question only about a period, as English "recently" does not. They make a question "current"
(``ranking.tense_of``); 最近三天 / 过去两周 name a window.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import NamedTuple

__all__ = [
    "DaySpan",
    "find_span",
    "is_when_question",
    "mentions_time",
    "normalise",
    "without_time_only_words",
]

# Full-width digits, hyphen, slash and colon (U+FF10..FF19, FF0D, FF0F, FF1A) read as ASCII.
_FULL_WIDTH = {0xFF10 + i: 0x30 + i for i in range(10)} | {0xFF0D: 0x2D, 0xFF0F: 0x2F, 0xFF1A: 0x3A}
_DIGITS = dict(zip("零\u3007一二三四五六七八九", [0, *range(10)], strict=True)) | {"两": 2}
_WEEKDAYS = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}

_CN = "零〇一二两三四五六七八九十百"
_NUM = rf"(?P<num>(?<!\d)\d{{1,3}}|[{_CN}]{{1,5}}|几)"
_MONTH = r"(?P<month>(?<!\d)\d{1,2}|十[一二]?|[一二三四五六七八九])"
_DAY = r"(?P<day>\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])"
_YEAR = (
    r"(?:(?P<year>(?<!\d)(?:19|20)\d\d|[一二][〇零一二三四五六七八九]{3})\s*年|(?P<ryear>大前年|前年|去年|今年|明年))"
)
_WEEK = r"个?(?:星期|礼拜|周)"
_UNIT = r"(?P<unit>天|日|个?(?:星期|礼拜)|周|个月|年)"
# Words ending in 上 / 以 / 然 … that would otherwise lend their last character to a time word.
_NOT_AFTER = r"(?<![早晚马路网身加以之提然])"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("iso", re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)[-/](?P<m>[01]?\d)[-/](?P<d>[0-3]?\d)(?!\d)")),
    ("ymd", re.compile(rf"{_YEAR}\s*{_MONTH}\s*月\s*{_DAY}\s*[日号]")),
    ("ym", re.compile(rf"{_YEAR}\s*{_MONTH}\s*月份?")),
    ("md", re.compile(rf"(?<![{_CN}个]){_MONTH}\s*月\s*{_DAY}\s*[日号]")),
    ("year", re.compile(r"(?<!\d)(?P<year>(?:19|20)\d\d|[一二][〇零一二三四五六七八九]{3})\s*年(?![前后代])")),
    ("month", re.compile(rf"(?<![{_CN}个上下这本]){_MONTH}\s*月份?(?![\d{_CN}亮饼光球前后])")),
    ("ago", re.compile(rf"{_NUM}\s*{_UNIT}(?:之|以)?前")),
    ("past_n", re.compile(rf"(?:最近|过去|近)的?{_NUM}\s*{_UNIT}")),
    ("these_days", re.compile(r"这几天|这两天")),
    (
        "weekday",
        re.compile(
            rf"(?:{_NOT_AFTER}(?P<which>上上|上|这|本|下)个?|(?<![\d{_CN}几每上下这本]))(?:星期|礼拜|周)"
            rf"(?P<weekday>[一二三四五六日天])(?![次起])"
        ),
    ),
    ("weekend", re.compile(rf"{_NOT_AFTER}(?P<which>上上|上|这|本|下)个?周末")),
    ("rel_week", re.compile(rf"{_NOT_AFTER}(?P<which>上上|上|这|本|下){_WEEK}(?![一二三四五六日天末])")),
    ("rel_month", re.compile(rf"{_NOT_AFTER}(?P<which>上上|上|这|本|下)个?月(?![饼亮光球])")),
    ("rel_year", re.compile(r"(?P<which>大前年|(?<![以之提])前年|(?<!过)去年|今年|本年|明年|(?<![然之以])后年)")),
    (
        "rel_day",
        re.compile(
            r"(?P<which>大前天|(?<![以之提事])前天|昨[天日晚夜儿]|今[天日晚早夜儿]|明[天日晚早儿]|大后天|(?<![然之以最])后天)"
            r"(?!性)"
        ),
    ),
]
_ABSOLUTE = frozenset({"iso", "ymd", "ym", "md", "year", "month"})
_ANY = re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[a-z_]+>', '(?:', p.pattern)})" for _, p in _PATTERNS))
# A character every expression above holds (年 月 前 周 今 昨 明 天 …, or a digit before - or /). Searched before the
# patterns: Python runs their union slowly over CJK text (~30x one class), and most stored texts name no time.
_HINT = re.compile(r"[年月前近去天期拜周今昨明]|\d[-/]")
_HINT_OF_TIME_WORDS = re.compile(r"[午晚早凌夜周月年期拜点]|\d:")
_FULL_WIDTH_HINT = re.compile(r"[\uff0d\uff0f\uff10-\uff1a]")

_OFFSETS = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1}
_DAY_OFFSETS = {"大前": -3, "前天": -2, "昨": -1, "今": 0, "明": 1, "后天": 2, "大后": 3}
_YEAR_OFFSETS = {"大前年": -3, "前年": -2, "去年": -1, "今年": 0, "本年": 0, "明年": 1, "后年": 2}

# Times of day and words that only name a time (for ``mentions_time``), beyond the expressions above.
_TIME_WORDS = re.compile(
    r"上午|下午|中午|晚上|早上|早晨|凌晨|傍晚|半夜|深夜|周末|月底|月初|年底|年初|星期|礼拜[一二三四五六日天]"
    r"|(?<!\d)\d{1,2}\s*点|(?<!\d)\d{1,2}:\d\d|[一二两三四五六七八九十]{1,3}点(?:钟|半|[一二三四五六七八九十]+分)"
)
_WHEN = re.compile(r"什么时候|啥时候|何时|哪天|哪一天|几号|几月|哪个月|哪一年|哪年|多久以前|多久之前|多久前|几点")

# What a question about a period says besides the period ("我昨天跟你说了什么?"): removed, nothing may remain.
_ABOUT_NOTHING = sorted(
    {
        "我们", "咱们", "你们", "我", "你", "您", "咱", "跟", "和", "同", "对", "给", "向", "说", "讲", "聊", "谈",
        "提到", "提起", "提", "告诉", "了", "过", "什么", "啥", "哪些", "些", "吗", "呢", "吧", "啊", "呀", "的",
        "是", "有", "有没有", "没有", "都", "还", "一下", "请", "帮", "回忆", "记得", "想想", "记录", "内容", "事情",
        "事", "东西", "话", "话题", "对话", "聊天", "谈话", "记忆", "列出", "看看", "所有", "全部", "任何", "那",
        "这", "在", "当时", "时候", "之前", "以前", "期间", "里", "关于", "一些", "发生", "做", "干", "可以",
        "能", "想", "知道", "再", "又", "到", "些什么", "起", "那天", "那时", "上午", "下午", "中午", "晚上",
        "早上", "早晨", "凌晨", "傍晚", "白天",
    }, key=len, reverse=True,
)  # fmt: skip
_FILLER = re.compile("|".join(_ABOUT_NOTHING))
_PUNCT = re.compile(r"[\s\u3000-\u303f\uff00-\uffef!-/:-@\[-`{-~]+")


class DaySpan(NamedTuple):
    start: date
    end: date  # exclusive
    relative: bool


def normalise(text: str) -> str:
    return text.translate(_FULL_WIDTH) if _FULL_WIDTH_HINT.search(text) else text


def mentions_time(text: str) -> bool:
    text = normalise(text)
    if _HINT.search(text) is not None and any(p.search(text) for _, p in _PATTERNS):
        return True
    return _HINT_OF_TIME_WORDS.search(text) is not None and _TIME_WORDS.search(text) is not None


def is_when_question(text: str) -> bool:
    return _WHEN.search(text) is not None


def without_time_only_words(text: str) -> tuple[bool, str]:
    """Whether ``text`` names a Chinese time, and ``text`` without its Chinese time expressions and the words of
    "what did I tell you" ("我昨天跟你说了什么?" -> True, ""). What is left is the question's topic."""
    text = normalise(text)
    named = _HINT.search(text) is not None and _ANY.search(text) is not None
    rest = _FILLER.sub(" ", _ANY.sub(" ", text) if named else text)
    return named, _PUNCT.sub(" ", rest).strip()


def find_span(text: str, today: date) -> DaySpan | None:
    """The first Chinese time expression in ``text`` (most specific patterns first) as days, or None."""
    text = normalise(text)
    if _HINT.search(text) is None:
        return None
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            found = _resolve(kind, match.groupdict(), today)
            if found is not None:
                return DaySpan(found[0], found[1], kind not in _ABSOLUTE)
    return None


def _int(raw: str) -> int:
    """Arabic or Chinese numerals: 12, 十二, 二十三, 一百零五, 两 (2), 几 (a few: 3), 二〇二三 (digit by digit)."""
    if raw.isdigit():
        return int(raw)
    if raw == "几":
        return 3
    if "十" not in raw and "百" not in raw:
        return int("".join(str(_DIGITS[ch]) for ch in raw))
    total, digit = 0, 0
    for ch in raw:
        if ch in ("十", "百"):
            total += (digit or 1) * (10 if ch == "十" else 100)
            digit = 0
        else:
            digit = _DIGITS[ch]
    return total + digit


def _shift_months(d: date, months: int) -> tuple[int, int]:
    total = d.year * 12 + (d.month - 1) + months
    return total // 12, total % 12 + 1


def _month(year: int, month: int) -> tuple[date, date]:
    nxt = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return date(year, month, 1), nxt


def _one_day(d: date) -> tuple[date, date]:
    return d, d + timedelta(days=1)


def _recent(today: date, month: int, day: int = 1) -> int:
    """A date named without a year is the most recent such date not after today."""
    try:
        return today.year if date(today.year, month, day) <= today else today.year - 1
    except ValueError:
        return today.year - 1


def _year_of(g: dict[str, str | None], today: date, month: int, day: int = 1) -> int:
    if g.get("year"):
        return _int(g["year"] or "")
    if g.get("ryear"):
        return today.year + _YEAR_OFFSETS[g["ryear"] or ""]
    return _recent(today, month, day)


def _resolve(kind: str, g: dict[str, str | None], today: date) -> tuple[date, date] | None:
    try:
        if kind == "iso":
            return _one_day(date(int(g["y"] or ""), int(g["m"] or ""), int(g["d"] or "")))
        if kind in ("ymd", "md"):
            month, day = _int(g["month"] or ""), _int(g["day"] or "")
            return _one_day(date(_year_of(g, today, month, day), month, day))
        if kind in ("ym", "month"):
            month = _int(g["month"] or "")
            return _month(_year_of(g, today, month), month)
        if kind == "year":
            year = _int(g["year"] or "")
            return date(year, 1, 1), date(year + 1, 1, 1)
        if kind in ("ago", "past_n"):
            return _back(kind, _int(g["num"] or ""), g["unit"] or "", today)
        if kind == "these_days":
            return today - timedelta(days=3), today + timedelta(days=1)
        which = g.get("which") or ""
        if kind == "rel_day":
            offset = next(v for k, v in _DAY_OFFSETS.items() if which.startswith(k))
            return _one_day(today + timedelta(days=offset))
        if kind == "rel_year":
            year = today.year + _YEAR_OFFSETS[which]
            return date(year, 1, 1), date(year + 1, 1, 1)
        if kind == "rel_month":
            return _month(*_shift_months(today, _OFFSETS[which]))
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=_OFFSETS.get(which, 0))
        if kind == "rel_week":
            return monday, monday + timedelta(days=7)
        if kind == "weekend":
            return monday + timedelta(days=5), monday + timedelta(days=7)
        if kind == "weekday":
            target = _WEEKDAYS[g["weekday"] or ""]
            if which:  # 上周三: Wednesday of last week
                return _one_day(monday + timedelta(days=target))
            return _one_day(today - timedelta(days=(today.weekday() - target) % 7))  # 周三: the latest Wednesday
    except (ValueError, KeyError, OverflowError, StopIteration):
        return None
    return None


def _back(kind: str, n: int, unit: str, today: date) -> tuple[date, date]:
    """N天前 is that day, N周前 the week around it, N个月前 / N年前 that month / year; 最近N… runs to today."""
    until = today + timedelta(days=1)
    if unit in ("天", "日"):
        back = today - timedelta(days=n)
        return _one_day(back) if kind == "ago" else (back, until)
    if unit == "个月":
        start, end = _month(*_shift_months(today, -n))
        return (start, end) if kind == "ago" else (start, until)
    if unit == "年":
        year = today.year - n
        return (date(year, 1, 1), date(year + 1, 1, 1)) if kind == "ago" else (date(year, today.month, 1), until)
    back = today - timedelta(weeks=n)
    return (back - timedelta(days=3), back + timedelta(days=4)) if kind == "ago" else (back, until)
