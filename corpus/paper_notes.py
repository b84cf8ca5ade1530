"""Notes about one paper, recognised by evidence rather than by one site's layout, and the catalog entry
each gives.

A page is a paper note when

* its front matter identifies a paper (``citekey``, ``doi`` or ``arxiv``: Zotero and Obsidian literature
  notes), or
* its title heading (the page's first heading) or its front matter holds exactly one paper's link
  (:mod:`~papernotes.corpus.paper_links`: arXiv, DOI, PDF, ACL Anthology, OpenReview, USENIX, ACM, IEEE …),
  or
* it is not a listing (fewer than two paper bullets) and its opening paragraphs link exactly one paper,
  or its front matter or tags name exactly one venue with a year.

A note whose opening links several different papers (a reading list, a survey) is not a paper note.
Fields the note states in conflicting ways (two venues) are left empty rather than guessed.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from papernotes.corpus.author_year import author_year_citation
from papernotes.corpus.bibtex_notes import note_bibtex
from papernotes.corpus.lexicon import readings
from papernotes.corpus.markdown import FIELD_LINE_RE, Block, Inline, is_section_heading, parse_tokens, render_inline
from papernotes.corpus.models import Page, PaperEntry
from papernotes.corpus.normalize import CJK_CHARS
from papernotes.corpus.note_evidence import (
    authors_first,
    dated_file_title,
    empty_link_key,
    links_section,
    paper_parts,
    placeholder_heading,
)
from papernotes.corpus.note_fields import (
    ACCEPTED_RE,
    AUTHOR_KEYS,
    ID_KEYS,
    VENUE_KEYS,
    as_list,
    fm_value,
    has_tldr,
    note_people,
    note_summary,
    year_of,
)
from papernotes.corpus.note_links import (
    MAX_CITED_BESIDE,
    distinct_papers,
    front_matter_links,
    page_paper_links,
    paragraph_paper_links,
    presented_urls,
    primary_label,
    title_like_label,
)
from papernotes.corpus.note_opening import (
    CODE_LABELS,
    Opening,
    author_list,
    frame_stripped,
    heading_label,
    read_opening,
)
from papernotes.corpus.note_titles import SHORT_NAME_WORDS, note_title, venue_decoration
from papernotes.corpus.paper_links import (
    ID_MARK_RE,
    arxiv_year,
    is_paper_link,
    named_arxiv_id,
    names_its_site,
    paper_id,
)
from papernotes.corpus.papers import (
    defining_strong,
    is_todo,
    parse_title,
    system_name,
    title_key,
)
from papernotes.corpus.reference_lines import reference_of
from papernotes.corpus.short_names import opening_names, paper_sentence_names, short_name_of
from papernotes.corpus.venue_names import JOURNAL_SERIES, journal_abbreviated
from papernotes.corpus.venues import (
    SERIES,
    decide_venue,
    find_venue_mentions,
    find_venues,
    is_preprint,
    normalize_venue,
    split_venue,
    stated_venues,
    workshop_venues,
)

#: A year in brackets after a title: "Mixtral of Experts (2024)".
_BARE_YEAR_RE = re.compile(r"\s*[(\[]((?:19|20)\d\d)[)\]]\s*$")


#: A section heading that names where the paper appeared ("## Venue", "* Published in", "## 发表会议").
_VENUE_SECTION_RE = re.compile(
    r"^\W{0,3}(?:venue|conference|published(?:\s+(?:at|in))?|publication\s+venue|发表会议|发表期刊|会议|期刊|出处)\W{0,3}$",
    re.IGNORECASE,
)


def title_heading(markdown: str) -> tuple[int, Inline] | None:
    """The page's first heading outside code: ``(level, rendered inline)``, or None."""
    tokens = parse_tokens(markdown)
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            return int(t.tag[1:]), render_inline(tokens[i + 1])
    return None


