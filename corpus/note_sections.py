"""Notes that hold several papers' notes, one section each — a reading log or a reading group's week
file whose ``## Attention Is All You Need`` / ``### Segment Anything (ICCV 2023) ★`` sections each
hold one paper: each section that reads as a paper note by itself
(:func:`~papernotes.corpus.paper_notes.paper_note_entry`), or whose heading names a paper with its
venue or link, is one entry, and the section's chunks are attributed to that paper.

Sections are found at any heading level: a heading that only groups others (``## 2026`` over
``### Title (Venue Year)`` entries, no text of its own) and a section that is no paper are looked into
for sections below them."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass

from papernotes.corpus.markdown import Block, Item, is_section_heading, parse_blocks, parse_tokens, render_inline
from papernotes.corpus.models import Page, PaperEntry
from papernotes.corpus.note_fields import ID_KEYS, note_summary
from papernotes.corpus.note_links import BARE_URL_RE, distinct_papers, front_matter_links, title_like_label
from papernotes.corpus.note_opening import is_collection_title
from papernotes.corpus.note_titles import short_and_full, venue_decoration
from papernotes.corpus.paper_links import is_paper_link
from papernotes.corpus.paper_notes import paper_note_entry
from papernotes.corpus.papers import (
    is_to_read_list,
    is_to_read_title,
    is_todo,
    listing_page,
    parse_title,
    system_name,
    title_key,
)
from papernotes.corpus.short_names import opening_names
from papernotes.corpus.table_entries import _title_like
from papernotes.corpus.venues import decide_venue, split_venue, stated_venues

_URL_RE = re.compile(r"https?://[^\s)>\]]+")
#: Marks a log puts after a title ("★", "⭐", "(!)") — not part of it.
_TRAILING_MARKS_RE = re.compile(r"(?:\s*[^\w\s)\]?!'\"’”])+\s*$")
#: Fewest sections that must each read as a paper note for a page to be read section by section.
MIN_PAPER_SECTIONS = 2


@dataclass
class LoggedSection:
    """One paper's section of a page: its entry and its lines (0-based, ``end`` exclusive)."""

    entry: PaperEntry
    start: int
    end: int


@dataclass
class _Head:
    level: int
    line: int
    text: str
    links: list[tuple[str, str]]
    end: int = 0  # the line where its section ends (the next heading at its level or above)


def _headings(page: Page) -> tuple[list[_Head], int]:
    """``(the headings below the page's own title heading, the page's line count)``."""
    tokens = parse_tokens(page.markdown)
    heads: list[_Head] = []
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.map:
            inline = render_inline(tokens[i + 1])
            heads.append(_Head(int(t.tag[1:]), t.map[0], inline.text, inline.links))
    if heads and heads[0].level == 1 and title_key(heads[0].text) == title_key(page.title):
        heads = heads[1:]
    n = len(page.markdown.splitlines())
    for k, h in enumerate(heads):
        h.end = next((x.line for x in heads[k + 1 :] if x.level <= h.level), n)
    return heads, n


def _bare(text: str) -> list[str]:
    """The web addresses written out in ``text``, without a stop after them ("….04088. Routing …")."""
    return [u.rstrip(".,;:。，") for u in BARE_URL_RE.findall(text)]


def _labelled_links(blocks: list[Block]) -> list[tuple[str, str]]:
    """Every ``(label, href)`` of a section's paragraphs and bullets (not its to-dos), a bare URL labelled
    by itself."""

    def of_items(items: list[Item]) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        for it in items:
            if is_todo(it.text):
                continue  # a paper to read, not this section's
            out += it.inline.links + [(u, u) for u in _bare(it.text)] + of_items(it.children)
        return out

    return [
        x
        for b in blocks
        for x in (b.links + [(u, u) for u in _bare(b.text)] if b.kind == "text" else of_items(b.items))
    ]


def _section_link(head: _Head, title: str, blocks: list[Block]) -> str | None:
    """A section's own paper link: its heading's one paper link, else the one paper link of its text
    (or, when it has several, of its first block — a log entry's first bullets) when it is presented
    as the section's own — bare, or labelled by a kind of link ("arXiv", "PDF") or by the section's
    title — not as another work named beside it (``[Your students are your legacy](doi…)`` under
    ``## Student Mentorship``); None otherwise."""
    head_links = distinct_papers([h for _, h in head.links if is_paper_link(h)])
    if len(head_links) == 1:
        return head_links[0]
    for part in (blocks, blocks[:1]):
        links = [(label, h) for label, h in _labelled_links(part) if is_paper_link(h)]
        if len(distinct_papers([h for _, h in links])) == 1:
            label, link = links[0]
            own = not title_like_label(label) or title_key(label) == title_key(title)
            return link if own else None
    return None


