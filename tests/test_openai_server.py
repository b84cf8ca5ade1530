"""Tests for tests/openai_server.py, driven through the real openai and langchain_openai clients."""

from __future__ import annotations

import itertools
import sys
import threading
import time
from pathlib import Path

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

sys.path.insert(0, str(Path(__file__).parent))

from openai_server import (  # noqa: E402
    Hang,
    OpenAICompatServer,
    QuotaExceeded,
    RateLimited,
    Reply,
    ServerError,
    StallMidStream,
)

MESSAGES: list[ChatCompletionMessageParam] = [
    {"role": "system", "content": "You answer from notes."},
    {"role": "user", "content": "What is attention?"},
]


@pytest.fixture
def server():
    with OpenAICompatServer(model="test-model") as srv:
        yield srv


def client(srv: OpenAICompatServer, **kw) -> openai.OpenAI:
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout", 10)
    return openai.OpenAI(base_url=srv.base_url, api_key="test", **kw)


def chat(c: openai.OpenAI, **kw):
    return c.chat.completions.create(model="m", messages=MESSAGES, **kw)


# --------------------------------------------------------------------------- #
# Basics
# --------------------------------------------------------------------------- #


def test_base_url_and_models(server):
    assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
    models = client(server).models.list()
    assert [m.id for m in models.data] == ["test-model"]


def test_default_reply_and_fifo_queue(server):
    c = client(server)
    server.enqueue(Reply("first"), Reply("second"))
    assert server.pending() == 2
    assert chat(c).choices[0].message.content == "first"
    assert chat(c).choices[0].message.content == "second"
    assert chat(c).choices[0].message.content == "OK [1]"  # built-in default
    server.default = Reply("new default")
    assert chat(c).choices[0].message.content == "new default"
    assert server.pending() == 0


def test_non_streaming_reply_shape(server):
    server.enqueue(Reply("Attention weighs tokens [1]."))
    resp = chat(client(server))
    assert resp.object == "chat.completion"
    assert resp.id.startswith("chatcmpl-")
    assert resp.model == "m"
    assert resp.choices[0].message.role == "assistant"
    assert resp.choices[0].message.content == "Attention weighs tokens [1]."
    assert resp.choices[0].finish_reason == "stop"
    assert resp.usage.completion_tokens == 4
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens


def test_responder_sees_messages(server):
    seen: list[list[dict]] = []

    def responder(messages):
        seen.append(messages)
        return "echo: " + messages[-1]["content"]

    server.enqueue(Reply(responder=responder))
    resp = chat(client(server))
    assert resp.choices[0].message.content == "echo: What is attention?"
    assert seen == [MESSAGES]


def test_requests_are_recorded(server):
    c = client(server)
    chat(c)
    c.embeddings.create(model="e", input="x")
    c.models.list()
    reqs = server.requests
    assert [r["path"] for r in reqs] == ["/v1/chat/completions", "/v1/embeddings", "/v1/models"]
    assert reqs[0]["body"]["messages"] == MESSAGES
    assert reqs[0]["headers"]["authorization"] == "Bearer test"
    assert reqs[2]["body"] is None
    assert reqs[0]["time"] <= reqs[1]["time"] <= reqs[2]["time"] <= time.monotonic()
    chats = server.chat_requests()
    assert len(chats) == 1 and chats[0] is not reqs[1]
    assert chats[0]["body"]["model"] == "m"


# --------------------------------------------------------------------------- #
# Streaming
# --------------------------------------------------------------------------- #


def test_streaming_in_several_chunks(server):
    text = "Self attention relates every token to every other token [1]."
    server.enqueue(Reply(text))
    pieces = []
    finish = []
    for chunk in chat(client(server), stream=True):
        assert chunk.object == "chat.completion.chunk"
        for ch in chunk.choices:
            if ch.delta.content:
                pieces.append(ch.delta.content)
            if ch.finish_reason:
                finish.append(ch.finish_reason)
    assert len(pieces) >= 5
    assert "".join(pieces) == text
    assert finish == ["stop"]
    assert server.chat_requests()[0]["body"]["stream"] is True


def test_streaming_include_usage(server):
    server.enqueue(Reply("one two three"))
    chunks = list(chat(client(server), stream=True, stream_options={"include_usage": True}))
    usage_chunks = [c for c in chunks if c.usage is not None]
    assert len(usage_chunks) == 1
    assert chunks[-1] is usage_chunks[0] and chunks[-1].choices == []
    assert usage_chunks[0].usage.completion_tokens == 3
    # Without include_usage no usage chunk is sent.
    server.enqueue(Reply("one two three"))
    assert all(c.usage is None for c in chat(client(server), stream=True))