def _venue_of(text: str) -> str | None:
    vs = find_venues(text)
    if len(vs) == 1:
        return vs[0]
    return None if vs else normalize_venue(text.strip()) if re.search(r"\d{4}\s*$", text.strip()) else None


def _venues_in_tags(tags: list[str]) -> tuple[list[str], list[str]]:
    """``(venues with a year, bare series)`` named by tags ("WACV 2017" / "ICLR")."""
    full: list[str] = []
    bare: list[str] = []
    for t in tags:
        s = t.strip().replace("_", " ").replace("-", " ")
        v = find_venues(s)
        if v and len(s) <= 24:
            full += [x for x in v if x not in full]
        elif s.lower() in SERIES and not s.isdigit() and SERIES[s.lower()] not in bare:
            bare.append(SERIES[s.lower()])
    return full, bare


def _one(values: list[str]) -> tuple[str | None, bool]:
    """``(the value, conflicting)``: one distinct value, or None and whether several disagree."""
    distinct = list(dict.fromkeys(values))
    if len(distinct) == 1:
        return distinct[0], False
    return None, len(distinct) > 1


def _first_section(blocks: list[Block]) -> list[Block]:
    """Blocks before the page's second heading (its title heading's own text, or the preamble)."""
    if not blocks:
        return []
    first = blocks[0].heading_line
    return [b for b in blocks if b.heading_line == first][:8]


