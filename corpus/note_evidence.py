"""Signs that a note without a paper link is about one paper: sections named for the paper's own parts,
its authors under a dated title, its one paper link in a "Links" section, a template's paper link left
empty (:func:`~papernotes.corpus.paper_notes.paper_note_entry` weighs them)."""

from __future__ import annotations

import re
from typing import Any

from papernotes.corpus.markdown import Block, Inline, is_section_heading
from papernotes.corpus.note_links import LINK_KEYS
from papernotes.corpus.note_opening import Opening, author_list, is_collection_title
from papernotes.corpus.papers import title_key

#: A section named for a part of a paper (its abstract, its title and authors): "## Abstract", "## 2 摘要",
#: "## Part1. 标题&作者".
_PAPER_PART_RE = re.compile(
    r"^\W*(?:(?:part\s*)?\d+(?:[.)]\s*|\s+))?(?:abstract|摘要|(?:title|标题|题目)\s*(?:&|and|与|和)\s*(?:authors?|作者))\W*$",
    re.IGNORECASE,
)


def paper_parts(head_text: str | None, blocks: list[Block]) -> bool:
    """True when a note titled ``head_text`` (a title, not a section name) has a section named for a part
    of its paper (:data:`_PAPER_PART_RE`: "## 摘要", "## Abstract", "## 题目&作者")."""
    return (
        head_text is not None
        and not is_section_heading(head_text)
        and any(_PAPER_PART_RE.match(b.headings[-1]) for b in blocks if b.headings)
    )


#: A year standing alone in a file name (a publication year), not the first part of a date.
_NAME_YEAR_RE = re.compile(
    r"(?<![\dA-Za-z])((?:19|20)\d\d)(?![\dA-Za-z])(?![-_. ](?:0?[1-9]|1[0-2])(?:[-_. ]\d{1,2})?(?!\d))"
)
_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
#: A reading date in a file name: six or eight digits ("200213", "20200213").
_NAME_DATE_RE = re.compile(r"(?<![\dA-Za-z])(?:19|20)?\d{6}(?![\dA-Za-z])")


def dated_file_title(source: str, title: str) -> int | None:
    """The publication year of a note whose file is named for its title and that year — "2021 IBRNet
    Learning Multi-View Image-Based Rendering.md", "alignflow-cycle-consistent-…-2020-210409.md" under
    the heading "AlignFlow: Cycle Consistent …" (a reading date may follow) — or None. The title must
    have two words or more and not name a collection ("2023 Reading List"); a date such as a Jekyll
    post's "2018-03-18-" is no publication year."""
    stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    years = _NAME_YEAR_RE.findall(stem)
    if len(years) != 1 or len(title.split()) < 2 or is_collection_title(title):
        return None
    rest = _NAME_DATE_RE.sub(" ", _NAME_YEAR_RE.sub(" ", stem))
    keys = {title_key(title), title_key(_CJK_RE.sub(" ", title))} - {""}  # "光场 The Lumigraph": its translation aside
    return int(years[0]) if title_key(rest) in keys else None


def authors_first(op: Opening) -> bool:
    """True when the opening's first line is an author list (:func:`author_list`) or one person's name
    alone ("Yoshua Bengio", "Noah A. Smith")."""
    if not op.byline:
        return False
    line = op.byline[0].strip()
    return author_list(line) or bool(
        re.fullmatch(r"(?:[A-Z][\w'’-]*\.?|[A-Z]\.)(?:\s+(?:[A-Z][\w'’-]*\.?|[A-Z]\.)){1,3}", line)
    )


#: A section that lists a note's links: "## Links", "## Resources", "## 🔗 Paper & code", "## 链接".
_LINKS_SECTION_RE = re.compile(
    r"^\W*(?:links?|resources?|references?|paper|source|paper (?:&|and) code|links? (?:&|and) resources|链接|资源)\W*$",
    re.IGNORECASE,
)


def links_section(b: Block) -> bool:
    """A block under a heading that names a section of links (:data:`_LINKS_SECTION_RE`)."""
    return bool(b.headings) and bool(_LINKS_SECTION_RE.match(b.headings[-1]))


def empty_link_key(meta: dict[str, Any]) -> bool:
    """Front matter with a paper-link key left empty (``paper: ""``, ``doi:``): a note made from a
    paper-note template whose link was not filled in."""
    low = {str(k).lower(): v for k, v in meta.items()}
    return any(k in low and low[k] in (None, "") for k in (*LINK_KEYS, "doi", "arxiv", "arxiv_id"))


def placeholder_heading(inline: Inline) -> bool:
    """A title heading that is one link with no address (``## [Title]()``, ``## [Title](#)``)."""
    return any(href.strip() in ("", "#") and len(lbl) >= 0.6 * len(inline.text) for lbl, href in inline.links)
