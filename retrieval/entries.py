"""A paper's entry inside a chunk about several papers.

A page that lists papers as list items with nested notes ("- **GShard: …** (ICLR 2021)" and under it
"  - Trained on 2048 TPU v3 cores in 4 days.") gives the catalog a record per item, while its chunks
stay the page section's, several papers in one. A question naming one of them is answered from that
paper's item and what is nested under it, not from its neighbours: :func:`entry_view` cuts a chunk down
to that span, a :class:`~papernotes.retrieval.search.Hit` of the paper itself.
"""

from __future__ import annotations

import re
from dataclasses import replace

from papernotes.corpus.papers import title_key
from papernotes.retrieval.evidence import ITEM_LINE_RE
from papernotes.retrieval.search import Hit

#: A Markdown heading line.
_HEADING_RE = re.compile(r"^\s{0,3}#{1,6}\s")
#: A line that is only a link (a list marker, a bare URL or a Markdown link), no statement.
_LINK_ONLY_RE = re.compile(r"^\s*(?:[-*+•]|\d{1,9}[.)])?\s*(?:<?https?://\S+>?|\[[^\]]*\]\([^)]*\))\s*$")
#: Shortest title key (letters and digits) searched for in a line: a shorter one ("GPT") names too many.
MIN_TITLE_KEY = 12


def _indent(line: str) -> int:
    """Indentation of a line in columns (tabs as 4), -1 for a blank line."""
    wide = line.expandtabs(4)
    return len(wide) - len(wide.lstrip()) if wide.strip() else -1


def entry_span(body: str, title: str) -> str | None:
    """The lines of ``body`` (a chunk's text without its heading line) that are the entry of the paper
    titled ``title``: the first line holding the whole title (letters and digits compared, case and
    punctuation aside) and, when that line is a list item, the lines that continue it or are nested
    under it (up to the next item at its level or shallower, a heading, or a line back at its level
    after a blank line); when it is a paragraph line, its paragraph. None when no line holds the title,
    the title is shorter than :data:`MIN_TITLE_KEY` letters and digits, or the entry holds no line but
    its first and links (cut off by the chunk's end)."""
    key = title_key(title)
    if len(key) < MIN_TITLE_KEY:
        return None
    lines = body.split("\n")
    start = next((i for i, ln in enumerate(lines) if key in title_key(ln)), None)
    if start is None:
        return None
    item = ITEM_LINE_RE.match(lines[start])
    level = _indent(lines[start])
    end, blank = start + 1, False
    while end < len(lines):
        ln = lines[end]
        if not ln.strip():
            if not item:
                break  # a paragraph ends at a blank line
            blank = True
            end += 1
            continue
        if _HEADING_RE.match(ln) or (not item and ITEM_LINE_RE.match(ln)):
            break
        # an item ends at the next item at its level or shallower, or at a line back at its level after a
        # blank line; a line right below it that starts no item continues it, however indented (a "lazy
        # continuation line" of CommonMark, and chunk texts keep no indentation of such lines)
        if item and _indent(ln) <= level and (ITEM_LINE_RE.match(ln) or blank):
            break
        blank = False
        end += 1
    # an entry cut off by the chunk's end after its first line (and its link) says nothing of the paper
    # there: its statements are in the next chunk, read as the page's
    stated = [ln for ln in lines[start + 1 : end] if _LINK_ONLY_RE.sub("", ln).strip()]
    return "\n".join(lines[start:end]).rstrip() if stated else None


def entry_view(hit: Hit, record: int, title: str) -> Hit | None:
    """``hit`` cut down to the entry of the paper ``record`` (catalog position) titled ``title``
    (:func:`entry_span`), under the chunk's heading line, as a hit of that paper (its ``record`` and
    ``group``, ``paper_title`` in its metadata; the same chunk id, so citing it cites the chunk). None
    when the chunk holds no entry of it, or the chunk is already that paper's."""
    if hit.record == record:
        return None
    span = entry_span(hit.body, title)
    if span is None:
        return None
    head = hit.text.split("\n", 1)[0] if "\n" in hit.text else ""
    return replace(
        hit,
        text=f"{head}\n{span}" if head else span,
        metadata={**hit.metadata, "paper_title": title},
        record=record,
        group=f"paper:{record}",
    )