def paper_note_entry(page: Page, blocks: list[Block], paper_bullets: int) -> PaperEntry | None:
    """The :class:`PaperEntry` of a paper note (see the module docstring), or None when the page is
    not about one paper. ``paper_bullets``: how many listing bullets of the page read as papers (a
    listing is a paper note only by a linked title heading or identifying front matter)."""
    meta = page.front_matter
    head = title_heading(page.markdown)
    fm_links = front_matter_links(meta)
    ids = fm_value(meta, ID_KEYS)
    head_links = distinct_papers([h for _, h in head[1].links if is_paper_link(h)]) if head else []
    opening = _first_section(blocks)
    # a link on a line that marks its paper as not read yet ("Related: [Okapi: …](…) (not read yet)") is a
    # paper to read, never the note's own
    unread = {
        h
        for b in opening
        if b.kind == "text"
        for line in b.text.split("\n")
        if is_todo(line.strip())
        for label, h in b.links
        if label and label in line
    }
    open_links = distinct_papers(
        [u for b in opening if b.kind == "text" for u in paragraph_paper_links(b) if u not in unread]
    )
    primary = [
        h
        for b in opening
        if b.kind == "text"
        for label, h in b.links
        if h not in unread and (primary_label(label, page.title) or (is_paper_link(h) and names_its_site(label, h)))
    ]
    # a paper's address written out on a line of its own ("https://arxiv.org/abs/1409.3215" under the
    # title): presented as the note's own, like "[Paper](…)"
    op = read_opening(page.markdown)
    # a formatted reference of the paper under the title (MLA, IEEE, ACM): its DOI or arXiv id and venue
    ref = reference_of(head[1].text if head else page.title, op.byline)
    alone = [u for b in opening if b.kind == "text" for u in presented_urls(b.text) if is_paper_link(u)]
    alone += [u for line in op.byline for u in presented_urls(line) if is_paper_link(u) and u not in alone]
    primary += alone
    # the same, as a bullet of the metadata list under the title ("- MLSys 2024", "- https://arxiv.org/…")
    items = [it for b in opening if b.kind == "list" for it in b.items]
    listed = distinct_papers(page_paper_links([b for b in opening if b.kind == "list"]))
    listed_alone = [u for it in items for u in presented_urls(it.text) if is_paper_link(u)]
    # links whose text is a kind of link ("arXiv", "PDF", "the paper"), not a paper's name
    own_kind = {
        h
        for b in opening
        if b.kind == "text"
        for label, h in b.links
        if is_paper_link(h) and (names_its_site(label, h) or not title_like_label(label))
    } | set(alone)
    # the opening's paper links that a link text presents as another paper's ("[ST-MoE](…)" under the title
    # "GShard: …"), not the note's own
    other_named = {
        h
        for b in opening
        if b.kind == "text"
        for label, h in b.links
        if title_like_label(label) and not primary_label(label, page.title)
    }
    own_links = [h for h in open_links if h not in other_named]
    tag_venues, bare_series = _venues_in_tags(page.tags)
    fm_venue_raw = fm_value(meta, VENUE_KEYS)
    fm_venue = _venue_of(str(fm_venue_raw)) if isinstance(fm_venue_raw, (str, int)) else None
    fm_series = journal_abbreviated(fm_venue_raw).strip() if isinstance(fm_venue_raw, str) else ""
    named_series = list(dict.fromkeys(m.series for m in find_venue_mentions(fm_series, any_case=SERIES)))
    named_series = [x for x in named_series if x != "USENIX"] or named_series  # "USENIX OSDI": the series
    if fm_venue is None and not workshop_venues(fm_series) and len(named_series) == 1:
        # `venue: NeurIPS` (or "Proceedings of the 29th Symposium on Operating Systems Principles") with
        # the year in its own key (`year: 2023`): a series, dated like a bare tag
        bare_series = named_series

    # the note's own BibTeX entry, else the entry of its citation key in a .bib beside the notes
    bib = (note_bibtex(page.markdown) if "@" in page.markdown else None) or page.cited
    if bib and op.title is None and title_key(bib.title) != title_key(frame_stripped(page.title)[0]):
        op.title = bib.title  # the entry's title is the paper's full title, as a "Title:" line's is
    fm_venue = fm_venue or (bib.venue if bib else None)
    link: str | None = None
    if len(head_links) == 1:
        link = head_links[0]
    elif len(distinct_papers(list(fm_links.values()))) == 1:
        link = next(iter(fm_links.values()))
    elif fm_links:
        link = fm_links.get("doi") or fm_links.get("paper") or fm_links.get("arxiv")
    is_note = bool(ids) or link is not None
    listing = paper_bullets >= 2
    if not is_note and not listing and not head_links and op.link and not op.ambiguous:
        link, is_note = op.link, True  # "**Paper:** [Title](link)", "arXiv: 2401.12345"
    if not is_note and not listing and bib:
        link, is_note = bib.link, True  # the note's one BibTeX entry names its paper
    if not is_note and not listing and not head_links:
        kinds = distinct_papers([h for h in primary if h in open_links and h in own_kind])
        both = distinct_papers(open_links + listed)
        if ref is not None and ref.link and all(paper_id(u) == paper_id(ref.link) for u in open_links):
            link, is_note = ref.link, True  # "Li and Hoefler. “Chimera: …” arXiv:2107.06925, http://arxiv.org/…"
        elif len(open_links) == 1 and open_links[0] in primary:
            link = open_links[0]
            is_note = True
        elif len(both) == 1 and both[0] in alone + listed_alone and paper_bullets == 0:
            link, is_note = both[0], True
        elif len(open_links) == 1 and _linked_title_line(op, open_links[0]):
            # "[Efficient Streaming Language Models with Attention Sinks](…)（ICLR 2024）" on a line of its
            # own under the title: the paper's title, linked, set apart as the note's
            link, is_note = open_links[0], True
        elif len(open_links) == 1 and _names_in_full(page.title, op):
            # "# Orca", "**Orca: A Distributed Serving System …**", "OSDI 2022 — https://…": the one paper
            # link of an opening that sets apart the full title of the paper the note is named for
            link, is_note = open_links[0], True
        elif len(kinds) == 1 and len(open_links) <= MAX_CITED_BESIDE:
            # "[arXiv](…) — it improves on [FlashAttention](…)": the one link presented as the note's own
            link, is_note = kinds[0], True
        elif (
            not own_links
            and (fm_venue or len(tag_venues) == 1 or len(named_series) == 1)
            and isinstance(meta.get("title"), str)
        ):
            # front matter that titles and places the paper; the opening's links cite other papers by
            # their names ("Related: [ST-MoE](…) (not read yet)"), none presents the note's own
            is_note = True
    # a Venue:/Published in: line (or a table's Venue row) states the venue outright: the opening's
    # prose ("the journal version of the OSDI '12 paper") only when those lines give none
    # (a workshop named with its host conference, "Venue: NIPS 2013 Deep Learning Workshop", is not the
    # conference: see ``hosts`` below)
    host_free = [text for text in op.venues if not workshop_venues(text)]
    labelled = [v for text in host_free for v in stated_venues(text, byline=True)]
    opening_venue, opening_conflict = decide_venue(labelled)
    if opening_venue is None:
        opening_venue, opening_conflict = decide_venue(labelled + stated_venues("\n".join(op.byline), byline=True))
    if ref and ref.venue:
        opening_venue, opening_conflict = ref.venue, False
    if opening_venue is None and not opening_conflict and op.year:
        # "| Venue | MLSys |" and "| Year | 2022 |": a series and its year on two lines
        in_table = list(
            dict.fromkeys(
                m.series for v in host_free for m in find_venue_mentions(journal_abbreviated(v), any_case=SERIES)
            )
        )
        in_table = [x for x in in_table if x != "USENIX"] or in_table  # "USENIX OSDI": the publisher, then the series
        opening_venue = f"{in_table[0]} {op.year}" if len(in_table) == 1 else None
    if not is_note and not listing and not open_links and not op.ambiguous:
        # no link at all, or an empty one ("[Title]()"): a paper note when the rest says so plainly
        placeholder = op.placeholder or op.named_only or op.bare_placeholder is not None
        placeholder = placeholder or (head is not None and placeholder_heading(head[1]))
        placeholder = placeholder or empty_link_key(meta)  # `paper: ""`: a template's link not filled in
        et_al = any(re.search(r"\bet al\b", line) for line in op.byline)
        authors = op.authors or fm_value(meta, AUTHOR_KEYS) or any(author_list(line) for line in op.byline[:2])
        told = bool(authors or opening_venue or has_tldr(blocks) or fm_venue or len(tag_venues) == 1 or et_al)
        named = op.title is not None and title_key(frame_stripped(page.title)[0]) in title_key(op.title)
        titled = head is not None or isinstance(meta.get("title"), str)
        # "# Title", "**Authors:** …" and one paper link anywhere in the note (a "Links" section at its
        # end), or a year, venue or TL;DR beside the authors
        anywhere = distinct_papers(page_paper_links(blocks))
        labelled_authors = bool(op.authors) and titled and len(anywhere) <= 1
        # "# Title" … "## Links" / "- [Paper](…)": the note's one paper link, in a section of its links
        in_links = distinct_papers(page_paper_links([b for b in blocks if links_section(b)]))
        # "# World Models (2018)" over "David Ha, Jurgen Schmidhuber": a title dated as a citation is,
        # its authors on the next line
        dated_citation = head is not None and bool(_BARE_YEAR_RE.search(head[1].text)) and authors_first(op)
        # "# Switch Transformers: Scaling to …" over "William Fedus, Barret Zoph and Noam Shazeer": a title
        # over its authors' names, as a paper's first page sets them
        cited_authors = (
            head is not None
            and not is_section_heading(head[1].text)
            and len(head[1].text.split()) >= 3
            and bool(op.byline)
            and author_list(op.byline[0])
        )
        # "# Title" over "## 摘要" / "## Abstract" / "## 题目&作者": sections named for the paper's own parts
        parts = paper_parts(head[1].text if head else None, blocks)
        # "2021 IBRNet Learning Multi-View Image-Based Rendering.md" under "# IBRNet: Learning …": a file
        # named for its title and the paper's year
        file_year = (
            dated_file_title(page.source, head[1].text) if head and not is_section_heading(head[1].text) else None
        )
        is_note = (
            parts
            or file_year is not None
            or dated_citation
            or cited_authors
            or (titled and ref is not None)
            or (op.placeholder and op.title is not None)
            or (placeholder and (told or named))
            or (titled and opening_venue is not None and bool(op.authors or et_al))  # "Yu et al., OSDI '22."
            or (labelled_authors and bool(anywhere or op.year or has_tldr(blocks)))
            or (titled and len(anywhere) == 1 and in_links == anywhere)
        )
        if is_note and anywhere and (labelled_authors or in_links == anywhere):
            link = anywhere[0]
    if is_note and link is None and ref is not None:
        link = ref.link
    named_id = named_arxiv_id(page.source, head[1].text if head else "")
    if (is_note and link is None or not is_note and not listing and not open_links) and head is not None and named_id:
        # "2005.12872v3.md", "# [1512.03385] Title": a note named by its paper's arXiv identifier
        link, is_note = f"https://arxiv.org/abs/{named_id}", True
    if not is_note:
        return None

    title, alias = note_title(page, head, op, link)
    title = ID_MARK_RE.sub("", title).strip() or title  # "[1512.03385] Title", "Title (arXiv:1810.04805)"
    if len(title_key(title)) < 2:  # "## [g](arXiv link)": a slip of the notes, no paper's title
        return None
    title, cited_venue, cited_year = author_year_citation(title)  # before a trailing "(ICLR 2019)" is read alone
    title, title_venue = parse_title(title)
    title, decoration = venue_decoration(title)
    bare_year = _BARE_YEAR_RE.search(title)
    if bare_year and bare_year.start() > 0:  # "Llama 2: Open Foundation … (2023)": the year, no part of the title
        title, cited_year = title[: bare_year.start()], cited_year or int(bare_year.group(1))
    if cited_year is None and head:  # "## [Title](link) (Srivastava et al., JMLR 2014)"
        _, cited_venue, cited_year = author_year_citation(head[1].text)
    # the page title's mark, when the title was replaced by the full title ("【ICML 2023】SmoothQuant 论文解读")
    title_venue = title_venue or decoration or cited_venue or venue_decoration(page.title)[1]

    # venue: front matter, else tags, else the opening's statements (a byline, "Venue:", "(ICML'23)"),
    # else the first paragraphs'; conflicting statements leave it empty (one parser: venues.py)
    venue, conflict = (fm_venue, False) if fm_venue else _one(tag_venues)
    if venue is None and not conflict:
        head_said = stated_venues(head[1].text) if head else []
        venue, conflict = decide_venue([title_venue or "", *head_said]) if title_venue or head_said else (None, False)
        if venue is None and not conflict:
            venue, conflict = opening_venue, opening_conflict
        if venue is None and not conflict:
            later = [b.text for b in blocks[:12] if b.kind == "text"]
            venue, conflict = decide_venue(v for text in later for v in stated_venues(text))
        if venue is None and not conflict:
            # a section of its own for it, anywhere in the note ("* Venue" / "ICLR 2024."): read as a
            # "Venue:" line
            in_section = [
                b.text for b in blocks if b.kind == "text" and b.headings and _VENUE_SECTION_RE.match(b.headings[-1])
            ]
            venue, conflict = decide_venue(v for text in in_section[:1] for v in stated_venues(text, byline=True))
    year = split_venue(venue)[1] if venue else None
    said = [str(fm_venue_raw or ""), *page.tags, *op.venues, *op.byline]
    opening_text = [*said, *(b.text for b in blocks[:12] if b.kind == "text")]
    hosts = [v for text in opening_text for v in workshop_venues(text)]
    if venue is None and not conflict and hosts:
        # a workshop's paper: not the conference's, and no preprint venue in its place
        conflict, year = True, split_venue(hosts[0])[1]
    if venue is None and not conflict:
        # the folder the note is filed in, named for a venue ("ICLR2019/", "neurips-2020/", "cvpr_2016/"):
        # the nearest such folder, read as a tag is
        venue = next((v[0][0] for v in map(_venues_in_tags, _folders(page.source)) if len(v[0]) == 1), None)
        year = split_venue(venue)[1] if venue else year
    if venue is None and not conflict and not bare_series:
        # a journal named without its year ("Kim and Park, Transactions on Machine Learning Research.")
        bare_series = [
            m.series
            for text in [*op.venues, *op.byline]
            for m in find_venue_mentions(journal_abbreviated(text))
            if m.series in JOURNAL_SERIES and not m.year
        ]
    if venue is None and not conflict:
        series, _ = _one(bare_series)
        y = year_of(meta) or op.year
        if series and y:
            venue, year = f"{series} {y}", y
    if year is None and not conflict:
        # an arXiv link alone dates the paper but names no venue: a link is where the paper is, not
        # where it was published
        year = (
            year_of(meta)
            or op.year
            or cited_year
            or (ref.year if ref else None)
            or (bib.year if bib else None)
            or (dated_file_title(page.source, head[1].text) if head else None)
            or (arxiv_year(link) if link else None)
        )
    if venue is None and not conflict and year and isinstance(fm_venue_raw, str) and is_preprint(fm_venue_raw):
        venue = f"{split_venue(fm_venue_raw)[0].strip()} {year}"  # `venue:: arXiv`: the preprint, dated

    if bib and not link:
        link = bib.link
    links: dict[str, str] = {}
    if link:
        links["paper"] = link
    for k, url in fm_links.items():
        if url not in links.values():
            links.setdefault(k, url)
    for kind in ("arxiv", "pdf", "doi"):  # "Paper: [USENIX](…)" and "arXiv: […](…)": both links kept
        stated = op.labelled.get(kind)
        if stated and stated not in links.values():
            links.setdefault(kind, stated)
    if op.code and op.code not in links.values():
        links.setdefault("code", op.code)
    for k in (*CODE_LABELS, "project", "slides", "video"):
        value = fm_value(meta, (k,))
        if isinstance(value, str) and value.startswith("http"):
            links.setdefault("code" if k in CODE_LABELS else k, value)

    authors, affs = note_people(meta, blocks, op)
    affs = [a for a in affs if not normalize_venue(a)]  # "— Stanford — SIGIR 2020": the venue is no place
    authors = authors or (bib.authors if bib else [])
    # the post's own title as a name: its short name ("EAGLE：在特征层做投机采样" → "EAGLE", "1. SnapKV" →
    # "SnapKV"), else itself unless it is an identifier
    alias = _alias_of(alias) if alias else None
    # (a block of field lines, "Status: Read", "Rating: ⭐⭐⭐", is no byline: the lines after it are)
    byline = [line for line in op.byline if not FIELD_LINE_RE.match(line)][:6]
    said = opening_names(byline + ([head[1].text] if head else []), title)
    # "The vLLM paper." opening the note's first paragraphs (a TL;DR under its heading)
    paragraphs = [b.text for b in blocks[:12] if b.kind == "text"][:3]
    said += [n for t in paragraphs for n in paper_sentence_names(t) if n not in said]
    written = [*as_list(fm_value(meta, ("aliases", "alias"))), *op.names]  # the writer's own names for it
    names = [*written, *([alias] if alias else []), *op.aliases, *said]
    aliases = [a for a in dict.fromkeys(names) if a.casefold() != title.casefold()]
    strong = [s for s in defining_strong(opening) if not heading_label(s)]  # not "**Authors:**"
    summary = note_summary(meta, blocks)[:600]
    # "# Chinchilla paper"; a title's translation is a name to search by, not the system's
    short = (
        alias if alias and len(alias.split()) <= SHORT_NAME_WORDS and not re.search(f"[{CJK_CHARS}]", alias) else None
    )
    acronym = title_acronym(title, " ".join([summary, *(_block_text(b) for b in blocks[:12])]))
    # a short name the front matter declares ("alias:: CoT") is the writer's own: it comes before a bold
    # word of the text ("**emergent**: …") and an acronym found in it
    declared = next((a for a in written if len(a.split()) <= SHORT_NAME_WORDS), None)
    # a names line ("System name: vLLM") says it outright, before a name the title holds ("… with PagedAttention")
    stated = next((a for a in op.names if len(a.split()) <= SHORT_NAME_WORDS), None)
    system = stated or system_name(title, []) or short or declared or system_name(title, strong[:3]) or acronym
    filed = file_name_name(page.source, "\n".join([title, summary, *(_block_text(b) for b in blocks[:12])]))
    if filed and filed.casefold() not in {a.casefold() for a in [title, *aliases, system or ""]}:
        # "nlp/t5.md" over "Exploring the Limits of Transfer Learning …" writing "T5-11B": the writer's name for it
        aliases.append(filed)
        system = system or filed
    if acronym and acronym != system and acronym not in aliases:
        # the note writes the acronym of the title's leading words: "DPO" for "Direct Preference
        # Optimization: Your Language Model is …", "GFS" for "The Google File System"
        aliases.append(acronym)
    return PaperEntry(
        title=title,
        kind="deep_note",
        source=page.source,
        page_title=page.title,
        site_path=page.site_path,
        system=system,
        venue=venue,
        year=year,
        authors=authors,
        affiliations=affs,
        links=links,
        summary=summary,
        tags=list(page.tags) or op.tags,
        aliases=aliases,
    )


