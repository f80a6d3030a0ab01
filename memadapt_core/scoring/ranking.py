"""Fusion of dense and sparse candidates, the recipe's boosts, and the relevance floor. No I/O.

Measured on LoCoMo (benchmarks/results/history.md):
linear fusion of min-max-normalised scores beats RRF; a speaker boost, a
session prior, a date boost and a boost of time-bearing memories for "when" questions each add recall. The floor
reads the raw signals, because fused scores carry no relevance: an unrelated query returns nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from memadapt_core.backends.base import Candidate, PointKey
from memadapt_core.config import RetrievalSettings
from memadapt_core.text.scripts import Route, has_unspaced, split_unspaced
from memadapt_core.text.temporal import TimeRange

__all__ = [
    "QueryPlan", "Ranked", "Tense", "boost", "fuse", "impersonal", "impersonal_margin", "is_question", "lowered",
    "question_margin", "questions_apart", "recency_weight", "tense_of",
]  # fmt: skip

_WORD = re.compile(r"[\w'-]+")
_CURRENT = re.compile(
    r"\b(?:current(?:ly)?|now|nowadays|latest|newest|lately|(?:most\s+)?recent(?:ly)?|these\s+days|still|any\s?more|at\s+the"
    r"\s+moment|present(?:ly)?)\b",
    re.IGNORECASE,
)
# Chinese has no word boundaries and no tense: these words ask about now (还 / 仍然 "still", 已经 "already").
_CURRENT_ZH = re.compile(r"现在|目前|当前|最新|最近|近来|如今|眼下|还|仍|依然|依旧|已经")
_PRESENT = re.compile(
    r"^\s*(?:(?:what|where|who|which|how|why)\b[\w\s']{0,20}?\s)?(?:do|does|am|is|are|have|has)\b(?!\s+\w+ed\b)",
    re.IGNORECASE,
)

Tense = Literal["past", "present", "current"]


def tense_of(query: str) -> Tense:
    """ "current": asks for the state of things now ("my current address", "still", "latest"); "present": a
    present-tense question ("where do I live?"); "past" otherwise ("where did I live?", "when did..."). Chinese
    questions are "current" or "past" (现在 / 目前 / 还 … make them current)."""
    if _CURRENT.search(query) or (not query.isascii() and _CURRENT_ZH.search(query)):
        return "current"
    return "present" if _PRESENT.search(query) else "past"


def recency_weight(tense: Tense, cfg: RetrievalSettings) -> float:
    return {"current": cfg.current_boost, "present": cfg.present_boost, "past": cfg.recency_boost}[tense]


@dataclass(frozen=True)
class QueryPlan:
    text: str
    window: TimeRange | None = None  # observed_at window that earns the date boost
    when: bool = False
    threshold: float | None = None  # None: the default floor; a number: a minimum fused score
    tense: Tense = "past"  # how much the newest of similar memories should win (recency_weight)
    route: Route = "latin"  # the question's script: which floors and dense weight apply (scripts.route_of)


@dataclass(slots=True)
class Ranked:
    id: PointKey
    score: float
    scores: dict[str, float] = field(default_factory=dict)


def _minmax(cands: list[Candidate], min_span: float) -> tuple[float, float, float]:
    """Min-max normalisation as ``(lo, scale, const)``: a score ``x`` maps to ``(x - lo) * scale + const``. The span
    is at least ``min_span``: among few close candidates, small differences are not stretched to the whole 0..1
    range (which would let them outweigh the boosts). ``cands`` is best first."""
    if not cands:
        return 0.0, 0.0, 0.0
    hi = cands[0][1]
    lo = min(cands[-1][1], hi - min_span)
    span = hi - lo
    if span <= 1e-12:
        return 0.0, 0.0, 1.0
    return lo, 1.0 / span, 0.0


def floors(cfg: RetrievalSettings, route: Route) -> tuple[float, float, float]:
    """``floor_dense``, ``floor_dense_with_sparse`` and ``dense_weight`` for a question in ``route``'s script (all
    set from the embedder's calibration when the store opens)."""
    if route == "latin":
        return cfg.floor_dense or 0.0, cfg.floor_dense_with_sparse or 0.0, cfg.dense_weight or 0.0
    return (
        cfg.floor_dense_nonlatin or 0.0,
        cfg.floor_dense_with_sparse_nonlatin or 0.0,
        cfg.dense_weight_nonlatin or 0.0,
    )


