"""Calling the chat model (retrieval/chat_model.py): the retry policy (tenacity), the HTTP client's
timeouts (a request that never answers, a stream that stalls) and one-line errors, through the real
openai client in ChatOpenAI against the loopback ``OpenAICompatServer``, in process.
"""

from __future__ import annotations

import email.utils
import socket
import threading
import time

import httpx
import pytest
from conftest import make_settings
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from openai_server import Hang, OpenAICompatServer, QuotaExceeded, RateLimited, Reply, ServerError, StallMidStream

from papernotes.retrieval.chat_model import (
    MAX_RETRY_AFTER,
    ModelFailure,
    classify_error,
    generate,
    make_chat_model,
    retry_after,
)
from papernotes.retrieval.errors import ModelUnavailableError

TIMEOUT = 1.0  # PAPERNOTES_LLM_TIMEOUT in these tests, seconds
MESSAGES: list[BaseMessage] = [SystemMessage("Answer from the sources."), HumanMessage("What does Quokka do?")]


@pytest.fixture
def settings(tmp_path):
    return make_settings(tmp_path / "data", openai_base_url="http://127.0.0.1:9/v1", llm_timeout=TIMEOUT)


class HTTPError(Exception):
    """An error carrying its HTTP ``response``, as the openai client's status errors do."""

    def __init__(self, response: httpx.Response):
        super().__init__(response.status_code)
        self.response = response


def ask(settings, on_token=None) -> str:
    """One model call through the configured ChatOpenAI, streamed when ``on_token`` is given."""
    return generate(make_chat_model(settings), MESSAGES, settings, on_token)


def test_unexpected_model_exceptions_become_one_line(settings):
    broken = FakeListChatModel(responses=["abc"], error_on_chunk_number=0)
    with pytest.raises(ModelUnavailableError) as ei:
        generate(broken, [], settings, on_token=lambda _: None)
    assert "FakeListChatModelError" in str(ei.value) and "\n" not in str(ei.value)


@pytest.fixture
def server():
    with OpenAICompatServer() as srv:
        yield srv


def served(server, tmp_path, **kw):
    kw.setdefault("llm_timeout", TIMEOUT)
    return make_settings(tmp_path / "d", openai_base_url=server.base_url, **kw)


def test_base_url_alone_sends_a_placeholder_key(server, tmp_path):
    ask(served(server, tmp_path))
    assert server.chat_requests()[0]["headers"]["authorization"] == "Bearer not-needed"


def test_429_retry_after_is_honoured(server, tmp_path):
    server.enqueue(RateLimited(retry_after=1), Reply("S1 [1]."))
    reply = ask(served(server, tmp_path))
    r = server.chat_requests()
    assert reply == "S1 [1]." and len(r) == 2
    assert r[1]["time"] - r[0]["time"] >= 0.95


def test_retry_after_longer_than_the_maximum_fails_at_once(server, tmp_path):
    server.enqueue(RateLimited(retry_after=MAX_RETRY_AFTER + 30))
    t = time.monotonic()
    with pytest.raises(ModelUnavailableError, match=rf"retry after {MAX_RETRY_AFTER + 30:g} s"):
        ask(served(server, tmp_path))
    assert time.monotonic() - t < 1.0 and len(server.chat_requests()) == 1


@pytest.mark.parametrize(
    "headers, seconds",
    [({"retry-after-ms": "1500"}, 1.5), ({"retry-after": "2"}, 2.0), ({"retry-after": "soon"}, None), ({}, None)],
)
def test_retry_after_headers_are_read(headers, seconds):
    assert retry_after(HTTPError(httpx.Response(429, headers=headers))) == seconds


def test_retry_after_as_an_http_date():
    when = email.utils.formatdate(time.time() + 60, usegmt=True)
    seconds = retry_after(HTTPError(httpx.Response(429, headers={"retry-after": when})))
    assert seconds is not None and 55 <= seconds <= 60


