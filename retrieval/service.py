"""One function per capability (ask, search, papers, stats), shared by the CLI and the Discord bot."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import numpy as np

from papernotes.corpus.catalog import filter_records
from papernotes.corpus.errors import BadInputError
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.normalize import normalize, tokens
from papernotes.corpus.papers import looks_like_affiliation
from papernotes.corpus.venues import resolve_venue, split_venue, unknown_venue
from papernotes.retrieval import lists
from papernotes.retrieval.answer import Answer, check_question, extractive_answer, refusal_answer
from papernotes.retrieval.answerability import (
    ANSWERABLE_AT,
    LOOKUP_PARTS,
    VENUE_LOOKUP_PARTS,
    answerability,
    as_written,
    asks_venue_parts,
    described_paper,
    field_missing,
    identity_terms,
    is_lookup,
    is_venue_lookup,
    lookup_asked,
    names_a_field,
    question_features,
    rare_english,
    score_sentences,
)
from papernotes.retrieval.entities import PaperMention
from papernotes.retrieval.entries import entry_view
from papernotes.retrieval.errors import ModelUnavailableError
from papernotes.retrieval.evidence import Sentence, amount_asked, candidates, embed_best, has_number
from papernotes.retrieval.extractive import compose, paper_line, paper_lookup, states_affiliations
from papernotes.retrieval.filters import Filters
from papernotes.retrieval.guesses import states_another, unconfirmed
from papernotes.retrieval.prompts import CLARIFY, UNGROUNDED_NOTE
from papernotes.retrieval.question import CONTINUING_RE, REFERRING, Question, refers_and_compares, written_name
from papernotes.retrieval.search import Hit, HybridRetriever, SearchResult
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.spelling import read_against
from papernotes.retrieval.summarize.results import plural
from papernotes.retrieval.summarize.venue_facts import VenueFacts, venue_facts
from papernotes.retrieval.terms import Key, english_word, field_term_chunks, lexical_terms

log = logging.getLogger(__name__)

#: A number as typed: "42", "3.14", "1,024", "1e-6", "10x", "87%"; or arithmetic on numbers ("2+2",
#: "3*7", "10/4"): a sum to work out names nothing in the notes either.
_ONE_NUMBER = r"[+-]?\d[\d,.]*(?:e[+-]?\d+)?(?:%|x|×)?"
_NUMBER_RE = re.compile(rf"{_ONE_NUMBER}(?:\s*[-+*/×÷^=]\s*{_ONE_NUMBER})*", re.IGNORECASE)

#: Most words of its own (coverage keys) a question naming nothing may have and still be read as a
#: follow-up of the conversation ("and the latency?", "what about training?"; :meth:`Notes.follows_up`).
ELLIPTICAL_KEYS = 2


@dataclass
class Analysis:
    """What :meth:`Notes.analyze` found out about a question (see there)."""

    question: Question
    result: SearchResult
    sentences: list[Sentence] = field(default_factory=list)
    paper_hits: dict[int, list[Hit]] = field(default_factory=dict)
    features: dict[str, float] = field(default_factory=dict)
    answerability: float | None = None
    #: how much the question asks for an amount (0–1, :func:`~papernotes.retrieval.evidence.amount_asked`)
    amount: float = 0.0
    lookup: bool = False
    #: what the notes say about the venue a question asks about itself (:func:`is_venue_lookup`)
    venue: VenueFacts | None = None
    #: the question asks for a part of a venue lookup (its dates, place, homepage, acceptance rate) that
    #: the notes do not state
    venue_part_missing: bool = False
    members: list[lists.ListItem] = field(default_factory=list)
    list_candidates: list[lists.ListItem] = field(default_factory=list)
    #: stemmed terms of the named papers' own chunks
    own: set[str] = field(default_factory=set)


DELETED_NOTE = "the notes about it changed since this index was opened (an ingest ran); ask again in a moment"
"""The note of a refusal by notes not yet reopened after an ingest: every paper the question names has
lost the chunks these notes know (its notes deleted, or edited so that their chunks changed)."""

WARM_UP_QUESTIONS = (
    "What does the paper propose, and who wrote it?",
    "How much faster is it than the baseline, and on how many GPUs?",
    "Which papers are about scheduling?",
)
"""Questions :meth:`Notes.warm_up` answers and drops: one of each kind a reader answers differently."""


class Notes:
    """The loaded notes: the :class:`HybridRetriever` and the catalog. Create once, reuse for many
    questions.

    Raises IndexMissingError / EmbeddingMismatchError on construction (see
    :meth:`HybridRetriever.from_settings`).
    """

    def __init__(self, settings: Settings, retriever: HybridRetriever | None = None):
        self.settings = settings
        self.retriever = retriever or HybridRetriever.from_settings(settings)
        self._parts: dict[tuple[str, ...], np.ndarray] = {}

    def warm_up(self) -> None:
        """Build now what the first questions would otherwise build while someone waits (about 1 s of
        CPU on the real notes): the keyword index's vocabulary, acronyms and name lookups
        (:meth:`HybridRetriever.warm_up`), the word forms the question reader loads, the embedder's
        sessions, compiled patterns. It answers :data:`WARM_UP_QUESTIONS` extractively (a lookup, an
        amount, a list) and drops the answers, so whatever a question builds lazily is built. A
        long-running reader (the bot, the MCP server) calls it on notes it opens, before they answer
        anyone.

        Raises
        ------
        ModelUnavailableError
            if the embedding model cannot be loaded.
        """
        self.retriever.warm_up()
        for q in WARM_UP_QUESTIONS:
            self.ask(q, use_llm=False)

    @property
    def notices(self) -> list[str]:
        """One-line notices about the index (an unfinished ingest, parts that disagree), each naming
        the repair command; empty when all is well."""
        return self.retriever.notices

    @property
    def catalog(self) -> list[PaperRecord]:
        """The paper catalog the retriever loaded."""
        return self.retriever.catalog

    def _known_venue(self, filters: Filters | None) -> Filters | None:
        """Filters with the venue (or series) resolved against the index's venues.

        Raises BadInputError with suggestions (:func:`~papernotes.corpus.venues.unknown_venue`) when the
        notes do not have it, when no topic or source of the notes contains the topic or source asked
        for, or when the venue's year and the year contradict each other."""
        if filters and filters.topic and not any(filters.topic.lower() in t.lower() for t in self.retriever.topics):
            raise BadInputError(
                f"no topic of the notes contains {filters.topic!r} (the topics column of `papernotes papers` lists them)"
            )
        if filters and filters.source and not any(filters.source.lower() in x.lower() for x in self.retriever.sources):
            raise BadInputError(f"no source of the notes contains {filters.source!r} (see `papernotes stats`)")
        if filters and filters.venue:
            filters.venue = resolve_venue(filters.venue, self.retriever.venues)
            year = split_venue(filters.venue)[1]
            if filters.year and year and filters.year != year:
                raise BadInputError(f"--venue {filters.venue} and --year {filters.year} contradict each other")
        if filters and filters.series:
            by_series = {split_venue(v)[0].lower(): split_venue(v)[0] for v in self.retriever.venues}
            if filters.series.lower() not in by_series:
                raise unknown_venue(filters.series, self.retriever.venues)
            filters.series = by_series[filters.series.lower()]
        return filters

    def search(self, query: str, k: int | None = None, filters: Filters | None = None) -> SearchResult:
        """Hybrid retrieval only (ranked chunks with scores and metadata)."""
        return self.retriever.search(check_question(query, "query"), k, self._known_venue(filters))

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

        The question is read once (:meth:`HybridRetriever.understand`): a list question is answered
        from the catalog (:mod:`~papernotes.retrieval.lists`); any other is answered when its
        calibrated answerability (:mod:`~papernotes.retrieval.answerability`) reaches
        :data:`ANSWERABLE_AT`, else refused with the one refusal phrase. With an LLM endpoint
        configured (and ``use_llm`` not False) the model answers from the retrieved chunks; on any
        model failure, and when the model's reply cites none of the sources (the refusal aside; see
        :mod:`~papernotes.retrieval.output_check`), the extractive answer is returned with a ``note``.
        ``history`` is earlier (question, answer) turns, used to make a follow-up standalone; the
        standalone question searched for is ``Answer.searched`` when it differs from ``question``. A
        question that refers to something it does not name ("how was it evaluated?") and that no
        earlier turn resolves gets :data:`~papernotes.retrieval.prompts.CLARIFY` back
        (``Answer.clarify``). ``on_token`` receives streamed model text as it arrives (unchecked:
        front ends that show it to people must not use it).

        Raises
        ------
        BadInputError
            for an empty or too long question, or a venue the notes lack.
        """
        question = check_question(question)
        filters = self._known_venue(filters)
        k = k or self.settings.k
        llm = self.settings.llm_enabled if use_llm is None else use_llm
        mode = "llm" if llm else "extractive"
        standalone, note = question, None
        if history and self.follows_up(question):
            standalone, note = self._standalone(question, history, llm)
        searched = standalone if standalone.strip() != question.strip() else None
        for _attempt in range(2):
            an = self.analyze(standalone, k, filters)
            q, result = an.question, an.result
            if q.dangling and not filters:
                a = refusal_answer(question, mode, result, note)
                a.answer, a.refused, a.clarify, a.kind, a.searched = CLARIFY, False, True, q.kind, searched
                return a
            if q.records and self.retriever.deleted_records(q.records) == set(q.records):
                # every paper it names is gone from the notes (an ingest deleted their notes since these
                # notes were opened): what is left says nothing about them
                a = refusal_answer(question, mode, result, _join(note, DELETED_NOTE))
                a.kind, a.searched = q.kind, searched
                return a
            a = self._answer(question, standalone, an, k, filters, llm, mode, note, on_token)
            # an ingest running meanwhile may have deleted a cited chunk: answer again from what is left
            ids = [c.id for c in a.citations if c.id]
            checked = bool(ids) and self.retriever.index_changed()  # else nothing can be gone
            if not checked or not self.retriever.missing(ids):
                a.citations_checked = checked
                break
        a.searched = searched
        return a

    def _answer(
        self,
        question: str,
        standalone: str,
        an: Analysis,
        k: int,
        filters: Filters | None,
        llm: bool,
        mode: str,
        note: str | None,
        on_token: Callable[[str], None] | None,
    ) -> Answer:
        """The answer to an analysed question (see :meth:`ask`)."""
        q, result = an.question, an.result
        if result.missing_venue:
            note = _join(note, f"the notes have nothing for {result.missing_venue}; searched all venues")
        note = _join(note, self._venue_elsewhere(q, result))
        if q.unread:  # a question in another language: what no note uses was not matched
            words = ", ".join(f"'{w}'" for w in q.unread)
            whole = q.is_list and not q.asked and (result.filters.venue or result.filters.series)
            scope = f"; listed: every paper of {result.filters.venue or result.filters.series}" if whole else ""
            note = _join(note, f"no note uses {words} (words of another language than the notes'){scope}")
        if q.is_list:
            return self._list_answer(question, an, mode, note)
        if an.venue is not None:  # about the venue itself: its facts, whatever the passages score
            return self.venue_answer(question, an, note)
        if an.venue_part_missing:  # "isca 2026 acceptance rate" when the notes give none: no paper answers it
            a = refusal_answer(
                question, mode, result, _join(note, f"the notes do not state this for {result.filters.venue}")
            )
            a.answerability, a.kind = an.answerability, q.kind
            return a
        p = an.answerability
        # a question that names papers of the catalog and asks nothing more specific about them ("what
        # is X?", "X vs Y?") is a lookup: the catalog and the notes answer it whatever the score
        # a venue the notes lack is the subject of a question that names no paper ("mlsys 24 accept rate"):
        # passages of other venues cannot answer it; a named paper with a misremembered venue still can
        unanswerable_venue = bool(result.missing_venue) and not q.papers
        # a question of framing and chat words only ("hi", "thanks!", "ok") asks about nothing in the notes
        # (a question of numbers only, "42", "3.14?", names nothing either: a number alone is in many notes;
        # nor does a lone letter, "k", "x?": it is in many notes as a variable or a unit)
        nothing_asked = (
            not q.papers and not q.venues and all(_NUMBER_RE.fullmatch(k.word) or _lone_letter(k) for k in q.keys)
        )
        # a name the notes lack is the subject of a question that names no paper of the notes: passages
        # about other papers cannot answer it ("What is Moonfake's KV cache design?")
        unknown_name = bool(q.unknown_names) and not q.papers
        # a question in another language that names no paper or venue, of whose words the notes hold only
        # ordinary ones (common English words, or words they write in lower case), as many as they lack
        # ("Wie setze ich meinen Router zurück?": only "Router" was read): what it asks is in the words no
        # note uses
        unread_question = (
            bool(q.unread)
            and not q.papers
            and not q.venues
            and len(q.unread) >= len(q.keys)
            and all(english_word(k.word) or self.retriever.bm25.writes(k.word.lower()) for k in q.keys)
        )
        # an amount asked of a paper alone ("X speedup?") is answered by a sentence of it stating one:
        # without such a sentence no extractive answer can hold the amount
        no_amount = (
            q.asks_quantity
            and not q.asked
            and bool(q.records)
            and not any(s.number for s in an.sentences if s.named and not s.is_title)
        )
        # a venue or link asked of a paper whose record has none: the notes state none
        no_field = field_missing(q, [self.catalog[r] for r in q.records])
        # values the asker guesses that the named papers' notes never write ("sdchunter - which gpus?
        # h100 or a100?"): none of their passages confirms one or says which it is (an amount guessed
        # for an amount asked is read as the answer's unit: the notes may state another amount)
        # (a guess of model numbers, "a100?", that they answer with another, "on H100 GPUs", is answered)
        guess, unconfirmed_guess = q.guess, False
        if (
            guess is not None
            and not an.lookup
            and not (guess.amounts and q.asks_quantity)
            and unconfirmed(guess, an.own, names_a_field, q.keys)
        ):
            subject = self.catalog[q.records[0]].system or self.catalog[q.records[0]].title
            note = _join(note, f"the notes on {subject} never mention {' or '.join(guess.alternatives)}")
            own = [s.text for s in an.sentences if s.named and not s.is_title]
            unconfirmed_guess = not states_another(guess, own)
        if (
            not result.hits
            or p is None
            or unanswerable_venue
            or nothing_asked
            or unknown_name
            or unread_question
            or no_amount
            or no_field
            or unconfirmed_guess
            or (p < ANSWERABLE_AT and not an.lookup)
        ):
            a = refusal_answer(question, mode, result, note)
            a.answerability, a.kind = p, q.kind
            return a
        if llm:
            try:
                from papernotes.retrieval.llm import llm_answer

                a = llm_answer(question, standalone, result, self.settings, on_token=on_token)
                if a.refused or a.grounded:
                    a.note = _join(note, a.note)
                    a.answerability, a.kind = p, q.kind
                    return a
                note = _join(note, UNGROUNDED_NOTE)  # a reply citing nothing is never the answer
            except ModelUnavailableError as e:
                note = _join(note, f"model not used: {e}")
        # a lookup is answered with each paper's description; a comparison (a lookup whatever it asks) with
        # each paper's sentences on what it asks when there are some ("jenga baselines?" for two Jengas),
        # its count of papers aside ("the two FlexPipe papers")
        # a lookup asked in words of the paper's own description quotes its sentences holding them
        if not an.lookup:
            asked = q.asked
        elif q.is_comparison:
            asked = [k for k in q.asked if not has_number(k.word)]
        else:
            asked = lookup_asked(q, [self.catalog[r] for r in q.records], an.own)
        text, cited = compose(result, an.sentences, self.catalog, an.paper_hits, asked)
        kind = "lookup" if an.lookup and not q.is_comparison else q.kind
        return extractive_answer(question, text, cited, result, note, answerability=p, kind=kind)

    def analyze(self, question: str, k: int | None = None, filters: Filters | None = None) -> Analysis:
        """Everything the answer is decided from, without composing it: the question as understood,
        the search result, and either the list members (list questions) or the scored candidate
        sentences, the question features and the answerability. (``eval/calibrate.py`` fits the
        models on these.)"""
        k = k or self.settings.k
        vector = self.retriever.question_vector(question)  # embedded while the question is read
        q = self.retriever.understand(question)
        result = self.retriever.search(q, max(k, 10) if q.is_list else k, filters, vector=vector)
        idf = self.retriever.bm25.idf
        an = Analysis(q, result)
        if (
            not q.is_list
            and not asks_venue_parts(q)
            and (
                lists.heading_list(self.retriever, result, idf)
                or lists.topic_list(self.retriever, result, idf, self.framing_similarity)
            )
        ):
            q.is_list = True
        if q.is_list:
            if not result.missing_venue:
                an.members, an.list_candidates = lists.select(self.retriever, result, idf)
                if len(q.records) > 1 and not q.asked:  # "how many different COMET papers?": those named so
                    an.members = [m for m in an.members if m.record in set(q.records)] or an.members
            return an
        if not result.hits:
            return an
        self._within_filters(q, result)
        an.paper_hits = self._paper_hits(q, result)
        named_chunks = [h for rec in q.records for h in an.paper_hits.get(rec, [])]
        own_chunks = [set(lexical_terms(h.text)) for h in named_chunks]
        own = set().union(*own_chunks)
        described = described_paper(q, result.hits, self.retriever.bm25, own)
        if described is not None:  # the named paper is context of the one the question describes
            rec = self.catalog[described]
            name = rec.system or rec.title
            q.papers = [PaperMention(records=[described], name=name, words=(0, 0))]
            q.name_terms = set(lexical_terms(name))
            an.paper_hits = self._paper_hits(q, result)
            named_chunks = an.paper_hits.get(described, [])
            own_chunks = [set(lexical_terms(h.text)) for h in named_chunks]
            own = set().union(*own_chunks)
        identity = identity_terms(self.catalog[r] for r in q.records)
        an.own = own
        if own:  # shorthand the notes never write, read against the named papers' own words ("tput", "cfg")
            texts = [h.text for h in named_chunks]
            q.keys = read_against(q.keys, own, self.retriever.bm25.has, texts)
            q.asked = read_against(q.asked, own, self.retriever.bm25.has, texts)
            q.focus = read_against(q.focus, own, self.retriever.bm25.has, texts)
        an.sentences = candidates(
            result, idf, self.retriever.section_siblings, self._identity, self._affiliation_line, named_chunks
        )
        bm25 = self.retriever.bm25
        # (a name in many chunks is a term of the field, "GPU", "LLM": what it is asked about may be anywhere)
        field = field_term_chunks(len(bm25))
        subjects = [
            k
            for k in (q.asked if not q.papers else [])
            if all(bm25.df(t) <= field for t in as_written(k).alternatives[0]) and written_name(k, bm25.casings)
        ]
        # what a question names and the catalog does not ("how many experts does mixtral use per token",
        # "gpt-3 175b batch size") is its subject: a sentence of a paper or page that never writes the name
        # is about something else, however much of the rest it covers ("ON-LSTM" in a note's opening
        # names it for the note's "cumax" section); a name no note writes is for the other rules
        # (the passages' own features stay as retrieved: read only among the name's passages, a one-word
        # question's best passage matched it too weakly for the fitted model, "what is phantora", 2026-12-04)
        about = {g for k in subjects for g in self.retriever.groups_writing(as_written(k).alternatives)}
        if about:
            # ... and in another paper's notes, only a line that writes the name (in itself or its heading)
            # speaks of it: "Follow-up reading: Mixtral (haven't read)" at the end of the Switch Transformer
            # notes makes none of their lines about Mixtral
            alts = [alt for k in subjects for alt in as_written(k).alternatives if alt]
            own_record = self.retriever.records_naming(alts)
            an.sentences = [
                s
                for s in an.sentences
                if s.hit.group in about
                and (not s.hit.group.startswith("paper:") or s.hit.group in own_record or _writes(s, alts))
            ]
        an.amount = amount_asked(q.asks_quantity, q.asked, self.retriever.bm25)
        names = {r: m.name for m in q.papers for r in m.records}
        embed = self.retriever.embeddings.embed_documents
        embed_best(an.sentences, result.query_vector, embed, amount=an.amount, names=names)
        score_sentences(an.sentences, an.amount)
        an.features = question_features(result, an.sentences, self.retriever.bm25, own, an.amount, own_chunks)
        an.answerability = answerability(an.features)
        records = [self.catalog[r] for r in q.records]
        an.lookup = is_lookup(q, self.retriever.bm25, self.lookup_similarity, identity, own, records)
        an.venue, an.venue_part_missing = self._venue_lookup(q, result)
        log.debug("answerability of %r: %.3f %s", question, an.answerability, an.features)
        return an

    def _venue_lookup(self, q: Question, result: SearchResult) -> tuple[VenueFacts | None, bool]:
        """``(facts, missing)``: the facts the notes state about the venue a question asks about itself
        (:func:`is_venue_lookup`: "where was sosp 2023 held"), or None; ``missing`` is True when the
        question asks only for parts of a venue lookup and the notes state none of them ("isca 2026
        acceptance rate")."""
        f = result.filters
        if not result.detected or not f.venue or result.missing_venue:
            return None, False
        bm25, where = self.retriever.bm25, self.retriever.where(f)

        @cache
        def used(k: Key) -> bool:  # a word the venue's chunks use: asked about its papers (searched once)
            return any(
                k.covered(set(lexical_terms(bm25.texts[pos])))
                for alt in k.alternatives
                for pos, _ in bm25.search(list(alt), 3, where)
            )

        # with every fact known first: the facts are read from every chunk only for a question that can be one
        if not is_venue_lookup(q, f.venue, used, set(VENUE_LOOKUP_PARTS)):
            return None, False
        facts = venue_facts(bm25.texts, bm25.metadatas, f.venue)
        if is_venue_lookup(q, f.venue, used, facts.known):
            return facts, False
        # some parts asked for are stated ("hpca 2026 location and acceptance rate": its place): those
        known = [p for p in facts.known if p in VENUE_LOOKUP_PARTS]
        if any(is_venue_lookup(replace(q, asked=[k]), f.venue, used, set(known)) for k in q.asked):
            return facts, False
        return None, bool(q.asked)  # a part asked for that the notes do not state

    def lookup_similarity(self, text: str) -> float:
        """Best cosine similarity (−1–1) of ``text`` to the parts of a lookup answer
        (:data:`~papernotes.retrieval.answerability.LOOKUP_PARTS`), under the index's embedder."""
        return self.framing_similarity(text, LOOKUP_PARTS)

    def framing_similarity(self, text: str, parts: Sequence[str]) -> float:
        """Best cosine similarity (−1–1) of ``text`` to the descriptions ``parts`` (embedded once per
        tuple), under the index's embedder."""
        embed = self.retriever.embeddings.embed_documents
        key = tuple(parts)
        if key not in self._parts:
            self._parts[key] = np.asarray(embed(list(key)), dtype=np.float32)
        v = np.asarray(embed([text])[0], dtype=np.float32)
        return float((self._parts[key] @ v).max())

    def venue_answer(self, question: str, an: Analysis, note: str | None) -> Answer:
        """The answer to a venue lookup: the notes' dates and place of the venue, its homepage and
        acceptance rate, each cited to the chunk it was read from, and how many of its papers the notes
        list."""
        facts, venue = an.venue, an.result.filters.venue
        assert facts is not None and venue is not None
        positions = list(dict.fromkeys(facts.sources.values()))
        hits = {h.id: h for h in self.retriever.chunk_hits(positions)}  # those the store still holds
        cited: list[Hit] = []

        def mark(fact: str) -> str:
            pos = facts.sources.get(fact)
            h = hits.get(self.retriever.bm25.ids[pos]) if pos is not None else None
            if h is None:
                return ""
            if h not in cited:
                cited.append(h)
            return f" [{cited.index(h) + 1}]"

        lines = []
        if facts.when or facts.where:
            lines.append(f"{venue}: {' · '.join(x for x in (facts.when, facts.where) if x)}{mark('when')}")
        if facts.homepage:
            lines.append(f"Homepage: {facts.homepage}{mark('homepage')}")
        if facts.acceptance_rate:
            lines.append(f"Acceptance rate: {facts.acceptance_rate}{mark('acceptance_rate')}")
        n = sum(venue in r.venues for r in self.catalog)
        lines.append(f"The notes list {n} paper{'s' if n != 1 else ''} of {venue}.")
        return extractive_answer(
            question, "\n".join(lines), cited, an.result, note, answerability=an.answerability, kind="lookup"
        )

    def _affiliation_line(self, h: Hit, line: str) -> bool:
        """``line`` only states the affiliations of the paper ``h`` is about (any affiliation-like line
        for a chunk of no catalog paper)."""
        if h.record is None:
            return looks_like_affiliation(line)
        return states_affiliations(line, self.catalog[h.record])

    def _identity(self, h: Hit) -> set[str]:
        """Terms that identify the paper a chunk is about: its title, system name and one-line summary."""
        if h.record is None:
            return set(lexical_terms(str(h.get("paper_title") or "")))
        r = self.catalog[h.record]
        return set(lexical_terms(f"{r.title} {r.system or ''} {r.summary}"))

    def _given_where(self, result: SearchResult) -> dict[str, Any] | None:
        """The Chroma-style ``where`` clause of the filters the caller gave (``--venue``, ``--source``,
        ``--year``, ``--topic``), which hold for every chunk an answer draws on; None when none was
        given (a venue the question itself names selects the search's passages, not the named papers'
        own notes)."""
        if result.detected or result.fallback or not result.filters:
            return None
        return self.retriever.where(result.filters)

    def _within_filters(self, q: Question, result: SearchResult) -> None:
        """Drop from the question's named papers those with no chunk inside the given filters
        (:meth:`_given_where`): "what is jenga" asked with ``--source`` of notes that never mention
        Jenga names no paper there."""
        where = self._given_where(result)
        if where is None:
            return
        inside = {rec for rec in q.records if self.retriever.paper_chunks(rec, where)}
        q.papers = [replace(m, records=kept) for m in q.papers if (kept := [r for r in m.records if r in inside])]

    def _venue_elsewhere(self, q: Question, result: SearchResult) -> str | None:
        """The note for a question that places the papers it names at a venue where the notes do not
        ("what is jenga at osdi"): where the notes place them; None when any named paper is there (or
        has no venue) or the question names no venue. The answer itself still describes them: the
        venue may be misremembered."""
        f = result.filters
        if not result.detected or not (f.venue or f.series) or q.is_list or not q.papers:
            return None
        records = [self.catalog[r] for r in q.records]
        if any(not r.venues for r in records):
            return None
        want = (f.venue or "").lower()
        series = (f.series or split_venue(f.venue or "")[0]).lower()
        at = [v for r in records for v in r.venues]
        if any(v.lower() == want or (not want and split_venue(v)[0].lower() == series) for v in at):
            return None
        names = ", ".join(dict.fromkeys(m.name for m in q.papers))
        return f"the notes place {names} at {' and '.join(dict.fromkeys(at))}, not at {f.venue or f.series}"

    def _paper_hits(self, q: Question, result: SearchResult) -> dict[int, list[Hit]]:
        """Chunks of each named paper, best first: those in the fused pool by rank, then the rest (inside
        the filters the caller gave, :meth:`_given_where`)."""
        where = self._given_where(result)
        out: dict[int, list[Hit]] = {}
        for rec in q.records:
            ranked = [h for h in result.pool if h.record == rec]
            seen = {h.id for h in ranked}
            rest = [h for h in self.retriever.chunk_hits(self.retriever.paper_chunks(rec, where)) if h.id not in seen]
            out[rec] = ranked + rest
            if not out[rec]:  # an item of a page listing several papers: its entry in the retrieved chunks
                title = self.catalog[rec].title
                views = (entry_view(h, rec, title) for h in result.pool)
                out[rec] = [v for v in views if v is not None]
        return out

    def _list_answer(self, question: str, an: Analysis, mode: str, note: str | None) -> Answer:
        """A list question answered from the catalog: one line per member paper, each cited; a count of
        every paper ("how many papers are in my notes": no topic, venue or year) is the catalog's size."""
        result = an.result
        q = an.question
        if q.counts and not q.asked and not q.papers and not result.filters:
            n, venues = len(self.catalog), {v for r in self.catalog for v in r.venues}
            text = f"The notes list {plural(n, 'paper')} in all, at {plural(len(venues), 'venue')}."
            return extractive_answer(
                question, text, [], result, _join(note, "counted in the paper catalog"), kind="list"
            )
        if result.missing_venue or not an.members:
            a = refusal_answer(question, mode, result, note)
            a.kind = "list"
            return a
        cited: list[Hit] = []
        lines = []
        if len(an.members) == 1:  # one paper: what it is, not a one-line list
            item = an.members[0]
            rec = item.chunk.record
            own = self.retriever.papers.chunks.get(rec, []) if rec is not None else []
            hits = [item.chunk] + self.retriever.chunk_hits(own)
            text, cited = paper_lookup(item.paper, hits)
            lines = [text]
        if q.counts:  # "how many papers of hpca 2026 are in my notes": the count first
            lines.insert(0, f"The notes list {plural(len(an.members), 'paper')} for this:")
        for item in an.members if len(an.members) > 1 else []:
            cited.append(item.chunk)
            lines.append(f"- {paper_line(item.paper)} [{len(cited)}]")
        note = _join(note, "list from the paper catalog" if mode == "llm" else None)
        return extractive_answer(question, "\n".join(lines), cited, result, note, kind="list")

    def follows_up(self, question: str) -> bool:
        """True when ``question``, read on its own, leans on an earlier turn: it names no paper and no
        venue, and refers back ("how was it evaluated?", "what datasets did they use?") or is too short
        to stand alone (at most :data:`ELLIPTICAL_KEYS` words of its own: "and the latency?") and either
        continues ("and …", "what about …") or has a word that is not a common English word the notes
        (almost) never use (:func:`~papernotes.retrieval.answerability.rare_english`, as
        :func:`~papernotes.retrieval.answerability.evidence_asked` reads one). A question that names what
        it asks about, or says enough ("who won the turing award in 2023"), is asked as typed in a
        conversation too, and so is a short one all of whose words are such ("what is the capital of
        australia", an affiliation's country aside) or none of whose words can be read ("北京今天天气怎么样"
        over notes that never write them): it asks about something else than an earlier paper."""
        q = self.retriever.understand(question)
        if q.compares_with_earlier:
            return True  # "how does it compare to vLLM?": "it" is the earlier turn's paper
        if q.papers or q.venues:
            return False
        if set(tokens(normalize(question), compounds=False)) & REFERRING:
            return True
        if len(q.keys) > ELLIPTICAL_KEYS:
            return False
        return (
            (not q.keys and not q.unread)
            or bool(CONTINUING_RE.match(question))
            or not all(rare_english(k, self.retriever.bm25) for k in q.keys)
        )

    def _standalone(self, question: str, history: list[tuple[str, str]], llm: bool) -> tuple[str, str | None]:
        """A follow-up made standalone: rewritten by the model when there is one, else the previous
        question's paper/venue words carried over."""
        if llm:
            try:
                from papernotes.retrieval.llm import condense_question

                return condense_question(question, history, self.settings), None
            except ModelUnavailableError as e:
                return carry_over(question, history, self.catalog), f"model not used for the follow-up: {e}"
        return carry_over(question, history, self.catalog), None

    def papers(
        self, venue: str | None = None, year: int | None = None, topic: str | None = None, search: str | None = None
    ) -> list[PaperRecord]:
        """Catalog records matching the filters (see :func:`~papernotes.corpus.catalog.filter_records`)."""
        return filter_records(self.catalog, venue, year, topic, search)


def _join(*notes: str | None) -> str | None:
    """Notes joined with "; " (None when there are none)."""
    return "; ".join(n for n in notes if n) or None


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

    A follow-up that names a paper of ``papers`` (the catalog) stands alone, unless it compares "it" with
    that paper ("how does it compare to vLLM?": the earlier paper is added). Otherwise, when the
    latest turn naming a paper was about one — the first catalog paper named in its answer (else in its
    question), unless a list question came since — its full title is appended (an earlier follow-up
    that was refused names none, so the paper before it is still the subject):
    "how was it evaluated?" → "how was it evaluated? (Quokka: Paged Attention …)". (The title alone
    retrieves the paper's own notes best; adding its venue pulls in the venue's pages, and a bare
    system name can be ambiguous.) Else the previous question is prefixed ("<previous question>
    <follow-up>") so its paper and venue words steer retrieval.
    """
    if not history:
        return question
    prev_q = history[-1][0]
    papers = papers or []
    named = mentioned_papers(question, papers)
    if named and not (len(named) == 1 and refers_and_compares(question)):
        return question
    subject = None
    for q, a in reversed(history):  # the latest turn about a paper: a refused follow-up names none
        if _asks_list(q):
            break
        earlier = [p for p in mentioned_papers(a or "", papers) or mentioned_papers(q, papers) if p not in named]
        if earlier:
            subject = earlier[0]
            break
    if subject is None:
        return f"{prev_q} {question}"
    return f"{question} ({subject.title})"


def _lone_letter(k: Key) -> bool:
    """``k`` is one Latin letter, however typed ("k", "--k", "x?"): a variable or a unit, no word."""
    return bool(k.terms) and all(len(t) == 1 and t.isascii() and t.isalpha() for t in k.terms)


def _asks_list(text: str) -> bool:
    from papernotes.retrieval.question import understand

    return understand(text).is_list


def _writes(s: Sentence, alternatives: Sequence[Sequence[str]]) -> bool:
    """``s`` (its text, or the heading path of its chunk) holds every stemmed term of one of
    ``alternatives``."""
    terms = set(lexical_terms(s.text + "\n" + s.hit.text.split("\n", 1)[0]))
    return any(all(t in terms for t in alt) for alt in alternatives)
