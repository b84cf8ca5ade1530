"""The fields a paper note states about its paper outside its title and links: front-matter keys of the
notes tools, the year, the authors and affiliations, and the one-line summary (a TL;DR, an abstract or
the first paragraph of prose)."""

from __future__ import annotations

import re
from typing import Any

from papernotes.corpus.markdown import Block
from papernotes.corpus.note_links import BARE_URL_RE
from papernotes.corpus.note_opening import Opening, author_list, is_labelled_line
from papernotes.corpus.papers import join_lines, split_authors
from papernotes.corpus.venue_names import journal_abbreviated

#: Front-matter keys (case-insensitive) of the notes tools (Obsidian, Jekyll, Hugo, GitBook, Zotero).
VENUE_KEYS = (
    "venue",
    "conference",
    "booktitle",
    "journal",
    "publication",
    "proceedings",
    "event",
    "published",
    # Zotero's, BibLaTeX's and CSL's names for the same field
    "publicationtitle",
    "publication_title",
    "proceedingstitle",
    "proceedings_title",
    "journaltitle",
    "container-title",
)
SUMMARY_KEYS = ("tldr", "tl;dr", "summary", "excerpt", "description", "desc", "abstract")  # desc: Dendron
AUTHOR_KEYS = ("authors", "author", "creators")
AFFILIATION_KEYS = ("affiliations", "affiliation", "institution", "institutions", "organization")
ID_KEYS = ("citekey", "citationkey", "citation_key", "doi", "arxiv", "arxiv_id", "zotero")

_TLDR_RE = re.compile(r"^\W{0,3}(?:TL;?\s?DR|TLDR)\W{0,3}[:;.,—–-]?\s*", re.IGNORECASE)
_SUMMARY_LABEL_RE = re.compile(r"^(?:summary|abstract|overview)\s?[.:—–-]\s+", re.IGNORECASE)
#: A statement of where the paper appeared ("Published in ..."): no summary of it.
ACCEPTED_RE = re.compile(
    r"\b(?:accepted|published|presented|appear(?:s|ed|ing)?)\s+(?:(?:as|at|in|to|by)\s+)+(?:the\s+)?([^.;\n]{2,60})",
    re.IGNORECASE,
)
_DATE_YEAR_RE = re.compile(r"^((?:19|20)\d\d)\b")


