"""The paper catalog: one :class:`~papernotes.corpus.models.PaperRecord` per paper, merged over every place the
notes mention it (topic lists, conference pages, deep notes, publication pages)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path

from papernotes.corpus.models import PaperEntry, PaperRecord
from papernotes.corpus.papers import title_key
from papernotes.corpus.venues import normalize_venue

#: Which entry kind's title/venue wins when places disagree (a listing's title keeps its casing).
_KIND_RANK = {"paper_entry": 0, "deep_note": 1, "publication": 2}


def _add_unique(dst: list[str], items: Iterable[str]) -> None:
    for x in items:
        if x and x not in dst:
            dst.append(x)


def _notes_path(href: str) -> str:
    """Site path a "Personal Notes" link points to (``/reading-notes/x/y``, a GitHub blob URL of
    ``reading-notes/x/y.md``), without leading slash or ``.md``; "" if none."""
    m = re.search(r"(reading-notes/[^?#]+?)(?:\.md)?/?(?:[?#].*)?$", href or "")
    return m.group(1) if m else ""


def _prefix(title: str) -> str:
    return title.split(":", 1)[0].strip().casefold() if ":" in title else ""


def _deep_note_aliases(entries: list[PaperEntry]) -> dict[int, str]:
    """Deep notes whose title differs a little from the listing's (case, plural, subtitle wording):
    ``id(entry) → the listing's title key``, found by the listing's "Personal Notes" link to the
    note's site path, else by the same system prefix ("EVStore:") at the same venue."""
    by_link: dict[str, str] = {}
    by_prefix: dict[tuple[str, str], str] = {}
    keys = set()
    for e in entries:
        if e.kind == "deep_note":
            continue
        k = title_key(e.title)
        keys.add(k)
        for label, href in e.links.items():
            if "notes" in label and _notes_path(href):
                by_link.setdefault(_notes_path(href), k)
        if _prefix(e.title) and e.venue:
            by_prefix.setdefault((_prefix(e.title), normalize_venue(e.venue) or e.venue), k)
    out: dict[int, str] = {}
    for e in entries:
        if e.kind != "deep_note" or title_key(e.title) in keys:
            continue
        key = by_link.get(e.site_path) if e.site_path else None
        if not key and _prefix(e.title) and e.venue:
            key = by_prefix.get((_prefix(e.title), normalize_venue(e.venue) or e.venue))
        if key:
            out[id(e)] = key
    return out


def build_catalog(entries: Iterable[PaperEntry]) -> list[PaperRecord]:
    """Merge paper entries into records keyed by :func:`~papernotes.corpus.papers.title_key`.

    Venue and year come from the first place that names a (non-arXiv) venue; affiliations, authors,
    links, topics, tags and sources are unions in order of appearance; the summary is the first
    listing's one-liner (else the deep note's TL;DR, else the abstract). Records keep first-seen order.
    """
    entries = sorted(entries, key=lambda e: _KIND_RANK.get(e.kind, 3))
    alias = _deep_note_aliases(entries)
    records: dict[str, PaperRecord] = {}
    for e in entries:
        key = alias.get(id(e)) or title_key(e.title)
        if not key:
            continue
        r = records.get(key)
        if r is None:
            r = records[key] = PaperRecord(title=e.title)
        if e.system and not r.system:
            r.system = e.system
        venue = normalize_venue(e.venue) if e.venue else None
        venue = venue or e.venue
        if venue and (r.venue is None or (r.venue.startswith("arXiv") and not venue.startswith("arXiv"))):
            r.venue, r.year = venue, e.year
        _add_unique(r.affiliations, e.affiliations)
        _add_unique(r.authors, e.authors)
        for k, v in e.links.items():
            if v and k not in r.links:
                r.links[k] = v
        if e.summary and not r.summary:
            r.summary = e.summary
        if e.kind != "deep_note":
            _add_unique(r.topics, [f"{e.page_title} › {e.topic}" if e.topic else e.page_title])
        _add_unique(r.tags, e.tags)
        _add_unique(r.sources, [e.source])
        if e.kind == "deep_note" and not r.deep_note:
            r.deep_note = e.source
    _one_spelling_per_venue(list(records.values()))
    return list(records.values())


def _one_spelling_per_venue(records: list[PaperRecord]) -> None:
    """Venues of series unknown to :mod:`~papernotes.corpus.venues` keep the casing they were written in
    (``"ToySys 2026"``, ``"toysys 2026"``); give every record of one venue the same spelling — the
    first with a capital letter, else the first seen."""
    best: dict[str, str] = {}
    for r in records:
        if not r.venue:
            continue
        k = r.venue.casefold()
        if k not in best or (best[k] == best[k].lower() and r.venue != r.venue.lower()):
            best[k] = r.venue
    for r in records:
        if r.venue:
            r.venue = best[r.venue.casefold()]


def save_catalog(records: list[PaperRecord], path: Path) -> None:
    """Write the catalog as a JSON list of records (atomically: temp file + rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps([r.to_dict() for r in records], ensure_ascii=False, indent=1), encoding="utf-8")
    tmp.replace(path)


def load_catalog(path: Path) -> list[PaperRecord]:
    """Read a catalog written by :func:`save_catalog`; a missing file is an empty catalog."""
    if not path.is_file():
        return []
    return [PaperRecord(**d) for d in json.loads(path.read_text(encoding="utf-8"))]


def filter_records(
    records: list[PaperRecord],
    venue: str | None = None,
    year: int | None = None,
    topic: str | None = None,
    search: str | None = None,
) -> list[PaperRecord]:
    """Records matching every given filter: venue (any spelling), year, topic (case-insensitive
    substring of a topic path or tag), search (substring of title, system, summary or affiliations)."""
    v = normalize_venue(venue) if venue else None
    out = []
    for r in records:
        if venue and (r.venue or "").lower() != (v or venue).lower():
            continue
        if year and r.year != year:
            continue
        if topic and not any(topic.lower() in t.lower() for t in r.topics + r.tags):
            continue
        if search:
            hay = " ".join([r.title, r.system or "", r.summary, " ".join(r.affiliations)]).lower()
            if search.lower() not in hay:
                continue
        out.append(r)
    return out
