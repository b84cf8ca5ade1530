"""The chat model: a LangChain ``ChatOpenAI`` for any OpenAI-compatible endpoint, called with a retry
policy (tenacity) and the HTTP client's timeouts, every failure turned into one line.

* :func:`make_chat_model` — ``ChatOpenAI`` with ``timeout=settings.llm_timeout`` (seconds, a number:
  the openai client builds the timeout of whichever HTTP library it runs on — httpx, or httpx2 since
  openai 3.x, whose 2.17 rejects an ``httpx.Timeout``): connect, write, pool and *read* are each
  limited to ``llm_timeout`` seconds. The read timeout is per socket
  read, so it ends a request that never answers and a stream that stalls between chunks alike (the
  openai client raises ``APITimeoutError`` inside the stream's iteration, which langchain-openai
  re-raises as ``OpenAITimeoutError``; older openai clients let ``httpx.ReadTimeout`` through as is).
  The client's own retries are off: it cannot fail fast on ``insufficient_quota`` nor skip timeouts.
* :func:`generate` — one call, streamed or not, retried by :mod:`tenacity` (see its docstring).
* :func:`classify_error` — the one-line reason for a failure and whether it is worth retrying.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import httpx
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential_jitter,
)
from tenacity.wait import wait_base

from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.tokens import one_line

log = logging.getLogger(__name__)

#: Backoff before retrying a 5xx, a connection error or a 429 without ``Retry-After``:
#: ``min(INITIAL * 2**(attempt-1), MAX)`` seconds plus up to ``JITTER`` seconds of random jitter.
#: The delays are the openai client's defaults (openai/_constants.py: 0.5 s initial, 8 s maximum);
#: the jitter is tenacity's additive kind instead of the client's "minus up to 25 %".
BACKOFF_INITIAL = 0.5
BACKOFF_MAX = 8.0
BACKOFF_JITTER = 0.25
#: Longest ``Retry-After`` (seconds) waited for; a longer one fails at once, since a person is waiting
#: (the openai client itself waits up to 120 s: openai/_constants.py MAX_RETRY_AFTER_DELAY).
MAX_RETRY_AFTER = 30.0


def make_chat_model(settings: Settings, max_tokens: int | None = None) -> BaseChatModel:
    """A ``langchain_openai.ChatOpenAI`` for the configured OpenAI-compatible endpoint.

    Base URL ``settings.openai_base_url``, key ``settings.openai_api_key`` (or ``"not-needed"`` for
    servers without keys), model, temperature; ``max_tokens`` (reply tokens) defaults to
    ``settings.llm_answer_tokens``; every HTTP timeout is ``settings.llm_timeout`` seconds. Models are
    cached per configuration so HTTP connections are reused across questions.
    """
    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else "not-needed"
    return _chat_model(
        settings.openai_base_url,
        key,
        settings.llm_model,
        settings.llm_temperature,
        settings.llm_timeout,
        max_tokens or settings.llm_answer_tokens,
    )


@lru_cache(maxsize=8)
def _chat_model(
    base_url: str | None, api_key: str, model: str, temperature: float, timeout: float, max_tokens: int
) -> BaseChatModel:
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    return ChatOpenAI(
        base_url=base_url,
        api_key=SecretStr(api_key),
        model=model,
        temperature=temperature,
        timeout=float(timeout),  # seconds for each of connect, read, write and pool
        max_retries=0,
        max_completion_tokens=max_tokens,
        use_responses_api=False,
    )


# --------------------------------------------------------------------------------------------------
# classifying failures
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelFailure:
    """Why a model call failed (``reason``, one line) and whether another attempt may succeed."""

    reason: str
    retryable: bool


def _status(e: BaseException) -> int | None:
    code = getattr(e, "status_code", None)
    if code is None:
        code = getattr(getattr(e, "response", None), "status_code", None)
    return code if isinstance(code, int) else None


def _error_code(e: BaseException) -> str:
    """The OpenAI-style error ``code``/``type`` of an API error (e.g. ``insufficient_quota``)."""
    bits = [getattr(e, "code", None), getattr(e, "type", None)]
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error")
        err = err if isinstance(err, dict) else body
        bits += [err.get("code"), err.get("type")]
    return " ".join(str(b) for b in bits if b)


def retry_after(e: BaseException) -> float | None:
    """Seconds from the error response's ``retry-after-ms`` / ``Retry-After`` header (a number, or an
    HTTP date), or None when absent or unparseable."""
    headers = getattr(getattr(e, "response", None), "headers", None)
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            date = email.utils.parsedate_tz(value)
            if date is not None:
                return max(0.0, email.utils.mktime_tz(date) - time.time())
    return None


def classify_error(e: BaseException, settings: Settings, midstream: bool = False) -> ModelFailure:
    """The :class:`ModelFailure` for an exception raised by a model call; ``midstream``: streamed
    chunks had already arrived.

    Retryable: HTTP 429 with a ``Retry-After`` of at most :data:`MAX_RETRY_AFTER` seconds (or none),
    5xx and connection errors. Not retryable: timeouts (a read timeout before the reply or between
    streamed chunks), ``insufficient_quota``, a longer ``Retry-After``, auth, not-found and other
    request errors. Works on LangChain's provider-neutral errors (``langchain_core.exceptions``), the
    openai client's (which langchain-openai's subclass) and httpx's.
    """
    import openai
    from langchain_core import exceptions as lc

    status = _status(e)
    if isinstance(e, (openai.APITimeoutError, lc.ModelTimeoutError, httpx.TimeoutException, TimeoutError)):
        if midstream:
            return ModelFailure(f"the model's answer stream stalled (no data for {settings.llm_timeout:g} s)", False)
        return ModelFailure(f"the model did not respond within {settings.llm_timeout:g} s", False)
    if isinstance(e, (openai.RateLimitError, lc.ModelRateLimitError)) or status == 429:
        if "insufficient_quota" in _error_code(e):
            return ModelFailure("the API key has no quota left (insufficient_quota)", False)
        wait = retry_after(e)
        if wait is not None and wait > MAX_RETRY_AFTER:
            return ModelFailure(f"the endpoint is rate limiting requests (HTTP 429; retry after {wait:g} s)", False)
        return ModelFailure("the endpoint is rate limiting requests (HTTP 429)", True)
    if isinstance(
        e,
        (
            openai.AuthenticationError,
            lc.ModelAuthenticationError,
            openai.PermissionDeniedError,
            lc.ModelPermissionDeniedError,
        ),
    ):
        return ModelFailure(f"the endpoint rejected the API key (HTTP {status or 401}); check OPENAI_API_KEY", False)
    if isinstance(e, (openai.NotFoundError, lc.ModelNotFoundError)):
        return ModelFailure(
            f"model {settings.llm_model!r} was not found at the endpoint (HTTP 404); "
            f"check PAPERNOTES_LLM_MODEL and OPENAI_BASE_URL",
            False,
        )
    if isinstance(e, lc.ContextOverflowError):
        return ModelFailure(
            "the prompt is longer than the model's context; lower PAPERNOTES_LLM_CONTEXT_TOKENS or --k", False
        )
    if isinstance(e, (openai.InternalServerError, lc.ModelAPIError)) or (status is not None and status >= 500):
        return ModelFailure(f"the model endpoint failed (HTTP {status or 500})", True)
    if isinstance(e, (openai.APIConnectionError, lc.ModelConnectionError, httpx.TransportError)):
        where = settings.openai_base_url or "api.openai.com"
        return ModelFailure(f"cannot connect to the model endpoint {where}", True)
    if isinstance(e, openai.APIStatusError) or status is not None:
        msg = getattr(e, "message", None) or str(e)
        return ModelFailure(f"the model endpoint returned HTTP {status}: {one_line(msg)}", False)
    return ModelFailure(f"the model call failed ({type(e).__name__}: {one_line(str(e))})", False)


# --------------------------------------------------------------------------------------------------
# calling the model
# --------------------------------------------------------------------------------------------------


class wait_retry_after(wait_base):  # noqa: N801 - named like tenacity's own wait strategies
    """Tenacity wait: the failed attempt's ``Retry-After`` (capped at :data:`MAX_RETRY_AFTER`
    seconds) when its error response has one, else ``fallback``'s wait."""

    def __init__(self, fallback: wait_base):
        self.fallback = fallback

    def __call__(self, retry_state: RetryCallState) -> float:
        exc = retry_state.outcome.exception() if retry_state.outcome else None
        seconds = retry_after(exc) if exc is not None else None
        return min(seconds, MAX_RETRY_AFTER) if seconds is not None else self.fallback(retry_state)


