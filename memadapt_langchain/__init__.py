"""memadapt for LangChain and LangGraph: a retriever, a vector store, a chat history, a LangGraph store and
memory tools, all over one memadapt engine."""

from .chat_history import MemadaptChatMessageHistory
from .profile_retriever import MemadaptProfileRetriever
from .retriever import MemadaptRetriever
from .store import MemadaptStore
from .tools import create_save_memory_tool, create_search_memory_tool
from .vectorstore import MemadaptVectorStore

__all__ = [
    "MemadaptChatMessageHistory",
    "MemadaptProfileRetriever",
    "MemadaptRetriever",
    "MemadaptStore",
    "MemadaptVectorStore",
    "create_save_memory_tool",
    "create_search_memory_tool",
]
