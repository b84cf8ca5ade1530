"""The answer contract: :class:`Answer` and :class:`Citation` (the ``ask --json`` shape) rendered by the
CLI and the bot, the question check, and the refusal."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.markdown import html_text, parse_tokens, render_inline
from papernotes.corpus.normalize import strip_controls
from papernotes.retrieval.prompts import REFUSAL

if TYPE_CHECKING:
    from papernotes.retrieval.search import Hit, SearchResult


@dataclass
class Citation:
    """A numbered source: ``n`` is the marker number used in the answer text."""

    n: int
    page_title: str | None
    section: str | None
    paper_title: str | None
    venue: str | None
    url: str | None
    source: str | None
    snippet: str
    #: the cited chunk's id in the index
    id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Answer:
    """An answer to one question (the ``ask --json`` contract plus optional fields)."""

    question: str
    answer: str
    mode: str  # "extractive" | "llm"
    citations: list[Citation] = field(default_factory=list)
    retrieved: list[dict[str, Any]] = field(default_factory=list)
    filters: dict[str, Any] = field(default_factory=dict)
    refused: bool = False
    grounded: bool = True
    dropped_citations: int = 0
    #: URLs removed from a model's answer because no cited note vouches for them
    #: (:func:`~papernotes.retrieval.output_check.filter_links`).
    dropped_links: int = 0
    note: str | None = None
    #: Calibrated probability (0–1) that the notes answer the question (None for lists and refusals
    #: decided before scoring) and the question's form (lookup | fact | list | comparison).
    answerability: float | None = None
    kind: str | None = None
    #: The model's raw reply before citation checking (LLM answers only; not in ``as_dict``), so a
    #: renderer that streamed it can tell whether the checked ``answer`` differs.
    model_text: str | None = None
    #: The standalone question that was searched for (a follow-up made self-contained); None when it
    #: is the question as typed.
    searched: str | None = None
    #: True when the answer is a question back (:data:`~papernotes.retrieval.prompts.CLARIFY`): the
    #: question referred to something it does not name and there was nothing earlier to take it from.
    clarify: bool = False
    #: True when, after the answer was made, the vector store was asked for its cited chunks and held
    #: every one (done when an ingest has started since the notes were opened; not in ``as_dict``): a
    #: cited chunk found gone later was deleted after the answer was made.
    citations_checked: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The ``ask --json`` object: every field but ``model_text`` and ``citations_checked``."""
        internal = {"model_text", "citations_checked"}
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in internal}
        out["citations"] = [c.as_dict() for c in self.citations]
        if self.answerability is not None:
            out["answerability"] = round(self.answerability, 4)
        return out


#: Terminal escape sequences (ECMA-48 CSI, e.g. a colour code "\x1b[31m") and other C0/C1 control characters.


#: What an empty or wordless question's message suggests asking.
_ASK_EXAMPLE = 'ask something, e.g. "Which papers study KV caches?"'


MAX_TYPED = 20_000
"""Characters a question may have as typed, before its markup is rendered (ten times the 2,000 of text
it may have): longer input is refused before any parsing."""


def check_question(question: str, noun: str = "question") -> str:
    """Strip and validate a question (terminal escape sequences and control characters removed, markup
    rendered to its text: :func:`markup_stripped`); ``noun`` names it in the messages ("query" for a
    search).

    Raises
    ------
    BadInputError
        if it is not text, is empty, has no letters or digits, is longer than 2,000 characters (or than
        :data:`MAX_TYPED` as typed, markup included, which is not rendered then), or holds bytes that
        are not UTF-8 (a shell passes them on as lone surrogates).
    """
    if question is not None and not isinstance(question, str):
        raise BadInputError(f"the {noun} must be text, not {type(question).__name__}")
    if len(question or "") > MAX_TYPED:  # rendering markup costs about 1 s of CPU per 100 KB
        raise BadInputError(
            f"the {noun} is too long as typed ({len(question or ''):,} characters with its markup; at most {MAX_TYPED:,})"
        )
    typed = strip_controls(question or "", " ").strip()  # a pasted terminal colour code is no part of it
    q = markup_stripped(typed)
    if re.search("[\ud800-\udfff]", q):
        raise BadInputError(f"the {noun} is not valid UTF-8 text: retype it, or check the terminal's encoding")
    example = 'search for something, e.g. "KV cache offloading"' if noun == "query" else _ASK_EXAMPLE
    if not q and typed:  # "<img src=x onerror=…>": markup only, nothing a reader would see
        raise BadInputError(f"the {noun} is only markup, no text: {example}")
    if not q:
        raise BadInputError(f"the {noun} is empty: {example}")
    if not re.search(r"\w", q):
        raise BadInputError(f"the {noun} has no words: {example}")
    if len(q) > 2000:
        raise BadInputError(f"the {noun} is too long ({len(q):,} characters; at most 2,000)")
    return q


