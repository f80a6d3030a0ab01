"""The plugin manager factory, the built-in plugin, and ``Hooks``: the one typed facade over ``pm.hook``.

No module-global manager and no loading at import: each engine builds its manager when it is constructed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import pluggy

from . import hookspecs
from .config import EmbedderSettings, LLMSettings
from .embedders.base import Embedder
from .errors import ConfigurationError, MemadaptError, PluginError
from .formatting import render_memories
from .hookspecs import PROJECT, hookimpl
from .models import MemoryRecord, Scope, SearchHit

__all__ = ["BuiltinPlugin", "Hooks", "create_plugin_manager"]

log = logging.getLogger("memadapt")


F = TypeVar("F")


class BuiltinPlugin:
    """memadapt's own behaviour, registered like any plugin (and overridable by one)."""

    @hookimpl
    def memadapt_register_embedders(self, register: Callable[[str, Callable[[Any], Any]], None]) -> None:
        def wordllama(settings: EmbedderSettings) -> Embedder:
            from .embedders.wordllama import WordLlamaEmbedder

            return WordLlamaEmbedder(settings.model, settings.dim)

        def openai(settings: EmbedderSettings) -> Embedder:
            from .embedders.openai import OpenAIEmbedder

            return OpenAIEmbedder(settings)

        def fastembed(settings: EmbedderSettings) -> Embedder:
            from .embedders.fastembed import FastEmbedEmbedder

            return FastEmbedEmbedder(settings)

        def minilm(settings: EmbedderSettings) -> Embedder:
            from .embedders.minilm import MiniLMEmbedder

            return MiniLMEmbedder()

        def use(settings: EmbedderSettings) -> Embedder:
            from .embedders.use import USEEmbedder

            return USEEmbedder()

        def multilingual(settings: EmbedderSettings) -> Embedder:
            from .embedders.multilingual import MultilingualEmbedder

            return MultilingualEmbedder()

        register("wordllama", wordllama)
        register("openai", openai)
        register("fastembed", fastembed)
        register("minilm", minilm)
        register("use", use)
        register("multilingual", multilingual)

    @hookimpl
    def memadapt_register_llms(self, register: Callable[[str, Callable[..., Any]], None]) -> None:
        def openai(settings: LLMSettings, asynchronous: bool) -> Any:
            from .consolidation.llm_client import AsyncLLMClient, LLMClient

            return AsyncLLMClient(settings) if asynchronous else LLMClient(settings)

        register("openai", openai)

    @hookimpl(trylast=True)
    def memadapt_format_context(self, query: str, hits: Sequence[SearchHit]) -> str:
        return render_memories(query, hits)


