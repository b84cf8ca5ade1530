"""Complete list answers from the catalog: every paper that matches the question's venue (or series)
and topic, not only the top-k passages. A topic with alternatives ("reasoning models / test-time
scaling", "… chips or … GPUs", "optical circuit switching (OCS)") is covered by covering any one of
them; an alternative that refers back to another by a pronoun ("… or reuse parts of it") is none.

Candidates are the venue's papers when the question names a venue or series (listed there, or whose
venue it is), the papers of a year when it names a year and no venue ("which 2023 papers …", "before
2022"), else the papers of the chunks that match the topic by keyword or by embedding. Each
candidate gets membership features — how much of the topic its own text covers (title, one-liner,
affiliations, authors, headings it is listed under, its chunks), how much its headings cover, and
its best chunk's cosine similarity to the question, each also relative to the best candidate — and
how selective the topic is (the share of candidates that do *not* cover it as well as the best,
for the candidates that do) — and the list keeps the papers whose membership probability (a logistic regression fitted by
``eval/calibrate.py``, see :mod:`papernotes.retrieval.answerability`) reaches one half. Where the
notes' headings name the whole topic for some candidates (or the heading words the question writes
after "under": "grouped under the RDMA heading"), the notes' own grouping decides instead (the papers
under such a heading, or whose own title or one-liner names the topic), as for conference summaries;
else where some candidates' authors, affiliations or listing pages name it and no title does (a
person or a group), those papers. A question that names a venue (or a year) and no topic lists every paper of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.normalize import CJK_CHARS, normalize, tokens
from papernotes.corpus.venues import split_venue
from papernotes.retrieval.abbreviations import find_abbreviations
from papernotes.retrieval.answerability import Model, as_written, calibration, models, specific_asked
from papernotes.retrieval.filters import Filters, at_venue, names_venue
from papernotes.retrieval.question import ALTERNATIVE_RE, Question, topic_alternatives
from papernotes.retrieval.search import Hit, HybridRetriever, SearchResult
from papernotes.retrieval.terms import Key, coverage, english_word, is_year, lexical_terms, relatives

MEMBERSHIP_FEATURES = ("cov_own", "cov", "head", "dense", "cov_rel", "dense_rel", "selective")
#: Used until eval/calibrate.py has fitted the membership model (hand-set starting values).
_DEFAULT_MEMBERSHIP = Model(
    {"cov_own": 2.0, "cov": 2.0, "head": 2.0, "dense": 3.0, "cov_rel": 3.0, "dense_rel": 2.0, "selective": 2.0}, -6.5
)
#: Coverage counted as naming the whole topic (idf-weighted share, allowing rounding).
FULL = 0.99
#: Papers considered when the question names no venue: those of this many best chunks by keyword and
#: by embedding.
TOPIC_CANDIDATES = 60


@dataclass
class ListItem:
    """A paper of a list answer: catalog position, record, membership probability and the chunk cited
    for it (its bullet on the venue's page when there is one)."""

    record: int
    paper: PaperRecord
    probability: float
    chunk: Hit
    features: dict[str, float]


def membership_model() -> Model:
    """The fitted membership model (or the starting values before the first fit)."""
    return models().get("membership", _DEFAULT_MEMBERSHIP)


def _venue_topics(r: PaperRecord, f: Filters) -> list[str]:
    """The record's topic paths ("Page › heading"); for a list of a venue, those on that venue's own
    pages when it has any: the venue page's grouping is the one that decides membership, not a topic
    page's finer heading that holds only some of the venue's papers."""
    if not (f.venue or f.series):
        return list(r.topics)
    own = [t for t in r.topics if names_venue(t.split(" › ", 1)[0], f)]
    return own or list(r.topics)


def year_of(r: PaperRecord) -> int | None:
    """The paper's year: its own, else its venue's (``"NeurIPS 2023"`` → 2023), else None."""
    return r.year or (split_venue(r.venue)[1] if r.venue else None)


#: A preposition that makes a year a bound ("before 2022", "since 2020", "pre-2020"); closed-class
#: English words. "from 2020" names the year itself.
_YEAR_BOUND_RE = re.compile(
    r"\b(before|until|till|prior\s+to|earlier\s+than|pre|after|since|later\s+than)\s*-?\s*((?:19|20)\d\d)\b"
)


def asked_years(topic: Sequence[Key | str], f: Filters, text: str = "", known: Iterable[int | None] = ()) -> set[int]:
    """The years a list question without a venue restricts its papers to: those of ``known`` (the
    catalog's years) before or after a year the question ``text`` bounds ("published before 2022",
    "since 2020"), else the filters' year, else the years written among its topic words ("which 2023
    papers did i read"); empty when it names a venue (whose year is the venue's)."""
    if f.venue or f.series:
        return set()
    m = _YEAR_BOUND_RE.search(normalize(text)) if text else None
    if m:
        word, year = m.group(1), int(m.group(2))
        if word in ("after", "since") or word.startswith("later"):
            keep = (lambda y: y >= year) if word == "since" else (lambda y: y > year)
        else:
            keep = (lambda y: y <= year) if word in ("until", "till") else (lambda y: y < year)
        return {y for y in known if y is not None and keep(y)}
    if f.year:
        return {f.year}
    return {int(w) for w in (k.word if isinstance(k, Key) else k for k in topic) if is_year(w)}


def _without_years(keys: Sequence[Key | str]) -> list[Key | str]:
    return [k for k in keys if not is_year(k.word if isinstance(k, Key) else k)]


def candidates(
    retriever: HybridRetriever, result: SearchResult, topic: Sequence[Key | str], years: AbstractSet[int] = frozenset()
) -> list[int]:
    """Catalog positions of the papers a list answer chooses from (see the module docstring); with
    ``years`` (:func:`asked_years`), every paper of those years, as for a venue; for a person or group
    (``q.group``, :func:`topic_list`), every paper they are from."""
    f = result.filters
    catalog = retriever.catalog
    group = result.question.group if result.question is not None else frozenset()
    if group and not (f.venue or f.series or years):  # a person's or group's papers: every one they are from
        return [i for i, r in enumerate(catalog) if group <= set(lexical_terms(_people(r)))]
    if f.venue or f.series:
        return [i for i, r in enumerate(catalog) if at_venue(r, f)]
    if years:
        return [i for i, r in enumerate(catalog) if year_of(r) in years]
    out: dict[int, None] = {}
    if topic:
        terms = [t for k in topic for t in (k.terms if isinstance(k, Key) else {k})]
        for pos, _ in retriever.bm25.search(terms, TOPIC_CANDIDATES):
            rec = retriever.papers.chunk_record[pos]
            if rec is not None:
                out.setdefault(rec)
    for h in result.pool[:TOPIC_CANDIDATES]:
        if h.record is not None:
            out.setdefault(h.record)
    return list(out)


def select(
    retriever: HybridRetriever, result: SearchResult, idf: Callable[[str], float]
) -> tuple[list[ListItem], list[ListItem]]:
    """``(members, candidates scored)`` of a list question, members in the notes' order (catalog order)."""
    q = result.question
    topic: Sequence[Key | str] = q.asked if q else lexical_terms(result.query)
    # "reasoning models / test-time scaling": a paper on either alternative is on the topic
    alternatives: list[Sequence[Key | str]] = list(topic_alternatives(q.text, q.asked)) if q else [topic]

    if q:
        alternatives = defined_alternatives(q.text, _referring_alternatives(q.text, alternatives))
    # a year among the topic words ("which 2023 papers …") selects the papers of that year, as a venue does
    bounded = q.text if q else result.query
    years = asked_years(topic, result.filters, bounded, {year_of(r) for r in retriever.catalog})
    bound = _YEAR_BOUND_RE.search(normalize(bounded))
    if years or bound:
        # the year and the word bounding it ("since") are the filter, not the topic
        bound_words = set(bound.group(1).split()) if bound else set()
        topic = [k for k in _without_years(topic) if (k.word if isinstance(k, Key) else k) not in bound_words]
        alternatives = [
            [k for k in _without_years(alt) if (k.word if isinstance(k, Key) else k) not in bound_words]
            for alt in alternatives
        ]
        alternatives = [alt for alt in alternatives if alt] or [topic]

    if q and q.group:  # a person's or group's papers: the name chose the candidates; the rest is the topic
        topic = [k for k in topic if not (isinstance(k, Key) and k.terms <= q.group)]
        alternatives = [[k for k in alt if not (isinstance(k, Key) and k.terms <= q.group)] for alt in alternatives]
        alternatives = [alt for alt in alternatives if alt] or [topic]
    if q and alternatives and all(_absent_word(retriever, q, alt) for alt in alternatives):
        return [], []  # "which osdi 2024 papers use blockchains": no note says "blockchain"

    def cov(have: set[str]) -> float:
        return max(coverage(alt, have, idf) for alt in alternatives) if topic else 1.0

    marked = marked_papers(retriever.catalog, q.text) if q else []
    recs = candidates(retriever, result, topic, years)
    if marked:  # "which papers does the author mark as 'our work'": the records that write the mark
        in_scope = set(recs) if (result.filters.venue or result.filters.series or years or (q and q.group)) else None
        recs = [i for i in marked if in_scope is None or i in in_scope]
    elif q and (result.filters.venue or result.filters.series) and len(alternatives) == 1:
        # the same typed unquoted at a venue (not among alternatives: "outstanding paper (award or
        # honorable mention)" asks for either mark)
        recs = typed_marks(retriever, q, recs) or recs
    if not recs:
        return [], []
    pos_of = {rec: retriever.papers.chunks.get(rec, []) for rec in recs}
    all_pos = sorted({p for ps in pos_of.values() for p in ps})
    vec = _vectors(retriever, [retriever.bm25.ids[p] for p in all_pos])
    qv = np.asarray(result.query_vector, dtype=np.float32) if result.query_vector is not None else None
    f = result.filters
    scored: list[ListItem] = []
    for rec in recs:
        r = retriever.catalog[rec]
        positions = pos_of[rec]
        heads = " ".join(_venue_topics(r, f))
        own = _own_text(r)
        text = " ".join([own, heads] + [retriever.bm25.texts[p] for p in positions])
        sims = [
            float(vec[retriever.bm25.ids[p]] @ qv) for p in positions if qv is not None and retriever.bm25.ids[p] in vec
        ]
        hits = retriever.chunk_hits(positions)
        chunk = _cited_chunk(hits, f) if hits else None
        if chunk is None:
            continue
        feats = {
            "cov_own": cov(set(lexical_terms(own))),
            "cov": cov(set(lexical_terms(text))),
            "head": cov(set(lexical_terms(heads))),
            "dense": max(sims, default=0.0),
        }
        scored.append(ListItem(rec, r, 0.0, chunk, feats))
    best_cov = max((x.features["cov"] for x in scored), default=0.0) or 1.0
    # a topic few candidates cover fully is a keyword that singles papers out ("built on OpenFaaS")
    full = sum(1 for x in scored if x.features["cov"] >= best_cov - 1e-9)
    selective = 1.0 - full / len(scored) if scored else 0.0
    best_dense = max((x.features["dense"] for x in scored), default=0.0) or 1.0
    m = membership_model()
    for x in scored:
        x.features["cov_rel"] = x.features["cov"] / best_cov
        x.features["dense_rel"] = x.features["dense"] / best_dense
        x.features["selective"] = selective if x.features["cov"] >= best_cov - 1e-9 else 0.0
        x.probability = 1.0 if not topic and (f.venue or f.series or years) else m.probability(x.features)
    # where the notes' own headings name the whole topic for some papers, the notes' grouping decides, as
    # it does for summaries: the papers listed under such a heading, or whose own title or one-liner
    # names the topic; else where the topic is a person or group that some papers' authors,
    # affiliations or pages name ("xinyi wan's 2026 papers", "meta's mlsys papers"), the papers whose
    # record or pages name it
    if topic:
        paths = [" ".join(_venue_topics(x.paper, f)) for x in scored]
        grouping = (_under_heading(q.text, alternatives, paths) if q else []) or [alt for alt in alternatives if alt]
        named_by = [_covers(grouping, h, idf) for h in paths]
        if any(h >= FULL for h in named_by):
            for x, h in zip(scored, named_by, strict=True):
                named = h >= FULL or _covers(grouping, _own_text(x.paper), idf) >= FULL
                x.probability = max(x.probability, 1.0) if named else min(x.probability, 0.0)
        else:
            people = [_people(x.paper) for x in scored]
            grouping = _grouping_topic(retriever, q, alternatives, people)
            # a who, not a what: no candidate's title or one-liner names it ("llm" is also a page title)
            what = [
                _covers(grouping, " ".join([x.paper.title, x.paper.system or "", x.paper.summary]), idf) for x in scored
            ]
            if any(_covers(grouping, p, idf) >= FULL for p in people) and all(w < FULL for w in what):
                for x, p in zip(scored, people, strict=True):
                    named = _covers(grouping, p + " " + _own_text(x.paper), idf) >= FULL
                    x.probability = max(x.probability, 1.0) if named else min(x.probability, 0.0)
    if topic:
        _close_groups(scored, [" ".join(_venue_topics(x.paper, f)) for x in scored], alternatives, idf)
    if marked:  # the mark decides; of the marked papers, those the rest of the topic names when it names some
        quoted = {t for p in quoted_phrases(q.text) for t in lexical_terms(p)} if q else set()
        rest = [[k for k in alt if not set(k.terms if isinstance(k, Key) else {k}) <= quoted] for alt in alternatives]
        rest = [alt for alt in rest if alt]

        def on_topic(x: ListItem) -> bool:
            text = _own_text(x.paper) + " " + " ".join(_venue_topics(x.paper, f))
            return bool(rest) and max(coverage(alt, set(lexical_terms(text)), idf) for alt in rest) >= FULL

        topical = [on_topic(x) for x in scored]
        for x, t in zip(scored, topical, strict=True):
            x.probability = 1.0 if t or not any(topical) else 0.0
    if q and q.group:  # a person's or group's papers: by who they are from, not what they mention; with
        # a topic beside the name ("what did sjtu publish on serving"), those of theirs the model keeps
        for x in scored:
            theirs = q.group <= set(lexical_terms(_people(x.paper)))
            x.probability = (x.probability if topic else 1.0) if theirs else 0.0
    members = [x for x in scored if x.probability >= 0.5]
    return members, scored


#: A heading's papers are all members when at least this share of them (and :data:`GROUP_MIN` or more)
#: are already (see :func:`_close_groups`).
GROUP_SHARE = 2 / 3
GROUP_MIN = 3


def _close_groups(
    scored: list[ListItem], heads: list[str], alternatives: list[Sequence[Key | str]], idf: Callable[[str], float]
) -> None:
    """The notes' own grouping completes a list: under a heading that names part of the topic, where at
    least :data:`GROUP_SHARE` of the candidates (and :data:`GROUP_MIN` or more) are members, the
    others are members too ("Wafer": "FACE: … Co-Exploration on Wafer" beside four "… on Wafer-scale
    Chips" for "papers on wafer-scale chips"). ``heads``: each candidate's heading path."""
    groups: dict[str, list[ListItem]] = {}
    for x, h in zip(scored, heads, strict=True):
        if h:
            groups.setdefault(h, []).append(x)
    for h, xs in groups.items():
        inside = sum(1 for x in xs if x.probability >= 0.5)
        if inside >= GROUP_MIN and inside >= GROUP_SHARE * len(xs) and _names_part(alternatives, h):
            for x in xs:
                x.probability = max(x.probability, 0.5)


def _absent_word(retriever: HybridRetriever, q: Question, alternative: Sequence[Key | str]) -> bool:
    """True when a word of the topic ``alternative`` that is a name or a term of art, not a common
    English word ("blockchain", "phantora"), is in no note at all, in any of its forms (its stems, their
    derivational relatives, a spelling the notes use: :class:`~papernotes.retrieval.terms.Key`): no
    paper of the notes can be about it. An absent common English word may only frame the question
    ("papers *grouped* under the RDMA heading"), and words of another language than the notes
    (``q.unread``) say nothing either way."""
    unread = {normalize(w) for w in q.unread}
    return any(
        isinstance(k, Key)
        and k.word not in unread
        and not english_word(k.word)
        and not _prefixed_english(k.word)
        # a year is a filter, read elsewhere ("pre-2032"); a name with a version ("gpt-4") is in the notes
        # only as itself, its joined form (its parts, "gpt" and "4", are everywhere)
        and not any(is_year(run) for run in re.findall(r"\d+", k.word))
        and any(ch.isalpha() for ch in k.word)
        and not any(
            all(retriever.bm25.has(t) or any(map(retriever.bm25.has, relatives(t))) for t in alt)
            for alt in as_written(k).alternatives
        )
        for k in alternative
    )


#: English derivational prefixes (a closed class): a word made of one and an English word is English
#: ("coauthor", "re-ranked", "multitenant" when "tenant" is).
_PREFIX_RE = re.compile(
    r"^(?:co|re|pre|un|non|sub|inter|over|under|multi|anti|de|dis|mis|out|post|semi|self)-?(?=\w{3})"
)


def _prefixed_english(word: str) -> bool:
    """``word`` is an English derivational prefix (:data:`_PREFIX_RE`) and an English word."""
    m = _PREFIX_RE.match(word)
    return m is not None and english_word(word[m.end() :])


def defined_alternatives(text: str, alternatives: list[Sequence[Key | str]]) -> list[Sequence[Key | str]]:
    """The topic's ``alternatives`` with an abbreviation the question defines ("optical circuit switching
    (OCS)", found as in the notes: :func:`~papernotes.retrieval.abbreviations.find_abbreviations`) read
    as two ways of saying the same thing: an alternative holding both forms becomes one with the long
    form and one with the short form, so a paper that writes either covers it."""
    defined = find_abbreviations([text]).long_of
    out: list[Sequence[Key | str]] = []
    for alt in alternatives:
        keys = [k for k in alt if isinstance(k, Key)]
        for short, long in defined.items():
            shorts = [k for k in keys if short in k.terms]
            longs = [k for k in keys if k.terms & set(long) and k not in shorts]
            if shorts and longs:
                out += [[k for k in alt if k not in shorts], [k for k in alt if k not in longs]]
                break
        else:
            out.append(alt)
    return out


#: Pronouns by which an alternative of a topic refers back to the one before it ("built on LightLLM or
#: reuse parts of *it*"); closed-class English words.
_REFERRING = frozenset({"it", "its", "them", "their", "they"})


def _referring_alternatives(text: str, alternatives: list[Sequence[Key | str]]) -> list[Sequence[Key | str]]:
    """The topic's ``alternatives`` without those written in a part of the question that refers back to
    an earlier alternative by a pronoun ("built on LightLLM or *reuse parts of it*", "use X, or *build on
    it*"): such a part says something of the first alternative, it is no topic of its own."""
    parts = [set(tokens(p, compounds=False)) for p in ALTERNATIVE_RE.split(normalize(text))]
    referring = [p for p in parts[1:] if p & _REFERRING]
    if not referring or len(alternatives) < 2:
        return alternatives

    def refers(alt: Sequence[Key | str]) -> bool:
        own = [k for k in alt if isinstance(k, Key) and not all(k in a for a in alternatives)]
        return bool(own) and all(any(set(tokens(k.word, compounds=False)) <= p for p in referring) for k in own)

    kept = [alt for alt in alternatives if not refers(alt)]
    return kept or alternatives


#: A phrase typed in quotes: straight or curly, single or double, of one to :data:`MAX_MARK_WORDS` words.
_QUOTED_RE = re.compile(r"(?<!\w)['\"‘“「『]([^'\"‘’“”「」『』]+?)['\"’”」』](?!\w)")
MAX_MARK_WORDS = 6


def _phrase(text: str) -> str:
    """``text`` as normalized words joined by single spaces, padded with a space at each end (a phrase
    is found as whole words: " our work " in " our work decomposes … ")."""
    return f" {' '.join(tokens(normalize(text), compounds=False))} "


def quoted_phrases(text: str) -> list[str]:
    """The phrases a question types in quotes ("mark as 'our work'", “must read”), as :func:`_phrase`
    forms; an apostrophe inside a word ("author's") opens no quote."""
    return [
        _phrase(m.group(1))
        for m in _QUOTED_RE.finditer(text)
        if 0 < len(tokens(normalize(m.group(1)), compounds=False)) <= MAX_MARK_WORDS
    ]


def marked_papers(catalog: Sequence[PaperRecord], text: str) -> list[int]:
    """Catalog positions of the papers whose own record (:func:`_own_text`: title, one-liner, …) writes
    a phrase the question ``text`` quotes: a mark the notes put on some papers ("**Our work!**", "must
    read"). Empty when the question quotes nothing, only a heading's words (a group of the notes, read
    as the topic), or what no record writes (then the quote is the topic's words, read as usual)."""
    phrases = quoted_phrases(text)
    if phrases:  # a heading's words in quotes ("hotos25 'tiered storage' bucket") name its group, no mark
        headings = {_phrase(t) for r in catalog for t in r.topics}
        phrases = [p for p in phrases if not any(p in h for h in headings)]
    if not phrases:
        return []
    return [i for i, r in enumerate(catalog) if any(p in _phrase(_own_text(r)) for p in phrases)]


def _own_text(r: PaperRecord) -> str:
    """What a paper's own record says: title, system name, one-liner, affiliations, authors, tags."""
    return " ".join(
        [r.title, r.system or "", r.summary, " ".join(r.affiliations), " ".join(r.authors), " ".join(r.tags)]
    )


def _people_names(r: PaperRecord) -> list[str]:
    """Who a paper is from: its authors, affiliations and the titles of the pages that list it (a
    researcher's or a lab's page)."""
    return r.authors + r.affiliations + [t.split(" › ", 1)[0] for t in r.topics]


def _people(r: PaperRecord) -> str:
    """:func:`_people_names` as one text."""
    return " ".join(_people_names(r))


#: "papers grouped *under* the RDMA heading", "the papers the notes file *under* LLM Inference": what
#: follows the preposition, up to the end of the clause, names the notes' grouping.
_UNDER_RE = re.compile(r"\bunder\s+([^?.!,;:]+)")


def _under_heading(text: str, alternatives: list[Sequence[Key | str]], paths: list[str]) -> list[Sequence[Key | str]]:
    """The topic as the notes' headings are matched against it when the question says which grouping
    of the notes it means ("grouped *under* the RDMA heading in the notes"): the topic's keys written
    after "under" that the candidates' heading paths (``paths``) use; the question's other words
    frame it ("grouped", "heading", "file"). Empty when the question says no such thing."""
    m = _UNDER_RE.search(normalize(text))
    if not m:
        return []
    span = set(tokens(m.group(1), compounds=False))
    vocab = {t for p in paths for t in lexical_terms(p)}
    keys = {k for alt in alternatives for k in alt if isinstance(k, Key)}
    named = [k for k in keys if set(tokens(k.word, compounds=False)) <= span and k.covered(vocab)]
    return [named] if named else []


def _names_part(alternatives: list[Sequence[Key | str]], text: str) -> bool:
    """``text`` holds a term of the topic, or of a part of one of its words ("Wafer" for "wafer-scale")."""
    have = set(lexical_terms(text))
    for alt in alternatives:
        for k in alt:
            terms = {k} if isinstance(k, str) else {t for a in k.alternatives for t in a}
            if terms & have:
                return True
    return False


def _covers(alternatives: list[Sequence[Key | str]], text: str, idf: Callable[[str], float]) -> float:
    """The best coverage of any of the topic's ``alternatives`` by ``text`` (0 when there is none)."""
    have = set(lexical_terms(text))
    return max((coverage(alt, have, idf) for alt in alternatives), default=0.0)


def _grouping_topic(
    retriever: HybridRetriever, q: Question | None, alternatives: list[Sequence[Key | str]], texts: list[str]
) -> list[Sequence[Key | str]]:
    """The topic (its alternatives) that who the candidates are from (``texts``: their authors,
    affiliations, pages) is matched against: the question's topic without the words that only frame
    the question (:func:`specific_asked`: "what did xinyi wan *put* out in 2026?") that are in none of
    the ``texts`` (one that is is part of the topic: a surname that is also an English word). An
    alternative made only of such words stays whole. Empty when there is no topic."""
    if q is None:
        return [alt for alt in alternatives if alt]
    spec = {k.word for k in specific_asked(q, retriever.bm25)}
    vocab = {t for text in texts for t in lexical_terms(text)}

    def framing(k: Key | str) -> bool:
        return isinstance(k, Key) and k.word not in spec and not k.covered(vocab)

    # an alternative made only of such words stays whole: what it is, is the question's topic too
    return [[k for k in alt if not framing(k)] or list(alt) for alt in alternatives if alt]


def _cited_chunk(hits: list[Hit], f: Filters) -> Hit | None:
    """The chunk to cite for a paper: its bullet on the venue's own page, else any listing bullet,
    else its first chunk."""
    for h in hits:
        page = str(h.get("page_title") or "")
        if (f.venue and page.lower() == f.venue.lower()) or (
            f.series and page.lower().startswith(f.series.lower() + " ")
        ):
            return h
    entries = [h for h in hits if h.get("kind") == "paper_entry"]
    return (entries or hits)[0] if hits else None


def _vectors(retriever: HybridRetriever, ids: list[str]) -> dict[str, np.ndarray]:
    if not ids:
        return {}
    if retriever.vectors is not None:  # the index's vectors in memory (chunk_vectors.py)
        pos = retriever.positions
        return {cid: retriever.vectors[pos[cid]] for cid in ids if cid in pos}
    got = retriever.store.get(ids=ids, include=["embeddings"])
    return {cid: np.asarray(v, dtype=np.float32) for cid, v in zip(got["ids"], got["embeddings"], strict=True)}


def heading_list(retriever: HybridRetriever, result: SearchResult, idf: Callable[[str], float]) -> bool:
    """True when a question that names a venue but asks no list words still asks for a list: what it
    asks is a heading of that venue's page under which two or more papers are listed ("hotos25
    'tiered storage' bucket - what's in it"), and nothing more ("the acceptance rate of OSDI 2026's
    operational systems track" asks about the track, not for its papers)."""
    q = result.question
    f = result.filters
    if q is None or q.papers or not q.asked or not (f.venue or f.series):
        return False
    heads: dict[str, int] = {}
    for r in retriever.catalog:
        if not at_venue(r, f):
            continue
        for t in r.topics:
            parts = t.split(" › ")[1:]
            for i in range(len(parts)):
                key = " › ".join(parts[: i + 1])
                heads[key] = heads.get(key, 0) + 1
    asked = {t for k in q.asked for t in k.terms}  # every heading word must be in the question
    specific = specific_asked(q, retriever.bm25)  # and the heading must be all it asks about
    for head, n in heads.items():
        words = lexical_terms(head.split(" › ")[-1])
        if n >= 2 and words and coverage(words, asked, idf) >= 0.99 and coverage(specific, set(words), idf) >= 0.99:
            return True
    return False


#: A person or group named in full asks for their papers when the name is most of what the question
#: asks (idf-weighted: "what did microsoft *publish*", "what has xinwei fu *worked on*"; :func:`topic_list`).
PEOPLE_SHARE = 0.5


#: What a question naming a person or group asks when it asks for their papers (:func:`topic_list`):
#: its framing, the question without the name (:func:`group_framing`), is compared with these under the
#: embedder.
PEOPLE_LIST_PARTS = (
    "the papers they published, built, put out, wrote or worked on",
    "their research: papers, systems and publications",
)

#: Cosine similarity (embedder, unit vectors) of a question's framing to :data:`PEOPLE_LIST_PARTS` at or
#: above which a question naming a person or group asks for their papers; set by ``eval/calibrate.py``
#: on the fit split of ``eval/group_framings.jsonl`` (``group_at`` in ``calibration.json``), this value
#: until then.
GROUP_AT_DEFAULT = 0.25


def group_threshold() -> float:
    """The calibrated framing-similarity threshold of a person's or group's papers (``group_at`` of
    :func:`~papernotes.retrieval.answerability.calibration`), or :data:`GROUP_AT_DEFAULT`."""
    return float(calibration().get("group_at", GROUP_AT_DEFAULT))


#: A word of a question as typed, a run of CJK characters apart ("列出UC Berkeley发表的论文").
_TYPED_WORD_RE = re.compile(f"[{CJK_CHARS}]+|[^\\s{CJK_CHARS}]+")


#: A question about a person or group themselves, not their papers: opened by an interrogative that asks
#: for a person, place, time or reason, or "how" with an adjective ("how old", "how big"; not "how many
#: papers …", a count) — English closed-class words.
_ABOUT_THEM_RE = re.compile(r"^\W*(?:who|whom|whose|where|when|why)\b|^\W*how\s+(?!many\b|much\b)\w+", re.IGNORECASE)


@lru_cache(maxsize=1)
def _people_part_terms() -> frozenset[str]:
    """The stemmed terms of :data:`PEOPLE_LIST_PARTS`: the words that describe a person's papers."""
    return frozenset(lexical_terms(" ".join(PEOPLE_LIST_PARTS)))


def group_framing(text: str, name: AbstractSet[str]) -> str:
    """``text`` (a question) without the words that are parts of ``name`` (stemmed terms of a person's
    or group's name): "what did microsoft's researchers publish" → "what did researchers publish",
    "列出UC Berkeley发表的论文" → "列出 发表的论文"."""
    words = _TYPED_WORD_RE.findall(text)
    return " ".join(w for w in words if not ((t := set(lexical_terms(w))) and t <= name))


def topic_list(
    retriever: HybridRetriever,
    result: SearchResult,
    idf: Callable[[str], float],
    similarity: Callable[[str, Sequence[str]], float] | None = None,
) -> bool:
    """True when a question that names a venue or a year, no paper and no amount asks, in its specific
    words (:func:`~papernotes.retrieval.answerability.specific_asked`), for a topic or a group that papers
    of that venue are about or from — their own record (title, system name, one-line summary,
    affiliations, authors, tags) holds every one of those words ("What did FAST 2025 publish about KV
    cache?", "sjtu stuff at sosp 25?") — or, with a year and no venue, for a person or group whose
    papers of that year are in the notes (their authors, affiliations or the titles of the pages that
    list them hold those words: "what did xinyi wan put out in 2026?"), or, with neither, for a person or
    group that the question names in full as one of the papers' authors or affiliations or as the title
    of a page listing them ("what did xinyi wan publish?", "anything from rice university?"; not
    "what is llm" for the affiliation "Xiaomi LLM Core"): it asks for those
    papers. An attribute of the venue ("osdi 2024 acceptance rate") is in no paper's record. A name the
    notes give a person or group counts even when it is also a common English word ("what did amazon
    publish"), and words that describe their papers (:data:`PEOPLE_LIST_PARTS`: "research", "papers")
    are no topic beside it. A question naming a person or group that also asks in words the notes
    hardly use (common English words
    :func:`~papernotes.retrieval.answerability.specific_asked` sets aside) asks for their papers only when
    those words do — ``similarity(framing)``, the best cosine of the question without the name
    (:func:`group_framing`) to :data:`PEOPLE_LIST_PARTS`, reaches the threshold :func:`group_threshold`,
    calibrated on ``eval/group_framings.jsonl``: "what did microsoft *publish*", not "whats nvidia *stock
    price* today" or "is google *hiring interns*"; those words then frame the question and are removed
    from ``q.asked``, so the list is of the group's papers, not of papers on "publish"."""
    q = result.question
    f = result.filters
    if q is None or q.papers or q.asks_quantity:
        return False
    specific = specific_asked(q, retriever.bm25)
    years = asked_years(specific, f, q.text, {year_of(r) for r in retriever.catalog})
    specific = [k for k in specific if not is_year(k.word)]
    if not (f.venue or f.series or years):
        # no venue and no year: a person or group named alone ("what did xinyi wan publish?", "anything
        # from ut austin?") asks for their papers, by the people the records name
        typed = set(lexical_terms(q.text))  # as typed: "llm" does not name the page "Large Language Model (LLM)"

        def named_people(r: PaperRecord) -> set[str] | None:  # an author, affiliation or listing page named in full
            for who in _people_names(r):
                terms = set(lexical_terms(who))
                if not terms or not terms <= typed:
                    continue
                # a name the notes give a person or group is specific even when it is also a common
                # English word the notes rarely write ("what did amazon publish"); words that describe
                # their papers ("microsoft's research", "sjtu papers") are no topic beside the name
                named = [k for k in specific if not k.covered(_people_part_terms())]
                named += [k for k in q.asked if k not in named and k.terms <= terms]
                if named and coverage(named, terms, idf) >= PEOPLE_SHARE:
                    return terms
            return None

        name = next((t for r in retriever.catalog if (t := named_people(r)) is not None), None)
        if name is None:
            return False
        if not _asks_for_their_papers(q, specific, name, similarity):
            return False
        # the words beside the name frame the question ("what did amazon *publish*"): no topic of the list
        q.asked = [k for k in q.asked if k.terms <= name or (k in specific and not k.covered(_people_part_terms()))]
        q.group = frozenset(name)
        return True
    pairs = _asked_pairs(q)
    if not specific and not pairs:
        return False
    for r in retriever.catalog:
        if f.venue or f.series:
            if not at_venue(r, f):
                continue
            own = _own_text(r)
            # common English words the notes rarely use are a topic when papers' records write them as
            # typed, side by side: a mark the notes put on them ("isca 2025 *industry track* stuff")
            phrase = _phrase(own) if pairs else ""
            written = {w for pair in pairs if pair in phrase for w in pair.split()}
            judged = specific + [k for k in q.asked if k not in specific and k.word in written]
            if judged and coverage(judged, set(lexical_terms(own)), idf) >= FULL:
                return True
        elif year_of(r) in years and coverage(specific, set(lexical_terms(_people(r))), idf) >= FULL:
            # "what did xinyi wan put out in 2026", not "google's revenue in 2024": the words of the names
            # typed in full are the name, the others frame the question
            typed = set(lexical_terms(q.text))
            name = {t for who in _people_names(r) if (ts := set(lexical_terms(who))) <= typed for t in ts}
            return _asks_for_their_papers(q, specific, name | {t for k in specific for t in k.terms}, similarity)
    return False


#: Most words between two asked words typed as one phrase (:func:`_asked_pairs`: "best *paper* nominee").
PAIR_GAP = 2


def _asked_pairs(q: Question) -> list[str]:
    """Two asked words the question types side by side ("industry track") or with at most
    :data:`PAIR_GAP` other words between them ("best paper nominee"), each as the typed phrase from one
    to the other in :func:`_phrase` form."""
    asked = {k.word for k in q.asked}
    words = tokens(normalize(q.text), compounds=False)
    at = [i for i, w in enumerate(words) if w in asked]
    return [_phrase(" ".join(words[i : j + 1])) for i, j in zip(at, at[1:], strict=False) if j - i <= PAIR_GAP + 1]


def typed_marks(retriever: HybridRetriever, q: Question, recs: Sequence[int]) -> list[int]:
    """Of the catalog positions ``recs`` (a venue's papers), those whose own record writes every mark the
    question types unquoted (:func:`_asked_pairs` of common English words the notes rarely use, written
    by some of ``recs``): "mlsys 2025 outstanding paper award" is FlashInfer's "Outstanding Paper Award",
    not the "Outstanding Paper Honorable Mention"s beside it; a heading's words are its group's name, no
    mark. Empty when the question types no such mark."""
    specific = {k.word for k in specific_asked(q, retriever.bm25)}
    own = {i: _phrase(_own_text(retriever.catalog[i])) for i in recs}
    # a heading's words name its group, no mark ("hotos 2025 tiered storage papers"), as in quotes
    headings = {_phrase(t) for i in recs for t in retriever.catalog[i].topics}
    spans = [p for p in _asked_pairs(q) if not set(p.split()) & specific and not any(p in h for h in headings)]
    written = [p for p in spans if any(p in text for text in own.values())]
    return [i for i in recs if all(p in own[i] for p in written)] if written else []


def _asks_for_their_papers(
    q: Question,
    specific: Sequence[Key],
    name: AbstractSet[str],
    similarity: Callable[[str, Sequence[str]], float] | None,
) -> bool:
    """Whether a question naming a person or group (``name``: its stemmed terms) asks for their papers:
    not when it asks who, where, when or why, or how-adjective, of them (:data:`_ABOUT_THEM_RE`);
    when it asks in words the notes hardly use (not ``specific``) besides words of
    :data:`PEOPLE_LIST_PARTS`, when its framing (:func:`group_framing`) is that close to those parts
    (:func:`group_threshold`); else yes ("xinwei fu?", "ada quill's work")."""
    framed = " ".join(w for w in group_framing(q.text, name).split() if not is_year(w.strip("?.,!;:'’")))
    if _ABOUT_THEM_RE.match(framed):
        return False
    beyond = [k for k in q.asked if k not in specific and not k.terms <= name and not is_year(k.word)]
    judged = bool(beyond) and not set(lexical_terms(framed)) <= _people_part_terms()
    return not (judged and similarity is not None and similarity(framed, PEOPLE_LIST_PARTS) < group_threshold())
