"""Summarize a conference's papers on a topic: complete (every catalog paper of the venue on the topic),
grouped by the notes' own headings, cited by ``[n]`` markers.

Papers are selected from the paper catalog by metadata (venue + topic headings, or an explicit mention
of the topic in the paper's own title/summary), never by similarity search. Header facts (dates, place,
acceptance rate, homepage) come from the indexed chunks of the notes' conference calendar table and of
the venue's own page. The overview is built from the data (offline), or, with a model, by map-reduce:
one summary per group (split when a group does not fit the context window), then one synthesis.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from papernotes.corpus.catalog import load_catalog
from papernotes.corpus.errors import BadInputError
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.papers import title_key
from papernotes.corpus.venues import normalize_venue, resolve_venue
from papernotes.retrieval.errors import IndexMissingError, ModelUnavailableError
from papernotes.retrieval.settings import Settings

Progress = Callable[[str, int, int], None]  # (stage "map" | "reduce", calls done, calls planned so far)


# --------------------------------------------------------------------------------------------------
# topics
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Topic:
    """A topic: which heading/bullet names put a paper in it and which words in its title/summary do.

    ``headings`` is searched in each element of a catalog topic path ("Page › heading › bullet");
    ``text`` in the paper's title and one-line summary. Both are compiled case-insensitively
    (acronyms that are ordinary words in lower case are wrapped in ``(?-i:…)``).
    """

    key: str
    label: str
    headings: re.Pattern[str]
    text: re.Pattern[str]
    known: bool = True


def _topic(key: str, label: str, headings: str, text: str) -> Topic:
    return Topic(key, label, re.compile(headings, re.I), re.compile(text, re.I))


#: The topic table. Heading terms are the section headings and topic bullets the notes actually use on
#: their conference pages and topic pages (seeds/003 dump and the GitBook SUMMARY: "Large Language
#: Models (LLMs)", "LLM", "LLMs", "LLM Inference", "LLM Training", "LLM Optimization", "Large Language
#: Model (LLM)"; "Diffusion Models", "Diffusion / Generative Models", "Text-to-Video Generation";
#: "Mixture-of-Experts (MoEs)", "Mixture of Experts (MoE)", "MoE", "MoE Inference"; "RL Post-Training",
#: "Reinforcement Learning (RL)", "Reinforcement Learning with Human Feedback (RLHF)"; "Model Serving",
#: "Distributed Training", "Retrieval-Augmented Generation (RAG)", "Agentic Systems", "Deep Learning
#: Compilation", "Deep Learning Recommendation Models (DLRMs)", "KV Cache Management", "Quantization",
#: "Speculative Decoding"). Text terms are the same names as written in the papers' titles and one-line
#: summaries (including the expansions in the venue pages' "Acronyms" sections).
TOPICS: dict[str, Topic] = {
    t.key: t
    for t in (
        _topic(
            "llm",
            "LLMs",
            r"\bm?llms?\b|\blanguage models?\b",
            r"\bm?llms?\b|\blarge language models?\b|\blanguage models?\b",
        ),
        _topic(
            "diffusion",
            "diffusion models",
            r"\bdiffusion\b|\bgenerative models?\b|\btext-to-(?:image|video)\b|\b(?:image|video) generation\b"
            r"|(?-i:\bDiTs?\b)",
            r"\bdiffusion\b|\btext-to-(?:image|video)\b|\b(?:image|video) generation\b|(?-i:\bDiTs?\b)",
        ),
        _topic(
            "moe",
            "mixture-of-experts (MoE) models",
            r"\bmixture[- ]of[- ]experts?\b|\bmoes?\b",
            r"\bmixture[- ]of[- ]experts?\b|(?-i:\bMoEs?\b)|\bexpert[- ]parallel(?:ism)?\b",
        ),
        _topic(
            "rl",
            "reinforcement learning (RL)",
            r"\breinforcement learning\b|\brl(?:hf)?\b",
            r"\breinforcement learning\b|(?-i:\bRL(?:HF)?\b)",
        ),
        _topic("serving", "model serving and inference", r"\bserving\b|\binference\b", r"\bserving\b|\binference\b"),
        _topic(
            "training",
            "model training",
            r"\btraining\b|\bpre-?training\b|\bfine-?tuning\b",
            r"\btraining\b|\bpre-?training\b|\bfine-?tuning\b",
        ),
        _topic(
            "rag",
            "retrieval-augmented generation (RAG)",
            r"\bretrieval[- ]augmented\b|\brag\b",
            r"\bretrieval[- ]augmented\b|(?-i:\bRAG\b)",
        ),
        _topic("agents", "AI agents", r"\bagent(?:s|ic)?\b", r"\bagent(?:s|ic)?\b"),
        _topic(
            "compilers",
            "deep learning compilers and kernels",
            r"\bcompil(?:er|ers|ation)\b|\bkernel generation\b|\btensor programs?\b",
            r"\bcompil(?:er|ers|ation)\b|\bkernel generation\b|\btensor programs?\b",
        ),
        _topic(
            "dlrm",
            "recommendation models (DLRMs)",
            r"\brecommendation\b|\bdlrms?\b",
            r"\brecommendation (?:models?|systems?)\b|(?-i:\bDLRMs?\b)",
        ),
        _topic("kv-cache", "KV caches", r"\bkv ?cache", r"\bkv[- ]?cache"),
        _topic("quantization", "quantization", r"\bquantiz", r"\bquantiz"),
        _topic(
            "speculative-decoding", "speculative decoding", r"\bspeculative decoding\b", r"\bspeculative decoding\b"
        ),
    )
}

#: Other spellings of the topic keys (compared after lower-casing and collapsing spaces/-/_).
TOPIC_ALIASES: dict[str, str] = {
    "llms": "llm",
    "large language model": "llm",
    "large language models": "llm",
    "language models": "llm",
    "diffusion models": "diffusion",
    "diffusion model": "diffusion",
    "generative models": "diffusion",
    "moes": "moe",
    "mixture of experts": "moe",
    "reinforcement learning": "rl",
    "rlhf": "rl",
    "inference": "serving",
    "model serving": "serving",
    "llm serving": "serving",
    "retrieval augmented generation": "rag",
    "agent": "agents",
    "agentic": "agents",
    "compiler": "compilers",
    "compilation": "compilers",
    "kernels": "compilers",
    "recommendation": "dlrm",
    "dlrms": "dlrm",
    "kv cache": "kv-cache",
    "kvcache": "kv-cache",
    "quantisation": "quantization",
    "speculative decoding": "speculative-decoding",
}


def resolve_topic(topic: str) -> Topic:
    """The :class:`Topic` for a key or alias ("llm", "LLMs", "mixture-of-experts", …). Any other text
    becomes a free-text topic (``known=False``) matched as a whole word in headings, titles and summaries.

    Raises BadInputError for an empty topic.
    """
    raw = (topic or "").strip()
    if not re.search(r"\w", raw):
        raise BadInputError(f"the topic is empty; known topics: {', '.join(TOPICS)}")
    key = re.sub(r"[\s_-]+", " ", raw.lower()).strip()
    for k in (key, key.replace(" ", "-")):
        if k in TOPICS:
            return TOPICS[k]
        if k in TOPIC_ALIASES:
            return TOPICS[TOPIC_ALIASES[k]]
    words = r"[\s_-]+".join(re.escape(w) for w in key.split())
    pat = re.compile(rf"(?<!\w){words}(?!\w)", re.I)
    return Topic(key=raw, label=raw, headings=pat, text=pat, known=False)


# --------------------------------------------------------------------------------------------------
# result objects
# --------------------------------------------------------------------------------------------------


@dataclass
class PaperItem:
    """One paper of the summary; ``n`` is its citation marker (position in the whole summary, from 1)."""

    n: int
    title: str
    system: str | None
    affiliations: list[str]
    summary: str
    url: str | None
    sources: list[str]
    section: str = ""  # the paper's place in the notes ("LLM Inference › KV Cache Management")

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "title": self.title,
            "system": self.system,
            "affiliations": self.affiliations,
            "summary": self.summary,
            "url": self.url,
            "sources": self.sources,
        }


@dataclass
class Group:
    """Papers under one heading path of the notes, in the notes' order; ``summary`` only with a model."""

    name: str
    papers: list[PaperItem] = field(default_factory=list)
    summary: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "papers": [p.as_dict() for p in self.papers], "summary": self.summary}


