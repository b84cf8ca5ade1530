"""Answerability as one calibrated score, and the sentence relevance score answers are built from.

Both are logistic regressions over features computed from the evidence (never from the question's
phrasing). Their weights live in ``calibration.json`` beside this module, written by
``eval/calibrate.py``, which fits them on the ``fit`` split of the labeled question set
``eval/calibration.jsonl`` and reports the ``held`` split (``eval/calibration_report.md``): the sentence
model first, then the question model, which takes the best sentence score as one of its features. The
decision threshold :data:`ANSWERABLE_AT` was fixed before fitting.

Question features (:func:`question_features`):

``top_dense``      best dense cosine similarity of the top 3 chunks
``best_cos``       best cosine similarity of an embedded candidate sentence to the question (of the named
                   papers when the question names some; titles and affiliation lines aside)
``cov_best``       idf-weighted share of the question's terms found in one single chunk (the best one):
                   the subject and what is asked about it must occur together (for a comparison, each
                   side in a chunk of its own: the mean over the papers compared, when higher)
``cov_union``      the same share over the top 3 chunks together
``asked_cov``      share of what is asked about named papers (English words the notes never use
                   aside unless present, see :func:`evidence_asked`) found in
                   those papers' own chunks, or in one retrieved passage that names them when higher
                   (the name as context); 1 when nothing specific is
                   asked (a lookup); the best chunk's share when no paper is named
``focus_cov``      share of the question's focus (:attr:`~papernotes.retrieval.question.Question.focus`: "what
                   *learning rate* …", "how many *experts*") found where ``asked_cov`` looks for a named
                   paper: 1 when there is none, no paper is named or it names a record field (venue,
                   authors, …); a word of it with no noun reading ("how many *bad* gpus") counts only
                   when present, a noun the paper's notes never write ("what *license*") counts against
``oov``            idf-weighted share of the question's name-like terms (not common English words) that
                   occur nowhere in the notes (a versioned name such as "GPT-2" by its joined form)
``named``          1 when the question names a paper of the catalog
``compared``       1 when it compares two or more named papers ("spanner vs dynamo consistency model": what
                   is asked is judged across both papers' notes, each of which holds part of it)
``quantity_support`` the best share of what is asked that one candidate sentence stating a new amount
                   (not a number of the question) covers, relative to the best share any candidate
                   sentence covers (0 when none covers any), weighed by how much the question asks for
                   an amount (``a``, 0–1, :func:`~papernotes.retrieval.evidence.amount_asked`: 1 for
                   "how many …", else how often the notes state an amount with the asked words):
                   ``a · ratio + (1 − a)``
``quantity_near``  the same, counting only sentences whose number stands in one clause with a word of
                   what is asked (:func:`~papernotes.retrieval.evidence._number_beside`: "24 layers",
                   "layers: 24"), so "how many layers does BERT-large have" is not supported by a
                   sentence on BERT-large's layer norm that states a parameter count in another clause
``venue_missing``  1 when the question names a venue the notes lack
``best_sentence``  the sentence model's best score (the probability that a candidate sentence — of the
                   named papers, when the question names some; not a title or affiliations line —
                   holds the answer)
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.normalize import normalize, word_parts
from papernotes.corpus.note_opening import CJK_LABELS
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.evidence import Sentence, stated
from papernotes.retrieval.question import Question, comparing_terms, phrases
from papernotes.retrieval.search import Hit, SearchResult
from papernotes.retrieval.terms import (
    RARE_IN_NOTES_MIN,
    Key,
    conversational,
    coverage,
    english_word,
    key_weight,
    lexical_terms,
    names_a_thing,
    stem_term,
)

#: Probability at or above which a question is answered (fixed before fitting; the fit's class
#: weights balance answerable and unanswerable questions, so 0.5 is the even point).
ANSWERABLE_AT = 0.5

QUESTION_FEATURES = (
    "top_dense",
    "best_cos",
    "cov_best",
    "cov_union",
    "asked_cov",
    "focus_cov",
    "oov",
    "named",
    "compared",
    "quantity_support",
    "quantity_near",
    "venue_missing",
    "best_sentence",
)
SENTENCE_FEATURES = ("cos", "lexical", "asked", "number_asked", "number_near", "named", "is_title", "first", "rank")

WEIGHTS_FILE = Path(__file__).with_name("calibration.json")


@dataclass
class Model:
    """A logistic regression: ``p = sigmoid(bias + sum(weights[f] * x[f]))``."""

    weights: dict[str, float]
    bias: float

    def probability(self, x: dict[str, float]) -> float:
        z = self.bias + sum(w * x.get(f, 0.0) for f, w in self.weights.items())
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


#: Used until eval/calibrate.py has written calibration.json (hand-set starting values; the fit
#: replaces them).
_QUESTION_DEFAULT = Model(
    {
        "top_dense": 4.0,
        "best_cos": 4.0,
        "cov_best": 3.0,
        "cov_union": 1.0,
        "asked_cov": 2.0,
        "focus_cov": 1.0,
        "oov": -6.0,
        "named": 1.0,
        "quantity_support": 2.0,
        "venue_missing": -4.0,
        "best_sentence": 2.0,
    },
    -6.0,
)
_DEFAULTS = {
    "question_named": _QUESTION_DEFAULT,
    "question_unnamed": _QUESTION_DEFAULT,
    "sentence": Model(
        {
            "cos": 4.0,
            "lexical": 2.0,
            "asked": 2.0,
            "number_asked": 1.0,
            "named": 0.5,
            "is_title": -2.0,
            "first": 0.3,
            "rank": 0.5,
        },
        -4.0,
    ),
}


@lru_cache(maxsize=1)
def calibration() -> dict:
    """The contents of :data:`WEIGHTS_FILE` (written by ``eval/calibrate.py``), or ``{}`` before the
    first fit; read once per process."""
    if not WEIGHTS_FILE.is_file():
        return {}
    return json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))


def models() -> dict[str, Model]:
    """The fitted models of :func:`calibration` (``question_named``, ``question_unnamed``,
    ``sentence``, ``membership``), with the starting values for any not fitted yet."""
    fitted = {name: Model(dict(m["weights"]), float(m["bias"])) for name, m in calibration().get("models", {}).items()}
    return {**_DEFAULTS, **fitted}


def sentence_features(s: Sentence, amount: float) -> dict[str, float]:
    """Features of one candidate sentence (see :data:`SENTENCE_FEATURES`); an unembedded sentence's
    ``cos`` is its chunk's cosine similarity to the question; ``amount``: how much the question asks
    for an amount (0–1, :func:`~papernotes.retrieval.evidence.amount_asked`)."""
    return {
        "cos": s.cos if s.cos is not None else s.hit.dense,
        "lexical": s.lexical,
        "asked": s.asked,
        "number_asked": amount if s.number else 0.0,
        "number_near": amount if s.near else 0.0,
        "named": 1.0 if s.named else 0.0,
        "is_title": 1.0 if s.is_title else 0.0,
        "first": 1.0 if s.index == 0 else 0.0,
        "rank": 1.0 / (s.hit.rank or 10),
    }


def score_sentences(sentences: list[Sentence], amount: float) -> None:
    """Set each sentence's ``score``: the sentence model's probability that it answers the question
    (``amount``: as for :func:`sentence_features`)."""
    m = models()["sentence"]
    for s in sentences:
        s.score = m.probability(sentence_features(s, amount))


def specific_asked(
    q: Question, bm25: BM25Index, identity: AbstractSet[str] = frozenset(), asked: Sequence[Key] | None = None
) -> list[Key]:
    """What is asked about the named papers (or the topic), without the words that only frame the
    question (:func:`~papernotes.retrieval.terms.conversational`: "who *made* X", "X's main *idea*") and
    the words that describe the named papers themselves (``identity``, :func:`identity_terms`: "ditto
    hpca'25 *diffusion accel*, who"); ``asked``: the keys to judge, by default ``q.asked``."""
    n = len(bm25)
    return [
        k
        for k in (q.asked if asked is None else asked)
        if not conversational(k.word, max((bm25.df(t) for t in k.terms), default=0), n) and not k.covered(identity)
    ]


def rare_english(k: Key, bm25: BM25Index) -> bool:
    """A common English word that the notes use in at most :data:`RARE_IN_NOTES_MIN` chunks."""
    return english_word(k.word) and max((bm25.df(t) for t in k.terms), default=0) <= RARE_IN_NOTES_MIN


def evidence_asked(q: Question, bm25: BM25Index, have: AbstractSet[str] = frozenset()) -> list[Key]:
    """What is asked about the named papers that a passage (its stemmed terms ``have``) can confirm or
    not: the asked words without the common English words the notes (almost) never use (in at most
    :data:`~papernotes.retrieval.terms.RARE_IN_NOTES_MIN` chunks: "tricks", "gist") that the passage
    lacks — the absence of such a word says nothing, its presence ("where does DecDEC keep the
    *residuals*") does. Unlike :func:`specific_asked`, a word the notes do use, however rarely
    ("baselines", "license"), counts: a paper's notes that never say it do not answer it; and so do
    the words that also describe the paper ("Mooncake's *KV cache* design"), often what is asked."""
    return [k for k in q.asked if not rare_english(k, bm25) or k.covered(have)]


def identity_terms(records: Iterable[PaperRecord]) -> set[str]:
    """Stemmed terms that identify papers: their titles, system names, aliases, one-line summaries,
    authors, affiliations and venues ("shift parallelism (snowflake)", "the MSR paper on …", "hinton's
    capsules paper")."""
    out: set[str] = set()
    for r in records:
        out |= set(
            lexical_terms(
                " ".join([r.title, r.system or "", *r.aliases, r.summary, *r.authors, *r.affiliations, r.venue or ""])
            )
        )
    return out


#: What a lookup answer gives about a paper (:func:`~papernotes.retrieval.extractive.paper_lookup`): one
#: description per part of the catalog record it is made from (:class:`~papernotes.corpus.models.PaperRecord`
#: fields ``affiliations``/``authors``, ``venue``/``year``, ``summary``). A question that names a paper and
#: asks, in words the notes do not use, for one of these is a lookup. (The record's link is given too, but
#: a description of it, "the link to the paper", is as close to any question about a paper as to one
#: asking for the link, so it is no evidence.)
LOOKUP_PARTS = (
    "who wrote the paper: its authors and their affiliations",
    "where and when the paper was published: its venue and year",
    # (the ways people ask for the gist beyond the words of a summary: its "trick", "how it works", "in a
    # nutshell"; the embedder reads an idiom only as close as its words)
    "what the paper is about: its main or key idea, trick, insight, technique or contribution, how it works, the gist"
    " or TLDR in one line, in a nutshell",
)
#: The catalog record's fields that the lookup answer gives, by the nouns that name them: a question
#: naming a paper that asks for one of these ("what conference was X at", "url for X", "pdf of X",
#: "X's authors") asks for that part of the lookup answer — when the records have it (a question for
#: the authors of a paper whose notes name none is not answered by its lookup). The nouns are those of
#: the record's schema (:class:`~papernotes.corpus.models.Paper`), not of any question.
LOOKUP_FIELDS: dict[str, tuple[str, ...]] = {
    "author": ("authors", "affiliations"),
    "affiliation": ("affiliations", "authors"),
    # the kinds of place an affiliation is, as people ask for it ("which uni", "what lab")
    "institution": ("affiliations", "authors"),
    "university": ("affiliations", "authors"),
    "uni": ("affiliations", "authors"),
    "lab": ("affiliations", "authors"),
    "company": ("affiliations", "authors"),
    "organization": ("affiliations", "authors"),
    "org": ("affiliations", "authors"),  # "which orgs"
    "venue": ("venue",),
    "conference": ("venue",),
    "published": ("venue", "year"),
    "appear": ("venue", "year"),  # "to appear in", "appeared at": how notes and people state a venue
    "year": ("year",),
    "link": ("url",),
    "url": ("url",),
    "pdf": ("url",),
    "arxiv": ("url",),
    "doi": ("url",),
    "title": ("title",),
    # the record's code link (``links["code"]``), as people ask for it
    "code": ("code",),
    "github": ("code",),
    "repo": ("code",),
    "repository": ("code",),
}
# the same fields as Chinese notes label them ("作者", "发表", "会议", "链接"; one list for notes and
# questions: :data:`~papernotes.corpus.note_opening.CJK_LABELS`)
LOOKUP_FIELDS.update(
    {
        word: LOOKUP_FIELDS[{"authors": "author", "affiliations": "affiliation", "link": "link"}.get(kind, kind)]
        for word, kind in CJK_LABELS.items()
        if kind in ("authors", "affiliations", "venue", "published", "link") and len(lexical_terms(word)) == 1
    }
)
_FIELD_TERMS = {t: fields for word, fields in LOOKUP_FIELDS.items() for t in lexical_terms(word)}


def named_fields(k: Key) -> tuple[str, ...]:
    """The record fields the asked word ``k`` names (:data:`LOOKUP_FIELDS`, by any of its one-term
    readings, or truncated to four or more letters: "conf", "affils", "auth"), or ``()``."""
    for alt in k.alternatives:
        if len(alt) != 1:
            continue
        if alt[0] in _FIELD_TERMS:
            return _FIELD_TERMS[alt[0]]
        if len(alt[0]) >= 4 and alt[0].isalpha():
            for word, fields in LOOKUP_FIELDS.items():
                if word.startswith(alt[0]):
                    return fields
    return ()


#: Record fields the catalog reads from every place the notes mention a paper (its venue from any
#: listing, heading or labelled line, its links from any of them): a record without one means the
#: notes state none. Authors are not among them: a byline in prose may name people the catalog missed.
CATALOG_READ_FIELDS = frozenset({"venue", "year", "url", "code"})


def field_missing(q: Question, records: Sequence[PaperRecord]) -> bool:
    """True when the question's focus is a field of :data:`CATALOG_READ_FIELDS` (all of it: "what
    *venue* was X in", not "what *arxiv category* is X under") that none of the named ``records`` has:
    no passage of the notes can answer it."""
    fields = [named_fields(k) for k in q.focus]
    return (
        bool(records and fields)
        and all(f and set(f) <= CATALOG_READ_FIELDS for f in fields)
        and not any(field_asked(k, records) for k in q.focus)
    )


def names_a_field(word: str) -> bool:
    """True when ``word`` names a field of the lookup answer (:data:`LOOKUP_FIELDS`, by any of its
    terms: "github", "venue", "authors")."""
    return any(t in _FIELD_TERMS for t in lexical_terms(word))


def field_asked(k: Key, records: Sequence[PaperRecord]) -> bool:
    """True when the asked word ``k`` names a field of the lookup answer (:func:`named_fields`) that
    every one of ``records`` has."""
    fields = named_fields(k)
    return bool(fields and records) and all(any(getattr(r, f) for f in fields) for r in records)


#: Cosine similarity (embedder, unit vectors) of a question's framing to a part of the lookup answer at
#: or above which it asks for that part; set by ``eval/calibrate.py`` on the fit split (see
#: ``calibration.json``), this value until then.
LOOKUP_AT_DEFAULT = 0.25


def framing(q: Question, identity: AbstractSet[str] = frozenset()) -> str:
    """The question without the words that name its papers or a venue, or that describe the papers
    (``identity``, :func:`identity_terms`): "Anvil's main idea?" → "main idea?", "vidur mlsys 2024 -
    whose is it?" → "- whose is it?", "MRM? some hotos'25 memory thing" → "? some thing"."""
    text = q.text
    for m in sorted(q.venues, key=lambda m: m.span, reverse=True):
        text = text[: m.span[0]] + " " + text[m.span[1] :]
    text = re.sub(r"[(\[]\s*[)\]]", " ", text)  # the brackets a venue stood in: "GREEN (nsdi25) - from?"
    # "paper" names what every lookup part is about: it says nothing of which part is asked ("was X a
    # best *paper*?" is no more a lookup than "was X a best?")
    known = q.name_terms | identity | _PAPER_TERMS
    words = [w for w in text.split() if not (set(lexical_terms(w)) and set(lexical_terms(w)) <= known)]
    return " ".join(words)


_PAPER_TERMS = frozenset(lexical_terms("paper papers"))


def is_lookup(
    q: Question,
    bm25: BM25Index,
    similarity: Callable[[str], float],
    identity: AbstractSet[str] = frozenset(),
    own: AbstractSet[str] = frozenset(),
    records: Sequence[PaperRecord] = (),
) -> bool:
    """True when ``q`` names papers and asks nothing more about them than the lookup answer gives: no
    specific word (:func:`specific_asked`; ``identity``: the named papers' :func:`identity_terms`), no
    word that the papers' own notes use (``own``: the terms of their chunks; "How was Quokka
    *evaluated*?" asks for its Evaluation notes), and either no other word at all ("What is X?", "X
    paper?") or framing words that ask for a part of the lookup answer — ``similarity(text)``, the
    best cosine of the framing (:func:`framing`) to :data:`LOOKUP_PARTS`, reaches the calibrated
    threshold ("who built X", "X's main idea", "where was X published"; not "what baselines does X
    compare against"), or words that each name a field the named ``records`` have
    (:func:`field_asked`: "what conference was X at", "url for X"; when the question's focus, if it
    has one, is a field: "which venue did X end up at", not "what GPUs did the X authors use"). A
    comparison of named papers is answered for each paper, so it is a lookup on the same terms. A question asking for an amount ("how much faster is X than Y") is no lookup."""
    if not q.papers:
        return False
    if q.asks_quantity:
        return False  # an amount ("how much faster is X than Y", "X speedup?"): no part of the lookup answer gives one
    if any(named_fields(k) and not field_asked(k, records) for k in q.asked if not k.covered(identity)):
        return False  # a field the lookup answer lacks ("the authors of X" when its notes name none)
    fields = [k for k in q.asked if field_asked(k, records)]
    if fields and (not q.focus or any(k in fields for k in q.focus)):
        # fields of the record ("what conference was X at", "link to the X paper", "X's github"), unless
        # the question's focus is something else ("what *GPUs* did the X authors use"): any other word
        # frames the field ("which venue did X *end up* at") or, when their own notes use it, is asked
        # beside it ("X venue + *award*?": :func:`lookup_asked` quotes their sentences holding it)
        return True
    if not asks_no_more(q, bm25, identity, own, records):
        return False
    if not q.asked or q.is_comparison or all(k.covered(_part_terms()) for k in q.asked):
        return True  # "what is X", "X vs Y", "who wrote X", "tl;dr X": nothing asked but a lookup part
    return similarity(framing(q, identity)) >= lookup_threshold()


#: What the notes say about a conference itself, the parts of a venue lookup answer
#: (:func:`is_venue_lookup`, :meth:`~papernotes.retrieval.service.Notes.venue_answer`): each field of
#: :class:`~papernotes.retrieval.summarize.venue_facts.VenueFacts` and the words that describe it.
VENUE_LOOKUP_PARTS = {
    "when": "when the conference is held or takes place: its dates",
    "where": "where the conference is held, hosted or takes place: its city, country and location",
    "homepage": "its homepage or website",
    "acceptance_rate": "its acceptance rate",
}


@lru_cache(maxsize=1)
def _venue_part_terms() -> frozenset[str]:
    """The stemmed terms of :data:`VENUE_LOOKUP_PARTS`' descriptions."""
    return frozenset(t for d in VENUE_LOOKUP_PARTS.values() for t in lexical_terms(d))


def asks_venue_parts(q: Question) -> bool:
    """``q`` names a venue and no paper and asks only in words of the venue lookup's parts ("isca 2026
    accept rate", "where is sosp 2023"): a question about the venue itself, never a list of its papers
    whose records happen to hold those words ("a 100% pass rate" … "accept")."""
    return bool(q.venues) and not q.papers and bool(q.asked) and all(k.covered(_venue_part_terms()) for k in q.asked)


def is_venue_lookup(q: Question, venue: str | None, used: Callable[[Key], bool], known: AbstractSet[str]) -> bool:
    """True when ``q`` asks about the conference ``venue`` itself (the filter the question names, with
    its year) and nothing the notes say of its papers: it names no paper and asks for no list, none of
    its asked words is used by the venue's chunks (``used(key)``: "osdi 2024 *best* paper" asks for
    its awards), and it asks nothing at all ("osdi 2024?", "when is nsdi 2024") or only for parts of the
    venue lookup answer that the notes state (``known``: fields of :data:`VENUE_LOOKUP_PARTS`), in the
    words describing them ("where was sosp 2023 held", "eurosys 2022 location?"; not "who chaired sosp
    2023", nor "mlsys 2025 acceptance rate" when the notes give none). Such a question is answered from
    the venue's facts."""
    if not venue or q.papers or q.is_list or not known:
        return False
    # a word of a part's own description asks for that part, whatever the papers' chunks say ("isca 2026
    # acceptance *rate*" beside "a 100% pass rate")
    parts = _venue_part_terms()
    if any(used(k) for k in q.asked if not k.covered(parts)):
        return False
    told = frozenset(t for f in known if f in VENUE_LOOKUP_PARTS for t in lexical_terms(VENUE_LOOKUP_PARTS[f]))
    return all(k.covered(told) for k in q.asked)


def asks_no_more(
    q: Question,
    bm25: BM25Index,
    identity: AbstractSet[str] = frozenset(),
    own: AbstractSet[str] = frozenset(),
    records: Sequence[PaperRecord] = (),
) -> bool:
    """``q`` names papers and asks, beyond the words describing them (``identity``) and those naming a
    field the named ``records`` have (:func:`field_asked`), only in framing words that their own notes
    do not use (the first condition of :func:`is_lookup`)."""
    if not q.papers:
        return False
    # a word of a lookup part's own description ("who *wrote* X", "where did X *appear*") asks for that
    # part, however often the notes use it
    told = identity | _part_terms()
    rest = [k for k in q.asked if not field_asked(k, records)]
    if specific_asked(q, bm25, told, rest):
        return False
    return q.is_comparison or not any(k.covered(own) and not k.covered(told) for k in rest)


def lookup_asked(q: Question, records: Sequence[PaperRecord], own: AbstractSet[str] = frozenset()) -> list[Key]:
    """What a lookup is asked beyond the parts its answer gives: the asked words of the named ``records``'
    own descriptions (:func:`identity_terms`) that are no lookup part's words and name no field of the
    records ("blitzscale *multicast*, which link does it *prefer* *first*"), and, beside a field asked,
    the words their own notes use (``own``: "X venue + *award*?"); the answer quotes the paper's
    sentences holding them rather than its opening lines. Empty for "what is X", "who built X", "X's
    main idea", "url for X"."""
    identity = identity_terms(records)
    fields = any(field_asked(k, records) for k in q.asked)
    return [
        k
        for k in q.asked
        if (k.covered(identity) or (fields and k.covered(own)))
        and not k.covered(_part_terms())
        and not field_asked(k, records)
    ]


@lru_cache(maxsize=1)
def _part_terms() -> frozenset[str]:
    """The stemmed terms of :data:`LOOKUP_PARTS`: the words that describe what a lookup answer gives."""
    return frozenset(lexical_terms(" ".join(LOOKUP_PARTS)))


def lookup_threshold() -> float:
    """The calibrated framing-similarity threshold of :func:`is_lookup` (``lookup_at`` of
    :func:`calibration`), or :data:`LOOKUP_AT_DEFAULT` before calibration."""
    return float(calibration().get("lookup_at", LOOKUP_AT_DEFAULT))


def question_features(
    result: SearchResult,
    sentences: list[Sentence],
    bm25: BM25Index,
    own: AbstractSet[str] = frozenset(),
    amount: float = 0.0,
    own_chunks: Sequence[AbstractSet[str]] = (),
) -> dict[str, float]:
    """Features of a question against its evidence (see the module docstring); ``own``: the stemmed
    terms of the named papers' chunks (``own_chunks``: of each of them, where a word of several terms
    must stand together); ``amount``: how much the question asks for an amount (0–1,
    :func:`~papernotes.retrieval.evidence.amount_asked`)."""
    q = result.question
    idf = bm25.idf
    # a versioned name ("GPT-2", "T5") is covered by its joined form only, as for ``oov`` below: its
    # parts ("gpt", "2") are everywhere
    # the comparing words are the question's form ("X *vs* Y"), as for what is asked
    keys = [as_written(k) for k in q.keys if not k.covered(comparing_terms())] if q else []
    terms: list[Key] | list[str] = keys if q else lexical_terms(result.query)
    top = result.hits[:3]
    per_chunk = [set(lexical_terms(stated(h.text, h))) for h in result.hits]
    cov_best = max((coverage(terms, ts, idf) for ts in per_chunk), default=0.0)
    if q and len(q.papers) >= 2 and q.is_comparison:
        cov_best = max(cov_best, _sides_coverage(q, keys, per_chunk, idf))
    union: set[str] = set().union(*per_chunk[:3]) if per_chunk else set()
    if q and q.papers:
        # what is asked, found in the named papers' own chunks (all of them for a comparison: "X vs Y
        # throughput?" is answered when their notes give it), a word of several terms in one chunk; a named
        # paper can also be context for another one ("… beats torch.compile on KernelBench"): then one
        # retrieved passage holds the names (every one: "lora learning rate for gpt-3" is not answered by
        # a third paper's passage naming GPT-3 beside its own learning rate) and what is asked together
        naming = [ts for ts in per_chunk if names_a_paper(q, ts, every=True)]
        in_context = max((asked_coverage(q, bm25, ts) for ts in naming), default=0.0)
        asked_cov = max(asked_coverage(q, bm25, own, own_chunks), in_context)
        focus_cov = max([_focus_coverage(q, bm25, own), *(_focus_coverage(q, bm25, ts) for ts in naming)])
    else:
        asked_cov = cov_best
        # no named paper, no notes of its own to look in (the best chunk's words were tried: the fit gave
        # them a negative weight, 2026-12-02)
        focus_cov = 1.0
    # words absent from the notes: a name that is not there says the notes do not cover the question; an
    # absent common English word ("wrote", "gist") says nothing
    # a versioned name ("GPT-2", "Llama-3.1") is in the notes only as itself (its joined form): its parts
    # ("gpt", "2") are everywhere
    # (a word naming a paper of the catalog the question names is known, however typed: "v3" for Llama 3)
    named_like = [
        as_written(k)
        for k in (q.keys if q else [])
        if not english_word(k.word) and not (q and q.name_terms and k.terms <= q.name_terms)
    ]
    vocab = {t for k in named_like for t in k.terms if bm25.has(t)}
    oov = 1.0 - coverage(named_like, vocab, idf) if named_like else 0.0
    # evidence beyond the lead line: a title or affiliations line only repeats what names the paper
    of_papers = [s for s in sentences if s.named or not (q and q.papers)]
    of_subject = [s for s in of_papers if not s.is_title]
    cos = [s.cos for s in of_subject if s.cos is not None]
    # ... except a title stating an amount beside what is asked ("ByteScale: … on 16384 GPUs"): a fact
    # about the paper, not only its name; its scale, not the gain a factor asked for measures
    factor = bool(q and q.asks_factor)
    stating = [s for s in of_papers if not s.is_title or (s.near and not factor)]
    best_asked = max((s.asked for s in stating), default=0.0)
    with_number = max((s.asked for s in stating if s.number), default=0.0)
    beside = max((s.asked for s in stating if s.near), default=0.0)
    if q and q.papers and not q.asked and not q.is_comparison:  # "X speedup?": only the amount of one paper
        best_asked, with_number = 1.0, float(any(s.number for s in of_subject))
        beside = with_number
    elif q and q.is_comparison and not q.asked:  # "X speedup vs Y?": X's amount stated against Y
        best_asked, with_number = 1.0, float(any(s.number for s in of_subject if _names_another(q, s)))
        beside = with_number
    return {
        "top_dense": max((h.dense for h in top), default=0.0),
        "best_cos": max(cos, default=max((h.dense for h in top), default=0.0)),
        "cov_best": cov_best,
        "cov_union": coverage(terms, union, idf),
        "asked_cov": asked_cov,
        "focus_cov": focus_cov,
        "oov": oov,
        "named": 1.0 if (q and q.papers) else 0.0,
        "compared": 1.0 if (q and q.is_comparison) else 0.0,
        # an amount asked for is answered by a sentence stating one: the asked words' best coverage by
        # such a sentence relative to their best coverage, as far as an amount is asked for
        "quantity_support": amount * (with_number / best_asked if best_asked else 0.0) + (1.0 - amount),
        # ... by a sentence whose number stands beside a word of what is asked ("24 layers")
        "quantity_near": amount * (beside / best_asked if best_asked else 0.0) + (1.0 - amount),
        "venue_missing": 1.0 if result.missing_venue else 0.0,
        "best_sentence": max((s.score for s in of_subject), default=0.0),
    }


def _sides_coverage(
    q: Question, terms: Sequence[Key], per_chunk: Sequence[AbstractSet[str]], idf: Callable[[str], float]
) -> float:
    """``cov_best`` of a comparison, side by side: for each paper it names, the best share of the
    question's terms, the other papers' names aside, that one passage holds; their mean. A comparison is
    answered from each paper's own passages ("spanner vs dynamo consistency model": Spanner's notes on
    its consistency, Dynamo's on its own), so no passage need hold both names."""
    shares = []
    for m in q.papers:
        others = {t for o in q.papers if o is not m for t in lexical_terms(o.name)}
        side = [k for k in terms if not (k.terms and k.terms <= others)]
        shares.append(max((coverage(side, ts, idf) for ts in per_chunk), default=0.0))
    return sum(shares) / len(shares)


def names_a_paper(q: Question, have: AbstractSet[str], every: bool = False) -> bool:
    """True when the stemmed terms ``have`` (a passage's) write the name of a paper the question names
    (of each of them, with ``every``): all of its words ("Gemma 2": ``gemma`` and ``2``; one of them,
    the "2" of any passage, is no name) or the name written as one word (``sarathiserv`` for
    "SarathiServe")."""
    written = (_writes_name(m.name, have) for m in q.papers)
    return all(written) if every and q.papers else any(written)


def _writes_name(name: str, have: AbstractSet[str]) -> bool:
    """The stemmed terms ``have`` write ``name``: all its words, or it as one word."""
    terms = set(lexical_terms(name))
    joined = stem_term("".join(word_parts(normalize(name))))
    parts = terms - {joined}
    return joined in have or bool(parts and parts <= have)


def _names_another(q: Question, s: Sentence) -> bool:
    """True when the sentence ``s`` names a paper of the question other than the one it is about
    ("Up to 17x speedup over PyTorch baselines" in KernelEvolve's notes, for "kernelevolve vs pytorch")."""
    terms = set(lexical_terms(s.text))
    return any(
        s.hit.record not in m.records and (words := set(lexical_terms(m.name))) and words <= terms for m in q.papers
    )


#: A passage of another paper that covers at least this share of what is asked (idf-weighted) ...
DESCRIBED_COVERAGE = 0.75
#: ... while the named paper's own notes cover under this share of it ...
NAMED_COVERAGE = 0.25
#: ... and at least this many words of it that those notes lack: the question describes that paper and
#: names the other as context ("… how much does it beat torch.compile by on the KernelBench levels?").
#: Two words ("gpus", "experiments") describe no paper.
DESCRIBED_MIN_WORDS = 3


def described_paper(q: Question, hits: Sequence[Hit], bm25: BM25Index, own: AbstractSet[str]) -> int | None:
    """The catalog position of the paper a question describes when the paper it names is only context:
    one of the ``hits`` (the top 5 passages) that names the named paper and covers most of what is
    asked (:data:`DESCRIBED_COVERAGE`, :data:`DESCRIBED_MIN_WORDS`) where the named paper's own notes
    (their stemmed terms ``own``) cover little of it (:data:`NAMED_COVERAGE`): "ByteDance built an
    agentic RL system for CUDA kernels … how much does it beat torch.compile by on the three KernelBench
    levels?" is about CUDA Agent, whose notes give KernelBench figures, not about KernelBench. None when
    the question names no paper, or several, or asks for a list, or nothing."""
    if not q.papers or q.is_comparison or q.is_list or not q.asked:
        return None
    if asked_coverage(q, bm25, own) >= NAMED_COVERAGE:
        return None
    best: tuple[float, int] | None = None
    for h in hits[:5]:
        if h.record is None or h.record in q.records:
            continue
        have = set(lexical_terms(stated(h.text, h)))
        if not names_a_paper(q, have):
            continue
        asked = evidence_asked(q, bm25, have)
        new = [k for k in asked if k.covered(have) and not k.covered(own)]
        c = coverage(asked, have, bm25.idf) if asked else 1.0  # asked_coverage, the words read once
        if len(new) >= DESCRIBED_MIN_WORDS and c >= DESCRIBED_COVERAGE and (best is None or c > best[0]):
            best = (c, h.record)
    return best[1] if best else None


def asked_coverage(
    q: Question, bm25: BM25Index, have: AbstractSet[str], passages: Sequence[AbstractSet[str]] = ()
) -> float:
    """idf-weighted share of :func:`evidence_asked` (as judged against ``have``) covered by ``have``;
    1.0 when nothing is asked that a passage could confirm. With ``passages`` (the stemmed terms of each
    passage ``have`` joins), a word is covered only by one passage holding all of it, and the words of
    one phrase of the question (:func:`~papernotes.retrieval.question.phrases`) count where one passage
    holds them together: "learning" in one passage and "rate" in another is half of "learning rate"."""
    asked = evidence_asked(q, bm25, have)
    if not asked:
        return 1.0
    if not passages:
        return coverage(asked, have, bm25.idf)
    # the words of one phrase ("learning rate", typed next to each other) count where one passage holds them
    # together: "learning" in one passage and "rate" in another cover half of it
    total = covered = 0.0
    for run in phrases(q.text, asked):
        weight = sum(key_weight(k, bm25.idf) for k in run)
        total += weight
        covered += weight * max(coverage(run, p, bm25.idf) for p in passages)
    return covered / total if total else 1.0


def _focus_coverage(q: Question, bm25: BM25Index, have: AbstractSet[str]) -> float:
    """Share of the question's focus found in ``have`` (see ``focus_cov`` in the module docstring): a
    word that names nothing (:func:`~papernotes.retrieval.terms.names_a_thing`: "how many *bad* gpus"
    of notes that say "defective") counts only when present; a noun counts either way."""
    focus = [k for k in q.focus if not named_fields(k) and (k.covered(have) or all(map(names_a_thing, k.word.split())))]
    return coverage(focus, have, bm25.idf) if focus else 1.0


def as_written(k: Key) -> Key:
    """``k`` matched only by its joined form when it is a name with a version number (letters and
    digits in several parts, e.g. "GPT-2" → ``gpt2``); other keys unchanged."""
    if len(k.alternatives) > 1 and len(k.alternatives[0]) == 1 and re.search(r"[^\W\d_].*\d|\d.*[^\W\d_]", k.word):
        return Key(k.word, k.alternatives[:1])
    return k


def question_model_name(features: dict[str, float]) -> str:
    """Which question model applies: questions that name a paper and questions that describe one (or a
    topic) are two regimes — for the first, what is asked about the paper decides; for the second, how
    well the best passage matches the description — so each has its own fit."""
    return "question_named" if features.get("named") else "question_unnamed"


def answerability(features: dict[str, float]) -> float:
    """Calibrated probability (0–1) that the notes answer the question."""
    return models()[question_model_name(features)].probability(features)