def _title_venue(entry: PaperEntry) -> None:
    """Move a venue the title still carries behind a log's marks (``Adam: … (ICLR 2015) ⭐``) into
    the entry's venue when it has none."""
    title, venue = parse_title(_TRAILING_MARKS_RE.sub("", entry.title))
    if venue and title:
        entry.title = title
        if entry.venue is None:
            entry.venue, entry.year = venue, split_venue(venue)[1]


def _heading_entry(page: Page, head: _Head, blocks: list[Block]) -> PaperEntry | None:
    """The entry of a section whose heading names a paper (a title, not a section name) and states its
    venue (``Title (Venue Year)``) or links it (``## [Title](arxiv…)``), or whose text holds exactly one
    paper link; None otherwise. The link is the heading's, else the section's one paper link, else the
    one paper link of its first block; the venue is the heading's, else the one its first block states
    (one parser: :mod:`~papernotes.corpus.venues`)."""
    title, venue = parse_title(_TRAILING_MARKS_RE.sub("", head.text))
    title, decoration = venue_decoration(title)
    venue = venue or decoration
    short, full = short_and_full(title)  # "ViT — An Image is Worth 16x16 Words: …"
    title = full or title
    link = _section_link(head, title, blocks)
    if not title or is_section_heading(title) or not (venue or link):
        return None
    if not (_title_like(title) or (venue and link)):  # "Spanner (OSDI 2012)" with its link
        return None
    if venue is None and blocks:
        first_text = blocks[0].text or " ".join(it.text for it in blocks[0].items[:3])
        venue, _ = decide_venue(stated_venues(first_text, byline=True))
    # the names its first lines give it, as a paper note's opening does ("Krizhevsky, Sutskever, Hinton —
    # University of Toronto. \"AlexNet\"")
    opening = [ln for b in blocks[:1] for ln in ([b.text] if b.text else [it.text for it in b.items[:3]])]
    said = [n for n in opening_names(opening, title) if title_key(n) != title_key(title)]
    return PaperEntry(
        title=title,
        kind="deep_note",
        source=page.source,
        page_title=page.title,
        site_path=page.site_path,
        system=system_name(title, []),
        venue=venue,
        year=split_venue(venue)[1] if venue else None,
        links={"paper": link} if link else {},
        summary=note_summary({}, blocks)[:600],
        tags=list(page.tags),
        aliases=list(dict.fromkeys([*([short] if short else []), *said])),
    )


#: A paragraph that is one bold line (``**1. Title**``): a digest's heading written in bold.
_BOLD_LINE_RE = re.compile(r"^(?:\*\*|__)([^*_\n]{3,200})(?:\*\*|__)[ \t]*$", re.MULTILINE)


def _bold_lines_as_headings(markdown: str) -> str:
    """``markdown`` with paragraphs that are one bold line (outside code) made headings one level below
    its deepest heading, when there are two or more of them; else ``markdown`` itself."""
    fenced = [(t.map[0], t.map[1]) for t in parse_tokens(markdown) if t.type == "fence" and t.map]
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


#: A line led by a bold title, as a log writes one entry per paper in prose or in a list: "**Title** (Venue
#: Year) — authors", "1. **Title** (2023)", "- **Title** — Wei et al. (NeurIPS 2022). https://…".
_BOLD_LEAD_RE = re.compile(
    r"^(?P<indent>[ \t]{0,3})(?P<marker>(?:\d{1,3}[.)]|[-*+])[ \t]+)?"
    r"(?P<mark>\[[xX]\][ \t]*|[^\w\s*_\[(]{1,3}[ \t]*)?"  # a checked box or a status mark: "[x] ", "✅ "
    r"(?P<em>\*\*|__|\*|_)(?P<title>[^*_\n]{3,200}?)(?P=em)"  # bold, or italic: "*Title* (ICLR 2023)"
    r"(?P<paren>[ \t]*\([^()\n]{1,80}\))?(?P<rest>(?:[ \t,;:.].*)?)$"
)


