"""The hybrid-search settings group (``retrieval``): one table of fields, each with its bounds and meaning."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RetrievalSettings"]


class RetrievalSettings(BaseModel):
    """The hybrid-search recipe (docs/architecture.md). The boosts were tuned with ``benchmarks/locomo.py --tune`` on 4
    LoCoMo dev conversations, then rounded to one decimal (round numbers fit the dev data less: r@10 on the other 3
    conversations is the same, 0.762, with WordLlama). The fused score is the weighted mean of the normalised
    signals (in [0, 1]); boosts are added to it."""

    model_config = ConfigDict(extra="forbid")  # a misspelt setting is refused, not ignored

    dense_weight: float | None = Field(
        None,
        ge=0,
        description="weight of meaning against words (sparse_weight); unset: the embedder's (0.2)",
    )
    sparse_weight: float = Field(0.5, ge=0)
    candidates: int = Field(60, ge=1, le=1000, description="candidates per signal before fusion")
    rerank_depth: int = Field(
        120, ge=1, le=2000, description="fused candidates boosted (at least 3 x limit): more finds more, fetches more"
    )
    # Relevance floor on the raw signals: a query is relevant when its best cosine reaches `floor_dense`, or when
    # some BM25 term matched and its best cosine reaches `floor_dense_with_sparse`. Below that, nothing is returned.
    # None: the embedder's own calibration (Embedder.floor_dense / floor_dense_with_sparse).
    floor_dense: float | None = Field(
        None,
        description="relevance floor: the best cosine a query needs; unset: the embedder's (minilm 0.3, wordllama .32)",
    )
    floor_dense_with_sparse: float | None = Field(
        None,
        description="... or on a memory sharing a word with it; unset: the embedder's (0.25; 0.2 wordllama by scope)",
    )
    # The same three for a question mostly in another script than the Latin (Chinese, Japanese, Korean, Cyrillic...:
    # memadapt_core.text.scripts.route_of): the default embedder reads those with its multilingual model alone, whose
    # cosines and ranking weigh differently (docs/languages.md).
    floor_dense_nonlatin: float | None = Field(
        None, description="relevance floor of a question in a non-Latin script; unset: the embedder's (0.26)"
    )
    floor_dense_with_sparse_nonlatin: float | None = Field(
        None, description="... or on a memory sharing a word with it; unset: the embedder's (0.25)"
    )
    # Once a question passed the floor, a memory sharing no word with it is returned down to this cosine.
    floor_dense_kept: float | None = Field(
        None, description="a memory without a word in common is returned down to this cosine; unset: floor_dense"
    )
    floor_dense_kept_nonlatin: float | None = Field(
        None, description="the same for a question in a non-Latin script; unset: the embedder's (0.25)"
    )
    dense_weight_nonlatin: float | None = Field(
        None, ge=0, description="weight of meaning against words for such a question; unset: the embedder's (0.5)"
    )
    # Two questions are near in meaning by their form alone (USE-m3: "一年有多少天？" 0.48 from a stored
    # "长江有多长？"): a question's cosine with a stored one-sentence question counts this much less, in the floor
    # and the ranking.
    question_margin: float | None = Field(
        None,
        ge=0,
        le=1,
        description="a question's cosine with a stored question counts this much less; unset: the embedder's (0.1)",
    )
    question_margin_nonlatin: float | None = Field(
        None, ge=0, le=1, description="the same for a question in a non-Latin script; unset: the embedder's (0.2)"
    )
    # A Chinese or Japanese question that names no one in the conversation (no 我, no 记得...: ranking.impersonal)
    # asks about the world, not the user: its cosines count this much less, in the floor and the ranking.
    impersonal_margin_nonlatin: float | None = Field(
        None,
        ge=0,
        le=1,
        description="a Chinese/Japanese question naming no one counts this much less; unset: the embedder's (0.19)",
    )
    dense_min_span: float = Field(0.25, ge=0, description="cosine span min-max normalisation spreads at least over")
    sparse_min_span: float = Field(0.5, ge=0, le=1, description="the same for BM25, as a fraction of the best score")
    speaker_boost: float = Field(0.3, ge=0, description="when the query names exactly one speaker")
    session_prior: float = Field(0.15, ge=0, description="x the best score in the hit's session")
    date_boost: float = Field(0.4, ge=0, description="when the query names a time and the hit falls near it")
    date_window_before_days: float = Field(1.0, ge=0)
    date_window_after_days: float = Field(14.0, ge=0)
    when_boost: float = Field(0.3, ge=0, description="'when' questions favour memories that mention a time")
    recency_boost: float = Field(
        0.02, ge=0, description="x a hit's recency among the candidates (0 oldest .. 1 newest): near-ties go newest"
    )
    present_boost: float = Field(
        0.05, ge=0, description="the recency weight instead, for questions in the present tense ('where do I live?')"
    )
    current_boost: float = Field(
        0.1, ge=0, description="the recency weight instead, for 'current', 'now', 'latest', 'still' questions"
    )
    heat_boost: float = Field(
        0.0, ge=0, description="x a hit's visits over the most visited candidate's (0..1); 0: off (docs/tiers.md)"
    )
    lexical_tie_cosine: float = Field(
        0.1, ge=0, description="equal BM25 matches whose cosines differ by less than this tie (recency decides)"
    )
    assistant_weight: float = Field(
        0.9, ge=0, le=1, description="x the fused score of the assistant's messages: the user's own words first"
    )
    session_diversity: float = Field(
        0.05, ge=0, description="each further hit from a session already in the results loses this much"
    )
    context_prev: int = Field(4, ge=0, le=10, description="previous turns whose words index a message")
    context_next: int = Field(2, ge=0, le=10, description="following turns whose words index a message")
    context_weight: float = Field(
        1.0, ge=0, le=1, description="how much those neighbours' words count against the turn's own (1: as much)"
    )
    dense_context_prev: float = Field(
        0.3, ge=0, le=1, description="share of the turn before's meaning in a message's dense vector (0: none)"
    )
    dense_context_next: float = Field(
        0.2, ge=0, le=1, description="share of the turn after's meaning in a message's dense vector (0: none)"
    )
    index_dates: bool = Field(True, description="index a message's sparse vector with the date it was said")
    bm25_avg_len: float = Field(48.0, gt=0, description="average indexed length in tokens, for BM25's length norm")
    scope_idf: float = Field(
        0.5,
        ge=0,
        le=1,
        description="share of BM25 whose word rarity is counted in the searched scope's memories, the rest in the "
        "whole store's (1: one tenant's memories never change another's ranking; 0: the store's only; a Qdrant "
        "server needs 1.19 or later for more than 0)",
    )
