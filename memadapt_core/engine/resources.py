"""``Resources``: what the async engine and its sync twin share — settings, plugins, embedder, sparse encoder and the
opened backend. Opening does blocking work (loading weights, opening a folder), so both twins build it in their
constructors, never inside ``async def``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shutil
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pydantic
from pydantic_core import ErrorDetails

from memadapt_core.api.background import BackgroundWrites
from memadapt_core.backends.base import CollectionInfo, VectorBackend
from memadapt_core.config import EmbedderSettings, MemorySettings, default_path
from memadapt_core.embedders.base import Embedder, TokenWeights, Vectors
from memadapt_core.errors import ConfigurationError
from memadapt_core.models import Scope
from memadapt_core.plugins import Hooks, create_plugin_manager
from memadapt_core.record_codec import HistoryCap, dense_text
from memadapt_core.scoring.heat import AccessLedger
from memadapt_core.vectors.passages import char_batches, plan_passages
from memadapt_core.vectors.sparse import LEXICONS, SparseEncoder
from memadapt_core.vectors.token_stats import (
    BOOTSTRAP_LIMIT,
    Scoped,
    ScopeKey,
    ScopeTokenStats,
    Snapshot,
    TokenStats,
    key_filter,
    key_of,
)

from .saved_counts import SavedCounts, counts_file

__all__ = ["Resources", "build_settings"]

logger = logging.getLogger(__name__)

_INLINE_COUNT_CHARS = 8_192  # texts counted on the event loop at most (MiniLM's tokenizer: ~0.2 ms a 1,000 chars)


def _problem(error: ErrorDetails) -> str:
    """A validation error's message, in the words docs/configuration.md uses."""
    if error["type"] == "extra_forbidden":
        return "not an option (see docs/configuration.md)"
    return error["msg"]


def build_settings(settings: MemorySettings | None, overrides: dict[str, Any]) -> MemorySettings:
    """``settings`` (or the environment's) with ``overrides`` (None: not given), validated as a whole: an unknown
    option is refused even when it is None, and an override of given ``settings`` is checked as they were."""
    if unknown := sorted(set(overrides) - set(MemorySettings.model_fields)):
        msg = f"invalid memadapt settings: {', '.join(unknown)}: not an option (see docs/configuration.md)"
        raise ConfigurationError(msg)
    given = {k: v for k, v in overrides.items() if v is not None}
    if isinstance(given.get("embedder"), str):
        given["embedder"] = EmbedderSettings(provider=given["embedder"])
    try:
        if settings is None:
            return MemorySettings(**given)
        return MemorySettings.model_validate({**dict(settings), **given}) if given else settings
    except pydantic.ValidationError as exc:  # name each setting and its problem on one line, drop the stack
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'settings'}: {_problem(e)}" for e in exc.errors())
        msg = f"invalid memadapt settings: {problems}"
        raise ConfigurationError(msg) from exc
    except (TypeError, ValueError) as exc:
        msg = f"invalid memadapt settings: {exc}"
        raise ConfigurationError(msg) from exc


