"""Grounded answers from any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp …).

The pieces, in the order :func:`llm_answer` uses them:

* :func:`make_chat_model` — a LangChain ``ChatOpenAI`` built from the settings (base URL, key or
  ``"not-needed"``, model, temperature, timeout). Its own retries are off: :func:`generate` retries.
* :func:`build_messages` — the system + user prompt with the retrieved chunks packed, in rank order,
  into the context budget ``llm_context_tokens - llm_answer_tokens - prompt``; the last source that does
  not fit whole is truncated. Tokens are counted with tiktoken's ``o200k_base`` (or ``cl100k_base``)
  when its BPE file is already cached on disk, else estimated conservatively (:func:`estimate_tokens`).
* :func:`generate` — one model call, streamed to ``on_token`` when given, guarded by a per-chunk
  deadline (``llm_timeout``), retried on 429 (honouring ``Retry-After``), 5xx and connection errors,
  failing fast on ``insufficient_quota``, auth and request errors; every failure becomes a
  :class:`~papernotes.retrieval.errors.ModelUnavailableError` with a one-line reason.
* :func:`validate_citations` — markers ``[n]`` must name a source that was in the prompt; others are
  removed and counted; the kept sources are renumbered in order of first use.

:func:`condense_question` rewrites a follow-up into a standalone question (one model call).
"""

from __future__ import annotations

import email.utils
import logging
import math
import queue
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from papernotes.retrieval.answer import Answer, citation_for, retrieved_rows
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.prompts import (
    ANSWER_SYSTEM,
    ANSWER_USER,
    CONDENSE_SYSTEM,
    CONDENSE_USER,
    HISTORY_TURN,
    REFUSAL,
    SOURCE_TEMPLATE,
)
from papernotes.retrieval.search import Hit, SearchResult
from papernotes.retrieval.settings import Settings

log = logging.getLogger(__name__)

#: Tokens added per chat message by the chat format (role, separators), and for priming the reply.
#: Source: OpenAI cookbook "How to count tokens with tiktoken" (3 per message, 3 for the reply).
MESSAGE_OVERHEAD_TOKENS = 4
REPLY_PRIMING_TOKENS = 3
#: A truncated last source shorter than this is not worth sending.
MIN_SOURCE_TOKENS = 32
#: Allowance per source for the blank line joining it to the next and for counts not being additive.
_SEPARATOR_TOKENS = 2
#: Backoff for 5xx / connection errors: ``min(INITIAL * 2**attempt, MAX)`` seconds with up to 25 %
#: jitter — the openai client's own constants (openai/_constants.py: 0.5 s initial, 8 s max).
INITIAL_RETRY_DELAY = 0.5
MAX_RETRY_DELAY = 8.0
#: Longest ``Retry-After`` (seconds) waited for; a longer one fails at once, since a person is waiting
#: (the openai client itself waits up to 120 s: openai/_constants.py MAX_RETRY_AFTER_DELAY).
MAX_RETRY_AFTER = 30.0
#: Tokens for a condensed (standalone) question.
CONDENSE_MAX_TOKENS = 200
#: Earlier turns given to the condense prompt, and characters kept of each earlier answer.
CONDENSE_TURNS = 4
CONDENSE_ANSWER_CHARS = 600


# --------------------------------------------------------------------------------------------------
# model
# --------------------------------------------------------------------------------------------------


def make_chat_model(settings: Settings, max_tokens: int | None = None) -> BaseChatModel:
    """A ``langchain_openai.ChatOpenAI`` for the configured OpenAI-compatible endpoint.

    ``max_tokens`` defaults to ``settings.llm_answer_tokens``. The client's own retries are disabled
    (``max_retries=0``) because :func:`generate` retries with its own policy (quota errors fail fast).
    Models are cached per configuration so HTTP connections are reused across questions.
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

    return ChatOpenAI(
        base_url=base_url,
        api_key=api_key,
        model=model,
        temperature=temperature,
        timeout=timeout,
        max_retries=0,
        max_tokens=max_tokens,
        use_responses_api=False,
    )


# --------------------------------------------------------------------------------------------------
# token counting and prompt packing
# --------------------------------------------------------------------------------------------------


def estimate_tokens(text: str) -> int:
    """A conservative token estimate without a tokenizer: one token per 3 ASCII characters (BPE
    tokenizers average about 4 on English) plus one per non-ASCII character (CJK, symbols)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars)