#: A paragraph's first line that is a plain title, a bracket (its venue) and a link after a dash maybe:
#: "Attention Is All You Need (NeurIPS 2017) — https://arxiv.org/abs/1706.03762".
_PLAIN_LEAD_RE = re.compile(
    r"^(?P<indent>)(?P<marker>)(?P<mark>)(?P<title>[A-Z0-9][^\n*_\[\]()<>]{8,200}?)(?P<paren>[ \t]*\([^()\n]{1,80}\))?"
    r"(?P<rest>[ \t]+[—–·|-][ \t]+(?:https?://|\[).*)?[ \t]*$"
)
_LINK_MD_RE = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def _bold_leads_as_headings(markdown: str) -> tuple[str, list[int]]:
    """``(markdown, line map)``: ``markdown`` with each line (a paragraph's or a list item's first, outside
    code) led by a bold title made a heading one level below the page's deepest heading, when two or
    more such lines read as titles (:func:`_title_like`, not a lead-in ending with ":" or "."). The
    heading holds the bold title and a bracket right after it ("(NeurIPS 2022)"); the rest of that line
    (a byline, a link) follows as a paragraph of its own, and the item's lines are dedented to the
    heading's section. ``line map[i]`` is the line of ``markdown`` that line ``i`` of the result comes
    from (one more entry for the end). Returns ``(markdown, [])`` when there are fewer such lines."""
    lines = markdown.splitlines()
    if sum(1 for line in lines if re.search(r"[*_]", line[:16]) or "://" in line) < MIN_PAPER_SECTIONS:
        return markdown, []  # most pages: no parse needed
    fenced = [(t.map[0], t.map[1]) for t in parse_tokens(markdown) if t.type == "fence" and t.map]
    leads = []
    for i, line in enumerate(lines):
        m = _BOLD_LEAD_RE.match(line)
        after = lines[i + 1].lstrip() if i + 1 < len(lines) else ""
        if m is None and (i == 0 or not lines[i - 1].strip()):
            # a paragraph whose first line is a plain title, its link right after it or on the next line
            m = _PLAIN_LEAD_RE.match(line)
            linked = m is not None and (
                bool(m.group("rest")) or after.startswith(("http://", "https://", "[", "<http"))
            )
            m = m if m is not None and linked and ". " not in m.group("title") else None
        if not m or any(a <= i < b for a, b in fenced):
            continue
        title = _LINK_MD_RE.sub(r"\1", m.group("title")).strip()  # "**[Title](https://arxiv.org/…)**"
        if title.endswith((":", ".", "：")) or not _title_like(title) or is_section_heading(title):
            continue
        if m.group("marker") is None and i > 0 and lines[i - 1].strip() and not _BOLD_LEAD_RE.match(lines[i - 1]):
            continue  # bold words inside a paragraph, not at its start
        leads.append((i, m))
    if len(leads) < MIN_PAPER_SECTIONS:
        return markdown, []
    deepest = max((len(h) for h in re.findall(r"^(#{1,6})\s", markdown, re.MULTILINE)), default=1)
    mark = "#" * min(deepest + 1, 6)
    out: list[str] = []
    where: list[int] = []
    starts = dict(leads)
    dedent = 0
    for i, line in enumerate(lines):
        m = starts.get(i)
        if m is not None:
            dedent = len(m.group("indent")) + len(m.group("marker") or "")  # the item's text starts there
            out.append(f"{mark} {m.group('title').strip()}{(m.group('paren') or '').rstrip()}")
            where.append(i)
            rest = re.sub(r"^[\s—–\-|·,:]+", "", m.group("rest") or "").strip()
            if rest:
                out.append(rest)
                where.append(i)
            continue
        if dedent and line.strip() and len(line) - len(line.lstrip(" ")) < dedent:
            dedent = 0  # the item is over
        out.append(line[dedent:] if dedent and line[:dedent].strip() == "" else line)
        where.append(i)
    where.append(len(lines))
    return "\n".join(out) + "\n", where


