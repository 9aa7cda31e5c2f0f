"""A scripted OpenAI-compatible HTTP server for tests: the real ``openai`` client talks to it.

It speaks just enough of the REST API: ``POST /v1/chat/completions`` (non-streaming),
``POST /v1/embeddings`` (deterministic hashed bag-of-words vectors, ``float`` or ``base64``)
and ``GET /v1/models``. Tests script what the chat endpoint answers, one item per request::

    with ScriptedLLMServer() as server:
        server.fail(500).reply('{"answer": 42}')
        client = LLMClient(settings_for(server))
        ...
        assert server.chat_requests[0].json["model"] == "test-model"

When the queue is empty, ``server.default`` (a ``handler(request_json) -> str``) answers.
``server.refuse("json_schema", 500)`` makes the server answer every chat request that asks
for that response format with that status, before the queue is looked at (as
llama-cpp-python's server answers ``json_schema``); :func:`format_of` names a request's
format (``json_schema``, ``json_object+schema``, ``json_object`` or ``text``).
Every request is recorded (method, path, headers, JSON body) in ``server.requests``.

Expose the ``llm_server`` fixture with ``pytest_plugins = ["tests.llm_server"]`` in the
top-level ``tests/conftest.py``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal

import pytest

from cogmem.config import Settings

Handler = Callable[[dict[str, Any]], str | None]
Endpoint = Literal["chat", "embeddings"]

GARBAGE = "Sure! Here is what I found: {records: [oops, this is not JSON"
_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    json: Any

    @property
    def messages(self) -> list[dict[str, Any]]:
        body = self.json if isinstance(self.json, dict) else {}
        return list(body.get("messages") or [])

    def message(self, role: str) -> str:
        """The content of the first message with ``role`` ('' when there is none)."""
        for msg in self.messages:
            if msg.get("role") == role:
                content = msg.get("content")
                return content if isinstance(content, str) else json.dumps(content)
        return ""


@dataclass(frozen=True)
class Reply:
    content: str | None


@dataclass(frozen=True)
class Fail:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    seconds: float


@dataclass(frozen=True)
class Computed:
    handler: Handler


Action = Reply | Fail | Hang | Computed


def fake_embedding(text: str, dimension: int) -> list[float]:
    """A deterministic unit vector: a signed, hashed bag of lower-cased words."""
    vec = [0.0] * dimension
    for word in _WORD.findall(text.lower()):
        digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        vec[value % dimension] += 1.0 if (value >> 63) & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0.0:
        vec[0] = 1.0
        return vec
    return [v / norm for v in vec]


def default_chat_handler(request: dict[str, Any]) -> str:
    """What the server answers when nothing is scripted: an empty JSON object."""
    return "{}"


class ScriptedLLMServer:
    """A local OpenAI-compatible server whose chat answers are scripted by the test."""

    def __init__(
        self,
        *,
        dimension: int = 32,
        model: str = "test-model",
        default: Handler | None = None,
        host: str = "127.0.0.1",
    ) -> None:
        self.dimension = dimension
        self.model = model
        self.default: Handler = default or default_chat_handler
        self.host = host
        self.requests: list[RecordedRequest] = []
        self._queues: dict[Endpoint, deque[Action]] = {"chat": deque(), "embeddings": deque()}
        self.refused: dict[str, int] = {}  # response format -> the status it is refused with
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> ScriptedLLMServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = ThreadingHTTPServer((self.host, 0), _make_handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes any hanging request
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the scripted LLM server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The server's root, e.g. ``http://127.0.0.1:54321`` (the API is under ``/v1``)."""
        return f"http://{self.host}:{self.port}"

    # -- scripting ---------------------------------------------------------------------
    def _push(self, action: Action, endpoint: Endpoint) -> ScriptedLLMServer:
        with self._lock:
            self._queues[endpoint].append(action)
        return self

    def reply(self, content: str | None) -> ScriptedLLMServer:
        """Answer the next chat request with a completion whose message content is this."""
        return self._push(Reply(content), "chat")

    def fail(
        self,
        status: int,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        endpoint: Endpoint = "chat",
    ) -> ScriptedLLMServer:
        """Answer the next request on ``endpoint`` with an HTTP error (500, 429, 401, ...)."""
        return self._push(Fail(status, body, dict(headers or {})), endpoint)

    def hang(self, seconds: float, *, endpoint: Endpoint = "chat") -> ScriptedLLMServer:
        """Sit on the next request for ``seconds`` (longer than the client's timeout)."""
        return self._push(Hang(seconds), endpoint)

    def garbage(self) -> ScriptedLLMServer:
        """Answer the next chat request with content that is not JSON."""
        return self._push(Reply(GARBAGE), "chat")

    def refuse(self, response_format: str, status: int = 500) -> ScriptedLLMServer:
        """Answer every chat request asking for ``response_format`` with ``status``."""
        self.refused[response_format] = status
        return self

    def handler(self, fn: Handler) -> ScriptedLLMServer:
        """Answer the next chat request with ``fn(request_json)``."""
        return self._push(Computed(fn), "chat")

    def set_default(self, fn: Handler) -> ScriptedLLMServer:
        """What answers chat requests once the queue is empty."""
        self.default = fn
        return self

    def pending(self, endpoint: Endpoint = "chat") -> int:
        with self._lock:
            return len(self._queues[endpoint])

    def clear(self) -> None:
        """Forget the scripted queue and the recorded requests."""
        with self._lock:
            for queue in self._queues.values():
                queue.clear()
            self.requests.clear()

    def _next(self, endpoint: Endpoint) -> Action | None:
        with self._lock:
            queue = self._queues[endpoint]
            return queue.popleft() if queue else None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    # -- assertions --------------------------------------------------------------------
    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/embeddings")]

    # -- responses ---------------------------------------------------------------------
    def completion(self, request: dict[str, Any], content: str | None) -> dict[str, Any]:
        text = content or ""
        prompt = " ".join(str(m.get("content", "")) for m in request.get("messages") or [])
        prompt_tokens, completion_tokens = len(prompt.split()), len(text.split())
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(request.get("model") or self.model),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, "refusal": None},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def embeddings(self, request: dict[str, Any]) -> dict[str, Any]:
        raw = request.get("input")
        inputs = [raw] if isinstance(raw, str) else [str(x) for x in raw or []]
        as_base64 = request.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vec = fake_embedding(text, int(request.get("dimensions") or self.dimension))
            encoded: Any = vec
            if as_base64:
                encoded = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        tokens = sum(len(t.split()) for t in inputs)
        return {
            "object": "list",
            "data": data,
            "model": str(request.get("model") or self.model),
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "tests"}],
        }