@dataclass
class ConferenceSummary:
    """The summary of one venue's papers on one topic (``summarize --json`` contract plus extras).

    ``mode`` is "llm" when the overview was written by a model, else "extractive". ``message`` is set
    when there is nothing to summarize (no papers on the topic at that venue). ``note`` says why a
    configured model was not used. ``total_papers`` counts every catalog paper of the venue.
    """

    venue: str
    topic: str
    topic_label: str
    groups: list[Group]
    overview: str
    mode: str
    total_papers: int = 0
    when: str | None = None
    where: str | None = None
    acceptance_rate: str | None = None
    homepage: str | None = None
    message: str | None = None
    note: str | None = None
    dropped_citations: int = 0
    model_calls: int = 0

    @property
    def paper_count(self) -> int:
        return sum(len(g.papers) for g in self.groups)

    @property
    def papers(self) -> list[PaperItem]:
        return [p for g in self.groups for p in g.papers]

    def as_dict(self) -> dict[str, Any]:
        return {
            "venue": self.venue,
            "topic": self.topic,
            "paper_count": self.paper_count,
            "groups": [g.as_dict() for g in self.groups],
            "overview": self.overview,
            "mode": self.mode,
            "topic_label": self.topic_label,
            "total_papers": self.total_papers,
            "when": self.when,
            "where": self.where,
            "acceptance_rate": self.acceptance_rate,
            "homepage": self.homepage,
            "message": self.message,
            "note": self.note,
            "dropped_citations": self.dropped_citations,
            "model_calls": self.model_calls,
        }

    def header_lines(self) -> list[str]:
        """Plain header facts: dates and place, acceptance rate, counts."""
        facts = []
        if self.when:
            facts.append(f"When: {self.when}")
        if self.where:
            facts.append(f"Where: {self.where}")
        if self.acceptance_rate:
            facts.append(f"Acceptance rate: {self.acceptance_rate}")
        lines = [" · ".join(facts)] if facts else []
        lines.append(
            f"{_count(self.paper_count, 'paper')} on {self.topic_label} "
            f"(of {_count(self.total_papers, 'paper')} of {self.venue} in the notes), "
            f"{_count(len(self.groups), 'group')} · mode: {self.mode}"
        )
        return lines

    def to_markdown(self) -> str:
        """The summary as Markdown (Discord-friendly: one line per paper, short lines, ``<url>`` links so
        they do not unfurl): a heading, the header facts, the overview, the groups, then the Sources."""
        out = [f"## {self.topic_label} at {self.venue}"]
        if self.message:
            out += ["", self.message]
            return "\n".join(out)
        out += [""] + self.header_lines()
        if self.note:
            out.append(f"_note: {self.note}_")
        out += ["", "### Overview", self.overview]
        for g in self.groups:
            out += ["", f"### {g.name} ({len(g.papers)})"]
            if g.summary:
                out.append(g.summary)
            for p in g.papers:
                out.append(paper_line(p, markdown=True))
        out += ["", "### Sources"]
        for p in self.papers:
            out.append(f"[{p.n}] {p.title}" + (f" <{p.url}>" if p.url else ""))
        return "\n".join(out)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut at a sentence end or word boundary to at most ``limit`` characters."""
    t = re.sub(r"\s+", " ", text or "").strip()
    if len(t) <= limit:
        return t
    cut = t[:limit]
    dot = cut.rfind(". ")
    if dot > limit // 2:
        return cut[: dot + 1]
    return cut[: cut.rfind(" ")].rstrip(",;:") + "…" if " " in cut else cut + "…"


def paper_line(p: PaperItem, markdown: bool = False) -> str:
    """``[n] System — Title (Affiliations): one-line summary``."""
    name = p.system if p.system and not p.title.lower().startswith(p.system.lower()) else None
    head = f"**{name}** — {p.title}" if (markdown and name) else (f"{name} — {p.title}" if name else p.title)
    aff = f" ({', '.join(p.affiliations)})" if p.affiliations else ""
    summ = f": {one_line(p.summary)}" if p.summary else ""
    return f"- [{p.n}] {head}{aff}{summ}"


# --------------------------------------------------------------------------------------------------
# selection and grouping (catalog metadata only)
# --------------------------------------------------------------------------------------------------

#: Page-structure headings between a venue page's title and its topic headings ("MLSys 2026 › Papers ›
#: Large Language Models (LLMs) › …"); some pages put the topic lists under "Meta Info".
STRUCTURE_HEADINGS = {"papers", "paper list", "accepted papers", "meta info", "proceedings"}

_SEP = " › "


def _venue_path(path: str, venue: str) -> list[str] | None:
    """The heading path below "<venue> › Papers ›" when ``path`` is on the venue's own page, else None."""
    parts = [p.strip() for p in path.split(_SEP)]
    if not parts or parts[0].lower() != venue.lower():
        return None
    parts = parts[1:]
    if parts and parts[0].lower() in STRUCTURE_HEADINGS:
        parts = parts[1:]
    return parts


