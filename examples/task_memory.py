"""Task memory, offline: an agent fails a task, a lesson is stored from its scored trajectory, and it succeeds on a
similar task with that experience in its system prompt.

Both models are scripted (memadapt_core.testing.ScriptedLLMServer, an OpenAI-compatible server on 127.0.0.1):
- the agent's model calls the book_flight tool with the date as the user wrote it, unless its system prompt
  holds a lesson about dates, in which case it converts the date first;
- memadapt's consolidation model answers the experience extraction and validation calls from a table.

Run: python examples/task_memory.py
"""

from __future__ import annotations

import json
import re
from typing import Any

import openai

from memadapt_core import Memory
from memadapt_core.testing import ChatRequest, ScriptedLLMServer, ScriptItem

AGENT = "travel-agent"
LESSON = {
    "when_to_use": "booking a flight when the user gives the date in words",
    "content": "book_flight only accepts YYYY-MM-DD: convert 'next Friday' or 'on Monday' to a date before calling it.",
    "evidence": "failure",
    "sources": [0],
}
DATES = {"next friday": "2026-11-27", "on monday": "2026-11-30"}


def book_flight(date: str) -> str:
    """The tool: strict about its date format."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", date) is None:
        return "error: date must be YYYY-MM-DD"
    return f"booked: AF1234 on {date}"


CONSOLIDATION: dict[str, ScriptItem] = {  # memadapt's own calls name their operation
    "extract_experience": {"experiences": [LESSON]},
    "validate_experience": {"judgements": [{"experience": 0, "valid": True, "reason": "the tool's error says so"}]},
}


def scripted_models(request: ChatRequest) -> ScriptItem | None:
    """memadapt's calls answered from CONSOLIDATION; the agent's model converts dates only when its system prompt
    tells it to."""
    if request.operation is not None:
        return CONSOLIDATION.get(request.operation)
    words = next((w for w in DATES if w in request.user.lower()), "next friday")
    date = DATES[words] if "YYYY-MM-DD" in request.system else words
    return {"tool": "book_flight", "arguments": {"date": date}}


def run_agent(client: openai.OpenAI, system: str, task: str) -> dict[str, Any]:
    """One attempt: ask the model which call to make, make it, score it; returns the trajectory."""
    answer = client.chat.completions.create(
        model="scripted", messages=[{"role": "system", "content": system}, {"role": "user", "content": task}]
    )
    decision = json.loads(answer.choices[0].message.content or "{}")
    arguments = json.dumps(decision["arguments"])
    result = book_flight(**decision["arguments"])
    call = {"id": "c1", "type": "function", "function": {"name": decision["tool"], "arguments": arguments}}
    return {
        "messages": [
            {"role": "user", "content": task},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "name": decision["tool"], "tool_call_id": "c1", "content": result},
        ],
        "score": 0.0 if result.startswith("error") else 1.0,
    }


def main() -> None:
    with ScriptedLLMServer(responder=scripted_models) as llm:
        client = openai.OpenAI(base_url=llm.base_url, api_key="not-needed")
        with Memory(location=":memory:", llm={"base_url": llm.base_url, "model": "scripted"}) as memory:
            system = "You book flights with the book_flight tool."

            print("1. First task: 'Book me a flight to Berlin next Friday'")
            first = run_agent(client, system, "Book me a flight to Berlin next Friday")
            print(f"   tool said: {first['messages'][-1]['content']}  -> score {first['score']}")

            print("2. The scored trajectory is stored; the worker draws and validates a lesson")
            memory.add_trajectories(first, agent_id=AGENT, user_id="alex", task="book a flight")
            memory.flush()
            (experience,) = memory.list(agent_id=AGENT, kinds=["experience"]).records
            print(f"   lesson ({experience.metadata['evidence']}): {experience.metadata['content']}")

            print("3. A similar task, with the experience in the system prompt")
            task = "Book me a flight to Rome on Monday"
            guidance = memory.experience_guidance(task, agent_id=AGENT)
            print("   " + guidance.replace("\n", "\n   "))
            second = run_agent(client, f"{system}\n\n{guidance}", task)
            print(f"   tool said: {second['messages'][-1]['content']}  -> score {second['score']}")


if __name__ == "__main__":
    main()