def file_name_name(source: str, text: str) -> str | None:
    """The short name a note's file is named by, as the note's ``text`` writes it ("nlp/t5.md" over a text
    writing "T5-11B" → "T5", "orca.md" → "Orca"): a file name of one word (letters and digits, a hyphen or
    underscore inside) that is no English word nor a venue and that the text writes as a word; None otherwise
    (a dated post, "notes.md", "attention.md", "colm.md", a name the text never writes)."""
    stem = PurePosixPath(source).stem
    if len(stem) > 24 or not re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)?", stem):
        return None
    if readings(stem) or all(readings(part) for part in re.split(r"[-_]", stem)):
        return None  # English words ("attention.md", "paper-notes.md"), not a name ("sarathi-serve.md" is one)
    if find_venue_mentions(stem, any_case=SERIES):
        return None  # "colm.md", "interspeech.md": a venue the notes are filed by
    pattern = r"[-_ ]?".join(re.escape(part) for part in re.split(r"[-_]", stem))
    prose = re.sub(r"https?://\S+|\S+\.(?:md|pdf|png|jpe?g)\b", " ", text)  # not a link's or a file's name
    written = [m.group(0) for m in re.finditer(rf"(?<![\w/.-]){pattern}(?![\w/])", prose, re.IGNORECASE)]
    # written as one word ("Sarathi-Serve") or as a name's capitalised words ("AlphaGo Zero"): a file named
    # by a title's first words ("deep-contextualized.md" over "Deep contextualized word …") names nothing
    written = [w for w in written if " " not in w or all(p[:1].isupper() for p in w.split())]
    # as the text writes it where it writes it with a capital ("DETR", not a lower-case mention)
    return next((w for w in written if w != w.lower()), written[0] if written else None)


