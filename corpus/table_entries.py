"""Paper entries from Markdown table rows: the paper lists of "awesome" READMEs written as tables
(``| Title | Venue | Paper | Code |``, ``| Date | Paper | Conference | Notes |``).

A row is a paper by the same evidence as a listing bullet (:func:`papernotes.corpus.papers._is_paper_item`):
a title-like cell plus a paper link anywhere in the row (:func:`~papernotes.corpus.paper_links.is_paper_link`,
or a link labelled as the paper) or a venue stated after the title, in a short cell of its own or in
the title cell (``"… (ICLR'23)"``). A code link is not the paper's. Rows of other tables — tools, data sets, tables of
contents, results with numbers — lack that evidence or read as a row of scores, and stay table text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papernotes.corpus.listing_marks import short_name_tail, without_shortcodes
from papernotes.corpus.markdown import Block
from papernotes.corpus.models import Page, PaperEntry
from papernotes.corpus.note_links import title_like_label
from papernotes.corpus.paper_links import is_paper_link, names_its_site
from papernotes.corpus.papers import PAPER_LINK_LABELS, byline_tail, parse_title, system_name
from papernotes.corpus.publications import _looks_like_authors
from papernotes.corpus.venues import find_venues, normalize_venue, split_venue

#: Link labels that name the paper itself (its file or page), not its code, slides or the reader's notes.
PAPER_ITSELF_LABELS = {"paper", "pdf", "arxiv", "doi", "openreview"}
#: A venue cell is short ("NeurIPS 2022", "OSDI'22", "ICLR 2023 Oral"); a longer cell is prose that may
#: name other papers' venues.
MAX_VENUE_CELL_WORDS = 6
#: Badges and symbols before or after a title (emoji, stars, arrows, bullets).
_EDGE_SYMBOLS_RE = re.compile(r"^[^\w\[(\"“']+|[^\w\])\"”'?!]+$")
#: A score, count or size: "68.9", "1,024", "45%", "2.3x", "7B", "±0.4".
_NUMBER_RE = re.compile(r"^[<>~≈±+-]?\d[\d.,]*\s*(?:%|x|×|[kKMBG])?$")
#: A capitalized word, a number, or a short lower-case word inside a title ("of", "for", "and", "via").
_TITLE_WORD_RE = re.compile(r"^(?:[\W_]*[A-Z0-9][\w'’.+-]*[\W_]*|[a-z]{1,4})$")


@dataclass
class _Row:
    cells: list[str]
    links: list[list[tuple[str, str]]]


def _web(href: str) -> bool:
    return bool(re.match(r"^https?://", href.strip(), re.I))


def _clean(text: str) -> str:
    return _EDGE_SYMBOLS_RE.sub("", text.strip()).strip()


def _title_text(cell: str, links: list[tuple[str, str]]) -> str:
    """The cell's text without its link labels (``"[arXiv]"``, ``"GitHub"``): the labels of
    :data:`PAPER_LINK_LABELS`, and one-word labels after the cell's first word, are links, not title
    words; a linked title or a linked name starting the title (``"[Orca](…): A Distributed …"``) stays."""
    text = without_shortcodes(cell)
    for label, _href in links:
        one_word_after_start = len(label.split()) == 1 and not _clean(cell).startswith(label)
        if label and (label.lower() in PAPER_LINK_LABELS or one_word_after_start):
            text = re.sub(rf"(?<!\w){re.escape(label)}(?!\w)", " ", text)
    text = re.sub(r"\[\s*\]|\(\s*\)", " ", text)
    return _clean(re.sub(r"\s+", " ", text))


def _title_like(text: str) -> bool:
    """Two to forty words, the first capitalized (or a digit), mostly words with letters, not a sentence,
    not a venue or a date by itself and not an author list (two or more names: "Tri Dao, Daniel Y. Fu")."""
    words = text.split()
    if not 2 <= len(words) <= 40 or not (words[0][:1].isupper() or words[0][:1].isdigit()):
        return False
    lettered = sum(bool(re.search(r"[^\W\d_]", w)) for w in words)
    # "LLaMA: Open and Efficient Foundation Language Models" is capitalised words around "and", but a
    # name never holds a colon
    authors = _looks_like_authors(text) and bool(re.search(r",|\band\b|&", text)) and ":" not in text
    return not (text.endswith(".") or normalize_venue(text) or lettered * 2 < len(words) or authors)


def _title_run(text: str) -> int:
    """Length of the longest run of title-cased words (capitalized words, numbers, short joiners)."""
    best = run = 0
    for w in text.split():
        run = run + 1 if _TITLE_WORD_RE.match(w) else 0
        best = max(best, run)
    return best


def _title_cell(row: _Row) -> int | None:
    """Index of the row's title cell: a cell that is one linked title of two or more words, else a cell
    that is only a name linked to the paper (unless a full title in another cell holds that name), else the
    title-like cell with the longest run of title words (the earlier on a tie); None without one."""
    for i, (cell, links) in enumerate(zip(row.cells, row.links, strict=False)):
        if any(_clean(label) == _clean(cell) and _title_like(_clean(label)) for label, _ in links):
            return i
    best: tuple[int, int] | None = None
    for i, (cell, links) in enumerate(zip(row.cells, row.links, strict=False)):
        text = _title_text(cell, links)
        if _title_like(parse_title(text)[0]) and (best is None or _title_run(text) > best[0]):
            best = (_title_run(text), i)
    # a cell that is only the paper's name linked to the paper ("| [GPTQ](arXiv link) | ICLR 2023 | notes |"):
    # the title, unless another cell is a full title that holds the name ("GPTQ: Accurate …")
    named = next(
        (
            i
            for i, (cell, links) in enumerate(zip(row.cells, row.links, strict=False))
            if len(links) == 1
            and _clean(links[0][0]) == _clean(cell)
            and is_paper_link(links[0][1])
            and title_like_label(links[0][0])
            and not names_its_site(links[0][0], links[0][1])  # "[usenix](…)": where the paper is
        ),
        None,
    )
    if named is not None and (best is None or _clean(row.cells[named]).casefold() not in row.cells[best[1]].casefold()):
        return named
    return best[1] if best else None


def _row_venue(row: _Row, title_at: int, title_venue: str | None) -> tuple[str | None, bool]:
    """``(venue, stated after the title)``: the venue after the title (``"… (ICLR'23)"``), else the first
    venue in a short cell, else a bare series cell ("NeurIPS") dated by a year cell ("2022"). A row names
    its subject first: a venue in a cell before the title may be the row's subject (a conference
    calendar's ``| MLSys 2025 | May 12-15 | Santa Clara, CA |``), so it is no evidence of a paper alone."""
    if title_venue:
        return title_venue, True
    short = [(i, c) for i, c in enumerate(row.cells) if i != title_at and 0 < len(c.split()) <= MAX_VENUE_CELL_WORDS]
    years = [m.group(0) for _, c in short for m in [re.search(r"\b(?:19|20)\d\d\b", c)] if m]
    for i, c in short:  # a cell that is a venue ("ICLR 2023") before a series dated by another cell
        if vs := find_venues(c):
            return vs[0], i > title_at
    for i, c in short:  # "| NeurIPS | 2022 |" (not the method "| GPTQ |" when a cell says "ICLR 2023")
        if years and not re.search(r"\d", c) and (vs := find_venues(f"{_clean(c)} {years[0]}")):
            return vs[0], i > title_at
    return None, False