def _error_body(status: int, body: Any) -> Any:
    if body is not None:
        return body
    return {
        "error": {
            "message": f"scripted failure with status {status}",
            "type": "server_error" if status >= 500 else "invalid_request_error",
            "param": None,
            "code": None,
        }
    }


def _make_handler(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in separate writes

        def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
            return

        def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            if isinstance(body, bytes | bytearray):
                payload = bytes(body)
                ctype = "application/octet-stream"
            elif isinstance(body, str):
                payload = body.encode("utf-8")
                ctype = "text/plain; charset=utf-8"
            else:
                payload = json.dumps(body).encode("utf-8")
                ctype = "application/json"
            try:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout); nothing to tell it

        def _read_json(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not raw:
                return None
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _record(self, body: Any) -> None:
            server._record(
                RecordedRequest(
                    method=self.command,
                    path=self.path,
                    headers={k.lower(): v for k, v in self.headers.items()},
                    json=body,
                )
            )

        def do_GET(self) -> None:
            self._record(None)
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, server.models())
            else:
                self._send(404, _error_body(404, None))

        def do_POST(self) -> None:
            body = self._read_json()
            self._record(body)
            request = body if isinstance(body, dict) else {}
            path = self.path.split("?", 1)[0].rstrip("/")
            if path.endswith("/chat/completions"):
                endpoint: Endpoint = "chat"
            elif path.endswith("/embeddings"):
                endpoint = "embeddings"
            else:
                self._send(404, _error_body(404, None))
                return
            refused = server.refused.get(format_of(request)) if endpoint == "chat" else None
            if refused is not None:
                self._send(refused, _error_body(refused, "response_format not supported"))
                return
            action = server._next(endpoint)
            if isinstance(action, Hang):
                server._stopping.wait(action.seconds)
                action = None  # if the client still listens, answer as usual
            if isinstance(action, Fail):
                self._send(action.status, _error_body(action.status, action.body), action.headers)
                return
            if endpoint == "embeddings":
                self._send(200, server.embeddings(request))
                return
            if isinstance(action, Reply):
                content = action.content
            elif isinstance(action, Computed):
                content = action.handler(request)
            else:
                content = server.default(request)
            self._send(200, server.completion(request, content))

    return _Handler


def format_of(request: dict[str, Any]) -> str:
    """The structured-output format a chat request asks for (``text`` for none)."""
    fmt = request.get("response_format")
    if not isinstance(fmt, dict):
        return "text"
    if fmt.get("type") == "json_object":
        return "json_object+schema" if "schema" in fmt else "json_object"
    return str(fmt.get("type"))


def settings_for(server: ScriptedLLMServer, **overrides: Any) -> Settings:
    """Settings that point the ``openai`` backend at ``server``, with short timeouts."""
    values: dict[str, Any] = {
        "llm": "openai",
        "llm_base_url": server.url + "/v1",
        "llm_api_key": "test",
        "llm_model": server.model,
        "llm_embed_model": "test-embed",
        "llm_timeout_s": 2.0,
        "llm_max_retries": 2,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A running scripted OpenAI-compatible server, stopped after the test."""
    with ScriptedLLMServer() as server:
        yield server