_tiktoken_lock = threading.Lock()


@lru_cache(maxsize=1)
def _offline_encoding():
    """tiktoken's o200k_base (else cl100k_base) if its BPE file is already in tiktoken's cache; None
    otherwise. Never downloads: the loader's network read is replaced by a failure while loading."""
    try:
        import tiktoken
        import tiktoken.load as tl
    except ImportError:
        return None
    with _tiktoken_lock:
        real = tl.read_file

        def offline(blobpath: str) -> bytes:
            if "://" in blobpath:
                raise OSError("offline")
            return real(blobpath)

        tl.read_file = offline
        try:
            for name in ("o200k_base", "cl100k_base"):
                try:
                    return tiktoken.get_encoding(name)
                except Exception:  # not cached (or a broken cache): try the next, then estimate
                    continue
            return None
        finally:
            tl.read_file = real


def count_tokens(text: str) -> int:
    """Tokens in ``text``: tiktoken's count when an encoding is available offline, else
    :func:`estimate_tokens`."""
    enc = _offline_encoding()
    if enc is None:
        return estimate_tokens(text)
    return len(enc.encode(text, disallowed_special=()))


def messages_tokens(messages: list[BaseMessage], count: Callable[[str], int] = count_tokens) -> int:
    """Prompt tokens of a chat request: each message's content plus the per-message overhead."""
    return sum(count(str(m.content)) + MESSAGE_OVERHEAD_TOKENS for m in messages) + REPLY_PRIMING_TOKENS


def prompt_budget(settings: Settings) -> int:
    """Tokens the prompt may use: ``llm_context_tokens - llm_answer_tokens``."""
    return settings.llm_context_tokens - settings.llm_answer_tokens


def source_block(n: int, h: Hit, text: str | None = None) -> str:
    """One numbered source for the prompt (:data:`~papernotes.retrieval.prompts.SOURCE_TEMPLATE`):
    ``[n] Page › Section (Venue)`` then the chunk text (``text`` overrides it, for truncation)."""
    title = " › ".join(x for x in (h.get("page_title"), h.get("section")) if x) or h.get("paper_title") or "Notes"
    venue = f" ({h.get('venue')})" if h.get("venue") else ""
    return SOURCE_TEMPLATE.format(n=n, title=title, venue=venue, text=(h.body if text is None else text).strip())


@dataclass
class Prompt:
    """A packed chat request: ``messages`` and the hits given as sources (``hits[i]`` is ``[i+1]``);
    ``truncated`` is True when the last source was cut to fit."""

    messages: list[BaseMessage]
    hits: list[Hit]
    truncated: bool = False


def _answer_messages(question: str, blocks: list[str]) -> list[BaseMessage]:
    return [
        SystemMessage(ANSWER_SYSTEM),
        HumanMessage(ANSWER_USER.format(sources="\n\n".join(blocks), question=question)),
    ]


def _truncate_to(n: int, h: Hit, tokens: int, count: Callable[[str], int]) -> str | None:
    """The longest word-boundary prefix of the hit's text whose block fits ``tokens``, or None."""
    body = h.body.strip()
    lo, hi = 0, len(body)
    while lo < hi:  # largest prefix length whose block fits
        mid = (lo + hi + 1) // 2
        if count(source_block(n, h, body[:mid] + " …")) <= tokens:
            lo = mid
        else:
            hi = mid - 1
    cut = body[:lo]
    if lo < len(body) and " " in cut:
        cut = cut.rsplit(None, 1)[0]
    if not cut.strip():
        return None
    return source_block(n, h, cut.rstrip() + " …")