def _fields_table(block: Block) -> bool:
    """A table of one thing's fields (``| Venue | OSDI 2022 |``, ``| Link | ACM DL |``): two columns, the
    first of one- or two-word keys."""
    rows = [block.header, *block.rows] if any(block.header) else block.rows
    return all(len(r) <= 2 for r in rows) and all(len(r[0].split()) <= 2 for r in rows if r)


def _scores(row: _Row, title_at: int) -> bool:
    """A row of results: half or more of its other filled cells are numbers."""
    rest = [_clean(c) for i, c in enumerate(row.cells) if i != title_at and _clean(c)]
    return bool(rest) and sum(bool(_NUMBER_RE.match(c)) for c in rest) * 2 >= len(rest)


def _links(row: _Row, title_at: int, venue: str | None) -> dict[str, str]:
    """The row's links by kind: a label of :data:`PAPER_LINK_LABELS` names its own kind, a linked title
    or another link to a paper is ``paper``, a link on the venue ``venue``, a GitHub link ``code``."""
    out: dict[str, str] = {}
    for i, links in enumerate(row.links):
        for label, href in links:
            key = label.strip().lower()
            if not href.strip() or href.strip() == "#":
                continue
            if key in PAPER_LINK_LABELS:
                out.setdefault(key, href)
            elif not _web(href):
                continue
            elif is_paper_link(href) or (i == title_at and _clean(label) == _clean(row.cells[i])):
                out.setdefault("paper", href)
            elif venue and normalize_venue(label) == venue:
                out.setdefault("venue", href)
            elif re.match(r"^https?://(?:www\.)?github\.com/", href, re.I):
                out.setdefault("code", href)
    return out


def table_entries(block: Block, page: Page, topic: str, venue_default: str | None) -> list[tuple[int, PaperEntry]]:
    """The paper rows of a table block: ``(row index into block.rows, its PaperEntry)`` for each row
    with a title-like cell and a paper link or a venue after the title; a table of one thing's fields
    gives none, nor do rows of scores (``venue_default``: the page's venue, given to a row that names
    none). An empty list for a table of no papers."""
    out: list[tuple[int, PaperEntry]] = []
    if _fields_table(block):
        return out
    for n, cells in enumerate(block.rows):
        links = block.cell_links[n] if n < len(block.cell_links) else [[] for _ in cells]
        row = _Row(cells, links)
        at = _title_cell(row)
        if at is None or _scores(row, at):
            continue
        title, title_venue = parse_title(_title_text(cells[at], links[at]))
        title, short = short_name_tail(title)
        venue, after = _row_venue(row, at, title_venue)
        paper_link = any(
            _web(h) and (is_paper_link(h) or label.strip().lower() in PAPER_ITSELF_LABELS)
            for c in links
            for label, h in c
        )
        if not (paper_link or after):
            continue
        venue = venue or venue_default
        kept = {at} | {i for i, c in enumerate(cells) if venue and find_venues(c)[:1] == [venue]}
        said = [_title_text(c, links[i]) for i, c in enumerate(cells) if i not in kept]
        # a byline ending a notes cell: "3.25x speedup on A100 — Frantar, Ashkboos, … (IST Austria, ETH Zurich)"
        authors: list[str] = []
        affiliations: list[str] = []
        for j, t in enumerate(said):
            head, names, places = byline_tail(t)
            if names and not authors:
                said[j], authors, affiliations = head, names, places
        summary = "; ".join(t for t in said if len(t.split()) > 1)
        out.append(
            (
                n,
                PaperEntry(
                    title=title,
                    kind="paper_entry",
                    source=page.source,
                    page_title=page.title,
                    system=short or system_name(title, []),
                    aliases=[short] if short else [],
                    venue=venue,
                    year=split_venue(venue)[1] if venue else None,
                    authors=authors,
                    affiliations=affiliations,
                    links=_links(row, at, venue),
                    summary=summary,
                    topic=topic,
                    tags=list(page.tags),
                ),
            )
        )
    return out
