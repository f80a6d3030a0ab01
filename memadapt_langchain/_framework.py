"""The one place that imports LangChain and LangGraph, so a missing extra fails with the line to run."""

from __future__ import annotations

INSTALL_HINT = "memadapt_langchain needs LangChain and LangGraph: pip install 'memadapt[langchain]'"

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.documents import Document
    from langchain_core.embeddings import Embeddings
    from langchain_core.messages import BaseMessage, message_to_dict, messages_from_dict
    from langchain_core.retrievers import BaseRetriever
    from langchain_core.runnables import RunnableConfig
    from langchain_core.tools import StructuredTool
    from langchain_core.vectorstores import VectorStore
    from langchain_core.vectorstores.utils import maximal_marginal_relevance
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        get_text_at_path,
        validate_op_namespace,
    )
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the extra
    raise ImportError(INSTALL_HINT) from exc

__all__ = [
    "INSTALL_HINT",
    "AsyncCallbackManagerForRetrieverRun",
    "BaseChatMessageHistory",
    "BaseMessage",
    "BaseRetriever",
    "BaseStore",
    "CallbackManagerForRetrieverRun",
    "Document",
    "Embeddings",
    "GetOp",
    "Item",
    "ListNamespacesOp",
    "MatchCondition",
    "Op",
    "PutOp",
    "Result",
    "RunnableConfig",
    "SearchItem",
    "SearchOp",
    "StructuredTool",
    "VectorStore",
    "get_text_at_path",
    "maximal_marginal_relevance",
    "message_to_dict",
    "messages_from_dict",
    "validate_op_namespace",
]
