"""Which papers a conference summary lists, in which groups and order: selected from the paper catalog
by metadata (the venue, then topic headings or the topic named in the paper's own title/summary),
never by similarity search, grouped by the notes' own headings."""

from __future__ import annotations

from papernotes.corpus.chunking import SEP
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.papers import title_key
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.summarize.topics import Topic

#: Page-structure headings between a venue page's title and its topic headings ("MLSys 2026 › Papers ›
#: Large Language Models (LLMs) › …"); some pages put the topic lists under "Meta Info".
STRUCTURE_HEADINGS = {"papers", "paper list", "accepted papers", "meta info", "proceedings"}


def _venue_path(path: str, venue: str) -> list[str] | None:
    """The heading path below "<venue> › Papers ›" when ``path`` is on the venue's own page, else None."""
    parts = [p.strip() for p in path.split(SEP)]
    if not parts or parts[0].lower() != venue.lower():
        return None
    parts = parts[1:]
    if parts and parts[0].lower() in STRUCTURE_HEADINGS:
        parts = parts[1:]
    return parts


def _match_index(parts: list[str], topic: Topic) -> int | None:
    return next((i for i, p in enumerate(parts) if topic.headings.search(p)), None)


def _group_name(parts: list[str], i: int | None) -> str:
    """Group of a heading path: below the topic heading when it is the top one ("Large Language Models
    (LLMs) › LLM Inference › KV Cache" → "LLM Inference › KV Cache"), from the matching bullet when it
    is deeper ("Model Serving › LLM Inference" → "LLM Inference"), the whole path without a match."""
    if i is None:
        return SEP.join(parts)
    if i == 0 and len(parts) > 1:
        return SEP.join(parts[1:])
    return SEP.join(parts[i:])


def paper_group(r: PaperRecord, venue: str, topic: Topic) -> tuple[bool, str]:
    """``(on a topic heading?, group name)`` for a catalog record, preferring the venue page's path."""
    own = [p for p in (_venue_path(t, venue) for t in r.topics) if p is not None]
    for parts in own:
        i = _match_index(parts, topic)
        if i is not None:
            return True, _group_name(parts, i)
    other = [[p.strip() for p in t.split(SEP)] for t in r.topics if _venue_path(t, venue) is None]
    hit = next(((parts, i) for parts in other if (i := _match_index(parts, topic)) is not None), None)
    if own and own[0]:
        return hit is not None, _group_name(own[0], None)
    if hit:
        return True, _group_name(*hit)
    if other:
        return False, _group_name(other[0], None)
    return False, "Deep notes" if r.deep_note else "Other"


def mentions_topic(r: PaperRecord, topic: Topic) -> bool:
    """The paper's own title or one-line summary names the topic."""
    return bool(topic.text.search(r.title) or topic.text.search(r.summary or ""))


def venue_records(catalog: list[PaperRecord], venue: str) -> list[PaperRecord]:
    """Catalog records of a venue: it is one of the paper's venues (its venue or history,
    :attr:`~papernotes.corpus.models.PaperRecord.venues`), or the paper is listed on the venue's page."""
    v = venue.lower()
    return [
        r
        for r in catalog
        if v in {x.lower() for x in r.venues} or any(_venue_path(t, venue) is not None for t in r.topics)
    ]


def select_papers(
    records: list[PaperRecord], venue: str, topic: Topic, page_order: dict[str, int] | None = None
) -> list[tuple[str, list[PaperRecord]]]:
    """The venue's records on the topic, grouped: ``[(group name, [records])]``.

    A record is in when one of its topic paths has a heading/bullet for the topic, or its title/summary
    mentions the topic. Order: the venue page's order (``page_order``: title key → position of the
    paper's chunk on the venue's page) when known, else catalog (first-seen) order; groups follow their
    first paper.
    """
    page_order = page_order or {}
    chosen: list[tuple[tuple[int, int], str, PaperRecord]] = []
    for idx, r in enumerate(records):
        on_heading, group = paper_group(r, venue, topic)
        if not (on_heading or mentions_topic(r, topic)):
            continue
        pos = page_order.get(title_key(r.title))
        chosen.append(((0, pos) if pos is not None else (1, idx), group, r))
    chosen.sort(key=lambda x: x[0])
    groups: dict[str, list[PaperRecord]] = {}
    for _, g, r in chosen:
        groups.setdefault(g, []).append(r)
    return list(groups.items())


def venue_page_order(settings: Settings, venue: str) -> dict[str, int]:
    """``title key → position`` of each paper entry on the venue's own page(s) (page title == venue),
    from the ingested entries, which keep page order."""
    from papernotes.retrieval.indexing import load_entries

    order: dict[str, int] = {}
    for entries in load_entries(settings).values():
        for e in entries:
            if e.get("page_title") == venue and e.get("kind") == "paper_entry":
                order.setdefault(title_key(e["title"]), len(order))
    return order
