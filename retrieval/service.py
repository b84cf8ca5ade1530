"""One function per capability (ask, search, papers, stats), shared by the CLI and the Discord bot."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable

from papernotes.corpus.catalog import filter_records, load_catalog
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.venues import resolve_venue
from papernotes.retrieval.answer import (
    Answer,
    check_question,
    citation_for,
    extractive_answer,
    refusal_answer,
    retrieved_rows,
    should_refuse,
)
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.filters import Filters
from papernotes.retrieval.search import HybridRetriever, SearchResult
from papernotes.retrieval.settings import Settings

log = logging.getLogger(__name__)


class Notes:
    """The loaded notes: the :class:`HybridRetriever` and the catalog. Create once, reuse for many
    questions.

    Raises IndexMissingError / EmbeddingMismatchError on construction (see
    :meth:`HybridRetriever.from_settings`).
    """

    def __init__(self, settings: Settings, retriever: HybridRetriever | None = None):
        self.settings = settings
        self.retriever = retriever or HybridRetriever.from_settings(settings)
        self._catalog: list[PaperRecord] | None = None

    @property
    def catalog(self) -> list[PaperRecord]:
        if self._catalog is None:
            self._catalog = load_catalog(self.settings.catalog_path)
        return self._catalog

    def _known_venue(self, filters: Filters | None) -> Filters | None:
        """Filters with the venue resolved against the index's venues.

        Raises BadInputError naming the closest known venues when the notes do not have it."""
        if filters and filters.venue:
            filters.venue = resolve_venue(filters.venue, self.retriever.venues)
        return filters

    def search(self, query: str, k: int | None = None, filters: Filters | None = None) -> SearchResult:
        """Hybrid retrieval only (ranked chunks with scores and metadata)."""
        return self.retriever.search(check_question(query), k, self._known_venue(filters))

    def ask(
        self,
        question: str,
        k: int | None = None,
        filters: Filters | None = None,
        history: list[tuple[str, str]] | None = None,
        use_llm: bool | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> Answer:
        """Answer a question with citations.

        With an LLM endpoint configured (and ``use_llm`` not False) the model answers from the
        retrieved chunks; on any model failure the extractive answer is returned with a ``note``.
        ``history`` is earlier (question, answer) turns, used to make a follow-up standalone.
        ``on_token`` receives streamed model text as it arrives.
        """
        question = check_question(question)
        filters = self._known_venue(filters)
        k = k or self.settings.k
        llm = self.settings.llm_enabled if use_llm is None else use_llm
        standalone, note = question, None
        if history:
            standalone, note = self._standalone(question, history, llm)
        result = self.retriever.search(standalone, max(k, 10) if _is_list(standalone) else k, filters)
        idf = self.retriever.bm25.idf
        refuse, signals = should_refuse(
            standalone, result, idf, self.settings.min_relevance, corpus_has=self.retriever.corpus_has
        )
        log.debug("refusal signals for %r: %s", standalone, signals)
        mode = "llm" if llm else "extractive"
        if result.fallback and result.missing_venue:
            note = _join(note, f"the notes have nothing for {result.missing_venue}; searched all venues")
            if result.is_list:  # "which <venue> papers …" about a venue the notes lack
                refuse = True
        if refuse:
            return refusal_answer(question, mode, result, note)
        if llm:
            try:
                from papernotes.retrieval.llm import llm_answer

                a = llm_answer(question, standalone, result, self.settings, on_token=on_token)
                a.note = _join(note, a.note)
                return a
            except ModelUnavailableError as e:
                note = _join(note, f"model not used: {e}")
        text, cited = extractive_answer(standalone, result, idf)
        return Answer(
            question=question,
            answer=text,
            mode="extractive",
            citations=[citation_for(i + 1, h) for i, h in enumerate(cited)],
            retrieved=retrieved_rows(result.hits),
            filters=result.filters.as_dict(),
            note=note,
        )

    def _standalone(self, question: str, history: list[tuple[str, str]], llm: bool) -> tuple[str, str | None]:
        """A follow-up made standalone: rewritten by the model when there is one, else the previous
        question's paper/venue words carried over."""
        if llm:
            try:
                from papernotes.retrieval.llm import condense_question

                return condense_question(question, history, self.settings), None
            except ModelUnavailableError as e:
                return carry_over(question, history, self._catalog_or_empty()), f"model not used for the follow-up: {e}"
        return carry_over(question, history, self._catalog_or_empty()), None

    def _catalog_or_empty(self) -> list[PaperRecord]:
        try:
            return self.catalog
        except (OSError, ValueError, TypeError) as e:  # unreadable catalog: carry over without titles
            log.debug("catalog not usable for carry-over: %s", e)
            return []

    def papers(
        self, venue: str | None = None, year: int | None = None, topic: str | None = None, search: str | None = None
    ) -> list[PaperRecord]:
        """Catalog records matching the filters (see :func:`~papernotes.corpus.catalog.filter_records`)."""
        return filter_records(self.catalog, venue, year, topic, search)


def _join(*notes: str | None) -> str | None:
    """Notes joined with "; " (None when there are none)."""
    return "; ".join(n for n in notes if n) or None


def _is_list(q: str) -> bool:
    from papernotes.retrieval.search import is_list_question

    return is_list_question(q)


def mentioned_papers(text: str, papers: list[PaperRecord]) -> list[PaperRecord]:
    """Catalog papers named in ``text`` by full title or system name (case-sensitive, whole word, at
    least 3 characters), in order of first mention."""
    found: list[tuple[int, PaperRecord]] = []
    for r in papers:
        pos = text.find(r.title) if len(r.title) >= 8 else -1
        name = (r.system or "").strip()
        if pos < 0 and len(name) >= 3 and " " not in name and re.search(r"[A-Za-z]", name):
            m = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text)
            pos = m.start() if m else -1
        if pos >= 0:
            found.append((pos, r))
    found.sort(key=lambda x: x[0])
    return [r for _, r in found]


def carry_over(question: str, history: list[tuple[str, str]], papers: list[PaperRecord] | None = None) -> str:
    """Make a follow-up standalone without a model, for retrieval.

    A follow-up that names a paper of ``papers`` (the catalog) stands alone. Otherwise, when the
    previous turn was about one paper — the first catalog paper named in the previous answer (else
    in the previous question), unless that question asked for a list — its full title is appended:
    "how was it evaluated?" → "how was it evaluated? (Quokka: Paged Attention …)". (The title alone
    retrieves the paper's own notes best; adding its venue pulls in the venue's pages, and a bare
    system name can be ambiguous.) Else the previous question is prefixed ("<previous question>
    <follow-up>") so its paper and venue words steer retrieval.
    """
    if not history:
        return question
    prev_q, prev_a = history[-1][0], history[-1][1] or ""
    papers = papers or []
    if mentioned_papers(question, papers):
        return question
    subject = None
    if not _is_list(prev_q):
        named = mentioned_papers(prev_a, papers) or mentioned_papers(prev_q, papers)
        subject = named[0] if named else None
    if subject is None:
        return f"{prev_q} {question}"
    return f"{question} ({subject.title})"