def kept_floor(cfg: RetrievalSettings, route: Route) -> float:
    """The cosine a memory sharing no word with a question must reach to be returned, once the question passed the
    floor: ``floor_dense_kept``, never above ``floor_dense`` (unset: ``floor_dense``)."""
    floor = floors(cfg, route)[0]
    kept = cfg.floor_dense_kept if route == "latin" else cfg.floor_dense_kept_nonlatin
    return floor if kept is None else min(kept, floor)


def is_relevant(
    dense: list[Candidate], sparse: list[Candidate], cfg: RetrievalSettings, route: Route = "latin"
) -> bool:
    """The relevance floor: the best cosine reaches ``floor_dense``, or a memory that shares a word with the query
    (a BM25 candidate; ``dense`` holds their cosines too) reaches ``floor_dense_with_sparse`` itself. A word in
    common with one memory and a middling cosine with another is no evidence ("how do vaccines train the immune
    system?" against "I'm training for a marathon" and an unrelated health remark)."""
    top = dense[0][1] if dense else 0.0
    floor, with_sparse, _ = floors(cfg, route)
    if top >= floor:
        return True
    if not sparse or top < with_sparse:
        return False
    matched = {key for key, _ in sparse}
    return any(score >= with_sparse for key, score in dense if key in matched)


def _named_speaker(query: str, names: set[str]) -> str | None:
    words = {w.lower() for w in _WORD.findall(query)}
    lowered = query.lower()
    hits = [n for n in names if (n.lower() in words) or (" " in n and n.lower() in lowered)]
    return hits[0] if len(hits) == 1 else None


def on_one_scale(dense: list[Candidate], routes: dict[PointKey, Route], route: Route, scale: float) -> list[Candidate]:
    """The cosines of memories written in another script than the question divided by ``scale``, best first again:
    an embedder that reads each script with other models (embedders.multilingual) scores such a memory ``scale`` x
    what the same memory in the question's script would score, so without this a Chinese question's English answer
    ranked below every Chinese line and under the floor. ``routes``: each candidate's script (``route_of``)."""
    out = [(key, score / scale if routes.get(key, route) != route else score) for key, score in dense]
    out.sort(key=_second, reverse=True)
    return out


# A one-sentence question: it ends in a question mark (or a Chinese question particle), with no end of a sentence
# before it. A message that says something and then asks is read for what it says.
_QUESTION_END = re.compile("(?:[?\uff1f]|[\u5417\u5462][\u3002.]?)[\\s\"'\u201d\u2019\u300d\u300f)\uff09]*$")
_SENTENCE_END = re.compile(r"[.!?;]\s+\S|[。！？；]\s*\S")


def is_question(text: str) -> bool:
    """Whether ``text`` is one question ("光速是多少？", "Where do I live?"), not a statement or a statement and a
    question ("I moved. Do you like Berlin?")."""
    t = text.strip()
    end = _QUESTION_END.search(t)
    return end is not None and _SENTENCE_END.search(t, 0, end.start()) is None


def question_margin(cfg: RetrievalSettings, route: Route) -> float:
    return (cfg.question_margin if route == "latin" else cfg.question_margin_nonlatin) or 0.0


def questions_apart(dense: list[Candidate], questions: set[PointKey], margin: float) -> list[Candidate]:
    """The cosines of stored one-sentence ``questions`` lowered by ``margin``, best first again: asked by a
    question, they are near it for their form as much as for what they ask (USE-m3: "光速是多少？" 0.60 from "什么是光
    合作用？", where true answers score 0.3-0.5), and a question is answered by what was said, not by another
    question. A stored question that asks the same thing stays near enough."""
    out = [(key, score - margin if key in questions else score) for key, score in dense]
    out.sort(key=_second, reverse=True)
    return out


