"""A scripted OpenAI-compatible server on 127.0.0.1, for tests and offline evaluation.

Real HTTP over a real socket (stdlib ``http.server`` in a thread, ephemeral port), so the code under test runs
the same ``openai`` client it runs in production. ``/v1/chat/completions`` answers from a script (a queue of
answers), else from a ``responder`` (a function of the request); ``/v1/embeddings`` answers with
deterministic hashed bag-of-words vectors. A request with ``"stream": true`` gets its answer as server-sent
events, a word at a time. Failures on command: HTTP errors (500, 429 with ``Retry-After``), hangs (the client
times out), and bodies that are not JSON. Every request is recorded. (What a script holds and records:
``script_items.py``.)

::

    with ScriptedLLMServer([{"facts": []}]) as server:
        client = AsyncLLMClient(server.llm_settings())

    @pytest.fixture
    def llm_server() -> Iterator[ScriptedLLMServer]:
        yield from serve_scripted_llm()
"""

from __future__ import annotations

import base64
import json
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from pydantic import SecretStr

from memadapt_core.config import LLMSettings
from memadapt_core.consolidation.llm_base import OPERATION_HEADER

from .script_items import (
    ChatRequest,
    Failure,
    Garbage,
    Hang,
    RecordedRequest,
    Reply,
    Responder,
    ScriptItem,
    hashed_embedding,
)

__all__ = [
    "OPERATION_HEADER",
    "ChatRequest",
    "Failure",
    "Garbage",
    "Hang",
    "RecordedRequest",
    "Reply",
    "Responder",
    "ScriptItem",
    "ScriptedLLMServer",
    "hashed_embedding",
    "serve_scripted_llm",
]