def _alias_of(name: str) -> str | None:
    """A post title kept as a name of its paper: its short name (:func:`short_name_of`, venue marks
    dropped: "GPipe (NeurIPS 2019)" → "GPipe"), else the title itself unless it is an identifier (a
    name in another script, "选择性状态空间模型", is one a reader may ask by)."""
    bare = parse_title(venue_decoration(name)[0])[0] or name
    short = short_name_of(bare)
    if short:
        return short
    return None if re.fullmatch(r"[\d.v\s]+", bare) else bare


def _folders(source: str) -> list[list[str]]:
    """The folder names of a page's source path, nearest first, each as a one-tag list."""
    return [[part] for part in reversed(PurePosixPath(source.split("#", 1)[0]).parent.parts)]


def _linked_title_line(op: Opening, link: str) -> bool:
    """True when one of the opening's first lines is only the paper's title linked to ``link`` (a
    bracket after it aside: its venue), so the opening sets the linked title apart as the note's."""
    titles = [t for t, href in op.named if href and paper_id(href) == paper_id(link)]
    for line in op.byline[:3]:
        for t in titles:
            rest = line.replace(t, "", 1) if line.strip().startswith(t) else line
            if rest != line and not re.sub(r"[(（\[][^()（）\[\]]*[)）\]]|[\s.,;:。，；：*_—–-]", "", rest):
                return True
    return False