def logged_sections(page: Page) -> list[LoggedSection]:
    """The paper sections of a page read section by section, or ``[]`` when it is not such a page: at
    least :data:`MIN_PAPER_SECTIONS` sections with different titles read as papers (one, on a page
    titled as a collection: "My Reading Notes"), and the page itself names no paper of its own (no
    identifying front matter, no paper link before its first heading). A digest whose papers are bold
    lines, not headings ("**1. Title**" over "论文链接：…"), is read with those lines as headings.

    A heading names no paper when it is a section name ("Summary", "Method", ``is_section_heading``)
    or recurs on the page (a "Discussion" under every paper); a section that is no paper, or only
    groups others (no text before its first sub-heading), is looked into for papers below it."""
    if page.publications or any(str(k).lower() in ID_KEYS for k in page.front_matter):
        return []
    if front_matter_links(page.front_matter) or is_to_read_title(page.title):
        return []  # a page titled "To Read": its sections are papers not read yet
    fewest = 1 if is_collection_title(page.title) else MIN_PAPER_SECTIONS
    found = _paper_sections(page)
    if len({title_key(s.entry.title) for s in found}) < fewest:
        promoted = _bold_lines_as_headings(page.markdown)  # same lines: the spans stay the page's
        found = _paper_sections(dataclasses.replace(page, markdown=promoted)) if promoted != page.markdown else []
    if len({title_key(s.entry.title) for s in found}) < fewest:
        found = []
    # a log whose entries are led by bold titles ("**Title** (Venue Year) — …", "1. **Title** …"): read so
    # when that finds more papers than its headings (or bold lines) do
    led, where = _bold_leads_as_headings(page.markdown)
    if where:
        more = _paper_sections(dataclasses.replace(page, markdown=led))
        more = [dataclasses.replace(s, start=where[s.start], end=where[min(s.end, len(where) - 1)]) for s in more]
        if len({title_key(s.entry.title) for s in more}) > len({title_key(s.entry.title) for s in found}):
            found = more
    if len({title_key(s.entry.title) for s in found}) < fewest:
        return []
    return found


def _to_read_start(blocks: list[Block]) -> int | None:
    """The line where a section's first list of papers not read yet begins (its lead-in paragraph's
    line when it has one, :func:`~papernotes.corpus.papers.is_to_read_list`), or None."""
    for k, b in enumerate(blocks):
        if is_to_read_list(blocks, k):
            prev = blocks[k - 1] if k else None
            lead = prev is not None and prev.kind == "text" and prev.heading_line == b.heading_line
            return prev.line if lead and prev is not None else b.line
    return None


def _paper_sections(page: Page) -> list[LoggedSection]:
    """The sections of ``page`` that read as papers (see :func:`logged_sections`), however few."""
    heads, n = _headings(page)
    if not heads:
        return []
    lines = page.markdown.splitlines(keepends=True)
    if any(is_paper_link(u) for u in _URL_RE.findall("".join(lines[: heads[0].line]))):
        return []  # the title heading's or opening's link: a note about one paper
    recurring = {k for k, c in Counter(title_key(h.text) for h in heads).items() if c > 1}
    found: list[LoggedSection] = []

    def visit(group: list[_Head]) -> None:
        end = -1
        for k, h in enumerate(group):
            if h.line < end:  # inside a section already visited
                continue
            end = h.end
            inner = [x for x in group[k + 1 :] if h.line < x.line < h.end]
            own_end = inner[0].line if inner else h.end
            entry = None
            grouping = bool(inner) and not "".join(lines[h.line + 1 : own_end]).strip()
            # "### Week 1", "## 2024-06": a log's date or collection heading names no paper
            named = not is_section_heading(h.text) and not is_collection_title(h.text)
            if not grouping and title_key(h.text) not in recurring and named:
                md = "".join(lines[h.line : h.end])
                blocks = parse_blocks(md)
                cut = _to_read_start(blocks)
                if cut is not None:  # "⏳ to read next month:" and its list: no part of this paper's notes
                    md = "".join(md.splitlines(keepends=True)[:cut])
                    blocks = parse_blocks(md)
                if not listing_page(blocks, None):
                    sub = dataclasses.replace(page, title=h.text, markdown=md, front_matter={})
                    entry = paper_note_entry(sub, blocks, 0) or _heading_entry(sub, h, blocks)
            if entry is not None:
                _title_venue(entry)
                link = entry.links.get("paper") or _section_link(h, entry.title, blocks)
                entry.links = {"paper": link, **entry.links} if link else entry.links
                entry.page_title = page.title
                found.append(LoggedSection(entry, h.line, h.end))
            elif inner:
                visit(inner)

    visit(heads)
    return found


def section_entries(page: Page) -> list[PaperEntry]:
    """The entries of :func:`logged_sections`."""
    return [s.entry for s in logged_sections(page)]
