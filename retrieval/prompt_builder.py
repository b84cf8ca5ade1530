"""Chat requests built from the prompts: the answer request with retrieved chunks packed into the
model's context window, and the condense request that makes a follow-up standalone.

Sizes are in chat-model tokens as :func:`papernotes.retrieval.tokens.count_tokens` estimates them;
every function that measures takes ``count`` to use another counter (tests pass stricter ones).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.prompts import (
    ANSWER_SYSTEM,
    ANSWER_USER,
    CONDENSE_SYSTEM,
    CONDENSE_USER,
    HISTORY_TURN,
    SOURCE_TEMPLATE,
)
from papernotes.retrieval.search import Hit
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.tokens import count_tokens, fit_tokens

Counter = Callable[[str], int]

#: Tokens added per chat message by the chat format (role, separators), and for priming the reply.
#: Source: the OpenAI cookbook's guide to counting chat tokens (3 per message for current models, 4 for
#: gpt-3.5-turbo-0301: the larger is used; 3 for priming the reply).
MESSAGE_OVERHEAD_TOKENS = 4
REPLY_PRIMING_TOKENS = 3
#: A truncated last source shorter than this is not worth sending.
MIN_SOURCE_TOKENS = 32
#: Allowance per source for the blank line joining it to the next and for counts not being additive.
_SEPARATOR_TOKENS = 2
#: Earlier turns given to the condense prompt, and characters kept of each earlier answer.
CONDENSE_TURNS = 4
CONDENSE_ANSWER_CHARS = 600


def messages_tokens(messages: list[BaseMessage], count: Counter = count_tokens) -> int:
    """Prompt tokens of a chat request: each message's content plus the per-message overhead."""
    return sum(count(str(m.content)) + MESSAGE_OVERHEAD_TOKENS for m in messages) + REPLY_PRIMING_TOKENS


def prompt_budget(settings: Settings) -> int:
    """Tokens a request may use: ``llm_context_tokens - llm_answer_tokens``."""
    return settings.llm_context_tokens - settings.llm_answer_tokens


#: An opening or closing tag of the fences the prompts use (``<source id="3">``, ``</question>``,
#: ``< / Turn >`` …), to be escaped when it appears inside quoted text.
_FENCE_TAG_RE = re.compile(r"<(\s*/?\s*(?:sources?|question|turn|summary|system|user|assistant)\b)", re.IGNORECASE)


def escape_tags(text: str) -> str:
    """``text`` with every fence tag the prompts use (``<source …>``, ``</source>``, ``<question>``,
    ``<turn>``, ``<summary>``, and ``<system>``/``<user>``/``<assistant>`` look-alikes, any case or
    spacing) escaped as ``&lt;source …>``, so quoted note text can neither close its own fence nor
    open a question or a rule. Other text is unchanged."""
    return _FENCE_TAG_RE.sub(r"&lt;\1", text)


def fence(n: int | str, text: str) -> str:
    """A quoted item as ``<source id="n">…</source>`` with its tags escaped (:func:`escape_tags`);
    the conference summary's map step fences paper entries with it."""
    return f'<source id="{n}">\n{escape_tags(text.strip())}\n</source>'


def source_block(n: int, h: Hit, text: str | None = None) -> str:
    """One source for the prompt (:data:`~papernotes.retrieval.prompts.SOURCE_TEMPLATE`), fenced as
    ``<source id="n">`` … ``</source>``: ``Page › Section (Venue)`` then the chunk text (``text``
    overrides it, for truncation); fence tags inside the note text are escaped (:func:`escape_tags`)."""
    title = " › ".join(x for x in (h.get("page_title"), h.get("section")) if x) or h.get("paper_title") or "Notes"
    venue = f" ({h.get('venue')})" if h.get("venue") else ""
    body = (h.body if text is None else text).strip()
    return SOURCE_TEMPLATE.format(n=n, title=escape_tags(title), venue=escape_tags(venue), text=escape_tags(body))


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
        HumanMessage(ANSWER_USER.format(sources="\n\n".join(blocks), question=escape_tags(question))),
    ]


def _truncated_block(n: int, h: Hit, tokens: int, count: Counter) -> str | None:
    """Source ``n`` with its text cut at a word end (plus " …") so the block fits ``tokens``, or None
    when not even one word fits."""
    cut = fit_tokens(h.body.strip(), tokens, lambda text: count(source_block(n, h, text)))
    return source_block(n, h, cut) if cut.strip() else None


def build_messages(question: str, hits: list[Hit], settings: Settings, count: Counter = count_tokens) -> Prompt:
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
            cut = _truncated_block(n, h, free - _SEPARATOR_TOKENS, count)
            if cut is not None:
                blocks.append(cut)
                used.append(h)
                truncated = True
        break
    # guard the counts' rounding: shrink from the end until the request fits
    while blocks and (over := messages_tokens(_answer_messages(question, blocks), count) - budget) > 0:
        cut = _truncated_block(len(blocks), used[-1], count(blocks[-1]) - over - 1, count)
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


def _history_text(history: list[tuple[str, str]]) -> str:
    turns = []
    for q, a in history[-CONDENSE_TURNS:]:
        a = re.sub(r"\s+", " ", a or "").strip()
        if len(a) > CONDENSE_ANSWER_CHARS:
            a = a[: CONDENSE_ANSWER_CHARS - 1] + "…"
        turns.append(HISTORY_TURN.format(question=escape_tags(q.strip()), answer=escape_tags(a)))
    return "\n".join(turns)


def condense_messages(question: str, history: list[tuple[str, str]]) -> list[BaseMessage]:
    """The request that rewrites ``question`` as a standalone question: prompts
    :data:`~papernotes.retrieval.prompts.CONDENSE_SYSTEM` / ``CONDENSE_USER`` with the last
    :data:`CONDENSE_TURNS` ``(question, answer)`` turns of ``history``, each fenced as ``<turn>`` (its
    tags escaped), answers on one line and cut to :data:`CONDENSE_ANSWER_CHARS` characters."""
    return [
        SystemMessage(CONDENSE_SYSTEM),
        HumanMessage(CONDENSE_USER.format(history=_history_text(history), question=escape_tags(question.strip()))),
    ]