def test_slow_stream_spreads_chunks_over_time(server):
    server.enqueue(Reply("a b c d", chunk_delay=0.2))
    start = time.monotonic()
    arrivals = []
    pieces = []
    for chunk in chat(client(server), stream=True):
        if chunk.choices and chunk.choices[0].delta.content:
            arrivals.append(time.monotonic())
            pieces.append(chunk.choices[0].delta.content)
    assert "".join(pieces) == "a b c d"
    assert len(arrivals) == 4
    gaps = [b - a for a, b in itertools.pairwise(arrivals)]
    assert all(g >= 0.15 for g in gaps), gaps
    assert arrivals[-1] - arrivals[0] >= 0.5
    assert time.monotonic() - start >= 0.9  # 5 waits of 0.2 s (4 pieces + final chunk)


def test_reply_delay_before_headers(server):
    server.enqueue(Reply("late", delay=0.5))
    start = time.monotonic()
    assert chat(client(server)).choices[0].message.content == "late"
    assert time.monotonic() - start >= 0.45


# --------------------------------------------------------------------------- #
# langchain_openai
# --------------------------------------------------------------------------- #


def test_langchain_invoke_and_stream(server):
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    llm = ChatOpenAI(base_url=server.base_url, api_key=SecretStr("test"), model="m", max_retries=0, timeout=10)
    server.enqueue(Reply(responder=lambda msgs: f"you said {msgs[-1]['content']!r}"))
    msg = llm.invoke("hello notes")
    assert msg.content == "you said 'hello notes'"

    server.enqueue(Reply("streamed through langchain [2]"))
    chunks = [c.text for c in llm.stream("hi")]
    assert len([c for c in chunks if c]) >= 3
    assert "".join(chunks) == "streamed through langchain [2]"

    bodies = [r["body"] for r in server.chat_requests()]
    assert len(bodies) == 2
    assert not bodies[0].get("stream")
    assert bodies[1]["stream"] is True
    assert bodies[0]["messages"][-1]["content"] == "hello notes"


# --------------------------------------------------------------------------- #
# Errors and retries
# --------------------------------------------------------------------------- #


def test_rate_limited_error_shape(server):
    server.enqueue(RateLimited(retry_after=1))
    with pytest.raises(openai.RateLimitError) as ei:
        chat(client(server, max_retries=0))
    err = ei.value
    assert err.status_code == 429
    assert err.response.headers["retry-after"] == "1"
    assert err.code == "rate_limit_exceeded"
    assert isinstance(err.body, dict)
    assert err.body["type"] == "requests"
    assert err.body["message"] == "Rate limit reached"


def test_rate_limited_then_reply_retries_after_retry_after(server):
    server.enqueue(RateLimited(retry_after=1), Reply("after the wait"))
    resp = chat(client(server, max_retries=2))
    assert resp.choices[0].message.content == "after the wait"
    reqs = server.chat_requests()
    assert len(reqs) == 2
    elapsed = reqs[1]["time"] - reqs[0]["time"]
    assert elapsed >= 0.9, elapsed


def test_quota_exceeded(server):
    server.enqueue(QuotaExceeded())
    with pytest.raises(openai.RateLimitError) as ei:
        chat(client(server, max_retries=0))
    err = ei.value
    assert err.status_code == 429
    assert err.code == "insufficient_quota"
    assert isinstance(err.body, dict)
    assert err.body["type"] == "insufficient_quota"
    assert "quota" in err.body["message"]
    assert "retry-after" not in err.response.headers
    assert len(server.chat_requests()) == 1


def test_server_error_no_retry(server):
    server.enqueue(ServerError(500))
    with pytest.raises(openai.InternalServerError) as ei:
        chat(client(server, max_retries=0))
    assert ei.value.status_code == 500
    assert len(server.chat_requests()) == 1

    server.enqueue(ServerError(503))
    with pytest.raises(openai.InternalServerError) as ei:
        chat(client(server, max_retries=0))
    assert ei.value.status_code == 503


def test_server_error_then_reply_with_one_retry(server):
    server.enqueue(ServerError(500), Reply("recovered"))
    resp = chat(client(server, max_retries=1))
    assert resp.choices[0].message.content == "recovered"
    assert len(server.chat_requests()) == 2


# --------------------------------------------------------------------------- #
# Hangs and stalls
# --------------------------------------------------------------------------- #


def test_hang_times_out_and_close_is_fast():
    srv = OpenAICompatServer()
    try:
        srv.enqueue(Hang())
        start = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            chat(client(srv, timeout=1, max_retries=0))
        assert time.monotonic() - start < 3
        assert len(srv.chat_requests()) == 1
    finally:
        start = time.monotonic()
        srv.close()
        assert time.monotonic() - start < 2
        assert srv.open_connections() == 0  # the hanging handler itself woke up and finished