def _names_in_full(title: str, op: Opening) -> bool:
    """True when the opening sets apart one full title (:attr:`Opening.named`) that holds the note's own
    title ("Orca" in "Orca: A Distributed Serving System for Transformer-Based Generative Models")."""
    key = title_key(frame_stripped(title)[0])
    full = {title_key(t) for t, _ in op.named}
    return bool(key) and len(full) == 1 and key in next(iter(full))


def _block_text(b: Block) -> str:
    return "\n".join(it.render() for it in b.items) if b.kind == "list" else b.text


def title_acronym(title: str, text: str) -> str | None:
    """The acronym of the title's leading capitalised words ("Adaptive Computation Time for …" → "ACT",
    "Neural Turing Machines" → "NTM"; a leading article aside: "The Google File System" → "GFS") when
    ``text`` (the note) uses it as a word; else None. Three letters or more: two-letter initials ("LM"
    for "Language Models are …", "ML") are words of the field that a note uses by chance."""
    words = re.findall(r"[A-Za-z][\w-]*", title)
    if len(words) > 2 and words[0] in ("The", "A", "An"):
        words = words[1:]
    caps: list[str] = []
    for w in words:
        if not w[0].isupper():
            break
        caps += [p for p in w.split("-") if p]
    for n in range(len(caps), 2, -1):
        acro = "".join(p[0].upper() for p in caps[:n])
        if re.search(rf"(?<![\w-]){acro}(?![\w-])", text):
            return acro
    return None