def build_messages(
    question: str, hits: list[Hit], settings: Settings, count: Callable[[str], int] = count_tokens
) -> Prompt:
    """Pack ``hits`` (in rank order) as numbered sources into the answer prompt.

    The whole request (:func:`messages_tokens`) stays within :func:`prompt_budget` tokens: sources are
    added while they fit, the first one that does not is truncated (when at least
    :data:`MIN_SOURCE_TOKENS` remain) and the rest are left out.

    Raises
    ------
    ModelUnavailableError
        if not even a truncated first source fits (question too long for ``llm_context_tokens``).
    """
    budget = prompt_budget(settings)
    free = budget - messages_tokens(_answer_messages(question, []), count)
    blocks: list[str] = []
    used: list[Hit] = []
    truncated = False
    for h in hits:
        n = len(blocks) + 1
        block = source_block(n, h)
        cost = count(block) + _SEPARATOR_TOKENS
        if cost <= free:
            blocks.append(block)
            used.append(h)
            free -= cost
            continue
        if free - _SEPARATOR_TOKENS >= MIN_SOURCE_TOKENS or not blocks:
            cut = _truncate_to(n, h, free - _SEPARATOR_TOKENS, count)
            if cut is not None:
                blocks.append(cut)
                used.append(h)
                truncated = True
        break
    # guard the estimate's rounding: shrink from the end until the request fits
    while blocks and messages_tokens(_answer_messages(question, blocks), count) > budget:
        h, n = used[-1], len(blocks)
        over = messages_tokens(_answer_messages(question, blocks), count) - budget
        cut = _truncate_to(n, h, count(blocks[-1]) - over - 1, count)
        truncated = True
        if cut is None:
            blocks.pop()
            used.pop()
        else:
            blocks[-1] = cut
    if not blocks:
        raise ModelUnavailableError(
            f"the question leaves no room for sources in the model's context "
            f"(PAPERNOTES_LLM_CONTEXT_TOKENS={settings.llm_context_tokens}, "
            f"PAPERNOTES_LLM_ANSWER_TOKENS={settings.llm_answer_tokens})"
        )
    return Prompt(_answer_messages(question, blocks), used, truncated)


# --------------------------------------------------------------------------------------------------
# citations
# --------------------------------------------------------------------------------------------------

#: A bracketed marker starting with a digit: ``[1]``, ``[1, 2]``, ``[2-3]``, ``[^1]``, ``[Source 1]``,
#: and malformed ones like ``[1a]``; not a Markdown link text (``[1](http…)``).
_MARKER_RE = re.compile(r"\[(?:\^|sources?\s*)?(\d[^\[\]\n]{0,20})\](?!\()", re.IGNORECASE)
_PART_RE = re.compile(r"^\s*(\d{1,4})(?:\s*[-–]\s*(\d{1,4}))?\s*$")
_GONE = "\x00"


def _marker_numbers(inner: str) -> list[int] | None:
    """Numbers in a marker's inside (``"1, 3"`` → [1, 3]; ``"2-4"`` → [2, 3, 4]); None if malformed."""
    nums: list[int] = []
    for part in re.split(r"[,;]", inner):
        m = _PART_RE.match(part)
        if not m:
            return None
        a = int(m[1])
        b = int(m[2]) if m[2] else a
        if b < a or b - a > 20:
            return None
        nums.extend(range(a, b + 1))
    return nums


def _remove_gone(text: str) -> str:
    """Delete removed-marker sentinels with the space before them when punctuation or a line end
    follows (``"fast [9]."`` → ``"fast."``); elsewhere leave one space."""

    def fix(m: re.Match[str]) -> str:
        after = text[m.end() : m.end() + 1]
        if not after or after in ".,;:!?)]}\n":
            return ""
        return " " if (m.group(1) or m.group(2)) else ""

    return re.sub(rf"([ \t]*){_GONE}(?:[ \t]*{_GONE})*([ \t]*)", fix, text)