class Resources:
    """Opened resources; closed once, by whichever twin created it."""

    def __init__(
        self,
        settings: MemorySettings,
        *,
        embedder: Embedder | None = None,
        plugins: Sequence[object] = (),
        load_entrypoints: bool = True,
    ) -> None:
        self.settings = settings
        self.lock = threading.RLock()  # read-modify-write of single records (memadapt_core.engine.transactions)
        self.background = BackgroundWrites()  # adapters' background writes, waited for by close() and flush()
        self.hooks = Hooks(create_plugin_manager(plugins, load_entrypoints=load_entrypoints))
        self._tempdir: str | None = None
        self._folder: Path | None = None  # the store's folder on disk, when it outlives the process
        self.backend: VectorBackend = self._open_backend()
        try:
            if embedder is None:
                settings = _adopted(settings, self.backend)
            self.embedder = embedder or self.hooks.make_embedder(settings.embedder)
        except BaseException:
            with contextlib.suppress(Exception):
                self.backend.close()
            self._release()
            raise
        try:
            self.collection = CollectionInfo(
                name=settings.collection or _collection_name(self.embedder), embedder=self.embedder.name,
                dim=self.embedder.dim, pooling=_pooling(settings.embedder, self.embedder), lexicon=LEXICONS[-1],
            )  # fmt: skip
            self.collection = made = self.backend.open_collection(self.collection)  # the store's, if it has one
            if made.lexicon not in LEXICONS:
                msg = f"store: its words were cut by lexicon {made.lexicon!r}, which this memadapt does not know"
                raise ConfigurationError(msg)
            self.sparse = SparseEncoder(settings.retrieval.bm25_avg_len, made.lexicon)
        except BaseException:
            self._release()
            raise
        made_with = made.pooling
        self.settings = settings = _calibrated(settings, self.embedder.calibration(made_with))
        self.token_stats: ScopeTokenStats | None = None  # the scopes' token counts, when pooling weighs tokens
        self.saved_counts: SavedCounts | None = None  # ... and where they are saved (engine.saved_counts)
        self._saving = threading.Lock()  # counts are taken and saved in one step (_save_counts)
        if made_with == "scope_idf" and self.embedder.vocab_size:
            self.token_stats = ScopeTokenStats(self.embedder.vocab_size, settings.pooling_scopes)
            if self._folder is not None:
                path = counts_file(self._folder, self.collection.name)
                self.saved_counts = SavedCounts(path, self.embedder.vocab_size)
        self.access = AccessLedger()  # visits counted by search, written at flush (memadapt_core.scoring.heat)
        self.closed = False
        try:
            _check_pooling(settings.embedder, made_with)
        except BaseException:
            self.close()
            raise

    @property
    def history_cap(self) -> HistoryCap:
        return HistoryCap(self.settings.history_limit, self.settings.history_max_chars)

    def _open_backend(self) -> VectorBackend:
        s = self.settings
        kind = s.resolved_backend()
        scope_idf = s.retrieval.scope_idf
        required = "scope_idf" in s.retrieval.model_fields_set  # named by the user, not the default
        if kind == "qdrant":
            if not s.url:
                msg = "url: the qdrant backend needs a server url (or use backend='qdrant-local')"
                raise ConfigurationError(msg)
            from memadapt_core.backends.client import QdrantClientBackend

            key = s.api_key.get_secret_value() if s.api_key else None
            return QdrantClientBackend(
                url=s.url,
                api_key=key,
                timeout=s.timeout,
                shard_key=s.shard_key,
                scope_idf=scope_idf,
                scope_idf_required=required,
            )
        if kind == "qdrant-local":
            from memadapt_core.backends.client import QdrantClientBackend

            if s.path:
                self._folder = Path(s.path).expanduser()
                return QdrantClientBackend(path=s.path, scope_idf=scope_idf, scope_idf_required=required)
            return QdrantClientBackend(
                location=s.location or ":memory:", scope_idf=scope_idf, scope_idf_required=required
            )
        from memadapt_core.backends.edge import EdgeBackend

        if s.location is not None and s.location != ":memory:":
            msg = "location: the embedded store takes ':memory:' (a temporary folder) or a folder as path="
            raise ConfigurationError(msg)
        folder = Path(s.path).expanduser() if s.path else default_path()
        durability = s.durability
        if s.location == ":memory:" and not s.path:
            self._tempdir = tempfile.mkdtemp(prefix="memadapt-")
            folder, durability = Path(self._tempdir), "process"  # removed on close: a power cut loses it anyway
        else:
            self._folder = folder
        return EdgeBackend(
            folder, min_free_disk_mb=s.min_free_disk_mb, vacuum_after_deletes=s.vacuum_after_deletes,
            payload_cache=s.payload_cache, payload_cache_bytes=s.payload_cache_mb * 2**20, durability=durability,
            sync_interval=s.sync_interval, check_unclean=s.check_unclean_open, scope_idf=scope_idf,
            dense_int8=s.dense_int8,
        )  # fmt: skip

    def embed_documents(self, texts: Sequence[str], weights: TokenWeights | None = None) -> Vectors:
        """Document vectors, a text over ``passage_chars`` embedded a passage at a time
        (memadapt_core.vectors.passages); ``weights``: the scope's token weights (``weights``), for an embedder
        pooling by them."""
        plan = plan_passages(texts, self.settings.passage_chars)
        batches = char_batches(plan.inputs, self.settings.embed_batch_chars)
        if len(batches) == 1:
            return plan.pool(self.embedder.embed_documents(plan.inputs, weights))
        return plan.pool(np.concatenate([self.embedder.embed_documents(plan.inputs[b], weights) for b in batches]))

    async def aembed_documents(self, texts: Sequence[str], weights: TokenWeights | None = None) -> Vectors:
        plan = plan_passages(texts, self.settings.passage_chars)
        batches = char_batches(plan.inputs, self.settings.embed_batch_chars)
        if len(batches) == 1:
            return plan.pool(await self.embedder.aembed_documents(plan.inputs, weights))
        parts = [await self.embedder.aembed_documents(plan.inputs[b], weights) for b in batches]
        return plan.pool(np.concatenate(parts))

    def weights(self, scope: Scoped, adding: Sequence[str] = ()) -> TokenWeights | None:
        """The token weights a text of ``scope`` is pooled with (None: the mean), after counting ``adding``, the
        dense texts being stored into it. The first call for a scope reads its stored texts (memadapt_core.
        token_stats); async code calls ``aweights``."""
        if self.token_stats is None:
            return None
        key, ids = key_of(scope), self.embedder.token_ids(adding) if adding else []
        found = self.token_stats.weights(key, ids)
        return found if found is not None else self._load_counts(key, ids)

    async def aweights(self, scope: Scoped, adding: Sequence[str] = ()) -> TokenWeights | None:
        if self.token_stats is None:
            return None
        if sum(map(len, adding)) > _INLINE_COUNT_CHARS:  # tokenizing this much would hold the loop for milliseconds
            return await asyncio.to_thread(self.weights, scope, adding)
        key, ids = key_of(scope), self.embedder.token_ids(adding) if adding else []
        found = self.token_stats.weights(key, ids)
        # a scope met for the first time reads the store: never on the event loop
        return found if found is not None else await asyncio.to_thread(self._load_counts, key, ids)

    def embed_in_scopes(self, scopes: Sequence[Scoped], texts: Sequence[str]) -> Vectors:
        """Document vectors of texts from several scopes (an import's batch), each pooled with its scope's weights.
        Blocking: for the sync twin, or a thread."""
        if self.token_stats is None:
            return self.embed_documents(texts)
        groups: dict[ScopeKey, list[int]] = {}
        for i, scope in enumerate(scopes):
            groups.setdefault(key_of(scope), []).append(i)
        out = np.empty((len(texts), self.embedder.dim), dtype=np.float32)
        for rows in groups.values():
            part = [texts[i] for i in rows]
            out[rows] = self.embed_documents(part, self.weights(scopes[rows[0]], part))
        return out

    def _load_counts(self, key: ScopeKey, adding: Sequence[npt.NDArray[np.int64]]) -> TokenWeights:
        """A scope's counts, saved (while the store holds as many of its records as they knew) or read from its
        stored texts, with ``adding`` (token ids) counted; its weights. Blocking."""
        stats = self.token_stats
        assert stats is not None
        flt = key_filter(key)
        count = self.backend.count(flt)
        saved = self.saved_counts.get(key) if self.saved_counts is not None else None
        if saved is not None and saved.stored == count:
            weights = stats.restore(key, saved, adding)
        else:
            points = self.backend.scroll(flt, max(1, min(count, BOOTSTRAP_LIMIT)), descending=True)
            texts = [dense_text(p.payload.get("text", ""), p.payload.get("name")) for p in points]
            weights = stats.load(key, self.embedder.token_ids(texts) if texts else [], adding, count=count)
        self._save_counts(lambda: [(snap, None, 0) for snap in stats.evicted()])
        return weights

    def save_counts(self) -> None:
        """Save every scope's token counts counted since they were saved (``flush``, ``close``). Blocking."""
        if self.token_stats is not None:
            self._save_counts(self.token_stats.unsaved)

    def _save_counts(self, take: Callable[[], list[tuple[Snapshot, TokenStats | None, int]]]) -> None:
        """Save the counts ``take`` hands out. Taken and written under one lock: counts taken later are written
        later, so a scope's newer counts are never written over by older ones another thread took first."""
        if self.token_stats is None or self.saved_counts is None:
            return
        with self._saving:
            unsaved = take()
            if unsaved and self.saved_counts.put([snap for snap, _, _ in unsaved]):
                self.token_stats.mark_saved(unsaved)

    def instructions(self, scope: Scope) -> list[str]:
        """Extra extraction instructions from plugins (``memadapt_extraction_instructions``)."""
        text = self.hooks.extraction_instructions(scope)
        return [text] if text else []

    def pending_within(self, pending: list[Scope], scope: Scope) -> list[Scope]:
        """The pending scopes inside ``scope`` (ids it leaves None are not constrained)."""
        return [p for p in pending if all(w is None or w == h for w, h in zip(_ids(scope), _ids(p), strict=True))]

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.saved_counts is not None:  # a cache: whatever happens to it, the store is closed
                try:
                    self.save_counts()
                except Exception:
                    logger.exception("memadapt: the token counts were not saved; scopes will be read again")
                finally:
                    self.saved_counts.close()
            self.backend.close()
        finally:
            self.embedder.close()
            self._release()

    def _release(self) -> None:
        if self._tempdir is not None:
            shutil.rmtree(self._tempdir, ignore_errors=True)
            self._tempdir = None


