"""Answers with citations: the refusal decision, the extractive answerer (offline default), and the
Answer object rendered by the CLI and the bot (``ask --json`` shape)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.papers import looks_like_affiliation, parse_title
from papernotes.corpus.venues import find_venues
from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.terms import lexical_terms, question_terms

if TYPE_CHECKING:
    from papernotes.retrieval.search import Hit, SearchResult

#: Attribute cues: a question asking for this attribute needs evidence matching the pattern.
#: (cue regex on the question, evidence regex on the top chunks' text)
ATTRIBUTE_CUES: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(r"acceptance rate", re.I), re.compile(r"acceptance rate", re.I)),
    (
        re.compile(r"\bauthors?\b|\bwho wrote\b", re.I),
        re.compile(r"\bauthors?\s*:|^.*\b(?:19|20)\d\d\b\s*·\s*\w", re.I | re.M),
    ),
    (
        re.compile(
            r"\bspeed-?ups?\b|\bhow (?:much|many)\b|\bby how much\b|\bwhat (?:share|fraction|percentage)\b|"
            r"\bhow (?:fast|large|big|long)\b",
            re.I,
        ),
        re.compile(r"(?<![\w.-])(?!(?:19|20)\d\d(?![\d.,%]))\d[\d,.]*(?:\s*(?:%|×|x\b|K\b|M\b|B\b|GB|TB|ms))?", re.I),
    ),
]

#: Names that look like a system's identifier: CamelCase with an inner capital ("XGrammar", "SpotServe")
#: or a versioned name ("XGrammar-2"); at least 4 characters.
_ID_TOKEN_RE = re.compile(r"\b(?:[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*(?:-\d+)?|[A-Za-z][A-Za-z0-9]+-\d+)\b")
_SENT_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9*\[(])|\n+")


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
    note: str | None = None
    #: The model's raw reply before citation checking (LLM answers only; not in ``as_dict``), so a
    #: renderer that streamed it can tell whether the checked ``answer`` differs.
    model_text: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "mode": self.mode,
            "citations": [c.as_dict() for c in self.citations],
            "retrieved": self.retrieved,
            "filters": self.filters,
            "refused": self.refused,
            "grounded": self.grounded,
            "dropped_citations": self.dropped_citations,
            "note": self.note,
        }


def check_question(question: str) -> str:
    """Strip and validate a question.

    Raises
    ------
    BadInputError
        if it is empty, has no letters or digits, or is longer than 2,000 characters.
    """
    q = (question or "").strip()
    if not q or not re.search(r"\w", q):
        raise BadInputError('the question is empty: ask something, e.g. papernotes ask "Which papers study KV caches?"')
    if len(q) > 2000:
        raise BadInputError(f"the question is too long ({len(q)} characters; at most 2,000)")
    return q


def retrieved_rows(hits: list[Hit]) -> list[dict[str, Any]]:
    """The ``retrieved`` list of ``ask --json`` / ``search --json`` (rank, score, titles, section …)."""
    return [
        {
            "rank": h.rank,
            "score": round(h.score, 6),
            "dense": round(h.dense, 4),
            "bm25": round(h.bm25, 4),
            "page_title": h.get("page_title"),
            "paper_title": h.get("paper_title"),
            "venue": h.get("venue"),
            "section": h.get("section"),
            "source": h.get("source"),
            "kind": h.get("kind"),
            "url": h.get("url") or h.get("page_url"),
            "id": h.id,
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
    )


def content_terms(question: str) -> list[str]:
    """Stemmed topic terms of a question: framing words and venue names removed."""
    q = question
    for v in find_venues(q):
        q = q.replace(v.split()[0], " ")
    return [t for t in question_terms(q) if not re.fullmatch(r"(19|20)\d\d", t)]


_NAME_RUN_RE = re.compile(r"(?<![\w'])[A-Z][\w-]*(?:'s)?(?:\s+(?:of\s+|the\s+|for\s+|and\s+)?[A-Z][\w-]*(?:'s)?)+")
_LEADING_WORDS = frozenset(
    "what which who whom whose where when why how is are was were does do did in on at "
    "for the a an of to from by with".split()
)


def proper_names(question: str) -> list[str]:
    """Multi-word proper names in a question ("Moon Landing", "Xinyi Wan"): runs of two or more
    capitalized words, with leading question/function words and possessives removed; venues excluded."""
    out = []
    for m in _NAME_RUN_RE.finditer(question):
        words = [w[:-2] if w.endswith("'s") else w for w in m.group(0).split()]
        while words and words[0].lower() in _LEADING_WORDS:
            words = words[1:]
        name = " ".join(words)
        if len(words) >= 2 and not find_venues(name) and not find_venues(name + " 2000"):
            out.append(name)
    return out


def relevance(question: str, result: SearchResult, idf, corpus_has=None) -> dict[str, Any]:
    """Signals for the refusal decision over the top hits: best dense similarity, idf-weighted coverage
    of the question's content terms, identifier-like names absent from the whole corpus
    (``corpus_has(name) -> bool``), and whether asked attributes have evidence in the top chunks."""
    hits = result.hits[:3]
    terms = content_terms(question)
    evidence = " ".join(h.text for h in hits)
    chunks = subject_chunks(question, result)
    wider = " ".join(h.text for h in chunks)
    ev_terms = set(lexical_terms(evidence))
    total = sum(idf(t) for t in set(terms)) or 1.0
    covered = sum(idf(t) for t in set(terms) if t in ev_terms) / total
    ids = [t for t in _ID_TOKEN_RE.findall(question) if len(t) >= 4] + proper_names(question)
    missing_ids = [t for t in ids if corpus_has is not None and not corpus_has(t)]
    cues_ok = all(ev.search(wider) for cue, ev in ATTRIBUTE_CUES if cue.search(question))
    return {
        "dense": max((h.dense for h in hits), default=0.0),
        "coverage": covered,
        "missing_ids": missing_ids,
        "cues_ok": cues_ok,
    }


def should_refuse(
    question: str, result: SearchResult, idf, min_relevance: float, min_coverage: float = 0.25, corpus_has=None
) -> tuple[bool, dict[str, Any]]:
    """Decide whether the notes cover the question. Refuse when nothing is retrieved, the best dense
    similarity is below ``min_relevance``, under ``min_coverage`` of the question's (idf-weighted)
    content terms appear in the top chunks, a named identifier (``XGrammar-2``) is absent, an asked
    attribute (acceptance rate, authors, a number) has no evidence, or a list question over a venue
    finds no paper entries. Returns ``(refuse, signals)``."""
    if not result.hits:
        return True, {"reason": "nothing retrieved"}
    sig = relevance(question, result, idf, corpus_has)
    reason = None
    if sig["dense"] < min_relevance:
        reason = "low similarity"
    elif sig["coverage"] < min_coverage:
        reason = "low term coverage"
    elif sig["missing_ids"]:
        reason = f"not in the notes: {', '.join(sig['missing_ids'])}"
    elif not sig["cues_ok"]:
        reason = "the notes do not give the asked attribute"
    elif (
        result.is_list
        and result.filters.venue
        and not any(h.get("kind") in ("paper_entry", "deep_note", "publication") for h in result.hits)
    ):
        reason = "no papers listed for that venue"
    sig["reason"] = reason
    return reason is not None, sig


#: Abbreviations after which a period does not end a sentence.
_ABBREV_RE = re.compile(
    r"(?:\b(?:Dr|Prof|Mr|Ms|Mrs|St|vs|etc|Fig|Figs|Eq|Sec|No|al|e\.g|i\.e|cf|approx|Inc|Corp|Ltd)\.|\b[A-Z]\.)$"
)


def _sentences(text: str) -> list[str]:
    """Sentences and list lines of a chunk body (abbreviations such as "Dr." do not end one)."""
    out: list[str] = []
    glue = False
    for s in _SENT_SPLIT_RE.split(text):
        s = s.strip()
        if glue and out:
            out[-1] = f"{out[-1]} {s}"
        elif len(s.lstrip("-• ").strip()) >= 3:
            out.append(s.lstrip("-• ").strip())
        glue = bool(_ABBREV_RE.search(s))
    return out


def names_top_paper(question: str, result: SearchResult) -> bool:
    """True when the question names the best hit's paper by its system name or title prefix."""
    top = result.hits[0]
    name = top.get("system") or str(top.get("paper_title") or "").split(":")[0]
    return (
        bool(name)
        and len(name) >= 3
        and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", question, re.IGNORECASE) is not None
    )


