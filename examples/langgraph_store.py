"""A LangGraph graph with long-term memory in MemadaptStore: what a user says in one thread is recalled in the next.

Runs offline with a scripted chat model (the store and its embedder are local):

    python examples/langgraph_store.py

1. Thread 1: Alice says two things; after answering, the graph saves each message as an item in
   ("memories", <user>).
2. Thread 2: a new conversation; the graph recalls Alice's items by meaning and shows what the model is told.
3. Bob's thread recalls nothing of Alice's. The store lists its namespaces.
4. The items are engine memories: a LangChain retriever scoped to Alice finds them, and they survive a restart.
"""

from __future__ import annotations

import tempfile
import uuid
from dataclasses import dataclass

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from memadapt_core import Memory
from memadapt_langchain import MemadaptRetriever, MemadaptStore

SCRIPT = [
    "Nice to meet you, Alice!",
    "Leeds sounds lovely.",
    "Try the vegetarian thali at a place near you in Leeds.",
    "Hello Bob! What would you like to eat?",
]
model = GenericFakeChatModel(messages=iter(AIMessage(text) for text in SCRIPT))


@dataclass
class User:
    user_id: str


def remember(state: MessagesState, runtime: Runtime[User]) -> dict[str, list[AIMessage]]:
    assert runtime.store is not None
    said = state["messages"][-2].text  # the user's turn, before the reply
    runtime.store.put(("memories", runtime.context.user_id), str(uuid.uuid4()), {"content": said})
    return {"messages": []}


def answer(state: MessagesState, runtime: Runtime[User]) -> dict[str, list[AIMessage]]:
    assert runtime.store is not None
    question = state["messages"][-1].text
    recalled = runtime.store.search(("memories", runtime.context.user_id), query=question, limit=3)
    notes = "\n".join(f"- {item.value['content']} ({item.score:.2f})" for item in recalled)
    system = SystemMessage(f"What you remember about this user:\n{notes or '- nothing yet'}")
    print("    model is told: " + system.text.replace("\n", "\n      "))
    reply = model.invoke([system, *state["messages"]])
    print(f"    assistant: {reply.text}")
    return {"messages": [reply]}


App = CompiledStateGraph[MessagesState, User, MessagesState, MessagesState]


def build(store: MemadaptStore) -> App:
    graph = StateGraph(MessagesState, context_schema=User)
    graph.add_node("remember", remember)
    graph.add_node("answer", answer)
    graph.add_edge(START, "answer")
    graph.add_edge("answer", "remember")
    graph.add_edge("remember", END)
    return graph.compile(store=store, checkpointer=InMemorySaver())


def chat(app: App, thread: str, user: str, text: str) -> None:
    print(f"  [{thread}] {user}: {text}")
    turn = MessagesState(messages=[HumanMessage(text)])
    app.invoke(turn, RunnableConfig(configurable={"thread_id": thread}), context=User(user))


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        with Memory(path=folder) as memory:
            # ("memories", <user id>) is that user's (label 1, the default); the value's strings are embedded.
            store = MemadaptStore(memory=memory)
            app = build(store)

            print("1. Thread 1")
            chat(app, "thread-1", "alice", "Hi, I'm Alice and I'm vegetarian.")
            chat(app, "thread-1", "alice", "I just moved to Leeds.")
            print("2. Thread 2, a new conversation")
            chat(app, "thread-2", "alice", "Where should I go for dinner?")
            print("3. Bob's thread")
            chat(app, "thread-3", "bob", "What's good to eat?")
            print(f"  namespaces: {store.list_namespaces()}")

            print("4. The same memories, seen by a LangChain retriever scoped to Alice")
            for doc in MemadaptRetriever(memory=memory, user_id="alice", k=1).invoke("what does Alice eat?"):
                print(f"    {doc.metadata['score']:.2f}  {doc.page_content}")

        with Memory(path=folder) as reopened:
            found = MemadaptStore(memory=reopened).search(("memories", "alice"), query="city")
            print(f"  after a restart, 'city' finds: {found[0].value['content']}")


if __name__ == "__main__":
    main()
