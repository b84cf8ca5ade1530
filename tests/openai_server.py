"""A small, scripted, OpenAI-compatible HTTP server for the test suite.

Tests that exercise code talking to an OpenAI-style API (the ``openai`` client,
``langchain_openai.ChatOpenAI``, ``OpenAIEmbeddings`` ...) point that code at
this server instead of the real service.  It runs in-process on
``127.0.0.1`` (a free port), needs nothing outside the standard library, and
lets a test *script* what each chat request gets back: a normal reply, a slow
stream, a 429 rate limit, an exhausted quota, a 5xx error, a request that hangs
forever, or a stream that stalls halfway through.

Endpoints
---------
``POST /v1/chat/completions``
    Non-streaming ``chat.completion`` JSON, or, when the body has
    ``"stream": true``, Server-Sent Events carrying ``chat.completion.chunk``
    objects (a role chunk, one small piece of text per chunk, a final chunk
    with ``finish_reason: "stop"``, an optional usage chunk when
    ``stream_options.include_usage`` is set, then ``data: [DONE]``).
``GET /v1/models``
    A model list containing the configured model name.
``POST /v1/embeddings``
    Deterministic fake vectors (hash of the input text) of ``embedding_dim``
    dimensions (or the request's ``dimensions``), as floats or, when the
    request asks for ``encoding_format: "base64"`` (the ``openai`` client's
    default), as base64-encoded little-endian float32.

Usage
-----
::

    from openai_server import OpenAICompatServer, Reply, RateLimited

    with OpenAICompatServer() as server:
        server.enqueue(RateLimited(retry_after=1), Reply("Hello [1]"))
        client = openai.OpenAI(base_url=server.base_url, api_key="test")
        ...
        assert len(server.chat_requests()) == 2

Each chat request pops the next queued behaviour (FIFO); once the queue is
empty, ``server.default`` is used (initially ``Reply("OK [1]")``).  Every
request (any path) is recorded in ``server.requests``.

``close()`` (or leaving the ``with`` block) returns quickly even while
handlers are delayed, hanging or stalled: all waiting is done on a
``threading.Event`` that ``close()`` sets, and open client connections are
shut down.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import socket
import struct
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "Behaviour",
    "Hang",
    "OpenAICompatServer",
    "QuotaExceeded",
    "RateLimited",
    "Reply",
    "ServerError",
    "StallMidStream",
]


# --------------------------------------------------------------------------- #
# Scripted behaviours
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Reply:
    """Answer the chat request normally.

    ``text`` is the assistant message; alternatively ``responder(messages)``
    computes it from the request's ``messages`` list (``responder`` wins when
    both are given; with neither, the reply is empty).  ``delay`` seconds pass
    before the response headers are sent; ``chunk_delay`` seconds pass between
    streamed chunks (ignored for non-streaming requests).
    """

    text: str | None = None
    responder: Callable[[list[dict]], str] | None = None
    delay: float = 0.0
    chunk_delay: float = 0.0


@dataclass(frozen=True)
class RateLimited:
    """HTTP 429 with ``Retry-After: <retry_after>`` and a ``rate_limit_exceeded`` error body."""

    retry_after: float = 1.0


@dataclass(frozen=True)
class QuotaExceeded:
    """HTTP 429 with an ``insufficient_quota`` error body and no ``Retry-After`` header."""


@dataclass(frozen=True)
class ServerError:
    """Respond with HTTP ``status`` (default 500) and an OpenAI-style error body."""

    status: int = 500
    message: str = "The server had an error while processing your request."


@dataclass(frozen=True)
class Hang:
    """Read the request, then never answer (until the server is closed)."""


@dataclass(frozen=True)
class StallMidStream:
    """For streaming requests: send the role chunk and ``after_chunks`` text chunks, then stall.

    The stall lasts until the server is closed, at which point the connection
    is dropped without a final chunk or ``[DONE]``.  ``text`` supplies the
    pieces that are sent before stalling.  A non-streaming request that gets
    this behaviour hangs like :class:`Hang`.
    """

    after_chunks: int = 2
    text: str = "This answer stalls partway through and never finishes."


Behaviour = Reply | RateLimited | QuotaExceeded | ServerError | Hang | StallMidStream


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def _split_pieces(text: str) -> list[str]:
    """Split text into small stream pieces (a word plus its leading whitespace)."""
    pieces = re.findall(r"\s*\S+", text)
    tail = text[len("".join(pieces)) :]
    if tail:  # trailing whitespace
        if pieces:
            pieces[-1] += tail
        else:
            pieces = [tail]
    return pieces


def _count_tokens(text: str) -> int:
    """A crude token count (whitespace-separated words), good enough for usage."""
    return len(text.split())


def _message_text(messages: list[dict]) -> str:
    parts: list[str] = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            for item in content:
                if isinstance(item, dict) and isinstance(item.get("text"), str):
                    parts.append(item["text"])
    return " ".join(parts)


def fake_embedding(text: str, dim: int) -> list[float]:
    """Deterministic unit-length vector of ``dim`` floats derived from a SHA-256 of ``text``."""
    values: list[float] = []
    counter = 0
    while len(values) < dim:
        digest = hashlib.sha256(f"{counter}:{text}".encode()).digest()
        for i in range(0, len(digest), 4):
            (n,) = struct.unpack("<I", digest[i : i + 4])
            values.append(n / 0xFFFFFFFF * 2.0 - 1.0)
        counter += 1
    values = values[:dim]
    norm = sum(v * v for v in values) ** 0.5 or 1.0
    # Round-trip through float32 so float and base64 encodings agree exactly.
    return [struct.unpack("<f", struct.pack("<f", v / norm))[0] for v in values]


class _Closed(Exception):
    """Raised inside a handler when the server is closing."""


# --------------------------------------------------------------------------- #
# HTTP plumbing
# --------------------------------------------------------------------------- #


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    owner: OpenAICompatServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up (timeouts, closed streams, server close) are expected.
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, OSError, _Closed)):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    # -- lifecycle ---------------------------------------------------------- #

    def setup(self) -> None:
        super().setup()
        self.server.owner._track_connection(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._track_connection(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass  # keep test output quiet

    # -- low-level writing ---------------------------------------------------- #

    @property
    def owner(self) -> OpenAICompatServer:
        return self.server.owner

    def _wait(self, seconds: float) -> None:
        """Sleep ``seconds`` but wake up (raising _Closed) as soon as the server closes."""
        if seconds > 0 and self.owner._closing.wait(seconds):
            raise _Closed
        if self.owner._closing.is_set():
            raise _Closed

    def _hang_until_close(self) -> None:
        self.owner._closing.wait()
        raise _Closed

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error_json(
        self, status: int, message: str, type_: str, code: str | None, headers: dict[str, str] | None = None
    ) -> None:
        self._send_json(status, {"error": {"message": message, "type": type_, "param": None, "code": code}}, headers)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def _send_sse(self, payload: Any) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        event = f"data: {data}\n\n".encode()
        self.wfile.write(b"%X\r\n%s\r\n" % (len(event), event))
        self.wfile.flush()

    def _end_sse(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    # -- request entry points ------------------------------------------------ #

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch(body=None)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            self.owner._record(self.path, None, self.headers)
            self._send_error_json(400, "Invalid JSON body", "invalid_request_error", None)
            return
        self._dispatch(body=body)

    def _dispatch(self, body: Any) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        self.owner._record(path, body, self.headers)
        try:
            if self.command == "POST" and path == "/v1/chat/completions":
                self._chat(body if isinstance(body, dict) else {})
            elif self.command == "POST" and path == "/v1/embeddings":
                self._embeddings(body if isinstance(body, dict) else {})
            elif self.command == "GET" and path == "/v1/models":
                self._models()
            else:
                self._send_error_json(
                    404, f"Unknown endpoint {self.command} {path}", "invalid_request_error", "unknown_url"
                )
        except _Closed:
            self.close_connection = True
        except (ConnectionError, BrokenPipeError):
            self.close_connection = True

    # -- endpoints ------------------------------------------------------------ #

    def _models(self) -> None:
        self._send_json(
            200,
            {
                "object": "list",
                "data": [{"id": self.owner.model, "object": "model", "created": 0, "owned_by": "openai-compat-test"}],
            },
        )

    def _embeddings(self, body: dict) -> None:
        inp = body.get("input")
        if isinstance(inp, str) or (isinstance(inp, list) and inp and isinstance(inp[0], int)):
            inputs: list[Any] = [inp]
        elif isinstance(inp, list):
            inputs = list(inp)
        else:
            self._send_error_json(400, "'input' must be a string or a list", "invalid_request_error", None)
            return
        dim = body.get("dimensions") or self.owner.embedding_dim
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        tokens = 0
        for i, item in enumerate(inputs):
            text = item if isinstance(item, str) else json.dumps(item)
            tokens += _count_tokens(text) if isinstance(item, str) else len(item)
            vec = fake_embedding(text, int(dim))
            emb: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode() if as_base64 else vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body.get("model") or self.owner.model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _chat(self, body: dict) -> None:
        behaviour = self.owner._next_behaviour()
        stream = bool(body.get("stream"))
        messages = body.get("messages") or []
        model = body.get("model") or self.owner.model

        if isinstance(behaviour, RateLimited):
            ra = behaviour.retry_after
            self._send_error_json(
                429,
                "Rate limit reached",
                "requests",
                "rate_limit_exceeded",
                headers={"Retry-After": f"{ra:g}"},
            )
        elif isinstance(behaviour, QuotaExceeded):
            self._send_error_json(
                429,
                "You exceeded your current quota, please check your plan and billing details.",
                "insufficient_quota",
                "insufficient_quota",
            )
        elif isinstance(behaviour, ServerError):
            self._send_error_json(behaviour.status, behaviour.message, "server_error", None)
        elif isinstance(behaviour, Hang):
            self._hang_until_close()
        elif isinstance(behaviour, StallMidStream):
            if not stream:
                self._hang_until_close()
            self._stream(model, _split_pieces(behaviour.text), 0.0, stall_after=behaviour.after_chunks)
        elif isinstance(behaviour, Reply):
            try:
                if behaviour.responder is not None:
                    text = str(behaviour.responder(messages))
                else:
                    text = behaviour.text or ""
            except Exception as exc:  # surface responder bugs to the test
                self._send_error_json(500, f"responder raised {exc!r}", "server_error", None)
                return
            self._wait(behaviour.delay)
            if stream:
                include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
                usage = self._usage(messages, text) if include_usage else None
                self._stream(model, _split_pieces(text), behaviour.chunk_delay, usage=usage)
            else:
                self._send_json(
                    200,
                    {
                        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": model,
                        "system_fingerprint": None,
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text, "refusal": None},
                                "logprobs": None,
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": self._usage(messages, text),
                    },
                )
        else:  # pragma: no cover - programming error in a test
            self._send_error_json(500, f"Unknown behaviour {behaviour!r}", "server_error", None)

    @staticmethod
    def _usage(messages: list[dict], text: str) -> dict[str, int]:
        prompt = _count_tokens(_message_text(messages))
        completion = _count_tokens(text)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _stream(
        self,
        model: str,
        pieces: list[str],
        chunk_delay: float,
        *,
        usage: dict[str, int] | None = None,
        stall_after: int | None = None,
    ) -> None:
        cid = f"chatcmpl-{uuid.uuid4().hex[:24]}"
        created = int(time.time())

        def chunk(delta: dict, finish_reason: str | None = None) -> dict:
            c: dict[str, Any] = {
                "id": cid,
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "system_fingerprint": None,
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            }
            if usage is not None:
                c["usage"] = None
            return c

        self._start_sse()
        self._send_sse(chunk({"role": "assistant", "content": ""}))
        for i, piece in enumerate(pieces):
            if stall_after is not None and i >= stall_after:
                self._hang_until_close()
            self._wait(chunk_delay)
            self._send_sse(chunk({"content": piece}))
        if stall_after is not None:
            self._hang_until_close()
        self._wait(chunk_delay)
        self._send_sse(chunk({}, "stop"))
        if usage is not None:
            self._send_sse(
                {
                    "id": cid,
                    "object": "chat.completion.chunk",
                    "created": created,
                    "model": model,
                    "system_fingerprint": None,
                    "choices": [],
                    "usage": usage,
                }
            )
        self._send_sse("[DONE]")
        self._end_sse()


# --------------------------------------------------------------------------- #
# Public server
# --------------------------------------------------------------------------- #


class OpenAICompatServer:
    """An in-process, scripted OpenAI-compatible server on ``127.0.0.1`` (free port).

    The server starts serving (in a daemon thread) as soon as it is
    constructed; use it as a context manager or call :meth:`close`.

    Args:
        model: model name reported by ``GET /v1/models`` (and used in
            responses when a request names no model).
        embedding_dim: dimension of the fake embedding vectors (default 8).
        default: behaviour used when the queue is empty (default
            ``Reply("OK [1]")``); also settable later via ``server.default``.
    """

    def __init__(self, model: str = "test-model", embedding_dim: int = 8, default: Behaviour | None = None) -> None:
        self.model = model
        self.embedding_dim = embedding_dim
        self.default: Behaviour = default if default is not None else Reply("OK [1]")
        self._queue: deque[Behaviour] = deque()
        self._requests: list[dict[str, Any]] = []
        self._cond = threading.Condition()
        self._closing = threading.Event()
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._conn_lock = threading.Lock()
        self._closed = False
        self._httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="openai-compat-server", daemon=True
        )
        self._thread.start()

    # -- addresses ------------------------------------------------------------ #

    @property
    def port(self) -> int:
        """The TCP port the server listens on."""
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1`` -- pass this as ``base_url`` to OpenAI clients."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting ------------------------------------------------------------ #

    def enqueue(self, *behaviours: Behaviour) -> None:
        """Queue behaviours; each chat-completion request pops the next one (FIFO)."""
        with self._cond:
            self._queue.extend(behaviours)

    def pending(self) -> int:
        """Number of queued behaviours not yet consumed."""
        with self._cond:
            return len(self._queue)

    def _next_behaviour(self) -> Behaviour:
        with self._cond:
            return self._queue.popleft() if self._queue else self.default

    # -- recording ------------------------------------------------------------ #

    def _record(self, path: str, body: Any, headers: Any) -> None:
        entry = {
            "path": path,
            "body": body,
            "headers": {k.lower(): v for k, v in headers.items()},
            "time": time.monotonic(),
        }
        with self._cond:
            self._requests.append(entry)
            self._cond.notify_all()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Snapshot of every request received so far, in arrival order.

        Each entry is ``{"path", "body" (parsed JSON or None), "headers"
        (dict with lower-cased names), "time" (time.monotonic() at arrival)}``.
        """
        with self._cond:
            return list(self._requests)

    def chat_requests(self) -> list[dict[str, Any]]:
        """Only the ``/v1/chat/completions`` requests from :attr:`requests`."""
        return [r for r in self.requests if r["path"] == "/v1/chat/completions"]

    def wait_for_requests(self, n: int, timeout: float = 5.0, path: str | None = None) -> bool:
        """Block until at least ``n`` requests (optionally only those to ``path``) were received.

        Returns True on success, False on timeout or when the server closes.
        """

        def count() -> int:
            return sum(1 for r in self._requests if path is None or r["path"] == path)

        deadline = time.monotonic() + timeout
        with self._cond:
            while count() < n:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._closing.is_set():
                    return False
                self._cond.wait(min(remaining, 0.05))
            return True

    # -- lifecycle ------------------------------------------------------------ #

    def _track_connection(self, conn: socket.socket, *, add: bool) -> None:
        with self._conn_lock:
            if add:
                self._connections[conn] = threading.current_thread()
            else:
                self._connections.pop(conn, None)

    def open_connections(self) -> int:
        """Number of client connections whose handler thread is still running.

        After :meth:`close` this is 0 unless a handler failed to wake up.
        """
        with self._conn_lock:
            return len(self._connections)

    def close(self) -> None:
        """Stop serving; wakes hanging/stalled handlers and drops open connections. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._conn_lock:
            conns = list(self._connections.items())
        for conn, _ in conns:
            try:  # wakes handlers blocked reading an idle keep-alive connection
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=1)
        deadline = time.monotonic() + 1.0
        for _, thread in conns:
            if thread is not threading.current_thread():
                thread.join(timeout=max(0.0, deadline - time.monotonic()))

    def __enter__(self) -> OpenAICompatServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<OpenAICompatServer {self.base_url} queued={self.pending()}>"