# Who a Chinese or Japanese question is about: the user (我, 咱, 私, 僕...), their family (家里, 家人, and its members
# named bare: "丈夫在哪儿任教？" asks about the user's husband), or what was said in the conversation (说过, 记得, 上次,
# 覚えて...). These languages drop pronouns and possessives freely, so the conversation's own verbs and the family
# count as much as a pronoun; a holiday named for a relative (母亲节) does not. A question with none of them asks about
# the world. Japanese kin words that are also Chinese words (夫 in 功夫, 母 in 字母) are left out.
_KIN = (
    "爸爸|妈妈|爸妈|父亲|母亲|父母|老公|老婆|丈夫|妻子|爱人|儿子|女儿|孩子|小孩|闺女|宝宝|爷爷|奶奶|外公|外婆|姥姥|姥爷"
    "|祖父|祖母|哥哥|姐姐|弟弟|妹妹|兄弟|姐妹|男朋友|女朋友|男友|女友|未婚夫|未婚妻"
    "|息子|子供|彼氏|お父さん|お母さん|父親|母親|両親"
)
_ABOUT_US = re.compile(
    f"[我咱俺]|本人|自己|家里|家人|(?:{_KIN})(?!节)|说过|提过|聊过|讲过|告诉|记得|上次|之前|以前"
    "|私|僕|わたし|あたし|自分|家族|言った|話した|覚え|この前"
)


def impersonal(text: str) -> bool:
    """Whether ``text`` is a Chinese or Japanese question that names no one in the conversation ("法国的首都是哪里？",
    "你今天过得怎么样？"), the kind a memory does not answer. Other scripts have no such table: never."""
    return has_unspaced(text) and is_question(text) and _ABOUT_US.search(text) is None


def impersonal_margin(cfg: RetrievalSettings, route: Route, query: str) -> float:
    """How much less every cosine of ``query`` counts, in the floor and the ranking: ``impersonal_margin_nonlatin``
    for an ``impersonal`` question in a non-Latin script, else nothing."""
    return (cfg.impersonal_margin_nonlatin or 0.0) if route != "latin" and impersonal(query) else 0.0


def lowered(dense: list[Candidate], margin: float) -> list[Candidate]:
    return [(key, score - margin) for key, score in dense]


def _second(candidate: Candidate) -> float:
    return candidate[1]


def fuse(
    dense: list[Candidate],
    sparse: list[Candidate],
    plan: QueryPlan,
    cfg: RetrievalSettings,
    depth: int | None = None,
) -> list[Ranked]:
    """Stage one, on ids and raw scores only: the floor, then linear fusion of normalised scores, the ``depth`` best
    first (all of them when None)."""
    if plan.threshold is None and not is_relevant(dense, sparse, cfg, plan.route):
        return []
    _, _, dense_weight = floors(cfg, plan.route)
    d_lo, d_scale, d_const = _minmax(dense, cfg.dense_min_span)
    s_lo, s_scale, s_const = _minmax(sparse, cfg.sparse_min_span * (sparse[0][1] if sparse else 0.0))
    raw_s = dict(sparse)
    total = (dense_weight + cfg.sparse_weight) or 1.0  # the fused score stays in [0, 1]
    wd, ws = dense_weight / total, cfg.sparse_weight / total
    floor = kept_floor(cfg, plan.route) if plan.threshold is None else None
    tied = _lexical_ties(dense, raw_s, cfg.lexical_tie_cosine)
    # A keyword search ("apple", "吉他") that finds its word keeps only what is at least as near in meaning as the
    # nearest memory holding the word: "banana orange" is near "apple" in meaning, but not an answer to it.
    near = _keyword_floor(plan.text, dense, raw_s) if floor is not None else None
    scored: list[tuple[float, PointKey, float, float]] = []  # fused, id, raw dense, raw sparse
    seen: set[PointKey] = set()
    for key, score in dense:
        seen.add(key)
        sp = raw_s.get(key)
        if sp is None and floor is not None and (score < floor or (near is not None and score < near)):
            continue  # neither a word in common nor close enough in meaning
        fused = wd * (((tied.get(key, score) if tied else score) - d_lo) * d_scale + d_const)
        if sp is not None:
            fused += ws * ((sp - s_lo) * s_scale + s_const)
        scored.append((fused, key, score, sp or 0.0))
    for key, score in sparse:
        if key not in seen:
            scored.append((ws * ((score - s_lo) * s_scale + s_const), key, 0.0, score))
    scored.sort(key=_first, reverse=True)  # stable: ties keep the dense-then-sparse order
    return [Ranked(pid, base, {"dense": d, "sparse": sp, "fused": base}) for base, pid, d, sp in scored[:depth]]