def validate_citations(text: str, n_sources: int) -> tuple[str, list[int], int]:
    """Check the markers of a model reply against ``n_sources`` prompt sources.

    Returns ``(text, order, dropped)``: ``text`` with invalid markers removed and valid ones
    renumbered 1, 2, … in order of first use (``[3] … [1] … [3]`` → ``[1] … [2] … [1]``; ``[1, 2]`` →
    ``[1][2]``); ``order`` the original source numbers in that order (``order[i]`` is new ``[i+1]``);
    ``dropped`` the number of removed references — out of range (``[0]``, ``[4]`` of 3) or malformed
    (``[1a]``), one per bad number or malformed marker.
    """
    order: list[int] = []
    dropped = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal dropped
        nums = _marker_numbers(m.group(1))
        if nums is None:
            dropped += 1
            return _GONE
        kept: list[int] = []
        for x in nums:
            if 1 <= x <= n_sources:
                if x not in order:
                    order.append(x)
                new = order.index(x) + 1
                if new not in kept:
                    kept.append(new)
            else:
                dropped += 1
        return "".join(f"[{k}]" for k in kept) or _GONE

    out = _remove_gone(_MARKER_RE.sub(repl, text))
    out = re.sub(r"(\[\d+\])(?:\s*\1)+", r"\1", out)  # "[1] [1]" → "[1]"
    return out.strip(), order, dropped


