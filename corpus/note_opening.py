"""The opening of a note, read line by line: the labelled lines that name the note's own paper
(``**Paper:** [Title](link)``, ``Paper: <link>``, ``Link: …``, ``PDF: …``, ``arXiv: 2401.12345``,
``DOI: 10.…``, ``Title: …``, ``Venue: OSDI '22``, ``Authors: …``), its byline, and the framing of a
post title ("Paper notes: QLoRA", "Reading: X", "Notes on X", "X — paper notes").

A labelled line is a label word, then ``:`` — bold, italic or as a list bullet alike — at the start of
one of the note's first :data:`OPENING_LINES` lines outside code. The opening proper (where a byline
states the venue) is the text before the first heading that follows some text: headings before any text
(the title, a "Metadata" heading) are passed over.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from papernotes.corpus.markdown import Inline, markdown_parser, render_inline
from papernotes.corpus.paper_links import arxiv_url, doi_url, is_paper_link, paper_id
from papernotes.corpus.papers import PAPER_LINK_LABELS

#: How many of a note's first lines (outside code, headings not counted) are read for labelled lines.
OPENING_LINES = 20
#: Labels of a line that names the note's own paper, most telling first: the link of the first kind
#: present wins when the kinds disagree (a paper's arXiv abstract and its publisher's PDF).
IDENTITY_LABELS = ("paper", "arxiv", "doi", "pdf", "link", "url", "source")
#: Of those, labels that say the line is the paper itself, so any web link on it counts; "Link:",
#: "URL:" and "Source:" count only with a link to a paper (:func:`~papernotes.corpus.paper_links.is_paper_link`).
_STRONG_LABELS = ("paper", "arxiv", "doi", "pdf")
_LABEL_RE = re.compile(
    r"^\W{0,3}(paper(?:\s+link)?|pdf|arxiv(?:\s+id)?|doi|link|url|source|venue|conference|published(?:\s+(?:at|in))?"
    r"|title|authors?)\s*[*_]{0,2}\s*[:：]\s*[*_]{0,2}\s*",
    re.IGNORECASE,
)
_BARE_URL_RE = re.compile(r"https?://[^\s)>\]]+")
#: A post title's framing around the paper's name: "Paper notes: X", "Reading: X", "Notes on X",
#: "[Paper] X", "X — paper notes", "X (notes)".
_FRAME_HEAD_RE = re.compile(
    r"^\s*(?:\[(?:paper|notes?|reading)\]\s*|(?:(?:my|paper|reading|quick|short)\s+)*"
    r"(?:notes?|reading|summary|review|paper|tl;?dr)(?:\s*[:|–—-]\s*|\s+(?:on|of|about|for)\s+))(?=\S)",
    re.IGNORECASE,
)
_FRAME_TAIL_RE = re.compile(
    r"\s*(?:[:|–—-]\s*(?:(?:my|paper|reading)\s+)*(?:notes?|summary|review)|\s(?:paper|reading)?\s*notes"
    r"|\((?:(?:my|paper|reading)\s+)*notes?\))\s*$",
    re.IGNORECASE,
)


@dataclass
class Opening:
    """What a note's opening says about its paper.

    ``link``: the paper's URL from a labelled line (None when none, or when two lines of one label
    give different papers: ``ambiguous``); ``title``: a labelled line's link text or text when it reads
    as a title; ``placeholder``: a labelled paper line with an empty link (``[Title]()``);
    ``named_only``: a ``Paper:`` line with a title and no link at all; ``venues``: the text of
    ``Venue:``/``Conference:``/``Published at:`` lines; ``authors``: the text of an ``Authors:`` line; ``byline``: the opening proper's lines (see the module docstring);
    ``bare_placeholder``: the text of an unlabelled line of the opening proper that is one link with
    an empty address (``[Scaling Laws for Neural Language Models]()``).
    """

    link: str | None = None
    title: str | None = None
    ambiguous: bool = False
    placeholder: bool = False
    named_only: bool = False
    venues: list[str] = field(default_factory=list)
    authors: str | None = None
    byline: list[str] = field(default_factory=list)
    bare_placeholder: str | None = None


def _lines(markdown: str) -> list[tuple[Inline, bool]]:
    """The note's first lines outside code and headings as ``(rendered inline, in the opening
    proper)``; a paragraph's soft line breaks separate lines."""
    out: list[tuple[Inline, bool]] = []
    proper = True
    tokens = markdown_parser().parse(markdown)
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            proper = proper and not out
        if t.type != "inline" or (i and tokens[i - 1].type == "heading_open"):
            continue
        parts: list[list[Token]] = [[]]
        for c in t.children or []:
            if c.type in ("softbreak", "hardbreak"):
                parts.append([])
            else:
                parts[-1].append(c)
        for part in parts:
            inline = render_inline(Token(type="inline", tag="", nesting=0, children=part))
            if inline.text:
                out.append((inline, proper))
        if len(out) >= OPENING_LINES:
            break
    return out[:OPENING_LINES]