#: The collection each built-in embedder makes with its default model.
_BUILT_IN = {
    "wordllama": "memadapt_wordllama_l2_supercat_256",
    "minilm": "memadapt_minilm_l6_int8_384",
    "use": "memadapt_use_m3_512",
    "multilingual": "memadapt_minilm_l6_int8_use_m3_896",
}


def _adopted(settings: MemorySettings, backend: VectorBackend) -> MemorySettings:
    """The settings with the embedder the store was made with, when the caller named none: a store made by the
    other built-in embedder (the default of an earlier release, or one chosen when it was created) keeps opening
    with it, rather than an empty collection opening beside the user's memories. An embedder named in the
    settings or the environment is used as given (and ``open_collection`` checks it)."""
    chosen = settings.embedder
    if settings.collection or chosen.model or chosen.model_path or "provider" in chosen.model_fields_set:
        return settings
    held = set(backend.collections())
    if _BUILT_IN.get(chosen.provider) in held:
        return settings
    made_by = [provider for provider, name in _BUILT_IN.items() if name in held]
    if len(made_by) != 1:
        return settings
    logger.info("store %s was made with the %s embedder: opening it with that one", settings.path, made_by[0])
    return settings.model_copy(update={"embedder": chosen.model_copy(update={"provider": made_by[0]})})