_KEYWORDS = 2  # a query of at most this many words is a keyword search ...
_KEYWORD_CHARS = 4  # ... with at most this many Chinese or Japanese characters (no spaces tell their words apart)


def is_keyword_search(query: str) -> bool:
    """A query of one or two words ("apple", "吉他", "花生过敏"), not a question or a sentence."""
    runs, rest = split_unspaced(query)
    return len(_WORD.findall(rest)) + len(runs) <= _KEYWORDS and sum(map(len, runs)) <= _KEYWORD_CHARS


def _keyword_floor(query: str, dense: list[Candidate], sparse: dict[PointKey, float]) -> float | None:
    """For a keyword search whose words some memory holds: the cosine of the nearest such memory, which a memory
    without the words must reach. None for a longer query (a question's words are rarely its answer's) or when no
    memory holds the words."""
    if not sparse or not is_keyword_search(query):
        return None
    return max((score for key, score in dense if key in sparse), default=None)


def _lexical_ties(dense: list[Candidate], sparse: dict[PointKey, float], tolerance: float) -> dict[PointKey, float]:
    """Memories that match the query's words exactly as well (the same BM25 score) and whose cosines differ by less
    than ``tolerance`` count as equally close in meaning: each gets its group's best cosine, so the recency boost
    decides between them. (A static embedder's cosine moves by a few hundredths with words the query does not
    have, such as a number: "message with keyword 0" and "... 4" for "keyword".)"""
    if not tolerance or len(set(sparse.values())) == len(sparse):  # the usual case: no two BM25 scores alike
        return {}
    shared = {score for score, n in Counter(sparse.values()).items() if n > 1}
    groups: dict[float, list[Candidate]] = {}
    for key, score in dense:
        if (sp := sparse.get(key)) in shared:  # equal term statistics give bitwise-equal scores
            groups.setdefault(sp, []).append((key, score))
    tied: dict[PointKey, float] = {}
    for members in groups.values():
        best = members[0][1]  # dense is best first
        for key, score in members[1:]:
            if best - score < tolerance:
                tied[key] = best
    return tied


def _first(item: tuple[float, PointKey, float, float]) -> float:
    return item[0]