def _text(msg: Any) -> str:
    """Text of a message or chunk (string content or text content blocks)."""
    content = getattr(msg, "content", msg)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            b if isinstance(b, str) else str(b.get("text", ""))
            for b in content
            if isinstance(b, str) or (isinstance(b, dict) and b.get("type") in (None, "text"))
        )
    return str(content or "")


@dataclass
class _Progress:
    """What one :func:`generate` call has done so far, across attempts."""

    attempts: int = 0
    started: bool = False  # a streamed chunk arrived in the current attempt
    shown: bool = False  # streamed text was passed to on_token (then no attempt follows)


def generate(
    model: BaseChatModel, messages: list[BaseMessage], settings: Settings, on_token: Callable[[str], None] | None = None
) -> str:
    """Call the model and return its reply text.

    With ``on_token`` the reply is streamed (``model.stream``) and each text piece is passed to
    ``on_token`` as it arrives. Time limits are the HTTP client's (:func:`make_chat_model`): no reply,
    or no streamed chunk, within ``settings.llm_timeout`` seconds ends the call. Up to
    ``settings.llm_max_retries`` further attempts (tenacity): HTTP 429 after its ``Retry-After`` when
    it is at most :data:`MAX_RETRY_AFTER` seconds (else backoff), 5xx and connection errors after
    exponential backoff with jitter (:data:`BACKOFF_INITIAL` … :data:`BACKOFF_MAX` seconds); never
    after streamed text was shown, never on timeouts, quota (``insufficient_quota``), auth or request
    errors (:func:`classify_error`).

    Raises
    ------
    ModelUnavailableError
        with a one-line reason (plus "after N attempts" when retried) when the model gives no reply.
    """
    progress = _Progress()

    def attempt() -> str:
        progress.attempts += 1
        progress.started = False
        if on_token is None:
            return _text(model.invoke(messages))
        parts: list[str] = []
        for chunk in model.stream(messages):
            progress.started = True
            piece = _text(chunk)
            if piece:
                parts.append(piece)
                progress.shown = True
                on_token(piece)
        return "".join(parts)

    def log_retry(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        reason = classify_error(exc, settings).reason if exc else "the model call failed"
        log.info("%s; retrying in %.1f s", reason, wait)

    retrying = Retrying(
        retry=retry_if_exception(lambda e: not progress.shown and classify_error(e, settings).retryable),
        stop=stop_after_attempt(settings.llm_max_retries + 1),
        wait=wait_retry_after(wait_exponential_jitter(initial=BACKOFF_INITIAL, max=BACKOFF_MAX, jitter=BACKOFF_JITTER)),
        before_sleep=log_retry,
        reraise=True,
    )
    try:
        return retrying(attempt)
    except Exception as e:  # every failure becomes one line
        log.debug("model call failed: %r", e)
        reason = classify_error(e, settings, midstream=progress.started).reason
        tries = f" after {progress.attempts} attempts" if progress.attempts > 1 else ""
        raise ModelUnavailableError(reason + tries) from None