def complete_entry(entry: PaperEntry, other: PaperEntry | None) -> PaperEntry:
    """``entry`` with its empty fields (paper link, venue and year, authors, affiliations, summary,
    aliases) filled from ``other``, another reading of the same note; ``entry`` itself when None.
    When ``other`` replaced the page title by the full title the note states (the page title, without
    its framing, is one of ``other``'s aliases: "Paper review – FlexGen" → "FlexGen: High-Throughput
    …"), the full title is taken too."""
    if other is None:
        return entry
    page_name = title_key(frame_stripped(entry.title)[0])
    named = {title_key(a) for a in other.aliases}
    if title_key(other.title) != title_key(entry.title) and (
        page_name in named or title_key(_alias_of(frame_stripped(entry.title)[0]) or "") in named - {""}
    ):
        # the other reading found the paper's full title in place of the page's (framed, shorter) one
        entry.title, entry.system = other.title, other.system or entry.system
    if other.links.get("paper") and not any(k in entry.links for k in ("paper", "arxiv", "doi", "pdf")):
        entry.links = {"paper": other.links["paper"], **entry.links}
    if not entry.venue and other.venue:
        entry.venue, entry.year = other.venue, other.year
    entry.authors = entry.authors or other.authors
    entry.affiliations = entry.affiliations or other.affiliations
    if other.summary and (not entry.summary or ACCEPTED_RE.match(entry.summary)):
        entry.summary = other.summary  # a "Published in …" line is no summary
    entry.aliases = entry.aliases or other.aliases
    return entry