def _match_index(parts: list[str], topic: Topic) -> int | None:
    return next((i for i, p in enumerate(parts) if topic.headings.search(p)), None)


def _group_name(parts: list[str], i: int | None) -> str:
    """Group of a heading path: below the topic heading when it is the top one ("Large Language Models
    (LLMs) › LLM Inference › KV Cache" → "LLM Inference › KV Cache"), from the matching bullet when it
    is deeper ("Model Serving › LLM Inference" → "LLM Inference"), the whole path without a match."""
    if i is None:
        return _SEP.join(parts)
    if i == 0 and len(parts) > 1:
        return _SEP.join(parts[1:])
    return _SEP.join(parts[i:])


def paper_group(r: PaperRecord, venue: str, topic: Topic) -> tuple[bool, str]:
    """``(on a topic heading?, group name)`` for a catalog record, preferring the venue page's path."""
    own = [p for p in (_venue_path(t, venue) for t in r.topics) if p is not None]
    for parts in own:
        i = _match_index(parts, topic)
        if i is not None:
            return True, _group_name(parts, i)
    other = [[p.strip() for p in t.split(_SEP)] for t in r.topics if _venue_path(t, venue) is None]
    hit = next(((parts, i) for parts in other if (i := _match_index(parts, topic)) is not None), None)
    if own and own[0]:
        return hit is not None, _group_name(own[0], None)
    if hit:
        return True, _group_name(*hit)
    if other:
        return False, _group_name(other[0], None)
    return False, "Deep notes" if r.deep_note else "Other"