def fm_value(meta: dict[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` (lower case) that front matter ``meta`` sets, its keys read
    case-insensitively; None when none is set or all are empty."""
    low = {str(k).lower(): v for k, v in meta.items()}
    for k in keys:
        v = low.get(k)
        if v not in (None, "", []):
            return v
    return None


_WIKI_RE = re.compile(r"\[\[(?:[^\]|]*\|)?([^\]]*)\]\]")


def as_list(v: Any) -> list[str]:
    """A front-matter value as a list of names: a list, or a string split at ``;``/"and" or commas;
    wiki links (``"[[Jason Wei]]"``, the Obsidian Web Clipper's authors) read as their names."""
    if v is None:
        return []
    if isinstance(v, list):
        return [_WIKI_RE.sub(r"\1", str(x)).strip() for x in v if str(x).strip()]
    v = _WIKI_RE.sub(r"\1", str(v))
    s = str(v).strip()
    parts = re.split(r"\s*;\s*|\s+and\s+", s) if (";" in s or " and " in s) else re.split(r"\s*,\s*", s)
    return [p.strip() for p in parts if p.strip()]


def year_of(meta: dict[str, Any]) -> int | None:
    """The year front matter states: its ``year`` key, else the year its ``date`` starts with; or None."""
    y = fm_value(meta, ("year",))
    if y is not None and re.fullmatch(r"(?:19|20)\d\d", str(y).strip()):
        return int(str(y).strip())
    d = fm_value(meta, ("date",))
    m = _DATE_YEAR_RE.match(str(d or "").strip())
    return int(m.group(1)) if m else None


def has_tldr(blocks: list[Block]) -> bool:
    """True when one of the first 12 blocks is a TL;DR paragraph or lies under a TL;DR heading."""
    return any(
        (b.kind == "text" and _TLDR_RE.match(b.text)) or re.search(r"tl;?\s?dr", " ".join(b.headings[-1:]), re.I)
        for b in blocks[:12]
    )


#: What stands for the authors a list leaves out: "et al.", "and others", "…".
_ET_AL_RE = re.compile(r"(?:and\s+)?(?:et\.?\s*al\.?|others|\.\.\.|…)", re.IGNORECASE)


def note_people(meta: dict[str, Any], blocks: list[Block], op: Opening) -> tuple[list[str], list[str]]:
    """``(authors, affiliations)`` of a note: its front matter's, else its opening's author line (and
    ``Affiliation:`` line), else
    an "Authors:" paragraph among its first 12 blocks, else an unlabelled author list among its
    opening's first two lines (:func:`~papernotes.corpus.note_opening.author_list`: "Matthew E. Peters,
    Mark Neumann, …" under the title); empty lists when it names none."""
    # "et al." ending a list of front matter authors ("Tom B. Brown, Benjamin Mann, et al.") is no author
    authors = [a for a in as_list(fm_value(meta, AUTHOR_KEYS)) if not _ET_AL_RE.fullmatch(a.strip())]
    affs = as_list(fm_value(meta, AFFILIATION_KEYS)) or list(op.affiliations)
    if not authors and op.authors:
        authors, found = split_authors(op.authors)
        affs = affs or found
    if not authors:
        for b in blocks[:12]:
            if b.kind == "text" and re.match(r"^(?:\*\*)?authors?\s*[:：]", b.text, re.IGNORECASE):
                names, found = split_authors(b.text.split(":", 1)[1] if ":" in b.text else b.text.split("：", 1)[1])
                authors = names
                affs = affs or found
                break
    if not authors:
        # a byline line, or a part of one set apart by a dot, bar or dash, before or after its links and
        # venue ("[Paper](…) · Tri Dao, Daniel Y. Fu, … (Stanford)", "Jane Doe, Bob Lee — ICLR 2031")
        parts = [p for line in op.byline[:2] for p in dict.fromkeys((line, *BYLINE_PARTS_RE.split(line)))]
        for part in parts:
            if author_list(part):
                authors, found = split_authors(part)
                affs = affs or found
                break
    return authors, affs


#: What sets the parts of a byline apart: a middle dot, bullet, bar or dash between spaces ("Jane Doe, Bob
#: Lee — ICLR 2031").
BYLINE_PARTS_RE = re.compile(r"\s+[·•|—–]\s+")


def note_summary(meta: dict[str, Any], blocks: list[Block]) -> str:
    """The note's one-liner: a TL;DR (front matter, a ``TL;DR`` paragraph or section), else the front
    matter's excerpt/description/abstract, else the first paragraph."""
    v = fm_value(meta, ("tldr", "tl;dr"))
    if isinstance(v, str) and v.strip():
        return v.strip()
    for b in blocks:
        if b.kind == "text" and _TLDR_RE.match(b.text) and len(_TLDR_RE.sub("", b.text)) > 10:
            return _TLDR_RE.sub("", b.text).strip()
    for b in blocks:
        sec = " ".join(b.headings[-1:]).lower()
        if re.search(r"\b(?:tl;?\s?dr|summary|abstract)\b", sec):  # not "… Abstraction for …"
            if b.kind == "text":
                return b.text
            if b.kind == "list":
                return join_lines([it.text for it in b.items])
    v = fm_value(meta, SUMMARY_KEYS)
    if isinstance(v, str) and v.strip():
        return re.sub(r"(?<!\w)\\?#[\w-]+", "", v).strip()
    first = next((b.text for b in blocks if b.kind == "text" and _prose(b)), "")
    return _SUMMARY_LABEL_RE.sub("", first)  # "**Summary.** Existing servers …": the text, not its label


#: A part of a citation's byline: a surname or group ("Kingma", "Google Brain", "Berkeley AMPLab"), "X et
#: al.", a year, or a venue as notes write it ("USENIX ATC 2014", "arXiv").
_BYLINE_PART_RE = re.compile(
    r"(?:[A-Z][\w'’-]*\.?(?:\s+[A-Z][\w'’-]*\.?){0,2}(?:\s+et\s+al\.?|\s+'?\d{2,4})?|(?:19|20)\d\d|arXiv(?:\s+preprint)?)"
)


def byline_sentence(text: str) -> bool:
    """A paragraph that opens with a citation's byline — surnames or groups, "et al.", a year or venue,
    brackets aside ("Kingma & Ba.", "Ghemawat, Gobioff, Leung. SOSP 2003.", "DeepMind (Hoffmann et
    al.). arXiv.", "Kaplan et al., OpenAI, 2020.") — and says little else (under 5 more words)."""
    first, _, rest = re.sub(r"\([^()]*\)", " ", text).partition(". ")
    rest = journal_abbreviated(rest)  # "Journal of Machine Learning Research 2022." is "JMLR 2022"
    parts = [p.strip(" .") for p in re.split(r"\s*[,;&]\s*|\s+and\s+", first.strip()) if p.strip(" .")]
    if not parts or not all(_BYLINE_PART_RE.fullmatch(p) for p in parts):
        return False
    said = len(parts) >= 2 or "et al" in text or "(" in text
    words = [
        w
        for sent in rest.split(". ")
        if not all(_BYLINE_PART_RE.fullmatch(p.strip(" .")) for p in sent.split(","))
        for w in sent.split()
    ]
    return said and len(words) < 5


#: A line that opens by giving another name of the paper ("a.k.a. **Chinchilla** …", "aka SGLang").
_AKA_START_RE = re.compile(r"^\W*(?:a\.k\.a\.?|aka|also known as)(?!\w)", re.IGNORECASE)


def _prose(b: Block) -> bool:
    """A paragraph that says something: not code, a quote, a venue statement, a labelled line
    ("Author: …", "Venue: …"), an author list, a citation's byline or mostly link labels."""
    if b.text.startswith(("```", "> ")) or ACCEPTED_RE.match(b.text) or is_labelled_line(b.text):
        return False
    first = b.text.split("\n", 1)[0]
    if author_list(first) or author_list(BYLINE_PARTS_RE.split(first)[0]) or byline_sentence(b.text):
        return False  # (the authors before a dash: "Jane Doe, Bob Lee — ICLR 2031")
    if _AKA_START_RE.match(first):
        return False  # another name of the paper: "a.k.a. **Chinchilla** (DeepMind, Hoffmann et al. 2022)"
    rest = b.text
    for label, _ in b.links:
        rest = rest.replace(label, " ")
    return len(BARE_URL_RE.sub(" ", rest).split()) >= 5
