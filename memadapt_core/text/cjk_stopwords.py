"""Function words of Chinese and Japanese left out of BM25 (``sparse``), as the English stemmer's stop list does.

In a user's own memories "我", "的", "是", "什么" occur in nearly every line and question: kept, they let a question
match the memories that share its grammar rather than its topic ("我有什么食物过敏吗？" found the guitar and the job
before "我对花生过敏。"). The list holds pronouns, particles, auxiliaries, copulas, question words, common adverbs of
degree and a few measure words, the words every Chinese stop list (Baidu's, HIT's, Lucene's SmartChinese) agrees
on, and the Japanese particles and auxiliaries Kuromoji's stop tags remove. Content words are never here, nor time
words (``temporal`` reads those) nor "还/已经/现在" (recency cues, ``ranking``); they simply match as words.
"""

from __future__ import annotations

__all__ = ["STOPWORDS"]

_CHINESE = """
我 你 您 他 她 它 我们 你们 他们 她们 它们 咱 咱们 自己 大家 人家 别人
的 地 得 之 了 着 过 吗 呢 吧 啊 呀 哦 嘛 啦 哈 喔 噢 嗯 么
是 有 没有 没 在 和 与 及 跟 同 或 或者 而 而且 并 并且 但 但是 可是 不过 因为 所以 如果 虽然 然后 那么
就 都 也 又 才 只 很 太 更 最 挺 非常 比较 特别 真 真的 一直 一下 一些 一点 一个 一种 一样 这样 那样
这 那 这个 那个 这些 那些 这里 那里 这儿 那儿 哪 哪个 哪些 哪里 哪儿 什么 怎么 怎样 怎么样 为什么 多少 几 谁
把 被 给 让 对 向 从 到 往 于 以 为 比 由 用 关于 对于
会 能 能够 可以 可能 要 想 应该 得 该 将 已
个 位 种 件 次 些 下 上 里 中
说 知道 觉得 认为 记得 告诉 问 请 请问 一下子 还是 不 别
"""

_JAPANESE = """
は が を に へ と で も の や か な ね よ から まで より だけ ほど など って
です ます でした ました ません だ だった である ある いる います あります する した して します され
これ それ あれ この その あの ここ そこ あそこ どこ なに 何 だれ 誰 いつ どう どれ
わたし 私 僕 あなた
"""

STOPWORDS: frozenset[str] = frozenset((_CHINESE + _JAPANESE).split())
