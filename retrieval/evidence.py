"""Sentence-level evidence: candidate sentences from the retrieved chunks and what each says about the
question.

Candidates are whole sentences (and list lines) of the top chunks and of the named (or best) papers'
other chunks; a sentence a chunk split cut at its start is completed from its sibling chunk (same
source and section) or dropped. Each candidate gets its lexical overlap with the question
(idf-weighted, over the sentence, its section heading and the short list items it is nested under:
"Deployed on a dedicated on-demand CPU instance" is read under "**Inference Server**"), the overlap with what is *asked* about the
named papers (for a question that names none, with the words of the sentence's own paper title
taken out: they identify the subject, the rest is what is asked about it) — a word the sentence, its item's
label or its own section heading says counts whole, one only an outer heading (the page title) says
counts half —, whether it holds a number and whether that number stands in one clause with a word of what is
asked (the counted noun of "how many …"), and — for the best few by overlap — its cosine similarity to
the question under the embedder (computed at query time; sentence vectors are not stored).
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

import numpy as np

from papernotes.corpus.chunking import SEP
from papernotes.corpus.normalize import CJK_CHARS
from papernotes.corpus.papers import (
    dash_description,
    is_to_read_lead_in,
    is_to_read_title,
    is_todo,
    looks_like_affiliation,
    parse_title,
    title_key,
)
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.search import Hit, SearchResult
from papernotes.retrieval.terms import Key, coverage, has_term, lexical_terms

#: Sentences embedded per question (the named papers' first, then the best by lexical overlap, plus each
#: named paper's first line).
#: Embedding them is most of a warm extractive answer's time (measured over the dev questions: p50
#: 518 ms with 16, 267 ms with 8, 163 ms with 4 on the loaded 2 cores), and the fitted sentence model
#: weighs lexical coverage far above the cosine, so 6 keep the answer within its 200 ms budget.
EMBEDDED_SENTENCES = 6
#: Shorter lines are labels ("Demo"), not sentences; two-word lines stay ("Best Paper Award" answers
#: which paper won).
MIN_WORDS = 2
#: What joins a list item to the label it is quoted with ("Baselines — NVIDIA MPS").
LABEL_JOIN = " — "
#: Chunks beyond the top k that answers may draw sentences from (more chunks of the leading papers).
EXTRA_CHUNKS = 8

_SENT_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[*]?[A-Z0-9$])|(?<=[。！？])|\n+")
#: Abbreviations after which a period does not end a sentence.
_ABBREV_RE = re.compile(
    r"(?:\b(?:Dr|Prof|Mr|Ms|Mrs|St|vs|etc|Fig|Figs|Eq|Sec|No|al|e\.g|i\.e|a\.k\.a|cf|approx|resp|Inc|Corp|Ltd)\.|\b[A-Z]\.)$"
)
#: English cardinal number words (an amount written out: "nine low-level metrics", "two orders of
#: magnitude") and the unambiguous fraction and multiple words; "one" is left out, it is mostly a pronoun (:data:`_ONE_COUNTING_RE`).
_NUMBER_WORDS = (
    r"(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundreds?|"
    r"thousands?|millions?|billions?|trillions?|dozens?|"
    # fractions and multiples written out ("at least half of the activations", "twice the throughput"),
    # not "half-precision"
    r"half(?!-)|halves|quarters?|twice|thrice)"
)
#: A span of time given without a number ("a few seconds", "several minutes", "tens of milliseconds").
_VAGUE_DURATION = (
    r"(?:a\s+)?(?:few|several|couple\s+of|tens\s+of|hundreds\s+of)\s+"
    r"(?:(?:milli|micro|nano)?seconds|minutes|hours|days|weeks|months|years)"
)
#: An amount: digits not inside a Latin word ("75%" in "遮盖75%的patch" counts, CJK text being no word to
#: continue; "4" of a numbered heading "4.Reconstruction Target" or of "GPT4" does not), with an optional
#: unit; or dimensions ("7x7 patches", "4×4"); or a number word; or a span of time without a number.
_NUMBER_RE = re.compile(
    r"(?<![0-9A-Za-z.])\d+(?:\.\d+)?[x×]\d+(?:\.\d+)?(?![A-Za-z])|"
    r"(?<![0-9A-Za-z.])\d[\d,.]*+(?:\s*(?:%|×|x\b|[KMBT]\b|[KMGT]B\b|ms\b|s\b))?(?![A-Za-z])"
    r"|\b" + _NUMBER_WORDS + r"\b|\b" + _VAGUE_DURATION + r"\b",
    re.IGNORECASE,
)
#: A year a note can date something by: 1900–2039. A later four-digit number is a count or a size
#: ("context window 2048 tokens", "4096 GPUs"), whatever its first digits.
_YEAR_ONLY_RE = re.compile(r"^(?:19\d\d|20[0-3]\d)$")
#: "One" before a word it counts ("rolls the job back by one minibatch"), not as a pronoun ("one of",
#: "the one that", "one can"): an amount only in the clause of what is asked (:func:`_number_beside`),
#: since "prefetches one layer ahead" states no speedup.
_ONE_COUNTING_RE = re.compile(
    r"\bone\s+(?!(?:of|another|that|which|who|is|was|can|could|may|might|would|should|must|will|has|had)\b)[a-z]",
    re.IGNORECASE,
)


#: A fenced code block (CommonMark: ``` or ~~~ fences, the closing fence as long as the opening one).
_FENCED_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[^\n]*$|\Z)", re.MULTILINE | re.DOTALL)


#: A fence line: its fence and its info string (CommonMark: only an opening fence may carry one).
_FENCE_LINE_RE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([^\n]*)$", re.MULTILINE)
#: Characters of code rather than prose (operators, brackets, underscores).
_CODE_CHARS_RE = re.compile(r"[=(){}\[\];_<>+*/\\|^]")


def _opened_inside_code(text: str) -> str:
    """``text`` with the code it opens inside removed: a chunk cut from a note inside a code block starts
    with code and then its closing fence ("θ_t = θ_{t-1} - α · m̂_t …" then "```" then prose), which read
    as an opening fence would hide all the prose after it. With an odd number of fence lines, the first
    one closes a block when it carries no info string (a closing fence never does) and what precedes it
    is more code-like (operators, brackets, underscores per character) than what follows the last fence;
    then the text up to it is dropped. ``text`` is a chunk's body (:attr:`~papernotes.retrieval.search.Hit.body`,
    its heading line aside), as :func:`split_sentences` is given it: its first line may be the code."""
    fences = list(_FENCE_LINE_RE.finditer(text))
    if len(fences) % 2 == 0 or fences[0].group(2).strip():
        return text
    before, after = text[: fences[0].start()], text[fences[-1].end() :]

    def density(t: str) -> float:
        return len(_CODE_CHARS_RE.findall(t)) / max(1, len(t.strip()))

    if not before.strip() or density(before) <= density(after):
        return text
    return text[fences[0].end() :]


#: A body that starts with a list item (``- x``, ``* x``, ``1. x``, ``1) x``): its first line is a whole
#: item, even in lower case, not the tail of a sentence the chunk split cut (CommonMark list markers).
_LIST_ITEM_RE = re.compile(r"^\s*(?:[-*+•]|\d{1,9}[.)])\s+")


#: A short lead-in ("Three tricks:", "Techniques:") of at most this many words says nothing alone: it is
#: one sentence with up to :data:`LEAD_IN_ITEMS` of the lines it introduces (while under
#: :data:`LEAD_IN_CHARS` characters).
LEAD_IN_WORDS = 6
LEAD_IN_ITEMS = 3
LEAD_IN_CHARS = 300


#: A pipe-table line (``| a | b |``) and a header's delimiter row (``|---|:--:|``).
_TABLE_LINE_RE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_DELIMITER_RE = re.compile(r"^\s*\|[\s:|-]*-[\s:|-]*\|\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(text: str) -> str:
    """``text`` with each pipe table's rows written as one line of labelled cells, the header row's
    labels before each cell ("Conference: SOSP 2023; When: Oct 23-26, 2023; Where: Koblenz, Germany"),
    empty cells left out, the header and delimiter rows themselves dropped: a row read alone is a
    sentence that says what each of its cells is."""
    out: list[str] = []
    header: list[str] | None = None
    for line in text.split("\n"):
        if not _TABLE_LINE_RE.match(line):
            header = None
            out.append(line)
        elif _TABLE_DELIMITER_RE.match(line):
            continue
        elif header is None:
            header = _cells(line)
        else:
            cells = _cells(line)
            labelled = [f"{h}: {c}" if h else c for h, c in zip(header + [""] * len(cells), cells, strict=False) if c]
            out.append("; ".join(labelled))
    return "\n".join(out)


def split_sentences(text: str, tables: bool = True) -> list[str]:
    """Sentences and list lines of a chunk body, bullets stripped ("Dr." and "e.g." do not end one);
    the lines of a fenced code block are code, not sentences, and are left out; a table row is one
    sentence of labelled cells (:func:`table_rows`; with ``tables=False`` its raw ``| … |`` line, for
    readers that skip rows); a short lead-in ending
    in a colon is joined with the lines it introduces ("Three tricks: 4-bit NormalFloat; double
    quantization; paged optimizers")."""
    out: list[str] = []
    glue = False
    lead = 0  # items still to join to a short lead-in ("Three tricks:")
    text = _FENCED_RE.sub("\n", _opened_inside_code(text))
    for s in _SENT_SPLIT_RE.split(table_rows(text) if tables else text):
        s = (s or "").strip()
        if not s:
            continue
        if glue and out:
            out[-1] = f"{out[-1]} {s}"
        elif lead and out and len(out[-1]) < LEAD_IN_CHARS:
            item = s.lstrip("-*• ").strip()
            out[-1] = f"{out[-1]} {item}" if out[-1].endswith((":", "：")) else f"{out[-1]}; {item}"
            lead -= 1
            continue
        elif len(item := s.lstrip("-*• ").strip()) >= 3 or (item != s and len(item) == 2 and item.isalnum()):
            out.append(item)  # a list item may be a two-character name ("- C4", "- T5")
        glue = bool(_ABBREV_RE.search(s))
        lead = LEAD_IN_ITEMS if out and out[-1].endswith((":", "：")) and len(out[-1].split()) <= LEAD_IN_WORDS else 0
    return out


#: Addresses and identifiers whose digits are no amount: URLs, DOIs (``10.1145/…``) and arXiv ids
#: (``2312.12456``, ``arXiv:2312.12456v2``; the scheme since 2007: YYMM.NNNNN).
_IDENTIFIER_RE = re.compile(
    r"https?://\S+|\b10\.\d{4,9}/\S+|\b(?:arxiv:?\s*)?(?:0[7-9]|[1-9]\d)(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d+)?\b", re.I
)


def has_number(sentence: str, known: AbstractSet[str] = frozenset(), count: bool = False) -> bool:
    """True when the sentence states an amount: a number that is not just a year and not one of the
    ``known`` numbers (those the question itself states); the digits of an address or identifier (a URL,
    a DOI, an arXiv id: "https://arxiv.org/abs/2312.12456", "arXiv 2312.12456") state none. With
    ``count``, only an amount that can count things does (:func:`_counts`: not "80%", "1.9x to 4.8x",
    "twice")."""
    plain = _IDENTIFIER_RE.sub(" ", sentence)
    for m in _NUMBER_RE.finditer(plain):
        num = re.match(r"\d+(?:\.\d+)?", m.group(0).replace(",", ""))
        if _YEAR_ONLY_RE.match(m.group(0).strip().rstrip(".,")) or (num and num.group(0) in known):
            continue
        if _NAME_NUMBER_RE.search(plain, 0, m.start()) and re.fullmatch(r"[\d.]+", m.group(0).rstrip(".,")):
            continue  # a name's number ("GPT-3", "ResNet-50", "ViT-B/16"), as in "GPT4"
        if count and not _counts(m, plain):
            continue
        return True
    return False


#: What a name's number follows: a letter and a hyphen or slash ("GPT-3", "ResNet-50", "ViT-B/16"); the
#: number is part of the name, as the digits of "GPT4" are (:data:`_NUMBER_RE`), unless it has a unit
#: ("Llama-70B" states a size).
_NAME_NUMBER_RE = re.compile(r"[^\W\d_][-/]$")
#: Amounts that count nothing: a percentage, a factor ("2.3x", "4.8×"), a size or a time in its unit
#: ("80GB", "300 ms") and the fractions and multiples written out ("half", "twice").
_NO_COUNT_RE = re.compile(r"(?:%|[x×]|[KMGT]B|\d\s*m?s)$|^(?:half|halves|quarters?|twice|thrice)$", re.IGNORECASE)
#: A factor written in words after its number: "by 3 times", "10 times fewer".
_TIMES_AFTER_RE = re.compile(r"\s*times\b", re.IGNORECASE)


def _counts(m: re.Match[str], text: str) -> bool:
    """True when the amount ``m`` (a :data:`_NUMBER_RE` match in ``text``) can be a count of things ("8
    GPUs", "2,048", "10K", "hundreds"): not a percentage or a factor ("80% of GPU memory", "1.9x to 4.8x",
    "GPU memory by 3 times"), which state how much of or how many times something is, nor a size or time
    in its unit ("H100 80GB"), except a factor sign before a name, the notes' way of counting devices
    ("8x A100", "4× H100")."""
    amount = m.group(0).strip()
    if not _NO_COUNT_RE.search(amount):
        return _TIMES_AFTER_RE.match(text, m.end()) is None
    return amount[-1:] in "x×" and re.match(r"\s*[A-Z0-9]", text[m.end() :]) is not None


#: Chunks read per term to measure how often the notes state an amount with it (:func:`amount_share`).
AMOUNT_SAMPLE_CHUNKS = 30
#: Pseudo-sentences of additive smoothing (:func:`amount_share`): a term seen in few sentences keeps a
#: share near the notes' overall one instead of 0 or 1 from two or three sentences.
AMOUNT_PRIOR_SENTENCES = 10


@dataclass
class _AmountCache:
    """Per keyword index: each read chunk's sentences as (stemmed terms, states an amount), and each
    measured term's share ("" is the notes' overall share)."""

    chunks: dict[int, list[tuple[frozenset[str], bool]]]
    shares: dict[str, float]
    #: each chunk position's rank by chunk id (:func:`_by_id`)
    rank: np.ndarray | None = None


_amount_caches: weakref.WeakKeyDictionary[BM25Index, _AmountCache] = weakref.WeakKeyDictionary()


def _sentences_read(cache: _AmountCache, bm25: BM25Index, pos: int) -> list[tuple[frozenset[str], bool]]:
    """The sentences of chunk ``pos`` (its first line, the heading path, aside) as (terms, amount)."""
    if pos not in cache.chunks:
        text = bm25.texts[pos]
        body = text.split("\n", 1)[1] if "\n" in text else ""
        cache.chunks[pos] = [(frozenset(lexical_terms(s)), has_number(s)) for s in split_sentences(body)]
    return cache.chunks[pos]


def _spread(positions: Sequence[int] | np.ndarray, n: int) -> list[int]:
    """At most about ``n`` of ``positions``, evenly spaced."""
    return [int(p) for p in positions[:: max(1, len(positions) // n)]]


def _by_id(cache: _AmountCache, bm25: BM25Index, positions: Sequence[int] | np.ndarray) -> np.ndarray:
    """``positions`` ordered by their chunks' ids (content hashes), not by where the chunks sit in the
    index: an index built at once and one grown by incremental ingests hold the chunks in different
    orders, and a sample spread over the index order gave the same notes different amount shares (and
    answers) by their ingest history."""
    if cache.rank is None:
        order = np.argsort(np.array(bm25.ids, dtype=object), kind="stable")
        cache.rank = np.empty(len(order), dtype=np.int64)
        cache.rank[order] = np.arange(len(order))
    pos = np.asarray(positions, dtype=np.int64)
    return pos[np.argsort(cache.rank[pos], kind="stable")]


def amount_share(term: str, bm25: BM25Index) -> float:
    """Share (0–1) of the notes' sentences holding the stemmed ``term`` that state an amount
    (:func:`has_number`), over the sentences of about :data:`AMOUNT_SAMPLE_CHUNKS` chunks holding it
    (evenly spaced in the index): how much the notes use the word to state amounts ("size", "accuracy",
    "throughput" mostly come with one; "design" or "idea" seldom do); the chunks are spread over the
    order of their ids, so the same notes give the same share however they were ingested. Additively
    smoothed towards the
    share over all the notes' sentences (:data:`AMOUNT_PRIOR_SENTENCES` pseudo-sentences). Measured once
    per term and index; each chunk is read once."""
    cache = _amount_caches.setdefault(bm25, _AmountCache({}, {}))
    if "" not in cache.shares:  # the notes' overall share, over an even sample of their chunks
        every = [
            a
            for pos in _spread(_by_id(cache, bm25, range(len(bm25))), AMOUNT_SAMPLE_CHUNKS)
            for _, a in _sentences_read(cache, bm25, pos)
        ]
        cache.shares[""] = sum(every) / len(every) if every else 0.0
    if term not in cache.shares:
        read = [
            amount
            for pos in _spread(_by_id(cache, bm25, bm25.postings(term)), AMOUNT_SAMPLE_CHUNKS)
            for terms, amount in _sentences_read(cache, bm25, pos)
            if term in terms
        ]
        prior = AMOUNT_PRIOR_SENTENCES * cache.shares[""]
        cache.shares[term] = (sum(read) + prior) / (len(read) + AMOUNT_PRIOR_SENTENCES)
    return cache.shares[term]


def amount_asked(asks_quantity: bool, asked: Sequence[Key], bm25: BM25Index) -> float:
    """How much a question asks for an amount (0–1): 1.0 when its interrogative asks one ("how many",
    ``Question.asks_quantity``), else the largest :func:`amount_share` of the words it asks about
    ("best embedding size + beam width", "resnet top-5 error")."""
    if asks_quantity:
        return 1.0
    return max((amount_share(t, bm25) for k in asked for t in k.alternatives[0]), default=0.0)


@dataclass
class Sentence:
    """A candidate sentence: its text, the hit (chunk) it comes from, its position in the chunk and its
    features (see the module docstring). ``asked`` counts the words of what is asked that the sentence (its
    item's label, its section heading) says in full and those only an outer heading says by half;
    ``says`` counts the first alone. ``near``: a number it states stands in one clause with a word of what is
    asked ("**24** layers", "layers: **24**", "a 24-layer encoder"). ``cos`` is None when the sentence was not embedded."""

    text: str
    hit: Hit
    index: int
    lexical: float = 0.0
    asked: float = 0.0
    says: float = 0.0
    number: bool = False
    near: bool = False
    named: bool = False
    is_title: bool = False
    cos: float | None = None
    score: float = 0.0


_LIST_MARK_RE = re.compile(r"^\s*(?:[-*+•]|\d{1,9}[.)])\s+")


def unread_list(h: Hit) -> bool:
    """True for a chunk of a list of papers not read yet: a page section (no paper's own notes) under a
    heading, or on a page, titled as one ("Backlog", "Reading queue", "Someday", "Maybe later", "To
    read": :func:`~papernotes.corpus.papers.is_to_read_title`, the rule by which the catalog leaves their
    papers out). Its lines name papers and state nothing about them ("- Pathways (MLSys 2022)" under
    "Maybe later" answers no "pathways paper tldr")."""
    if h.get("kind") != "page_section":
        return False
    return any(is_to_read_title(str(h.get(k) or "")) for k in ("section", "page_title"))


def stated(text: str, hit: Hit | None = None) -> str:
    """A chunk's text (or body) without what names papers not read yet and states nothing about them:
    its to-do lines ("- [ ] QLoRA (NeurIPS 2023)", "TODO read: Mamba":
    :func:`~papernotes.corpus.papers.is_todo`), the items of a list a short lead-in line introduces as
    such ("to read next month:"), and all of it for a chunk of such a list (``hit``:
    :func:`unread_list`); the same string when it has none of them."""
    if hit is not None and unread_list(hit):
        return ""
    lines = text.split("\n")
    kept: list[str] = []
    unread = False  # inside a list that a lead-in line introduced as papers not read yet
    for ln in lines:
        if not ln.strip():
            kept.append(ln)
            continue
        item = bool(_LIST_MARK_RE.match(ln))
        if is_todo(_LIST_MARK_RE.sub("", ln)) or (item and unread):
            continue
        if not item:  # the corpus's rule for a lead-in, as the catalog reads it
            unread = is_to_read_lead_in(ln)
        kept.append(ln)
    return text if len(kept) == len(lines) else "\n".join(kept)


def evidence_hits(result: SearchResult, extra: int = EXTRA_CHUNKS, own: Sequence[Hit] = ()) -> list[Hit]:
    """The chunks an answer may draw on: the top k hits, then up to ``extra`` more chunks of the named
    papers (``own``: their chunks, best first, whether retrieved or not — a long deep note's answer may
    sit in a chunk the search did not rank; without them, the named papers' chunks of the fused
    candidate pool), else of the two best papers/pages from the pool."""
    q = result.question
    named = {f"paper:{r}" for r in q.records} if q else set()
    lead = named or {h.group for h in result.hits[:2]}
    shown = {h.id for h in result.hits}
    pool = list(own) if named and own else result.pool
    more = [h for h in pool if h.group in lead and h.id not in shown]
    return list(result.hits) + more[:extra]


#: A list item line: its indentation and its text (CommonMark list markers).
ITEM_LINE_RE = re.compile(r"^([ \t]*)(?:[-*+•]|\d{1,9}[.)])\s+(.*\S)")
#: Longest item (in words) whose words a nested item is read under: a label ("**Inference Server**",
#: "Three components"), not a statement of its own.
LABEL_WORDS = 8


def item_labels(body: str) -> dict[str, str]:
    """For each nested list item of ``body`` (keyed by its first 40 characters, markup aside), the
    label it sits under: the text of the item just above it, when that is at most :data:`LABEL_WORDS`
    words ("Deployed on a dedicated on-demand CPU instance" under "Inference Server": its answer to
    "what does the inference server run on" is said under that label)."""
    stack: list[tuple[int, str]] = []
    out: dict[str, str] = {}
    for line in body.splitlines():
        m = ITEM_LINE_RE.match(line)
        if not m:
            if line.strip() and not line[:1].isspace():
                stack = []  # a paragraph at the margin ends the list
            continue
        indent, text = len(m.group(1).expandtabs(4)), m.group(2).replace("**", "").replace("__", "").strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if stack and len(stack[-1][1].split()) <= LABEL_WORDS:
            out.setdefault(text[:40], stack[-1][1])
        stack.append((indent, text))
    return out


def _section_terms(h: Hit) -> set[str]:
    """Terms of the section a chunk's sentences stand in: the last part of its first line (``page title ›
    … › section``); none when that line is the page title alone or the section is headed by the paper's
    title (a reading log's "## Resilient Distributed Datasets: A Fault-Tolerant Abstraction …": every line
    under it would cover "fault tolerance")."""
    head = h.text.split("\n", 1)[0]
    if SEP not in head:
        return set()
    section = head.rsplit(SEP, 1)[1]
    if title_key(parse_title(section)[0]) in {title_key(str(h.get(k) or "")) for k in ("paper_title", "page_title")}:
        return set()
    return set(lexical_terms(section))


def _context_terms(h: Hit) -> set[str]:
    """Terms of what a sentence is said under: its chunk's first line (page title › section) and the
    paper it is about."""
    return set(lexical_terms(f"{h.text.split(chr(10), 1)[0]} {h.get('paper_title') or ''}"))


def candidates(
    result: SearchResult,
    idf: Callable[[str], float],
    siblings: Callable[[Hit], list[str]],
    identity: Callable[[Hit], AbstractSet[str]] | None = None,
    affiliation_line: Callable[[Hit, str], bool] | None = None,
    own: Sequence[Hit] = (),
) -> list[Sentence]:
    """Candidate sentences of the evidence chunks with their lexical features.

    ``siblings(hit)`` gives the texts of the other chunks of the same source and section, used to
    complete a sentence the chunk split cut at its start (a first candidate starting in lower case,
    not a list item, is replaced by the sibling sentence that ends with it, or dropped). ``identity(hit)`` gives the terms
    that identify the paper a chunk is about (title, system name, one-line summary); default: its
    paper title. ``affiliation_line(hit, sentence)`` tells whether a sentence only states the
    affiliations of the chunk's paper (marked ``is_title`` like the title: it repeats the lead line);
    default: a line that looks like one. A short capitalized item that is not ("NVIDIA MPS" under
    "Baselines") stays an answer. ``own``: the named papers' chunks, best first (:func:`evidence_hits`)."""
    q = result.question
    terms = q.keys if q else lexical_terms(result.query)
    asked = q.asked if q else terms
    # the nouns "how many" counts, as the question's keys read them ("A100s": ``a100``) and as written
    nouns = {w.casefold() for w in q.counted} if q else set()
    counts = frozenset(t for k in (q.keys if q else ()) if k.word.casefold() in nouns for t in k.terms)
    counts |= {t for w in nouns for t in lexical_terms(w)}
    # all that is asked is counted ("how many gpus does X use"): a sentence states an amount only by a count
    count_only = bool(counts) and {t for k in asked if isinstance(k, Key) for t in k.terms} <= counts
    named = {f"paper:{r}" for r in q.records} if q else set()
    states_affiliations = affiliation_line or (lambda _h, sent: looks_like_affiliation(sent))
    # a named paper's entry in a chunk about several papers (:func:`~papernotes.retrieval.entries.entry_view`):
    # the chunk's sentences inside it are that paper's
    entries = {v.id: v.body for v in own if v.group in named}
    out: list[Sentence] = []
    seen: dict[str, int] = {}  # a line's key → its position in ``out``
    for h in evidence_hits(result, own=own):
        heading = _context_terms(h)
        section = _section_terms(h)
        body = stated(h.body, h)
        labels = item_labels(body)
        parents = {label[:40] for label in labels.values()}
        title_keys = {title_key(str(h.get("paper_title") or "")), title_key(str(h.get("page_title") or ""))}
        for j, sent in enumerate(split_sentences(body)):
            if j == 0 and sent[:1].islower() and not re.match(r"^\S+:", sent) and not _LIST_ITEM_RE.match(body):
                sent = _complete(sent, siblings(h)) or ""
            key = re.sub(r"\W+", "", sent.lower())
            # a one-word or very short line is a label, unless it is what the question asks for ("spotlight
            # or oral?": a bullet "**Oral**" under the paper) or an item listed under a label and holding
            # none ("REEF" under "Baselines")
            listed = sent[:40] in labels and sent[:40] not in parents
            brief = len(key) < 6 or len(sent.split()) < MIN_WORDS
            short = (
                brief
                and not listed
                and not any(k.covered(set(lexical_terms(sent))) for k in asked if isinstance(k, Key))
            )
            # a brief label over items ("Baselines") says nothing its items do not: they are quoted with it
            of_named = h.group in named or sent in entries.get(h.id, "")
            # a line two chunks share (an overlap) is the named paper's where its own chunk has it
            again = seen.get(key)
            if again is not None and of_named and not out[again].named:
                del seen[key]
                out[again] = replace(out[again], text="")  # dropped below
            if not key or key in seen or short or (brief and sent[:40] in parents) or is_todo(sent):
                continue
            seen[key] = len(out)
            st = set(lexical_terms(sent))
            label = labels.get(sent[:40], "")
            under = heading | set(lexical_terms(label))
            about: Sequence[Key | str] = asked
            if not named and q and h.get("paper_title"):
                # a question that describes its paper instead of naming it: the words that describe the
                # paper identify the subject; what is asked about it is the rest
                ident = identity(h) if identity else set(lexical_terms(str(h.get("paper_title"))))
                about = [k for k in q.asked if not k.covered(ident)]
            # a word the sentence, its item's label or its own section heading says counts whole, one
            # only an outer heading says half: on a page titled "replication & consistency" every line
            # covers "consistency", under "Implementation" a line is about the implementation
            labelled = st | set(lexical_terms(label)) | section
            says = coverage(about, labelled, idf) if about else 0.0
            asked_here = (says + coverage(about, st | under, idf)) / 2 if about else 0.0
            number = has_number(sent, q.numbers if q else set(), count=count_only)
            # (beside the noun a "how many" asks to count, when the question has one)
            counted = q.focus if q and q.focus else about
            # (with nothing asked beyond what names the paper, any amount it states is the one asked; a
            # line of bare values, "6.7B, 13B, 32.5B, 65.2B", states them of what it is listed under)
            near = number and (
                not counted
                or bare_values(sent)
                or _number_beside(f"{label} {sent}", counted, q.numbers if q else set(), counts)
            )
            if not number and counted and q and not q.asks_factor and _ONE_COUNTING_RE.search(sent):
                # "one" counting a noun in the clause of what is asked states an amount ("rolls the job back
                # by one minibatch"); elsewhere, or for a factor asked ("prefetch speedup?": "prefetches one
                # layer ahead"), it is no answer
                near = number = _number_beside(f"{label} {sent}", counted, q.numbers if q else set(), counts)
            if label and about and says > coverage(about, st | section, idf):
                sent = f"{label.rstrip(':：')}{LABEL_JOIN}{sent}"  # quoted with the label its match is owed to
            # the paper's title line; a listing bullet's line that goes on to say what the paper does ("Pelican:
            # … (NeurIPS 2023) — attaches four draft heads …, 2.7x speedup") is none
            head = parse_title(sent)[0]
            is_title = title_key(head) in title_keys and not dash_description(sent, head)
            out.append(
                Sentence(
                    text=sent,
                    hit=h,
                    index=j,
                    lexical=coverage(terms, st | under, idf) if terms else 0.0,
                    asked=asked_here,
                    says=says,
                    number=number,
                    near=near,
                    named=of_named,
                    is_title=is_title or states_affiliations(h, sent),
                )
            )
    return [s for s in out if s.text]


#: Where a sentence's clauses end (:func:`_number_beside`), outside brackets: an amount and what it
#: measures are said in one clause ("trained on 2048 A100 GPUs", "Layers: 24", "timeouts are randomized
#: (e.g., 150–300 ms)"), not across a comma (one between digits is a number's: "1,024"), a semicolon or a
#: dash.
_CLAUSE_END_RE = re.compile(r"[;—–，；、。！？]|(?<!\d),|,(?!\d)|\s-\s|[.!?](?:\s|$)")
_OPENING, _CLOSING = "([{（【", ")]}）】"


def _clauses(text: str) -> list[str]:
    """``text`` split into clauses at :data:`_CLAUSE_END_RE`, except inside brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch in _OPENING) - (ch in _CLOSING and depth > 0)
        if depth == 0 and _CLAUSE_END_RE.match(text, i):
            out.append(text[start:i])
            start = i + 1
    return [*out, text[start:]]


def _number_beside(
    text: str, asked: Sequence[Key | str], known: AbstractSet[str], counts: AbstractSet[str] = frozenset()
) -> bool:
    """True when one clause of ``text`` (:func:`_clauses`) states a number (an amount :func:`has_number`
    counts: ``known`` numbers, years and identifiers aside; "a few seconds" is one; or "one" counting a
    noun: "back by one minibatch") and holds a word that
    covers a key of ``asked`` (any of its readings, itself or as a derivational relative:
    :func:`~papernotes.retrieval.terms.has_term`, "reduces" for "reduction"). ``counts``: the stemmed
    terms of the nouns the question asks to count (:attr:`~papernotes.retrieval.question.Question.counted`);
    a clause holding no asked word but those states their count only with an amount that counts
    (:func:`has_number` with ``count``: "8 GPUs", not "80% of GPU memory"). A sentence in a script the
    asked words are not written in (a Chinese note, an English question) cannot hold them: any number it
    states counts (any count, when all that is asked is counted)."""
    want = {t for k in asked if isinstance(k, Key) for alt in k.alternatives for t in alt}
    want |= {k for k in asked if isinstance(k, str)}
    plain = _IDENTIFIER_RE.sub(" ", text)
    if re.search(f"[{CJK_CHARS}]", plain) and not any(re.search(f"[{CJK_CHARS}]", t) for t in want):
        return has_number(plain, known, count=bool(counts) and want <= counts)
    for clause in _clauses(plain):
        if has_number(clause, known) or _ONE_COUNTING_RE.search(clause) is not None:
            said = set(lexical_terms(clause))
            held = {t for t in want if has_term(t, said)}
            if held and (
                not held <= counts
                or has_number(clause, known, count=True)
                or _ONE_COUNTING_RE.search(clause) is not None
            ):
                return True
    return False


def bare_values(sentence: str) -> bool:
    """True when the sentence states amounts and nothing else ("6.7B, 13B, 32.5B, 65.2B", "**24**"):
    no word is left once its numbers (:data:`_NUMBER_RE`, units included) are taken out."""
    rest = _NUMBER_RE.sub(" ", sentence)
    return rest != sentence and re.search(r"[^\W\d_]", rest) is None


def _heading_line(h: Hit) -> str:
    """What a chunk's sentences are said under: its first line (``page title › section``)."""
    return h.text.split("\n", 1)[0].strip()


def _read_under(s: Sentence, names: dict[int, str]) -> str:
    """The line a sentence is read under when embedded: its chunk's heading line, followed by the name
    of the named paper it is about (``names``: record → name) when the heading line lacks that name's
    words."""
    line = _heading_line(s.hit)
    name = names.get(s.hit.record) if s.named and s.hit.record is not None else None
    if name and not set(lexical_terms(name)) <= set(lexical_terms(line)):
        return f"{line} › {name}"
    return line


def _complete(fragment: str, texts: list[str]) -> str | None:
    """The whole sentence (from sibling chunk texts) that ends with ``fragment``, if any."""
    probe = fragment[:60]
    for t in texts:
        i = t.find(probe)
        if i <= 0:
            continue
        start = max(t.rfind(". ", 0, i), t.rfind("\n", 0, i))
        whole = t[start + 1 : i].strip() + " " + fragment
        return re.sub(r"^[-*•]\s*", "", whole.strip())
    return None


def embed_best(
    sentences: list[Sentence],
    query_vector: list[float] | None,
    embed: Callable[[list[str]], list[list[float]]],
    n: int = EMBEDDED_SENTENCES,
    amount: float = 0.0,
    names: dict[int, str] | None = None,
) -> None:
    """Set ``cos`` on the ``n`` best candidates by lexical overlap, titles and affiliation lines last
    and, when the question names papers, the named papers' sentences first (and on each named paper's
    first sentence): cosine similarity of the sentence, read under its chunk's heading line ("SpotServe ›
    Implementation: 5.6K LoC …"), to the question vector (both unit-norm, so the dot product). ``amount``:
    how much the question asks for an amount (0–1, :func:`amount_asked`); sentences stating one count
    that much more in the choice (an amount is answered by one). ``names``: catalog record → the name
    the question gives it, for the named papers; a named paper's sentence in a chunk whose heading line
    does not name it (an entry of a listing: "SOSP 2025 › Papers › GPU OS") is read under that name too,
    as the question reads it ("LithOS › Built in Rust.")."""
    if not sentences or query_vector is None:
        return
    # a title or affiliations line repeats the paper's lead line: no evidence worth an embedding; a
    # question naming a paper is answered from its own sentences, and the embedder is what finds the one
    # that shares no word with the question ("lithos impl language?" → "Built in Rust."), so they are
    # embedded before other papers' sentences however many words those share
    order = sorted(
        sentences,
        key=lambda s: (s.is_title, not s.named, -(s.asked + s.lexical + amount * s.number), s.hit.rank or 99, s.index),
    )
    chosen = order[:n]
    for s in sentences:
        if s.named and s.index == 0 and s not in chosen:
            chosen.append(s)
    vecs = np.asarray(embed([f"{_read_under(s, names or {})}: {s.text}" for s in chosen]), dtype=np.float32)
    q = np.asarray(query_vector, dtype=np.float32)
    for s, v in zip(chosen, vecs @ q, strict=True):
        s.cos = float(v)