def mentions_topic(r: PaperRecord, topic: Topic) -> bool:
    """The paper's own title or one-line summary names the topic."""
    return bool(topic.text.search(r.title) or topic.text.search(r.summary or ""))


def venue_records(catalog: list[PaperRecord], venue: str) -> list[PaperRecord]:
    """Catalog records of a venue: its venue field is ``venue``, or it is listed on the venue's page."""
    v = venue.lower()
    return [
        r for r in catalog if (r.venue or "").lower() == v or any(_venue_path(t, venue) is not None for t in r.topics)
    ]


def select_papers(
    records: list[PaperRecord], venue: str, topic: Topic, page_order: dict[str, int] | None = None
) -> list[tuple[str, list[PaperRecord]]]:
    """The venue's records on the topic, grouped: ``[(group name, [records])]``.

    A record is in when one of its topic paths has a heading/bullet for the topic, or its title/summary
    mentions the topic. Order: the venue page's order (``page_order``: title key → position of the
    paper's chunk on the venue's page) when known, else catalog (first-seen) order; groups follow their
    first paper.
    """
    page_order = page_order or {}
    chosen: list[tuple[tuple[int, int], str, PaperRecord]] = []
    for idx, r in enumerate(records):
        on_heading, group = paper_group(r, venue, topic)
        if not (on_heading or mentions_topic(r, topic)):
            continue
        pos = page_order.get(title_key(r.title))
        chosen.append(((0, pos) if pos is not None else (1, idx), group, r))
    chosen.sort(key=lambda x: x[0])
    groups: dict[str, list[PaperRecord]] = {}
    for _, g, r in chosen:
        groups.setdefault(g, []).append(r)
    return list(groups.items())


# --------------------------------------------------------------------------------------------------
# header facts from the indexed chunks
# --------------------------------------------------------------------------------------------------


def _body(text: str, page_title: str | None) -> str:
    """Chunk text without its breadcrumb first line ("Page › Section")."""
    first, _, rest = text.partition("\n")
    return rest if page_title and first.startswith(page_title) else text


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def venue_info(texts: list[str], metadatas: list[dict[str, Any]], venue: str) -> dict[str, Any]:
    """Header facts about ``venue`` from indexed chunks.

    ``when``/``where`` come from the notes' conference calendar: table chunks (``kind == "table"``)
    whose header row has "When" and "Where" columns and a row whose first cell names the venue.
    ``acceptance_rate`` is the first line of the venue page's "Acceptance Rate" section and ``homepage``
    the "Homepage:" link of its "Meta Info" section. When several sources have the fact, the one from
    the same source file as the venue's page wins. Missing facts are None. Also returns ``page_order``
    (title key → chunk position of the paper on the venue page) and ``has_page``.
    """
    v = venue.lower()
    page_files = {
        str(m.get("source", "")).split("#")[0] for m in metadatas if str(m.get("page_title", "")).lower() == v
    }
    info: dict[str, Any] = {
        "when": None,
        "where": None,
        "acceptance_rate": None,
        "homepage": None,
        "page_order": {},
        "has_page": bool(page_files),
    }
    rows: list[tuple[bool, str, str]] = []
    for i, (t, m) in enumerate(zip(texts, metadatas, strict=True)):
        same_file = str(m.get("source", "")).split("#")[0] in page_files
        pt = str(m.get("page_title") or "")
        if m.get("kind") == "table":
            lines = [ln for ln in _body(t, pt).splitlines() if ln.strip().startswith("|")]
            if not lines:
                continue
            head = [c.lower() for c in _cells(lines[0])]
            if "when" not in head or "where" not in head:
                continue
            wi, hi = head.index("when"), head.index("where")
            for ln in lines[1:]:
                c = _cells(ln)
                if len(c) > max(wi, hi) and c[0] and normalize_venue(c[0]) == venue:
                    rows.append((same_file, c[wi], c[hi]))
            continue
        if pt.lower() != v:
            continue
        sec = str(m.get("section") or "")
        if m.get("kind") == "paper_entry" and m.get("paper_title"):
            info["page_order"].setdefault(title_key(str(m["paper_title"])), i)
        elif sec.lower().endswith("acceptance rate") and info["acceptance_rate"] is None:
            first = next((ln.strip(" -*") for ln in _body(t, pt).splitlines() if ln.strip()), "")
            info["acceptance_rate"] = first or None
        elif sec.split(_SEP)[0].strip().lower() == "meta info" and info["homepage"] is None:
            hm = re.search(r"homepage:\s*<?(https?://[^\s>]+)", t, re.I)
            if hm:
                info["homepage"] = hm.group(1)
    if rows:
        rows.sort(key=lambda r: not r[0])  # stable: same-file rows first, then index order
        info["when"], info["where"] = rows[0][1] or None, rows[0][2] or None
    return info


# --------------------------------------------------------------------------------------------------
# overviews
# --------------------------------------------------------------------------------------------------