def create_plugin_manager(plugins: Sequence[object] = (), *, load_entrypoints: bool = True) -> pluggy.PluginManager:
    """A manager with the built-in plugin, the entry-point plugins (unless disabled) and ``plugins``."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    pm.register(BuiltinPlugin(), name="memadapt-builtin")
    disabled = os.environ.get("MEMADAPT_DISABLE_PLUGINS", "").strip()
    if load_entrypoints and disabled.lower() not in ("1", "true", "all", "yes"):
        for name in filter(None, (n.strip() for n in disabled.split(","))):
            pm.set_blocked(name)
        try:
            pm.load_setuptools_entrypoints(PROJECT)
        except Exception as exc:
            msg = f"a plugin in entry-point group {PROJECT!r} failed to load: {exc}"
            raise PluginError(msg) from exc
    for plugin in plugins:
        pm.register(plugin)
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as exc:
        msg = f"a plugin implements an unknown hook (misspelt?): {exc}"
        raise PluginError(msg) from exc
    return pm


class Hooks:
    """Every call into plugins goes through here: typed results, plugin errors translated."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm

    def _guard(self, hook: str, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except MemadaptError:
            raise
        except Exception as exc:
            msg = f"a plugin's {hook} raised {type(exc).__name__}: {exc}"
            raise PluginError(msg) from exc

    def embedder_factories(self) -> dict[str, Callable[[EmbedderSettings], Embedder]]:
        found: dict[str, Callable[[EmbedderSettings], Embedder]] = {}

        def register(name: str, factory: Callable[[Any], Any]) -> None:
            found.setdefault(name, factory)

        self._guard("memadapt_register_embedders", lambda: self.pm.hook.memadapt_register_embedders(register=register))
        return found

    def llm_factories(self) -> dict[str, Callable[..., Any]]:
        found: dict[str, Callable[..., Any]] = {}

        def register(name: str, factory: Callable[..., Any]) -> None:
            found.setdefault(name, factory)

        self._guard("memadapt_register_llms", lambda: self.pm.hook.memadapt_register_llms(register=register))
        return found

    def make_llm(self, settings: LLMSettings, *, asynchronous: bool) -> Any:
        return _chosen(self.llm_factories(), "llm.provider", "LLM provider", settings.provider)(settings, asynchronous)

    def make_embedder(self, settings: EmbedderSettings) -> Embedder:
        factory = _chosen(self.embedder_factories(), "embedder.provider", "embedder", settings.provider)
        embedder = factory(settings)
        if not isinstance(embedder, Embedder):
            msg = f"embedder factory {settings.provider!r} returned {type(embedder).__name__}"
            raise PluginError(msg)
        return embedder

    def accept(self, record: MemoryRecord, scope: Scope) -> bool:
        if not self.pm.hook.memadapt_accept_message.get_hookimpls():
            return True  # called per message: skip pluggy's call overhead when no plugin listens
        result = self._guard(
            "memadapt_accept_message",
            lambda: self.pm.hook.memadapt_accept_message(message=record, scope=scope),
        )
        return result is not False

    def prepare_record(self, record: MemoryRecord) -> MemoryRecord:
        for impl in self.pm.hook.memadapt_prepare_record.get_hookimpls()[::-1]:
            changed = self._call_impl("memadapt_prepare_record", impl, record=record)
            if changed is not None:
                if not isinstance(changed, MemoryRecord) or changed.id != record.id:
                    msg = "memadapt_prepare_record must return a MemoryRecord with the same id, or None"
                    raise PluginError(msg)
                record = changed
        return record

    def prepare_query(self, query: str) -> str:
        for impl in self.pm.hook.memadapt_prepare_query.get_hookimpls()[::-1]:
            changed = self._call_impl("memadapt_prepare_query", impl, query=query)
            if changed is not None:
                if not isinstance(changed, str):
                    msg = "memadapt_prepare_query must return a str or None"
                    raise PluginError(msg)
                query = changed
        return query

    def _call_impl(self, hook: str, impl: Any, **kwargs: Any) -> Any:
        """Chain a hook by hand (pluggy collects results, it does not feed one plugin's result to the next)."""
        return self._guard(hook, lambda: impl.function(**kwargs))

    def rerank(self, query: str, hits: list[SearchHit]) -> list[SearchHit]:
        if not self.pm.hook.memadapt_rerank.get_hookimpls():
            return hits
        result = self._guard("memadapt_rerank", lambda: self.pm.hook.memadapt_rerank(query=query, hits=hits))
        if result is None:
            return hits
        if not isinstance(result, list) or not all(isinstance(h, SearchHit) for h in result):
            msg = "memadapt_rerank must return a list of SearchHit or None"
            raise PluginError(msg)
        return result

    def format_context(self, query: str, hits: Sequence[SearchHit]) -> str:
        result = self._guard(
            "memadapt_format_context",
            lambda: self.pm.hook.memadapt_format_context(query=query, hits=list(hits)),
        )
        if not isinstance(result, str):
            msg = "memadapt_format_context must return a str"
            raise PluginError(msg)
        return result

    def extraction_instructions(self, scope: Scope) -> str:
        parts = self._guard(
            "memadapt_extraction_instructions",
            lambda: self.pm.hook.memadapt_extraction_instructions(scope=scope),
        )
        return "\n".join(p for p in parts if isinstance(p, str) and p.strip())

    def _notify(self, hook: str, **kwargs: Any) -> None:
        try:
            getattr(self.pm.hook, hook)(**kwargs)
        except Exception:
            log.exception("plugin notification %s failed; the operation itself succeeded", hook)

    def on_added(self, records: Sequence[MemoryRecord]) -> None:
        if records:
            self._notify("memadapt_on_added", records=list(records))

    def on_superseded(self, old: MemoryRecord, new: MemoryRecord) -> None:
        self._notify("memadapt_on_superseded", old=old, new=new)

    def on_deleted(self, ids: Sequence[str]) -> None:
        if ids:
            self._notify("memadapt_on_deleted", ids=list(ids))


def _chosen(factories: dict[str, F], field: str, what: str, name: str) -> F:
    factory = factories.get(name)
    if factory is None:
        msg = f"{field}: unknown {what} {name!r}; known: {', '.join(sorted(factories))}"
        raise ConfigurationError(msg)
    return factory