class ScriptedLLMServer:
    """An OpenAI-compatible HTTP server answering from a script; see the module docstring."""

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        responder: Responder | None = None,
        embedding_dim: int = 64,
        json_mode_supported: bool = True,
        model: str = "scripted",
    ) -> None:
        self._script: deque[ScriptItem] = deque(script)
        self.responder = responder
        """Answers chat requests once the script is empty (may be replaced at any time)."""
        self.embedding_dim = embedding_dim
        self.json_mode_supported = json_mode_supported
        self.model = model
        self._outage: ScriptItem | None = None
        self._lock = threading.Condition()
        self._released = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------------------
    def start(self) -> ScriptedLLMServer:
        if self._httpd is None:
            self._released.clear()
            self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
            self._httpd.daemon_threads = True
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, args=(0.02,), name="scripted-llm", daemon=True
            )
            self._thread.start()
        return self

    def close(self) -> None:
        with self._lock:
            self._released.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def port(self) -> int:
        if self._httpd is None:
            msg = "the scripted server is not running: call start() or use it as a context manager"
            raise RuntimeError(msg)
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def llm_settings(self, **overrides: Any) -> LLMSettings:
        """Settings pointing memadapt's LLM client at this server (5 s timeout unless overridden)."""
        values: dict[str, Any] = {
            "base_url": self.base_url,
            "api_key": SecretStr("test"),
            "model": self.model,
            "timeout": 5.0,
        }
        return LLMSettings(**(values | overrides))

    # -- scripting ------------------------------------------------------------------------------------------
    def push(self, *items: ScriptItem) -> None:
        """Queue answers, served in order to chat requests."""
        with self._lock:
            self._script.extend(items)

    def fail_next(self, count: int = 1, failure: ScriptItem | None = None) -> None:
        """The next ``count`` chat requests fail (HTTP 500 unless ``failure`` says otherwise), then the script."""
        with self._lock:
            self._script.extendleft([failure or Failure()] * count)

    def set_outage(self, failure: ScriptItem | None = None) -> None:
        """Every request (chat and embeddings) fails with ``failure`` until ``end_outage()``."""
        with self._lock:
            self._outage = failure or Failure(503, "scripted outage")

    def end_outage(self) -> None:
        with self._lock:
            self._outage = None

    def release(self) -> None:
        """Wake the requests hanging now (they close their connection unanswered); later hangs hang again."""
        with self._lock:
            released, self._released = self._released, threading.Event()
        released.set()

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def chat_requests(self, operation: str | None = None) -> list[ChatRequest]:
        with self._lock:
            recorded = [r for r in self.requests if r.path.endswith("/chat/completions")]
        requests = [ChatRequest(r.body, r.headers.get(OPERATION_HEADER.lower())) for r in recorded]
        return [r for r in requests if operation is None or r.operation == operation]

    def wait_for_requests(self, count: int, *, timeout: float = 5.0) -> list[RecordedRequest]:
        """Block until at least ``count`` requests arrived (a condition with a deadline, not a sleep)."""
        with self._lock:
            if not self._lock.wait_for(lambda: len(self.requests) >= count, timeout):
                msg = f"expected {count} requests within {timeout}s, got {len(self.requests)}"
                raise TimeoutError(msg)
            return list(self.requests)

    # -- answering (called from handler threads) ------------------------------------------------------------
    def _record(self, path: str, headers: dict[str, str], body: Any) -> int:
        with self._lock:
            self.requests.append(RecordedRequest(path, headers, body))
            self._lock.notify_all()
            return len(self.requests) - 1

    def _set_status(self, index: int, status: int) -> None:
        with self._lock:
            self.requests[index] = replace(self.requests[index], status=status)

    def _next_chat_item(self, request: ChatRequest) -> ScriptItem:
        with self._lock:
            if self._outage is not None:
                return self._outage
            if request.json_mode and not self.json_mode_supported:
                return Failure(400, "response_format json_object is not supported by this model")
            if self._script:
                return self._script.popleft()
        answer = self.responder(request) if self.responder is not None else None
        if answer is not None:
            return answer
        return Failure(500, "scripted server: the script is exhausted and no responder answered")

    def _chat_body(self, item: Reply, number: int) -> dict[str, Any]:
        content = item.content if isinstance(item.content, str) else json.dumps(item.content)
        return {
            "id": f"chatcmpl-scripted-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": item.prompt_tokens,
                "completion_tokens": item.completion_tokens,
                "total_tokens": item.prompt_tokens + item.completion_tokens,
            },
        }

    def _embeddings_body(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body.get("input", [])
        texts = [texts] if isinstance(texts, str) else list(texts)
        dim = int(body.get("dimensions") or self.embedding_dim)
        data = []
        for index, text in enumerate(texts):
            vector = hashed_embedding(str(text), dim)
            encoded: Any = vector
            if body.get("encoding_format") == "base64":
                encoded = base64.b64encode(struct.pack(f"<{dim}f", *vector)).decode()
            data.append({"object": "embedding", "index": index, "embedding": encoded})
        tokens = sum(len(str(t).split()) for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": str(body.get("model", self.model)),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _make_handler(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read server.requests instead
            return

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body: Any = json.loads(raw or b"{}")
            except ValueError:
                body = raw.decode(errors="replace")
            headers = {k.lower(): v for k, v in self.headers.items()}
            index = server._record(self.path, headers, body)
            if not isinstance(body, dict):
                self._send_json(index, 400, {"error": {"message": "the body is not a JSON object"}})
            elif self.path.endswith("/chat/completions"):
                request = ChatRequest(body, headers.get(OPERATION_HEADER.lower()))
                self._answer(index, server._next_chat_item(request), stream=body.get("stream") is True)
            elif self.path.endswith("/embeddings"):
                with server._lock:
                    outage = server._outage
                if outage is not None:
                    self._answer(index, outage)
                else:
                    self._send_json(index, 200, server._embeddings_body(body))
            else:
                self._send_json(index, 404, {"error": {"message": f"no route {self.path}"}})

        def _answer(self, index: int, item: ScriptItem, *, stream: bool = False) -> None:
            if isinstance(item, Hang):
                with server._lock:
                    released = server._released
                released.wait(item.seconds)
                self.close_connection = True
            elif isinstance(item, Garbage):
                self._send(index, 200, item.body.encode(), {})
            elif isinstance(item, Failure):
                extra = {} if item.retry_after is None else {"Retry-After": f"{item.retry_after:g}"}
                payload = {"error": {"message": item.message, "type": "scripted", "code": item.status}}
                self._send(index, item.status, json.dumps(payload).encode(), extra)
            else:
                reply = item if isinstance(item, Reply) else Reply(item)
                body = server._chat_body(reply, index)
                if stream:
                    self._send_events(index, body)
                else:
                    self._send_json(index, 200, body)

        def _send_events(self, index: int, body: dict[str, Any]) -> None:
            """The answer as OpenAI's stream: a chunk per word (spaces kept), then ``[DONE]``."""
            words = re.findall(r"\S+\s*|\s+", body["choices"][0]["message"]["content"])
            frame = {
                "id": body["id"],
                "object": "chat.completion.chunk",
                "created": body["created"],
                "model": body["model"],
            }
            chunks: list[dict[str, Any]] = [
                {"index": 0, "delta": {"role": "assistant", "content": w}, "finish_reason": None} for w in words
            ]
            chunks.append({"index": 0, "delta": {}, "finish_reason": "stop"})
            events = [f"data: {json.dumps(frame | {'choices': [c]})}\n\n" for c in chunks] + ["data: [DONE]\n\n"]
            self._send(index, 200, "".join(events).encode(), {}, content_type="text/event-stream")

        def _send_json(self, index: int, status: int, payload: dict[str, Any]) -> None:
            self._send(index, status, json.dumps(payload).encode(), {})

        def _send(
            self, index: int, status: int, data: bytes, extra: dict[str, str], content_type: str = "application/json"
        ) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
                server._set_status(index, status)
            except OSError:  # the client gave up (timeout): nothing to answer
                self.close_connection = True

    return Handler


def serve_scripted_llm(script: Iterable[ScriptItem] = (), **options: Any) -> Iterator[ScriptedLLMServer]:
    """The body of a pytest fixture: ``yield from serve_scripted_llm()`` runs a server for one test."""
    with ScriptedLLMServer(script, **options) as server:
        yield server