#: Words that say nothing about a paper's subject in the notes' one-liners (verbs of the "Propose X, a
#: system that …" pattern and generic qualities); excluded from the offline overview's recurring terms.
GENERIC_WORDS = frozenset(
    """propose proposes proposed present presents introduce introduces design designs
designed develop enable enables achieve achieves improve improves reduce reduces reducing leverage leverages
leveraging exploit exploits exploiting demonstrate identify identifies study first new novel system systems
framework frameworks approach approaches method efficient efficiently efficiency high higher low lower fast
faster scalable scale large-scale large small performance better based via using use uses without while across
towards toward minimal practical unified holistic general flexible effective effectively cost time aware
optimizing optimize optimizes optimization optimizations accelerating accelerate accelerates acceleration
model models paper work support supports supporting end-to-end axis""".split()
)
# ("axis": the topic pages prefix some one-liners with "Axis: <what the paper varies>")


def _terms(text: str) -> list[list[str]]:
    """Word runs of ``text`` split at punctuation: ``[["KV", "cache", …], …]``."""
    return [re.findall(r"[A-Za-z][A-Za-z0-9+]*(?:-[A-Za-z0-9+]+)*", seg) for seg in re.split(r"[.,;:()\[\]!?]", text)]


def _display(words: list[str]) -> str:
    """Lower-case a phrase for display, keeping acronyms and mixed-case names ("KV cache", "MoE")."""
    return " ".join(w if any(c.isupper() for c in w[1:]) or w.isupper() else w.lower() for w in words)


def recurring_terms(
    papers: list[PaperItem], skip: set[str], phrases: int = 4, words: int = 3
) -> list[tuple[str, list[int]]]:
    """Terms that occur in at least two papers' titles and summaries: up to ``phrases`` two-word
    phrases, then up to ``words`` single words not part of a chosen phrase, each most frequent first,
    as ``[(display form, [marker numbers])]``. Words are compared by their Snowball stem; stop words
    (bm25s' English list), :data:`GENERIC_WORDS` and ``skip`` are ignored."""
    from papernotes.retrieval.terms import stem, stop_words

    stop = stop_words()
    docs: dict[tuple[str, ...], list[int]] = {}
    surface: dict[tuple[str, ...], str] = {}
    order: dict[tuple[str, ...], int] = {}

    def ok(w: str) -> bool:
        lw = w.lower()
        return len(w) > 1 and lw not in stop and lw not in GENERIC_WORDS and lw not in skip

    for p in papers:
        seen: set[tuple[str, ...]] = set()
        for run in _terms(f"{p.title}. {p.summary}"):
            for j, w in enumerate(run):
                if not ok(w):
                    continue
                keys = [((stem(w.lower()),), [w])]
                if j + 1 < len(run) and ok(run[j + 1]):
                    keys.append(((stem(w.lower()), stem(run[j + 1].lower())), [w, run[j + 1]]))
                for k, form in keys:
                    surface.setdefault(k, _display(form))
                    order.setdefault(k, len(order))
                    if k not in seen:
                        seen.add(k)
                        docs.setdefault(k, []).append(p.n)

    def ranked(size: int) -> list[tuple[str, ...]]:
        ks = [k for k, ns in docs.items() if len(k) == size and len(ns) >= 2]
        return sorted(ks, key=lambda k: (-len(docs[k]), order[k]))

    chosen = ranked(2)[:phrases]
    inside = {s for k in chosen for s in k}
    chosen += [k for k in ranked(1) if k[0] not in inside][:words]
    return [(surface[k], docs[k]) for k in chosen]


def extractive_overview(s: ConferenceSummary, topic: Topic) -> str:
    """An overview built from the data only: counts, the largest groups, recurring terms (with example
    markers) and the most frequent affiliations; it says it was built without a model."""
    papers = s.papers
    n_groups = len(s.groups)
    parts = [
        f"Built from the notes without a model. The notes list {_count(len(papers), 'paper')} on "
        f"{topic.label} at {s.venue} (of {_count(s.total_papers, 'paper')} of {s.venue} in the notes) "
        f"in {_count(n_groups, 'group')}."
    ]
    biggest = sorted(s.groups, key=lambda g: -len(g.papers))[:4]
    if n_groups > 1:
        parts.append("Largest groups: " + "; ".join(f"{g.name} ({len(g.papers)})" for g in biggest) + ".")
    # the topic's own words and the affiliations' words ("UC Berkeley") are not recurring *terms*
    skip = {w.lower() for w in re.findall(r"[A-Za-z]+", f"{topic.key} {topic.label}")}
    skip |= {w.lower() for p in papers for a in p.affiliations for w in re.findall(r"[A-Za-z]+", a)}
    terms = recurring_terms(papers, skip)
    if terms:
        parts.append(
            "Recurring terms: "
            + "; ".join(f"{t} ({len(ns)} papers, e.g. {''.join(f'[{n}]' for n in ns[:3])})" for t, ns in terms)
            + "."
        )
    affs = Counter(a for p in papers for a in dict.fromkeys(p.affiliations))
    common = [(a, c) for a, c in affs.most_common(6) if c >= 2]
    if common:
        parts.append("Most frequent affiliations: " + ", ".join(f"{a} ({c})" for a, c in common) + ".")
    return " ".join(parts)


