"""Complete list answers from the catalog: every paper that matches the question's venue (or series)
and topic, not only the top-k passages. A topic with alternatives ("reasoning models / test-time
scaling", "… chips or … GPUs") is covered by covering any one of them.

Candidates are the venue's papers when the question names a venue or series (listed there, or whose
venue it is), else the papers of the chunks that match the topic by keyword or by embedding. Each
candidate gets membership features — how much of the topic its own text covers (title, one-liner,
affiliations, authors, headings it is listed under, its chunks), how much its headings cover, and
its best chunk's cosine similarity to the question, each also relative to the best candidate — and
how selective the topic is (the share of candidates that do *not* cover it as well as the best,
for the candidates that do) — and the list keeps the papers whose membership probability (a logistic regression fitted by
``eval/calibrate.py``, see :mod:`papernotes.retrieval.answerability`) reaches one half. Where the
notes' headings name the whole topic for some candidates, the notes' own grouping decides instead (the
papers under such a heading, or whose own title or one-liner names the topic), as for conference
summaries. A question that names a venue and no topic lists every paper of the venue.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.venues import split_venue
from papernotes.retrieval.answerability import Model, models, specific_asked
from papernotes.retrieval.filters import Filters
from papernotes.retrieval.question import topic_alternatives
from papernotes.retrieval.search import Hit, HybridRetriever, SearchResult
from papernotes.retrieval.terms import Key, coverage, lexical_terms

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


def _names_venue(v: str, f: Filters) -> bool:
    """True when ``v`` (a venue, or a topic path's page title) is the filters' venue or of its series."""
    if f.venue and v.lower() == f.venue.lower():
        return True
    return bool(f.series and split_venue(v)[1] and split_venue(v)[0].lower() == f.series.lower())


def _at_venue(r: PaperRecord, f: Filters) -> bool:
    return any(_names_venue(v, f) for v in [r.venue or ""] + [t.split(" › ", 1)[0] for t in r.topics])


def _venue_topics(r: PaperRecord, f: Filters) -> list[str]:
    """The record's topic paths ("Page › heading"); for a list of a venue, those on that venue's own
    pages when it has any: the venue page's grouping is the one that decides membership, not a topic
    page's finer heading that holds only some of the venue's papers."""
    if not (f.venue or f.series):
        return list(r.topics)
    own = [t for t in r.topics if _names_venue(t.split(" › ", 1)[0], f)]
    return own or list(r.topics)


def candidates(retriever: HybridRetriever, result: SearchResult, topic: Sequence[Key | str]) -> list[int]:
    """Catalog positions of the papers a list answer chooses from (see the module docstring)."""
    f = result.filters
    catalog = retriever.catalog
    if f.venue or f.series:
        return [i for i, r in enumerate(catalog) if _at_venue(r, f)]
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

    def cov(have: set[str]) -> float:
        return max(coverage(alt, have, idf) for alt in alternatives) if topic else 1.0

    recs = candidates(retriever, result, topic)
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
        own = " ".join(
            [r.title, r.system or "", r.summary, " ".join(r.affiliations), " ".join(r.authors), " ".join(r.tags)]
        )
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
        x.probability = 1.0 if not topic and (f.venue or f.series) else m.probability(x.features)
    # where the notes' own headings name the whole topic for some papers, the notes' grouping decides, as
    # it does for summaries: the papers listed under such a heading, or whose own title or one-liner
    # names the topic
    if topic and any(x.features["head"] >= FULL for x in scored):
        for x in scored:
            named = x.features["head"] >= FULL or x.features["cov_own"] >= FULL
            x.probability = max(x.probability, 1.0) if named else min(x.probability, 0.0)
    members = [x for x in scored if x.probability >= 0.5]
    return members, scored


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
        if not _at_venue(r, f):
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


def topic_list(retriever: HybridRetriever, result: SearchResult, idf: Callable[[str], float]) -> bool:
    """True when a question that names a venue, no paper and no amount asks, in its specific words
    (:func:`~papernotes.retrieval.answerability.specific_asked`), for a topic that papers of that venue
    are about — their own title, system name or one-line summary holds every one of those words ("What
    did FAST 2025 publish about KV cache?"): it asks for those papers. An attribute of the venue
    ("osdi 2024 acceptance rate") is in no paper's title."""
    q = result.question
    f = result.filters
    if q is None or q.papers or q.asks_quantity or not (f.venue or f.series):
        return False
    specific = specific_asked(q, retriever.bm25)
    if not specific:
        return False
    for r in retriever.catalog:
        if _at_venue(r, f):
            own = set(lexical_terms(" ".join([r.title, r.system or "", r.summary])))
            if coverage(specific, own, idf) >= FULL:
                return True
    return False