#: Characters that may start Markdown or HTML markup in a question.
_MARKUP_RE = re.compile(r"[<\[*_`]")


def markup_stripped(question: str) -> str:
    """``question`` read as the notes are: Markdown and HTML rendered to their visible text (tags and
    images dropped, a link's label kept: "<b>what is mooncake</b>", "[click](javascript:…) what is
    X", "**what** is X" are the plain questions; markup alone, "<br>", leaves no words); the same string
    when it holds no markup."""
    if not _MARKUP_RE.search(question):
        return question
    text = " ".join(
        render_inline(t).text if t.type == "inline" else html_text(t.content)
        for t in parse_tokens(question)
        if (t.type == "inline" and t.children is not None) or t.type == "html_block"
    )
    return re.sub(r"\s+", " ", text).strip()


def retrieved_rows(hits: list[Hit]) -> list[dict[str, Any]]:
    """The ``retrieved`` list of ``ask --json`` / ``search --json`` (rank, score, titles, section …)."""
    return [
        {
            "rank": h.rank,
            "score": round(h.score, 6),
            "dense": round(h.dense, 4),
            "bm25": round(h.bm25, 4),
            "page_title": h.get("page_title"),
            "paper_title": h.get("paper_title") or h.paper,
            "venue": h.get("venue"),
            "section": h.get("section"),
            "source": h.get("source"),
            "kind": h.get("kind"),
            "url": h.get("url") or h.get("page_url"),
            "id": h.id,
            "also": list(h.also),
        }
        for h in hits
    ]


def citation_for(n: int, h: Hit, snippet_chars: int = 300) -> Citation:
    body = re.sub(r"\s+", " ", h.body).strip()
    return Citation(
        n=n,
        page_title=h.get("page_title"),
        section=h.get("section"),
        paper_title=h.get("paper_title"),
        venue=h.get("venue"),
        url=h.get("url") or h.get("page_url"),
        source=h.get("source"),
        snippet=body[:snippet_chars] + ("…" if len(body) > snippet_chars else ""),
        id=h.id,
    )


def extractive_answer(
    question: str, text: str, cited: list[Hit], result: SearchResult, note: str | None, **fields: Any
) -> Answer:
    """An extractive answer: ``text`` with its cited chunks (``cited``, in marker order) as citations,
    what was retrieved and the filters of ``result``; ``fields`` sets the rest (``kind``,
    ``answerability``)."""
    return Answer(
        question=question,
        answer=text,
        mode="extractive",
        citations=[citation_for(i + 1, h) for i, h in enumerate(cited)],
        retrieved=retrieved_rows(result.hits),
        filters=result.filters.as_dict(),
        note=note,
        **fields,
    )


def refusal_answer(question: str, mode: str, result: SearchResult, note: str | None = None) -> Answer:
    """The refusal: the shared phrase, no citations; ``retrieved`` still lists what was looked at."""
    return Answer(
        question=question,
        answer=REFUSAL,
        mode=mode,
        citations=[],
        retrieved=retrieved_rows(result.hits),
        filters=result.filters.as_dict(),
        refused=True,
        grounded=True,
        note=note,
    )
