"""memadapt for LangChain and LangGraph: a retriever, a vector store, a chat history, a LangGraph store and
memory tools, and task memory (an experience retriever and tools), all over one memadapt engine."""

from .chat_history import MemadaptChatMessageHistory
from .experience import MemadaptExperienceRetriever, create_experience_tool, create_trajectory_tool
from .profile_retriever import MemadaptProfileRetriever
from .retriever import MemadaptRetriever
from .store import MemadaptStore
from .tools import create_save_memory_tool, create_search_memory_tool
from .vectorstore import MemadaptVectorStore

__all__ = [
    "MemadaptChatMessageHistory",
    "MemadaptExperienceRetriever",
    "MemadaptProfileRetriever",
    "MemadaptRetriever",
    "MemadaptStore",
    "MemadaptVectorStore",
    "create_experience_tool",
    "create_save_memory_tool",
    "create_search_memory_tool",
    "create_trajectory_tool",
]
