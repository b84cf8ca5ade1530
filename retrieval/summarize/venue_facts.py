"""Header facts of a conference summary (dates, place, acceptance rate, homepage), read from the indexed
chunks of the notes' conference calendar table and of the venue's own page."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from papernotes.corpus.chunking import SEP
from papernotes.corpus.papers import title_key
from papernotes.corpus.venues import normalize_venue


@dataclass
class VenueFacts:
    """What the notes say about a venue; a fact the notes lack is None. ``page_order`` maps a paper's
    title key to the position of its chunk on the venue's page (empty without a page)."""

    when: str | None = None
    where: str | None = None
    acceptance_rate: str | None = None
    homepage: str | None = None
    page_order: dict[str, int] = field(default_factory=dict)
    #: the position (in ``texts``) of the chunk each fact was read from: ``"when"`` (also the place),
    #: ``"acceptance_rate"``, ``"homepage"``
    sources: dict[str, int] = field(default_factory=dict)

    @property
    def known(self) -> set[str]:
        """The facts the notes state: ``"when"``, ``"where"``, ``"acceptance_rate"``, ``"homepage"``."""
        have = {"when": self.when, "where": self.where, "acceptance_rate": self.acceptance_rate}
        return {k for k, v in {**have, "homepage": self.homepage}.items() if v}


def _body(text: str, page_title: str | None) -> str:
    """Chunk text without its breadcrumb first line ("Page › Section")."""
    first, _, rest = text.partition("\n")
    return rest if page_title and first.startswith(page_title) else text


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


#: Most lines of a venue page's "Acceptance Rate" section read (a rate per submission cycle and a total).
RATE_LINES = 4
#: A labelled acceptance-rate line of a venue page: "Acceptance rate: 14.7% (= 71 / 484)".
_RATE_LINE_RE = re.compile(r"^\s*(?:[-*]\s*)?acceptance rate\s*[:：]\s*(\S.*)$", re.IGNORECASE | re.MULTILINE)


def venue_facts(texts: list[str], metadatas: list[dict[str, Any]], venue: str) -> VenueFacts:
    """Header facts about ``venue`` (canonical, "MLSys 2026") from indexed chunks (``texts[i]`` with
    ``metadatas[i]``, in index order).

    ``when``/``where`` come from the notes' conference calendar: a table (a chunk's pipe-table lines,
    whether written in Markdown or HTML) whose header row has "When" and "Where" columns and a row
    whose first cell names the venue.
    ``acceptance_rate`` is the venue page's "Acceptance Rate" section, its lines (at most
    :data:`RATE_LINES`: one per submission cycle) joined by "; " (or a labelled
    "Acceptance rate: …" line of the page) and ``homepage``
    the "Homepage:" link of its "Meta Info" section. When several sources have the fact, the one from
    the same source file as the venue's page wins.
    """
    v = venue.lower()

    @cache
    def names_venue(page_title: str) -> bool:  # "ATC 2025" is the page of "USENIX ATC 2025"
        return page_title.lower() == v or normalize_venue(page_title) == venue

    page_files = {
        str(m.get("source", "")).split("#")[0] for m in metadatas if names_venue(str(m.get("page_title", "")))
    }
    facts = VenueFacts()
    rows: list[tuple[bool, int, str, str]] = []
    for i, (t, m) in enumerate(zip(texts, metadatas, strict=True)):
        same_file = str(m.get("source", "")).split("#")[0] in page_files
        pt = str(m.get("page_title") or "")
        lines = [ln for ln in _body(t, pt).splitlines() if ln.strip().startswith("|")] if "|" in t else []
        head = [c.lower() for c in _cells(lines[0])] if lines else []
        if "when" in head and "where" in head:
            wi, hi = head.index("when"), head.index("where")
            for ln in lines[1:]:
                c = _cells(ln)
                if len(c) > max(wi, hi) and c[0] and normalize_venue(c[0]) == venue:
                    rows.append((same_file, i, c[wi], c[hi]))
            continue
        if not names_venue(pt):
            continue
        if m.get("kind") == "paper_entry":
            if m.get("paper_title"):
                facts.page_order.setdefault(title_key(str(m["paper_title"])), i)
            continue
        sec = str(m.get("section") or "")
        body = _body(t, pt)
        if sec.lower().endswith("acceptance rate") and facts.acceptance_rate is None:
            # every line of the section: one rate, or one per cycle ("Total: …", "Fall: …", "Spring: …")
            lines = [ln.strip(" -*") for ln in body.splitlines() if ln.strip(" -*")][:RATE_LINES]
            facts.acceptance_rate = "; ".join(lines) or None
            if lines:
                facts.sources["acceptance_rate"] = i
        elif sec.split(SEP)[0].strip().lower() == "meta info" and facts.homepage is None:
            hm = re.search(r"homepage:\s*<?(https?://[^\s>]+)", t, re.I)
            if hm:
                facts.homepage = hm.group(1)
                facts.sources["homepage"] = i
        # … or a labelled line of the page ("Acceptance rate: 14.7% (= 71 / 484)" under "Meta Info")
        labelled = _RATE_LINE_RE.search(body) if facts.acceptance_rate is None else None
        if labelled:
            facts.acceptance_rate = labelled.group(1).strip()
            facts.sources["acceptance_rate"] = i
    if rows:
        rows.sort(key=lambda r: not r[0])  # stable: same-file rows first, then index order
        facts.when, facts.where = rows[0][2] or None, rows[0][3] or None
        facts.sources["when"] = rows[0][1]
    return facts
