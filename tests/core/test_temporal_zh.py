"""Chinese time expressions resolve against a reference time, as English ones do; Chinese questions about a
period only, when-questions and questions about now are told apart."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memadapt_core import Memory
from memadapt_core.scoring.ranking import tense_of
from memadapt_core.testing import HashEmbedder
from memadapt_core.text.temporal import find_time_range, is_time_only, is_when_question, mentions_time

NOW = datetime(2023, 5, 25, 15, 30, tzinfo=UTC)  # a Thursday


def d(y: int, m: int, day: int) -> datetime:
    return datetime(y, m, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("今天", d(2023, 5, 25), d(2023, 5, 26)),
        ("今日", d(2023, 5, 25), d(2023, 5, 26)),
        ("今晚", d(2023, 5, 25), d(2023, 5, 26)),
        ("今早", d(2023, 5, 25), d(2023, 5, 26)),
        ("昨天", d(2023, 5, 24), d(2023, 5, 25)),
        ("昨日", d(2023, 5, 24), d(2023, 5, 25)),
        ("昨晚", d(2023, 5, 24), d(2023, 5, 25)),
        ("前天", d(2023, 5, 23), d(2023, 5, 24)),
        ("大前天", d(2023, 5, 22), d(2023, 5, 23)),
        ("明天", d(2023, 5, 26), d(2023, 5, 27)),
        ("后天", d(2023, 5, 27), d(2023, 5, 28)),
        ("上周", d(2023, 5, 15), d(2023, 5, 22)),
        ("上星期", d(2023, 5, 15), d(2023, 5, 22)),
        ("上礼拜", d(2023, 5, 15), d(2023, 5, 22)),
        ("上上周", d(2023, 5, 8), d(2023, 5, 15)),
        ("本周", d(2023, 5, 22), d(2023, 5, 29)),
        ("这周", d(2023, 5, 22), d(2023, 5, 29)),
        ("这星期", d(2023, 5, 22), d(2023, 5, 29)),
        ("下周", d(2023, 5, 29), d(2023, 6, 5)),
        ("上个周末", d(2023, 5, 20), d(2023, 5, 22)),
        ("上个月", d(2023, 4, 1), d(2023, 5, 1)),
        ("上月", d(2023, 4, 1), d(2023, 5, 1)),
        ("这个月", d(2023, 5, 1), d(2023, 6, 1)),
        ("本月", d(2023, 5, 1), d(2023, 6, 1)),
        ("下个月", d(2023, 6, 1), d(2023, 7, 1)),
        ("去年", d(2022, 1, 1), d(2023, 1, 1)),
        ("今年", d(2023, 1, 1), d(2024, 1, 1)),
        ("明年", d(2024, 1, 1), d(2025, 1, 1)),
        ("前年", d(2021, 1, 1), d(2022, 1, 1)),
        ("三天前", d(2023, 5, 22), d(2023, 5, 23)),
        ("3天前", d(2023, 5, 22), d(2023, 5, 23)),
        ("十二天前", d(2023, 5, 13), d(2023, 5, 14)),
        ("二十天前", d(2023, 5, 5), d(2023, 5, 6)),
        ("几天前", d(2023, 5, 22), d(2023, 5, 23)),
        ("两周前", d(2023, 5, 8), d(2023, 5, 15)),
        ("3个星期前", d(2023, 5, 1), d(2023, 5, 8)),
        ("两个月前", d(2023, 3, 1), d(2023, 4, 1)),
        ("五年前", d(2018, 1, 1), d(2019, 1, 1)),
        ("最近三天", d(2023, 5, 22), d(2023, 5, 26)),
        ("过去两周", d(2023, 5, 11), d(2023, 5, 26)),
        ("最近几天", d(2023, 5, 22), d(2023, 5, 26)),
        ("周一", d(2023, 5, 22), d(2023, 5, 23)),
        ("周四", d(2023, 5, 25), d(2023, 5, 26)),
        ("周日", d(2023, 5, 21), d(2023, 5, 22)),
        ("周天", d(2023, 5, 21), d(2023, 5, 22)),
        ("星期一", d(2023, 5, 22), d(2023, 5, 23)),
        ("星期天", d(2023, 5, 21), d(2023, 5, 22)),
        ("礼拜五", d(2023, 5, 19), d(2023, 5, 20)),
        ("上周三", d(2023, 5, 17), d(2023, 5, 18)),
        ("上星期五", d(2023, 5, 19), d(2023, 5, 20)),
        ("这周二", d(2023, 5, 23), d(2023, 5, 24)),
        ("下周一", d(2023, 5, 29), d(2023, 5, 30)),
        ("2023年3月5日", d(2023, 3, 5), d(2023, 3, 6)),
        ("２０２３年３月５日", d(2023, 3, 5), d(2023, 3, 6)),
        ("二〇二二年五月一日", d(2022, 5, 1), d(2022, 5, 2)),
        ("2022年3月", d(2022, 3, 1), d(2022, 4, 1)),
        ("2022年", d(2022, 1, 1), d(2023, 1, 1)),
        ("3月5日", d(2023, 3, 5), d(2023, 3, 6)),
        ("三月五号", d(2023, 3, 5), d(2023, 3, 6)),
        ("12月31号", d(2022, 12, 31), d(2023, 1, 1)),
        ("去年3月", d(2022, 3, 1), d(2022, 4, 1)),
        ("三月份", d(2023, 3, 1), d(2023, 4, 1)),
        ("我在2023-01-15说的", d(2023, 1, 15), d(2023, 1, 16)),
        ("我在2023/3/5说的", d(2023, 3, 5), d(2023, 3, 6)),
        ("大后天", d(2023, 5, 28), d(2023, 5, 29)),
        ("大前年", d(2020, 1, 1), d(2021, 1, 1)),
        ("这周末", d(2023, 5, 27), d(2023, 5, 29)),
        ("上上个月", d(2023, 3, 1), d(2023, 4, 1)),
        ("近两个月", d(2023, 3, 1), d(2023, 5, 26)),
        ("这几天", d(2023, 5, 22), d(2023, 5, 26)),
        ("５天前", d(2023, 5, 20), d(2023, 5, 21)),
    ],
)
def test_chinese_expression_resolves_to_a_range(text: str, start: datetime, end: datetime) -> None:
    found = find_time_range(text, NOW)
    assert found is not None
    assert (found.start, found.end) == (start, end)


@pytest.mark.parametrize("text", ["以前天气很好", "然后天气变了", "一周一次", "最近", "我有一点累", "月饼很好吃"])
def test_words_that_only_hold_a_time_word_name_no_range(text: str) -> None:
    assert find_time_range(text, NOW) is None


def test_relative_chinese_expressions_are_relative_and_dates_absolute() -> None:
    relative, absolute = find_time_range("上周", NOW), find_time_range("3月5日", NOW)
    assert relative is not None
    assert relative.relative
    assert absolute is not None
    assert not absolute.relative


def test_a_chinese_expression_resolves_in_the_reference_time_zone() -> None:
    tz = timezone(timedelta(hours=8))
    found = find_time_range("昨天", datetime(2023, 5, 25, 1, 0, tzinfo=tz))
    assert found is not None
    assert found.start == datetime(2023, 5, 24, tzinfo=tz)


@pytest.mark.parametrize(
    "text",
    ["我昨天跟你说了什么？", "上周我们聊了什么？", "前天我提到过什么吗", "3月5日我说了什么", "最近三天我说了什么"],
)
def test_a_chinese_question_about_a_period_only_is_time_only(text: str) -> None:
    assert is_time_only(text)


@pytest.mark.parametrize("text", ["我上周说的那家餐厅叫什么？", "我昨天说的电影好看吗", "最近我说了什么", "我说了什么"])
def test_a_chinese_question_about_a_topic_or_without_a_period_is_not_time_only(text: str) -> None:
    assert not is_time_only(text)


@pytest.mark.parametrize(
    "text", ["我下午三点去看牙医", "明天上午开会", "我去年去了日本", "周末去爬山", "3点见", "2023年搬的家"]
)
def test_a_chinese_memory_naming_a_time_mentions_time(text: str) -> None:
    assert mentions_time(text)


@pytest.mark.parametrize("text", ["我喜欢吃面条", "我有一点累", "我住在北京"])
def test_a_chinese_memory_without_a_time_does_not_mention_time(text: str) -> None:
    assert not mentions_time(text)


@pytest.mark.parametrize(
    "text", ["你什么时候去的日本？", "我是哪天搬家的", "我生日是几号", "我哪一年毕业的", "我多久以前换的工作"]
)
def test_a_chinese_when_question_is_a_when_question(text: str) -> None:
    assert is_when_question(text)


def test_a_chinese_question_without_a_when_word_is_not_a_when_question() -> None:
    assert not is_when_question("我喜欢什么运动？")


@pytest.mark.parametrize(
    "text",
    ["我现在住在哪里？", "我目前在哪工作", "最新的地址是什么", "我还养猫吗", "我仍然喜欢跑步吗", "我已经搬家了吗"],
)
def test_a_chinese_question_about_now_is_current(text: str) -> None:
    assert tense_of(text) == "current"


def test_a_chinese_question_about_the_past_is_not_current() -> None:
    assert tense_of("我以前住在哪里？") == "past"


def test_what_did_i_tell_you_yesterday_in_chinese_lists_yesterdays_memories_newest_first() -> None:
    said = [
        ("我预约了牙医", NOW - timedelta(days=5)),
        ("我开始读一本关于鲸鱼的小说", NOW - timedelta(days=1, hours=6)),
        ("今天早上热水器又坏了", NOW - timedelta(days=1, hours=2)),
        ("今晚吃扁豆汤", NOW - timedelta(hours=1)),
    ]
    with Memory(location=":memory:", embedder=HashEmbedder()) as memory:
        memory.add([{"role": "user", "content": t, "timestamp": at} for t, at in said], user_id="ann")
        hits = memory.search("我昨天跟你说了什么？", user_id="ann", now=NOW)
    assert [h.record.text for h in hits] == ["今天早上热水器又坏了", "我开始读一本关于鲸鱼的小说"]
