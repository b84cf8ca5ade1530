"""Grounded answers from any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp …): the
two entry points :mod:`papernotes.retrieval.service` uses.

* :func:`llm_answer` — pack the retrieved chunks into the answer prompt
  (:func:`~papernotes.retrieval.prompt_builder.build_messages`), call the model
  (:func:`~papernotes.retrieval.chat_model.generate`: timeouts, retries, one-line errors), then check
  the reply's citation markers (:func:`~papernotes.retrieval.citations.validate_citations`).
* :func:`condense_question` — rewrite a follow-up into a standalone question (one model call).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from langchain_core.language_models.chat_models import BaseChatModel

from papernotes.retrieval.answer import Answer, citation_for, retrieved_rows
from papernotes.retrieval.chat_model import generate, make_chat_model
from papernotes.retrieval.citations import validate_citations
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.output_check import filter_links
from papernotes.retrieval.prompt_builder import build_messages, condense_messages
from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.search import SearchResult
from papernotes.retrieval.settings import Settings

#: Reply tokens for a condensed (standalone) question.
CONDENSE_MAX_TOKENS = 200
#: Longest usable standalone question, characters.
CONDENSE_MAX_CHARS = 2000


def _normalize(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'").lower()
    text = re.sub(r"[*_`\"“”>#]", "", text)
    text = text.replace("do not", "don't")
    return re.sub(r"\s+", " ", text).strip()


def is_refusal(text: str) -> bool:
    """True when a reply is (or starts with) the :data:`~papernotes.retrieval.prompts.REFUSAL` phrase
    (case, quotes, curly apostrophes, Markdown emphasis and "do not"/"don't" ignored)."""
    return _normalize(text).startswith(_normalize(REFUSAL).rstrip("."))


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

    The reply's citation markers are validated (:func:`~papernotes.retrieval.citations.validate_citations`):
    ``Answer.citations`` holds only the cited sources, renumbered in order of first use, and
    ``dropped_citations`` counts removed markers. URLs the cited notes do not vouch for are removed
    (:func:`~papernotes.retrieval.output_check.filter_links`) and counted in ``dropped_links``. A
    reply without any valid marker is ``grounded=False`` (:meth:`Notes.ask
    <papernotes.retrieval.service.Notes.ask>` then shows the extractive answer instead); a reply that is (or starts with) the refusal phrase gives ``refused=True`` and
    no citations. ``on_token`` receives the reply's text pieces as they stream in. ``model`` replaces
    the configured ``ChatOpenAI`` (tests pass LangChain fake chat models).

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
    base: dict[str, Any] = {
        "question": question,
        "mode": "llm",
        "retrieved": retrieved_rows(result.hits),
        "filters": result.filters.as_dict(),
        "model_text": raw,
    }
    if is_refusal(raw):
        return Answer(answer=REFUSAL, citations=[], refused=True, **base)
    text, order, dropped = validate_citations(raw, len(prompt.hits))
    cited = [prompt.hits[n - 1] for n in order]
    text, dropped_links = filter_links(text, cited)
    citations = [citation_for(i + 1, h) for i, h in enumerate(cited)]
    return Answer(
        answer=text,
        citations=citations,
        grounded=bool(citations),
        dropped_citations=dropped,
        dropped_links=dropped_links,
        **base,
    )


def condense_question(
    question: str, history: list[tuple[str, str]], settings: Settings, model: BaseChatModel | None = None
) -> str:
    """Rewrite a follow-up as a standalone question with one model call
    (:func:`~papernotes.retrieval.prompt_builder.condense_messages`; reply up to
    :data:`CONDENSE_MAX_TOKENS` tokens, its first line used without a "Question:" label or quotes).
    Returns ``question`` unchanged when there is no history.

    Raises
    ------
    ModelUnavailableError
        when the model fails or its reply is not a usable question (empty or over
        :data:`CONDENSE_MAX_CHARS` characters).
    """
    if not history:
        return question
    model = model or make_chat_model(settings, max_tokens=CONDENSE_MAX_TOKENS)
    raw = generate(model, condense_messages(question, history), settings)
    lines = [ln.strip() for ln in raw.strip().splitlines() if ln.strip()]
    out = lines[0] if lines else ""
    out = re.sub(r"^(?:standalone question|question)\s*:\s*", "", out, flags=re.IGNORECASE)
    out = out.strip().strip("\"'“”`").strip()
    if not re.search(r"\w", out) or len(out) > CONDENSE_MAX_CHARS:
        raise ModelUnavailableError("the model did not return a usable standalone question")
    return out