# --------------------------------------------------------------------------------------------------
# map-reduce with a chat model
# --------------------------------------------------------------------------------------------------

_MARKER_RE = re.compile(r"[ \t]?\[(\d{1,9}(?:\s*(?:[,;]|[-–])\s*\d{1,9})*)\](?!\()")


def clean_markers(text: str, allowed: set[int]) -> tuple[str, int]:
    """Keep only citation markers whose number is in ``allowed`` (the papers' ``n``); ``[1, 2]`` and
    ``[3-5]`` become ``[1][2]`` / ``[3][4][5]``. Numbers are not renumbered: they are positions in the
    whole summary. Returns ``(text, number of dropped marker numbers)``."""
    dropped = 0

    def fix(m: re.Match[str]) -> str:
        nonlocal dropped
        nums: list[int] = []
        for part in re.split(r"\s*[,;]\s*", m.group(1)):
            rng = re.match(r"(\d+)\s*[-–]\s*(\d+)$", part)
            if rng:
                a, b = int(rng.group(1)), int(rng.group(2))
                nums += list(range(a, b + 1)) if 0 < b - a <= 50 else [a, b]
            else:
                nums.append(int(part))
        keep = [n for n in dict.fromkeys(nums) if n in allowed]
        dropped += len(nums) - len([n for n in nums if n in allowed])
        if not keep:
            return ""
        lead = m.group(0)[0] if m.group(0)[0] in " \t" else ""
        return lead + "".join(f"[{n}]" for n in keep)

    out = _MARKER_RE.sub(fix, text)
    out = re.sub(r"[ \t]+([.,;:!?])", r"\1", out)
    return re.sub(r"[ \t]{2,}", " ", out).strip(), dropped


def fit_tokens(text: str, max_tokens: int, count: Callable[[str], int]) -> str:
    """``text`` cut at a word boundary (plus " …") so that ``count(text) <= max_tokens``."""
    if count(text) <= max_tokens:
        return text
    words = text.split()
    lo, hi = 0, len(words)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(" ".join(words[:mid]) + " …") <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo]) + " …"


def paper_prompt_line(p: PaperItem) -> str:
    """A paper as one prompt line: ``[n] System: Title (affiliations) — summary``."""
    name = f"{p.system}: " if p.system and not p.title.lower().startswith(p.system.lower()) else ""
    aff = f" ({', '.join(p.affiliations)})" if p.affiliations else ""
    summ = re.sub(r"\s+", " ", p.summary).strip()
    return f"[{p.n}] {name}{p.title}{aff}" + (f" — {summ}" if summ else "")