def _calibrated(settings: MemorySettings, floors: dict[str, float]) -> MemorySettings:
    """The settings with the relevance floor and the dense weight the caller left unset taken from the embedder's
    calibration (for the pooling the store's vectors were made with)."""
    r = settings.retrieval
    missing = {k: v for k, v in floors.items() if getattr(r, k) is None}
    if not missing:
        return settings
    return settings.model_copy(update={"retrieval": r.model_copy(update=missing)})


def _pooling(chosen: EmbedderSettings, embedder: Embedder) -> str:
    """The pooling a new collection is made with: the one asked for, else the embedder's default."""
    if chosen.pooling == "scope_idf" and not embedder.vocab_size:
        msg = f"embedder.pooling: 'scope_idf' needs an embedder that pools its tokens; {embedder.name!r} does not"
        raise ConfigurationError(msg)
    return chosen.pooling or (embedder.default_pooling if embedder.vocab_size else "mean")


def _check_pooling(chosen: EmbedderSettings, made_with: str) -> None:
    if chosen.pooling is not None and chosen.pooling != made_with:
        msg = (
            f"embedder.pooling: the store's vectors were pooled by {made_with!r}, not {chosen.pooling!r}; leave it "
            "unset to open the store as it was made, or export and import into a new store to re-embed"
        )
        raise ConfigurationError(msg)


def _collection_name(embedder: Embedder) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", embedder.name.lower()).strip("_")
    return f"memadapt_{slug}_{embedder.dim}"


def _ids(scope: Scope) -> tuple[str | None, str | None, str | None]:
    return scope.user_id, scope.agent_id, scope.session_id