def subject_chunks(question: str, result: SearchResult) -> list[Hit]:
    """:func:`evidence_chunks`, narrowed to the best paper's own chunks when the question names it."""
    chunks = evidence_chunks(result)
    if names_top_paper(question, result):
        top = result.hits[0]
        chunks = [h for h in chunks if h.group == top.group]
    return chunks


def evidence_chunks(result: SearchResult, extra: int = 8) -> list[Hit]:
    """The chunks an answer may draw on: the top k hits, then up to ``extra`` more chunks of the two
    best papers/pages from the fused candidate pool (e.g. a deep note's Evaluation section)."""
    lead = {h.group for h in result.hits[:2]}
    more = [h for h in result.pool if h.group in lead and h not in result.hits]
    return list(result.hits) + more[:extra]


def _lead(h: Hit) -> str:
    """A paper chunk's lead line: title (venue; affiliations)."""
    bits = [x for x in (h.get("venue"), h.get("affiliations")) if x]
    return f"{h.get('paper_title')}" + (f" ({'; '.join(bits)})" if bits else "")


def extractive_answer(question: str, result: SearchResult, idf, max_sentences: int = 4) -> tuple[str, list[Hit]]:
    """Build an answer only from retrieved text: the most relevant sentences, each followed by the
    marker of its chunk; list questions get one line per paper. Returns ``(text, cited hits in marker
    order)``."""
    terms = set(content_terms(question))
    cited: list[Hit] = []

    def mark(h: Hit) -> str:
        if h not in cited:
            cited.append(h)
        return f"[{cited.index(h) + 1}]"

    if result.is_list:
        # one line per paper whose entry matches the asked terms about as well as the best one does
        scored_items = []
        for h in result.hits:
            if h.get("paper_title"):
                ht = set(lexical_terms(h.text))
                scored_items.append((sum(idf(t) for t in terms & ht) if terms else 1.0, h))
        top_score = max((x for x, _ in scored_items), default=0.0)
        lines = [f"- {_lead(h)} {mark(h)}" for x, h in scored_items if x > 0 and x >= top_score / 3]
        if lines:
            return "\n".join(lines), cited

    top = result.hits[0]
    # candidate chunks: the top k plus more chunks of the best papers (only the named paper's, if any)
    cands = subject_chunks(question, result)
    numeric = ATTRIBUTE_CUES[2][0].search(question) is not None
    titles = {re.sub(r"\W+", "", str(h.get("paper_title") or h.get("page_title") or "").lower()) for h in cands}
    # "subject" terms name the paper (in its title, or in most of its chunks); the rest say what is asked about it
    subject = terms & set(lexical_terms(f"{top.get('paper_title') or ''} {top.get('page_title') or ''}"))
    own = [set(lexical_terms(h.text)) for h in cands if h.group == top.group]
    if len(own) >= 2:
        subject |= {t for t in terms if sum(t in o for o in own) >= max(2, len(own) / 2)}
    asked = terms - subject
    scored: list[tuple[float, int, str, Hit]] = []
    for rank, h in enumerate(cands, 1):
        head = h.text.split("\n", 1)[0]
        section = head.split(" › ", 1)[1] if " › " in head else ""
        sec_terms = set(lexical_terms(section))
        for j, sent in enumerate(_sentences(h.body)):
            if re.sub(r"\W+", "", parse_title(sent)[0].lower()) in titles or len(sent) < 8:  # a title line
                continue
            st = set(lexical_terms(sent))
            score = 2.0 * sum(idf(t) for t in asked & (st | sec_terms)) + 0.5 * sum(idf(t) for t in subject & st)
            if numeric and ATTRIBUTE_CUES[2][1].search(sent):
                score *= 1.6
            score /= 1 + 0.1 * (rank - 1)
            if score > 0:
                scored.append((score, -j, sent, h))
    scored.sort(key=lambda x: -x[0])
    chosen: list[tuple[str, Hit]] = []
    best = scored[0][0] if scored else 0.0
    for score, _, sent, h in scored:
        if score < 0.25 * best:
            break  # weakly related sentences would read as part of the answer
        if any(sent == c for c, _ in chosen):
            continue
        chosen.append((sent, h))
        if len(chosen) >= max_sentences:
            break
    parts: list[str] = []
    if top.get("paper_title") and top.get("kind") in ("paper_entry", "publication", "deep_note"):
        parts.append(f"{_lead(top)} {mark(top)}")
    for sent, h in chosen:
        parts.append(f"{sent} {mark(h)}")
    if not chosen:  # nothing beyond the paper's name was asked ("What is X?"): its own description
        own = [
            x
            for x in _sentences(top.body)
            if re.sub(r"\W+", "", parse_title(x)[0].lower()) not in titles and not looks_like_affiliation(x)
        ]
        parts += [f"{x} {mark(top)}" for x in own[:2]] or ([] if parts else [f"{top.body} {mark(top)}"])
    return "\n".join(parts), cited


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