class MapReduce:
    """Per-group summaries (:data:`~papernotes.retrieval.prompts.MAP_SYSTEM`), then one synthesis
    (:data:`~papernotes.retrieval.prompts.REDUCE_SYSTEM`). Every request is packed so that its tokens (counted by
    :func:`~papernotes.retrieval.llm.messages_tokens`) stay within :func:`~papernotes.retrieval.llm.prompt_budget`; a group
    that does not fit one request is split into several map calls, and group summaries that do not fit
    one reduce request are first reduced in batches. Calls go through :func:`~papernotes.retrieval.llm.generate`
    (timeouts, retries, one-line :class:`ModelUnavailableError`). Map replies keep only markers of the
    papers in that request, the reduce reply only markers of papers in the summary.
    """

    #: Rounds of batch reduction before the remaining group summaries are shortened to fit.
    MAX_REDUCE_ROUNDS = 3

    def __init__(self, settings: Settings, chat_model, progress: Progress | None = None):
        from papernotes.retrieval.llm import count_tokens, prompt_budget

        self.settings = settings
        self.model = chat_model
        self.progress = progress
        self.budget = prompt_budget(settings)
        self.count = count_tokens
        self.calls = 0
        self.planned = 0
        self.dropped = 0

    def messages(self, system: str, user: str) -> list:
        from langchain_core.messages import HumanMessage, SystemMessage

        return [SystemMessage(content=system), HumanMessage(content=user)]

    def cost(self, system: str, user: str) -> int:
        """Tokens of the request ``system`` + ``user`` as :func:`~papernotes.retrieval.llm.messages_tokens` counts."""
        from papernotes.retrieval.llm import messages_tokens

        return messages_tokens(self.messages(system, user), self.count)

    def _call(self, stage: str, system: str, user: str) -> str:
        from papernotes.retrieval.llm import generate

        text = generate(self.model, self.messages(system, user), self.settings)
        self.calls += 1
        if self.progress:
            self.progress(stage, self.calls, max(self.planned, self.calls))
        return text.strip()

    # -- map ----------------------------------------------------------------------------------------

    def _map_user(self, s: ConferenceSummary, group: str, lines: list[str]) -> str:
        from papernotes.retrieval.prompts import MAP_USER

        return MAP_USER.format(venue=s.venue, topic=s.topic_label, group=group, papers="\n".join(lines))

    def pack_group(self, s: ConferenceSummary, g: Group) -> list[list[tuple[PaperItem, str]]]:
        """Split a group's papers into batches whose map request fits the budget (a paper line too
        long on its own is shortened).

        Raises ModelUnavailableError when the budget leaves no room for even one paper."""
        from papernotes.retrieval.prompts import MAP_SYSTEM

        longest_label = f"{g.name} (part {len(g.papers)} of {len(g.papers)})"
        room = self.budget - self.cost(MAP_SYSTEM, self._map_user(s, longest_label, []))
        if room < 24:
            raise ModelUnavailableError(
                f"PAPERNOTES_LLM_CONTEXT_TOKENS={self.settings.llm_context_tokens} minus "
                f"PAPERNOTES_LLM_ANSWER_TOKENS={self.settings.llm_answer_tokens} leaves no room for papers"
            )
        batches: list[list[tuple[PaperItem, str]]] = [[]]
        used = 0
        for p in g.papers:
            line = fit_tokens(paper_prompt_line(p), room - 2, self.count)
            cost = self.count(line) + 1  # + the newline joining it to the previous line
            if batches[-1] and used + cost > room:
                batches.append([])
                used = 0
            batches[-1].append((p, line))
            used += cost
        return batches

    def map_group(self, s: ConferenceSummary, g: Group, batches: list[list[tuple[PaperItem, str]]]) -> str:
        """The group's summary: one map call per batch, replies joined."""
        from papernotes.retrieval.prompts import MAP_SYSTEM

        parts = []
        for k, batch in enumerate(batches):
            label = g.name + (f" (part {k + 1} of {len(batches)})" if len(batches) > 1 else "")
            user = self._map_user(s, label, [line for _, line in batch])
            if self.cost(MAP_SYSTEM, user) > self.budget:  # packing is conservative; this is a guard
                raise ModelUnavailableError("a map request does not fit PAPERNOTES_LLM_CONTEXT_TOKENS")
            text, dropped = clean_markers(self._call("map", MAP_SYSTEM, user), {p.n for p, _ in batch})
            self.dropped += dropped
            if text:
                parts.append(text)
        return " ".join(parts)

    # -- reduce -------------------------------------------------------------------------------------

    def _reduce_user(self, s: ConferenceSummary, items: list[tuple[str, str]]) -> str:
        from papernotes.retrieval.prompts import REDUCE_USER

        body = "\n\n".join(f"### {name}\n{text}" for name, text in items)
        return REDUCE_USER.format(venue=s.venue, topic=s.topic_label, summaries=body)

    def _fits(self, s: ConferenceSummary, items: list[tuple[str, str]]) -> bool:
        from papernotes.retrieval.prompts import REDUCE_SYSTEM

        return self.cost(REDUCE_SYSTEM, self._reduce_user(s, items)) <= self.budget

    def reduce(self, s: ConferenceSummary, items: list[tuple[str, str]], allowed: set[int]) -> str:
        """One synthesis over ``(label, summary)`` items (see the class docstring)."""
        from papernotes.retrieval.prompts import REDUCE_SYSTEM

        room = self.budget - self.cost(REDUCE_SYSTEM, self._reduce_user(s, []))
        items = [(n, fit_tokens(t, max(8, room - self.count(f"### {n}") - 4), self.count)) for n, t in items]
        for _ in range(self.MAX_REDUCE_ROUNDS):
            if self._fits(s, items):
                break
            batches: list[list[tuple[str, str]]] = [[]]
            for it in items:
                if batches[-1] and not self._fits(s, batches[-1] + [it]):
                    batches.append([])
                batches[-1].append(it)
            if len(batches) >= len(items):
                break
            self.planned += len(batches)
            merged = []
            for b in batches:
                text, dropped = clean_markers(self._call("reduce", REDUCE_SYSTEM, self._reduce_user(s, b)), allowed)
                self.dropped += dropped
                label = b[0][0] if len(b) == 1 else f"{b[0][0].split(' … ')[0]} … {b[-1][0].split(' … ')[-1]}"
                merged.append((label, text))
            items = merged
        while not self._fits(s, items):  # share the room equally; shrink until it fits
            share = max(8, room // max(1, len(items)) - 16)
            shorter = [(n, fit_tokens(t, share, self.count)) for n, t in items]
            if shorter == items:
                raise ModelUnavailableError("the group summaries do not fit PAPERNOTES_LLM_CONTEXT_TOKENS")
            items = shorter
            room -= 16
        text, dropped = clean_markers(self._call("reduce", REDUCE_SYSTEM, self._reduce_user(s, items)), allowed)
        self.dropped += dropped
        return text

    def run(self, s: ConferenceSummary) -> str:
        """Fill each group's ``summary`` and return the overview.

        Raises ModelUnavailableError when a call fails or the model returns nothing usable."""
        packed = [(g, self.pack_group(s, g)) for g in s.groups]
        self.planned = sum(len(b) for _, b in packed) + 1
        for g, batches in packed:
            g.summary = self.map_group(s, g, batches) or None
        allowed = {p.n for p in s.papers}
        items = [
            (f"{g.name} (papers [{g.papers[0].n}]–[{g.papers[-1].n}])", g.summary or "(no summary)") for g in s.groups
        ]
        overview = self.reduce(s, items, allowed)
        if not overview:
            raise ModelUnavailableError("the model returned an empty overview")
        return overview


# --------------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------------


def venue_page_order(settings: Settings, venue: str) -> dict[str, int]:
    """``title key → position`` of each paper entry on the venue's own page(s) (page title == venue),
    from the ingested entries, which keep page order."""
    from papernotes.retrieval.indexing import load_entries

    order: dict[str, int] = {}
    for entries in load_entries(settings).values():
        for e in entries:
            if e.get("page_title") == venue and e.get("kind") == "paper_entry":
                order.setdefault(title_key(e["title"]), len(order))
    return order


def summarize(
    settings: Settings,
    venue: str,
    topic: str = "llm",
    use_llm: bool | None = None,
    chat_model=None,
    progress: Progress | None = None,
) -> ConferenceSummary:
    """Summarize ``venue``'s papers on ``topic``.

    Parameters
    ----------
    venue : any common spelling ("MLSys 2026", "mlsys26", "OSDI '26").
    topic : a key or alias of :data:`TOPICS` ("llm", "diffusion", "moe", "rl", …) or free text.
    use_llm : None → use a model when one is configured (``settings.llm_enabled``) or ``chat_model`` is
        given; False → never; True → use one (``chat_model`` or the configured endpoint).
    chat_model : a LangChain chat model to use instead of the configured endpoint (tests).
    progress : called as ``progress(stage, calls_done, calls_planned)`` after each model call.

    Returns
    -------
    ConferenceSummary; ``paper_count == 0`` with a one-line ``message`` when the venue has no papers on
    the topic. On a model failure the data overview is returned with a ``note`` (mode "extractive").

    Raises
    ------
    IndexMissingError without an index; BadInputError for an unknown venue (listing the closest known
    ones) or an empty topic.
    """
    from papernotes.retrieval.bm25 import BM25Index

    if not settings.catalog_path.is_file() or not (settings.bm25_dir / "chunks.json").is_file():
        raise IndexMissingError(f"no index in {settings.data_dir}: run `papernotes ingest PATH` first")
    t = resolve_topic(topic)
    catalog = load_catalog(settings.catalog_path)
    bm25 = BM25Index.load(settings.bm25_dir)
    pages = {
        str(m.get("page_title"))
        for m in bm25.metadatas
        if m.get("page_title") and normalize_venue(str(m["page_title"])) == m["page_title"]
    }
    counts = Counter(r.venue for r in catalog if r.venue)
    v = resolve_venue(venue, [k for k, _ in counts.most_common()] + sorted(pages - set(counts)))
    info = venue_info(bm25.texts, bm25.metadatas, v)
    info["page_order"] = venue_page_order(settings, v) or info["page_order"]
    records = venue_records(catalog, v)
    grouped = select_papers(records, v, t, info["page_order"])
    groups: list[Group] = []
    n = 0
    for name, recs in grouped:
        items = []
        for r in recs:
            n += 1
            items.append(
                PaperItem(
                    n=n,
                    title=r.title,
                    system=r.system,
                    affiliations=list(r.affiliations),
                    summary=r.summary or "",
                    url=r.url,
                    sources=list(r.sources),
                    section=name,
                )
            )
        groups.append(Group(name=name, papers=items))
    s = ConferenceSummary(
        venue=v,
        topic=t.key,
        topic_label=t.label,
        groups=groups,
        overview="",
        mode="extractive",
        total_papers=len(records),
        when=info["when"],
        where=info["where"],
        acceptance_rate=info["acceptance_rate"],
        homepage=info["homepage"],
    )
    if not groups:
        known = (
            ""
            if t.known
            else (
                f" '{t.key}' is not a known topic (known: {', '.join(TOPICS)}), so it was "
                f"matched as a word in headings, titles and summaries."
            )
        )
        s.message = (
            f"No papers on {t.label} at {v} in the notes; the notes list {len(records)} "
            f"{'paper' if len(records) == 1 else 'papers'} for {v} in total.{known}"
        )
        s.overview = s.message
        return s
    llm = (settings.llm_enabled or chat_model is not None) if use_llm is None else use_llm
    if llm:
        try:
            from papernotes.retrieval.llm import make_chat_model

            mr = MapReduce(settings, chat_model if chat_model is not None else make_chat_model(settings), progress)
            try:
                s.overview = mr.run(s)
            finally:
                s.model_calls, s.dropped_citations = mr.calls, mr.dropped
            s.mode = "llm"
            return s
        except ModelUnavailableError as e:
            for g in s.groups:
                g.summary = None
            s.note = f"model not used: {e}"
    s.overview = extractive_overview(s, t)
    return s
