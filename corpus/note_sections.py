"""Notes that hold several papers' notes, one section each — a reading log whose ``## Attention Is All
You Need`` sections each open with that paper's link, byline or labelled lines: each section that reads
as a paper note by itself (:func:`~papernotes.corpus.paper_notes.paper_note_entry`) is one entry."""

from __future__ import annotations

import dataclasses
import re

from papernotes.corpus.markdown import is_section_heading, markdown_parser, parse_blocks, render_inline
from papernotes.corpus.models import Page, PaperEntry
from papernotes.corpus.note_links import front_matter_links
from papernotes.corpus.note_opening import is_collection_title
from papernotes.corpus.paper_links import is_paper_link
from papernotes.corpus.paper_notes import ID_KEYS, paper_note_entry
from papernotes.corpus.papers import listing_page, title_key

_URL_RE = re.compile(r"https?://[^\s)>\]]+")
#: Fewest sections that must each read as a paper note for a page to be read section by section.
MIN_PAPER_SECTIONS = 2


def _sections(page: Page) -> tuple[str, list[tuple[str, str]]]:
    """``(the text before the sections, [(heading text, section markdown with its heading)])`` at the
    shallowest heading level below the page's own title heading (a level-1 heading naming the page)."""
    tokens = markdown_parser().parse(page.markdown)
    heads = [
        (int(t.tag[1:]), t.map[0], render_inline(tokens[i + 1]).text)
        for i, t in enumerate(tokens)
        if t.type == "heading_open" and t.map
    ]
    if heads and heads[0][0] == 1 and title_key(heads[0][2]) == title_key(page.title):
        heads = heads[1:]
    if not heads:
        return page.markdown, []
    level = min(h[0] for h in heads)
    starts = [(line, text) for lvl, line, text in heads if lvl == level]
    lines = page.markdown.splitlines(keepends=True)
    out = []
    for k, (line, text) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        out.append((text, "".join(lines[line:end])))
    return "".join(lines[: starts[0][0]]), out


#: A paragraph that is one bold line (``**1. Title**``): a digest's heading written in bold.
_BOLD_LINE_RE = re.compile(r"^(?:\*\*|__)([^*_\n]{3,200})(?:\*\*|__)[ \t]*$", re.MULTILINE)


def _bold_lines_as_headings(markdown: str) -> str:
    """``markdown`` with paragraphs that are one bold line (outside code) made headings one level below
    its deepest heading, when there are two or more of them; else ``markdown`` itself."""
    fenced = [(t.map[0], t.map[1]) for t in markdown_parser().parse(markdown) if t.type == "fence" and t.map]
    starts = [0]
    for line in markdown.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def in_code(pos: int) -> bool:
        line = sum(1 for s in starts[1:] if s <= pos)
        return any(a <= line < b for a, b in fenced)

    bold = [m for m in _BOLD_LINE_RE.finditer(markdown) if not in_code(m.start())]
    if len(bold) < MIN_PAPER_SECTIONS:
        return markdown
    deepest = max((len(h) for h in re.findall(r"^(#{1,6})\s", markdown, re.MULTILINE)), default=1)
    mark = "#" * min(deepest + 1, 6)
    keep = {m.start() for m in bold}
    return _BOLD_LINE_RE.sub(lambda m: f"{mark} {m.group(1).strip()}" if m.start() in keep else m.group(0), markdown)


def section_entries(page: Page, fewest: int = MIN_PAPER_SECTIONS) -> list[PaperEntry]:
    """The entries of a page read section by section, or ``[]`` when it is not such a page: at least
    :data:`MIN_PAPER_SECTIONS` sections (titled by a paper, not "Summary" or "Method") read as paper
    notes, with different titles, and the page itself names no paper of its own (no identifying front
    matter, no paper link before its first section). A section whose own sections are papers (a topic:
    "## Computer Vision" over "### Deep Residual Learning …") gives those (one is enough there)."""
    if page.publications or any(str(k).lower() in ID_KEYS for k in page.front_matter):
        return []
    if front_matter_links(page.front_matter):
        return []
    preamble, sections = _sections(page)
    if len(sections) < fewest:
        # a digest whose papers are bold lines, not headings ("**1. Title**" over "论文链接：…")
        promoted = _bold_lines_as_headings(page.markdown)
        if promoted != page.markdown:
            preamble, sections = _sections(dataclasses.replace(page, markdown=promoted))
    # a page titled as a collection ("My Reading Notes") names no paper: one paper section is a log too
    fewest = 1 if is_collection_title(page.title) else fewest
    if len(sections) < fewest:
        return []
    if any(is_paper_link(u) for u in _URL_RE.findall(preamble)):  # the title heading's or opening's link
        return []
    entries: list[PaperEntry] = []
    for heading, md in sections:
        if is_section_heading(heading):
            continue
        # a topic's section ("## Computer Vision") whose own sections are papers: a log inside the log
        body = md.split("\n", 1)[1] if "\n" in md else ""
        inner = section_entries(dataclasses.replace(page, title=heading, markdown=body, front_matter={}), 1)
        if inner:
            for x in inner:
                x.page_title = page.title
            entries += inner
            continue
        blocks = parse_blocks(md)
        if listing_page(blocks, None):
            continue
        e = paper_note_entry(dataclasses.replace(page, title=heading, markdown=md, front_matter={}), blocks, 0)
        if e is not None:
            e.page_title = page.title
            entries.append(e)
    if len({title_key(e.title) for e in entries}) < fewest:
        return []
    return entries