def _normalize(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").lower()
    text = re.sub(r"[*_`\"“”>#]", "", text)
    text = text.replace("do not", "don't")
    return re.sub(r"\s+", " ", text).strip()


def is_refusal(text: str) -> bool:
    """True when a reply is (or starts with) the :data:`~papernotes.retrieval.prompts.REFUSAL` phrase (case,
    quotes, curly apostrophes, Markdown emphasis and "do not"/"don't" ignored)."""
    return _normalize(text).startswith(_normalize(REFUSAL).rstrip("."))


# --------------------------------------------------------------------------------------------------
# calling the model: deadlines, retries, one-line errors
# --------------------------------------------------------------------------------------------------


class _Stalled(Exception):
    """No data from the model within the deadline (raised by :func:`_guarded`)."""

    def __init__(self, seconds: float, midstream: bool):
        super().__init__(seconds)
        self.seconds = seconds
        self.midstream = midstream


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


def _guarded(produce: Callable[[], Iterator[str]], timeout: float) -> Iterator[str]:
    """Run ``produce()`` in a daemon thread and yield its pieces, raising :class:`_Stalled` when no
    piece (or the end) arrives within ``timeout`` seconds of the previous one. A stalled producer is
    abandoned; the HTTP client's own timeout ends its thread later."""
    q: queue.Queue[tuple[str, Any]] = queue.Queue()

    def work() -> None:
        try:
            for piece in produce():
                q.put(("piece", piece))
            q.put(("end", None))
        except BaseException as e:  # noqa: BLE001 - handed to the consumer thread
            q.put(("error", e))

    threading.Thread(target=work, name="papernotes-llm", daemon=True).start()
    got_any = False
    while True:
        try:
            kind, value = q.get(timeout=timeout)
        except queue.Empty:
            raise _Stalled(timeout, got_any) from None
        if kind == "end":
            return
        if kind == "error":
            raise value
        got_any = True
        yield value


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
        err = body.get("error") if isinstance(body.get("error"), dict) else body
        bits += [err.get("code"), err.get("type")]
    return " ".join(str(b) for b in bits if b)


def retry_after(e: BaseException) -> float | None:
    """Seconds from the error response's ``retry-after-ms`` / ``Retry-After`` header (number or HTTP
    date), or None when absent or unparseable."""
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


def classify_error(e: BaseException, settings: Settings, midstream: bool = False) -> tuple[str, float | None]:
    """``(one-line reason, seconds to wait before retrying or None for no retry)`` for a model error;
    a wait of ``-1`` means "after the usual backoff". ``midstream``: streamed text was already received.

    Works on LangChain's provider-neutral errors (``langchain_core.exceptions.Model*Error``) and the
    openai client's, which langchain-openai's errors subclass.
    """
    import openai
    from langchain_core import exceptions as lc

    status = _status(e)
    if isinstance(e, (_Stalled, openai.APITimeoutError, lc.ModelTimeoutError)):
        if midstream or getattr(e, "midstream", False):
            return f"the model's answer stream stalled (no data for {settings.llm_timeout:g} s)", None
        return f"the model did not respond within {settings.llm_timeout:g} s", None
    if isinstance(e, (openai.RateLimitError, lc.ModelRateLimitError)) or status == 429:
        if "insufficient_quota" in _error_code(e):
            return "the API key has no quota left (insufficient_quota)", None
        wait = retry_after(e)
        if wait is not None and wait > MAX_RETRY_AFTER:
            return f"the endpoint is rate limiting requests (HTTP 429; retry after {wait:g} s)", None
        return "the endpoint is rate limiting requests (HTTP 429)", wait if wait is not None else -1.0
    if isinstance(
        e,
        (
            openai.AuthenticationError,
            lc.ModelAuthenticationError,
            openai.PermissionDeniedError,
            lc.ModelPermissionDeniedError,
        ),
    ):
        return f"the endpoint rejected the API key (HTTP {status or 401}); check OPENAI_API_KEY", None
    if isinstance(e, (openai.NotFoundError, lc.ModelNotFoundError)):
        return (
            f"model {settings.llm_model!r} was not found at the endpoint (HTTP 404); "
            f"check PAPERNOTES_LLM_MODEL and OPENAI_BASE_URL"
        ), None
    if isinstance(e, lc.ContextOverflowError):
        return ("the prompt is longer than the model's context; lower PAPERNOTES_LLM_CONTEXT_TOKENS or --k"), None
    if isinstance(e, (openai.InternalServerError, lc.ModelAPIError)) or (status is not None and status >= 500):
        return f"the model endpoint failed (HTTP {status or 500})", -1.0
    if isinstance(e, (openai.APIConnectionError, lc.ModelConnectionError)):
        where = settings.openai_base_url or "api.openai.com"
        return f"cannot connect to the model endpoint {where}", -1.0
    if isinstance(e, openai.APIStatusError) or status is not None:
        msg = getattr(e, "message", None) or str(e)
        return f"the model endpoint returned HTTP {status}: {_one_line(msg)}", None
    return f"the model call failed ({type(e).__name__}: {_one_line(str(e))})", None


def _one_line(s: str, limit: int = 200) -> str:
    s = re.sub(r"\s+", " ", s).strip()
    return s if len(s) <= limit else s[: limit - 1] + "…"


def _backoff(attempt: int) -> float:
    """The openai client's backoff: 0.5 s doubling to 8 s, minus up to 25 % jitter."""
    return min(INITIAL_RETRY_DELAY * 2.0**attempt, MAX_RETRY_DELAY) * (1 - 0.25 * random.random())


def generate(
    model: BaseChatModel, messages: list[BaseMessage], settings: Settings, on_token: Callable[[str], None] | None = None
) -> str:
    """Call the model once (plus retries) and return its reply text.

    With ``on_token`` the reply is streamed (``model.stream``) and each text piece is passed to
    ``on_token`` as it arrives. Every wait — for the reply, the first streamed piece, or the next one —
    is limited to ``settings.llm_timeout`` seconds. Retried up to ``settings.llm_max_retries`` times:
    HTTP 429 after its ``Retry-After`` (else backoff), 5xx and connection errors after backoff; never
    after streamed text was shown, never on timeouts, quota (``insufficient_quota``), auth or request
    errors.

    Raises
    ------
    ModelUnavailableError
        with a one-line reason (see :func:`classify_error`) when the model cannot give a reply.
    """
    shown = False
    attempt = 0
    while True:
        try:
            if on_token is None:
                pieces = list(_guarded(lambda: iter([_text(model.invoke(messages))]), settings.llm_timeout))
                return "".join(pieces)
            parts: list[str] = []
            for piece in _guarded(lambda: (_text(c) for c in model.stream(messages)), settings.llm_timeout):
                if piece:
                    parts.append(piece)
                    shown = True
                    on_token(piece)
            return "".join(parts)
        except Exception as e:  # noqa: BLE001 - every failure becomes one line
            reason, wait = classify_error(e, settings, midstream=shown)
            if wait is None or shown or attempt >= settings.llm_max_retries:
                tries = f" after {attempt + 1} attempts" if attempt else ""
                log.debug("model call failed: %r", e)
                raise ModelUnavailableError(reason + tries) from None
            wait = wait if wait >= 0 else _backoff(attempt)
            log.info("%s; retrying in %.1f s", reason, wait)
            time.sleep(wait)
            attempt += 1


# --------------------------------------------------------------------------------------------------
# the two entry points used by retrieval.service
# --------------------------------------------------------------------------------------------------


def llm_answer(
    question: str,
    standalone: str,
    result: SearchResult,
    settings: Settings,
    on_token: Callable[[str], None] | None = None,
    model: BaseChatModel | None = None,
) -> Answer:
    """Answer ``standalone`` (the question made self-contained; ``question`` is what the user typed,
    kept in the Answer) from the retrieved chunks with the chat model.

    The reply's citation markers are validated (:func:`validate_citations`): ``Answer.citations``
    holds only the cited sources, renumbered in order of first use, and ``dropped_citations`` counts
    removed markers. A reply without any valid marker is ``grounded=False``; a reply that is (or
    starts with) the refusal phrase gives ``refused=True`` and no citations. ``model`` replaces the
    configured ``ChatOpenAI`` (tests pass LangChain fake chat models).

    Raises
    ------
    ModelUnavailableError
        when the model cannot be used (unreachable, timed out, quota, errors) or replies nothing.
    """
    prompt = build_messages(standalone, result.hits, settings)
    model = model or make_chat_model(settings)
    raw = generate(model, prompt.messages, settings, on_token)
    if not raw.strip():
        raise ModelUnavailableError("the model returned an empty reply")
    base = {
        "question": question,
        "mode": "llm",
        "retrieved": retrieved_rows(result.hits),
        "filters": result.filters.as_dict(),
        "model_text": raw,
    }
    if is_refusal(raw):
        return Answer(answer=REFUSAL, citations=[], refused=True, **base)
    text, order, dropped = validate_citations(raw, len(prompt.hits))
    citations = [citation_for(i + 1, prompt.hits[n - 1]) for i, n in enumerate(order)]
    return Answer(answer=text, citations=citations, grounded=bool(citations), dropped_citations=dropped, **base)


def _history_text(history: list[tuple[str, str]]) -> str:
    turns = []
    for q, a in history[-CONDENSE_TURNS:]:
        a = re.sub(r"\s+", " ", a or "").strip()
        if len(a) > CONDENSE_ANSWER_CHARS:
            a = a[: CONDENSE_ANSWER_CHARS - 1] + "…"
        turns.append(HISTORY_TURN.format(question=q.strip(), answer=a))
    return "\n".join(turns)


def condense_question(
    question: str, history: list[tuple[str, str]], settings: Settings, model: BaseChatModel | None = None
) -> str:
    """Rewrite a follow-up as a standalone question with one model call (prompts
    :data:`~papernotes.retrieval.prompts.CONDENSE_SYSTEM` / ``CONDENSE_USER``; the last
    :data:`CONDENSE_TURNS` (question, answer) turns of ``history``, answers cut to
    :data:`CONDENSE_ANSWER_CHARS` characters). Returns ``question`` unchanged when there is no history.

    Raises
    ------
    ModelUnavailableError
        when the model fails or its reply is not a usable question (empty or over 2,000 characters).
    """
    if not history:
        return question
    messages = [
        SystemMessage(CONDENSE_SYSTEM),
        HumanMessage(CONDENSE_USER.format(history=_history_text(history), question=question.strip())),
    ]
    model = model or make_chat_model(settings, max_tokens=CONDENSE_MAX_TOKENS)
    raw = generate(model, messages, settings)
    lines = [ln.strip() for ln in raw.strip().splitlines() if ln.strip()]
    out = lines[0] if lines else ""
    out = re.sub(r"^(?:standalone question|question)\s*:\s*", "", out, flags=re.IGNORECASE)
    out = out.strip().strip("\"'“”`").strip()
    if not re.search(r"\w", out) or len(out) > 2000:
        raise ModelUnavailableError("the model did not return a usable standalone question")
    return out