def test_insufficient_quota_fails_fast_without_retrying(server, tmp_path):
    server.enqueue(QuotaExceeded())
    t = time.monotonic()
    with pytest.raises(ModelUnavailableError, match=r"no quota left \(insufficient_quota\)"):
        ask(served(server, tmp_path, llm_max_retries=5))
    assert time.monotonic() - t < 2.0
    assert len(server.chat_requests()) == 1


def test_server_errors_are_retried_with_backoff(server, tmp_path):
    server.enqueue(ServerError(), ServerError(), ServerError(503))
    with pytest.raises(ModelUnavailableError, match=r"HTTP 503\) after 3 attempts"):
        ask(served(server, tmp_path, llm_max_retries=2))
    times = [r["time"] for r in server.chat_requests()]
    assert len(times) == 3
    assert times[1] - times[0] >= 0.5 * 0.75 and times[2] - times[1] >= 1.0 * 0.75  # openai-style backoff


def test_server_error_then_success(server, tmp_path):
    server.enqueue(ServerError(502), Reply("S2 [2]."))
    assert ask(served(server, tmp_path)) == "S2 [2]." and len(server.chat_requests()) == 2


def test_a_silent_stream_hits_the_read_timeout(server, tmp_path):
    server.enqueue(Hang())
    t = time.monotonic()
    with pytest.raises(ModelUnavailableError, match=r"did not respond within 0\.3 s"):
        ask(served(server, tmp_path, llm_timeout=0.3), on_token=lambda _: None)
    assert time.monotonic() - t < 1.5
    assert len(server.chat_requests()) == 1


def test_hang_times_out_after_the_timeout(server, tmp_path):
    server.enqueue(Hang())
    t = time.monotonic()
    with pytest.raises(ModelUnavailableError, match=r"did not respond within 1 s"):
        ask(served(server, tmp_path))
    assert TIMEOUT * 0.9 <= time.monotonic() - t < TIMEOUT + 1.0
    assert len(server.chat_requests()) == 1  # a timeout is not retried


def test_stream_stalling_mid_answer_times_out(server, tmp_path):
    """The HTTP client's read timeout ends the stalled stream inside its iteration: no thread is left
    behind waiting on the socket (the server's own handler thread, still stalled, is not ours)."""
    s = served(server, tmp_path)
    ask(s, on_token=lambda _: None)  # warm up client and pool
    threads = threading.active_count() - server.open_connections()
    server.enqueue(StallMidStream(after_chunks=3, text="Quokka pages the KV cache into blocks."))
    got: list[str] = []
    t = time.monotonic()
    with pytest.raises(ModelUnavailableError, match=r"^the model's answer stream stalled \(no data for 1 s\)$"):
        ask(s, on_token=got.append)
    assert TIMEOUT * 0.9 <= time.monotonic() - t < TIMEOUT + 1.0
    assert "".join(got) == "Quokka pages the"
    assert len(server.chat_requests()) == 2  # text was shown: never retried
    assert server.open_connections() >= 1  # the stalled handler is still waiting…
    assert threading.active_count() - server.open_connections() <= threads  # …but nothing of ours is


def test_a_raw_httpx_read_timeout_mid_stream_is_a_stall(settings):
    """Older openai clients let httpx's ReadTimeout out of the stream's iteration unwrapped."""
    failure = classify_error(httpx.ReadTimeout("timed out"), settings, midstream=True)
    assert failure == ModelFailure("the model's answer stream stalled (no data for 1 s)", False)
    before = classify_error(httpx.ConnectTimeout("timed out"), settings)
    assert before == ModelFailure("the model did not respond within 1 s", False)


def test_unreachable_endpoint_is_one_line(tmp_path):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    s = make_settings(
        tmp_path / "d", openai_base_url=f"http://127.0.0.1:{port}/v1", llm_timeout=TIMEOUT, llm_max_retries=1
    )
    with pytest.raises(ModelUnavailableError, match=rf"cannot connect to the model endpoint {s.openai_base_url}"):
        ask(s)


def test_unknown_model_fails_without_retry(server, tmp_path):
    server.enqueue(ServerError(404, "The model `nope` does not exist"))
    with pytest.raises(ModelUnavailableError, match="was not found"):
        ask(served(server, tmp_path))
    assert len(server.chat_requests()) == 1