def test_close_wakes_hanging_handler_with_client_still_waiting():
    srv = OpenAICompatServer()
    srv.enqueue(Hang())
    outcome: list[BaseException | object] = []

    def call():
        try:
            outcome.append(chat(client(srv, timeout=30, max_retries=0)))
        except BaseException as exc:  # noqa: BLE001
            outcome.append(exc)

    t = threading.Thread(target=call, daemon=True)
    t.start()
    assert srv.wait_for_requests(1, timeout=5, path="/v1/chat/completions")
    start = time.monotonic()
    srv.close()
    assert time.monotonic() - start < 2
    assert srv.open_connections() == 0
    t.join(timeout=5)
    assert not t.is_alive()  # the client was released by close(), not by its 30 s timeout
    assert isinstance(outcome[0], openai.APIError)


@pytest.mark.parametrize(
    "behaviour, stream",
    [(Reply("slow", delay=30), False), (Reply("very slow stream", chunk_delay=30), True)],
    ids=["delay", "chunk_delay"],
)
def test_close_interrupts_delays(behaviour, stream):
    srv = OpenAICompatServer()
    srv.enqueue(behaviour)
    done = threading.Event()

    def call():
        try:
            for _ in chat(client(srv, timeout=60, max_retries=0), stream=True) if stream else [chat(client(srv))]:
                pass
        except Exception:  # noqa: BLE001 - the connection is dropped on close
            pass
        done.set()

    threading.Thread(target=call, daemon=True).start()
    assert srv.wait_for_requests(1, timeout=5, path="/v1/chat/completions")
    time.sleep(0.2)  # let the handler enter its wait
    start = time.monotonic()
    srv.close()
    assert time.monotonic() - start < 2
    assert srv.open_connections() == 0  # the delayed handler woke up instead of sleeping 30 s
    assert done.wait(5)


def test_stall_mid_stream():
    srv = OpenAICompatServer()
    srv.enqueue(StallMidStream(after_chunks=2, text="alpha beta gamma delta"))
    pieces: list[str] = []
    errors: list[BaseException] = []
    got_two = threading.Event()

    def consume():
        try:
            for chunk in chat(client(srv, timeout=30, max_retries=0), stream=True):
                if chunk.choices and chunk.choices[0].delta.content:
                    pieces.append(chunk.choices[0].delta.content)
                    if len(pieces) == 2:
                        got_two.set()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    t = threading.Thread(target=consume, daemon=True)
    t.start()
    try:
        assert got_two.wait(5)
        time.sleep(0.5)  # stalled: nothing more arrives
        assert pieces == ["alpha", " beta"]
        assert t.is_alive()
    finally:
        start = time.monotonic()
        srv.close()
        assert time.monotonic() - start < 2
        assert srv.open_connections() == 0
    t.join(timeout=5)
    assert not t.is_alive()
    assert pieces == ["alpha", " beta"]  # never finished the text
    assert errors, "an unfinished stream must end in an error, not a clean finish"


def test_stall_mid_stream_read_timeout(server):
    server.enqueue(StallMidStream(after_chunks=1))
    pieces = []
    start = time.monotonic()
    with pytest.raises(Exception) as ei:  # noqa: PT011 - httpx read timeout surfaces during iteration
        for chunk in chat(client(server, timeout=1, max_retries=0), stream=True):
            if chunk.choices and chunk.choices[0].delta.content:
                pieces.append(chunk.choices[0].delta.content)
    assert "timeout" in type(ei.value).__name__.lower() or "timed out" in str(ei.value).lower()
    assert len(pieces) == 1
    assert time.monotonic() - start < 3


# --------------------------------------------------------------------------- #
# Embeddings
# --------------------------------------------------------------------------- #


def test_embeddings_default_dimension_and_determinism(server):
    c = client(server)
    one = c.embeddings.create(model="e", input="attention is all you need")
    assert len(one.data) == 1
    assert len(one.data[0].embedding) == 8
    many = c.embeddings.create(model="e", input=["attention is all you need", "something else"])
    assert [d.index for d in many.data] == [0, 1]
    assert many.data[0].embedding == one.data[0].embedding
    assert many.data[1].embedding != many.data[0].embedding
    # Explicit float encoding gives the same numbers as the (default) base64 one.
    floats = c.embeddings.create(model="e", input="attention is all you need", encoding_format="float")
    assert floats.data[0].embedding == one.data[0].embedding
    assert server.requests[0]["body"]["encoding_format"] == "base64"


def test_embeddings_configured_dimension():
    with OpenAICompatServer(embedding_dim=16) as srv:
        c = client(srv)
        a = c.embeddings.create(model="e", input=["x", "y"]).data
        assert [len(d.embedding) for d in a] == [16, 16]
        b = c.embeddings.create(model="e", input="x").data[0]
        assert b.embedding == a[0].embedding
        assert abs(sum(v * v for v in b.embedding) - 1.0) < 1e-5
        # The request's `dimensions` overrides the configured size.
        assert len(c.embeddings.create(model="e", input="x", dimensions=40).data[0].embedding) == 40