#: Words of link texts that only say where the paper is ("the paper", "PDF here", "arXiv link").
_LINK_WORDS = frozenset(
    "the this a paper papers here link pdf arxiv full text preprint read it version url doi".split()
)


def _title_case(text: str) -> bool:
    """Text written as a title, not a sentence: it starts with a capital or digit and ends without a stop."""
    return (text[:1].isupper() or text[:1].isdigit()) and not text.rstrip().endswith(".")


def _title_like(label: str) -> bool:
    """A link text that names a paper: words, not a URL, an identifier or a link kind ("Paper", "PDF",
    "the paper here")."""
    s = label.strip()
    low = s.lower()
    return (
        len(s) >= 3
        and not set(re.findall(r"\w+", low)) <= _LINK_WORDS
        and not low.startswith(("http", "www.", "arxiv:", "doi:", "10."))
        and low not in PAPER_LINK_LABELS
        and low not in ("link", "here", "this", "url", "pdf link", "paper link", "full paper", "preprint")
        and not re.fullmatch(r"[\d.v/ -]+", s)
    )


def frame_stripped(title: str) -> tuple[str, bool]:
    """``(the title without its framing, whether it had one)``: "Paper notes: QLoRA" → ``("QLoRA",
    True)``, "Reading: Orca" → ``("Orca", True)``, "FlashAttention — paper notes" →
    ``("FlashAttention", True)``; a title without framing is returned as it is."""
    s = title.strip()
    head = _FRAME_HEAD_RE.match(s)
    if head and len(s) > head.end():
        return s[head.end() :].strip(), True
    tail = _FRAME_TAIL_RE.search(s)
    if tail and tail.start() > 0:
        return s[: tail.start()].strip(), True
    return s, False


def read_opening(markdown: str) -> Opening:
    """What the labelled lines and the byline of a note's opening say (see :class:`Opening`)."""
    op = Opening()
    found: dict[str, list[str]] = {}  # label kind → paper links in order
    titles: list[str] = []
    for inline, proper in _lines(markdown):
        if proper:
            op.byline.append(inline.text)
        m = _LABEL_RE.match(inline.text)
        if not m:
            empty = [lbl for lbl, href in inline.links if href.strip() in ("", "#")]
            if proper and len(empty) == 1 and _title_like(empty[0]) and len(empty[0]) >= 0.6 * len(inline.text):
                op.bare_placeholder = op.bare_placeholder or empty[0]
            continue
        kind = re.split(r"\s+", m.group(1).lower())[0]
        rest = inline.text[m.end() :].strip()
        if kind in ("venue", "conference", "published"):
            op.venues.append(rest)
            continue
        if kind == "title":
            if _title_like(rest):
                titles.append(rest)
            continue
        if kind.startswith("author"):
            op.authors = op.authors or rest
            continue
        links = [(label, href.strip()) for label, href in inline.links]
        for label, href in links:
            if href in ("", "#"):
                if kind == "paper" and _title_like(label):
                    titles.append(label)
                    op.placeholder = True
                continue
            if re.match(r"^https?://", href, re.I) and (kind in _STRONG_LABELS or is_paper_link(href)):
                found.setdefault(kind, []).append(href)
                if _title_like(label):
                    titles.append(label)
        if not links:
            bare = _BARE_URL_RE.findall(rest)
            word = rest.split()[0] if rest.split() else ""
            url = (
                bare[0]
                if bare
                else arxiv_url(word.rstrip(".,;"))
                if kind == "arxiv"
                else doi_url(rest)
                if kind == "doi"
                else None
            )
            if url and (kind in _STRONG_LABELS or is_paper_link(url)):
                found.setdefault(kind, []).append(url)
            elif kind == "paper" and _title_like(rest) and 2 <= len(rest.split()) <= 30 and _title_case(rest):
                titles.append(rest)
                op.named_only = True
    for kind in IDENTITY_LABELS:
        ids = list(dict.fromkeys(paper_id(u) for u in found.get(kind, [])))
        if len(ids) > 1:
            return Opening(ambiguous=True, venues=op.venues, authors=op.authors, byline=op.byline)
    if op.bare_placeholder and not found and not titles:
        titles.append(op.bare_placeholder)
    op.link = next((found[k][0] for k in IDENTITY_LABELS if found.get(k)), None)
    distinct_titles = list(dict.fromkeys(titles))
    op.title = distinct_titles[0] if len(distinct_titles) == 1 else None
    return op