def boost(
    ranked: list[Ranked],
    payloads: dict[PointKey, dict[str, Any]],
    plan: QueryPlan,
    cfg: RetrievalSettings,
    limit: int | None = None,
) -> list[Ranked]:
    """Stage two, on the best fused candidates and their payloads: speaker, date, "when", session and recency
    boosts, then session diversity for the first ``limit`` hits (all when None; the rest keep their order)."""
    ranked = [r for r in ranked if r.id in payloads]
    names = {str(n) for p in payloads.values() if (n := p.get("name"))} if cfg.speaker_boost else set()
    speaker = _named_speaker(plan.text, names) if names else None
    when = plan.when and cfg.when_boost
    assistant = 1.0 - cfg.assistant_weight
    best: dict[str, float] = {}  # the best fused score of each session among the candidates
    for r in ranked:
        payload = payloads[r.id]
        extra = 0.0
        if speaker is not None and payload.get("name") == speaker:
            r.scores["speaker"] = cfg.speaker_boost
            extra += cfg.speaker_boost
        at = payload.get("observed_at") if plan.window is not None else None
        if at and plan.window is not None and plan.window.contains(datetime.fromisoformat(at)):
            r.scores["date"] = cfg.date_boost
            extra += cfg.date_boost
        if when and payload.get("has_time"):
            r.scores["when"] = cfg.when_boost
            extra += cfg.when_boost
        if assistant and payload.get("role") == "assistant":
            r.scores["assistant"] = extra_role = -assistant * r.scores["fused"]
            extra += extra_role
        r.score = r.scores["fused"] + extra
        if (sess := payload.get("session_id")) is not None and r.scores["fused"] > best.get(sess, -1.0):
            best[sess] = r.scores["fused"]
    if cfg.session_prior and len(best) > 1:
        for r in ranked:
            if (sess := payloads[r.id].get("session_id")) is not None:
                r.scores["session"] = cfg.session_prior * best[sess]
                r.score += r.scores["session"]
    if (weight := recency_weight(plan.tense, cfg)) and len(ranked) > 1:
        # Newer wins near-ties: each hit gains weight x its rank by observed_at among the candidates (0..1).
        said = [payloads[r.id].get("observed_at") or "" for r in ranked]  # ISO 8601 in UTC: sorts as text
        step = weight / (len(ranked) - 1)
        for n, i in enumerate(sorted(range(len(ranked)), key=said.__getitem__)):
            r = ranked[i]
            r.scores["recency"] = extra = step * n
            r.score += extra
    if cfg.heat_boost and (most := max((payloads[r.id].get("visits") or 0 for r in ranked), default=0)):
        for r in ranked:  # hotter wins near-ties: weight x visits relative to the most visited candidate (0..1)
            if visits := payloads[r.id].get("visits"):
                r.scores["hot"] = extra = cfg.heat_boost * visits / most
                r.score += extra
    ranked.sort(key=_score, reverse=True)
    if plan.threshold is not None:  # on relevance: diversity below only reorders what passed
        ranked = [r for r in ranked if r.score >= plan.threshold]
    if cfg.session_diversity and len(ranked) > 1:
        ranked = _diversified(ranked, payloads, cfg.session_diversity, len(ranked) if limit is None else limit)
    return ranked


def _diversified(
    ranked: list[Ranked], payloads: dict[PointKey, dict[str, Any]], penalty: float, picks: int
) -> list[Ranked]:
    """Greedy re-ranking of the first ``picks`` hits: each pays ``penalty`` for every better hit already taken
    from its session, so an answer spread over several conversations is gathered rather than one conversation's
    every turn. Hits outside any session pay nothing; a score never falls below 0. ``ranked`` is best first; the
    hits not picked follow in their order."""
    sessions = [payloads[r.id].get("session_id") for r in ranked]
    taken: dict[Any, int] = {}
    pending = list(range(len(ranked)))
    out: list[Ranked] = []
    while pending and len(out) < picks:
        best_j, best = 0, -float("inf")
        for j, i in enumerate(pending):
            score = ranked[i].score
            if score <= best:
                break  # best first: no later hit can beat an unpenalised score above it
            if (sess := sessions[i]) is not None and (n := taken.get(sess)):
                score = max(0.0, score - penalty * n)
            if score > best:
                best_j, best = j, score
        i = pending.pop(best_j)
        r = ranked[i]
        if (sess := sessions[i]) is not None:
            if taken.get(sess):
                r.scores["diversity"] = best - r.score
                r.score = best
            taken[sess] = taken.get(sess, 0) + 1
        out.append(r)
    return out + [ranked[i] for i in pending]


def _score(r: Ranked) -> float:
    return r.score
