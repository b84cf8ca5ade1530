"""Index statistics and catalog listing that need no embedder (fast: read JSON files only)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from papernotes.corpus.catalog import filter_records
from papernotes.corpus.errors import BadInputError
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.venues import resolve_venue, split_venue, unknown_venue
from papernotes.retrieval.filters import normalize_filters
from papernotes.retrieval.index_health import (
    ensure_index,
    load_json_safe,
    load_source_stats,
    manifest_path,
    read_bm25,
    read_catalog,
)
from papernotes.retrieval.ingest_warnings import split_warnings
from papernotes.retrieval.settings import Settings


def list_papers(
    settings: Settings,
    venue: str | None = None,
    year: int | None = None,
    topic: str | None = None,
    search: str | None = None,
) -> list[PaperRecord]:
    """Catalog records matching the filters; a venue series without a year ("SOSP") matches every
    year of it.

    Raises
    ------
    IndexMissingError
        before the first ingest.
    BadInputError
        for a venue the notes do not have (with suggestions, see :func:`~papernotes.corpus.venues.unknown_venue`),
        for a topic no paper's topic path or tag contains, and for the bad flags of :func:`~papernotes.retrieval.filters.normalize_filters`.
    """
    ensure_index(settings)
    normalize_filters(venue, year, topic)  # an empty or unreadable flag, a year against the venue's
    records = read_catalog(settings)
    known = [v for v, _ in Counter(v for r in records for v in r.venues).most_common()]
    if venue and normalize_filters(venue).series:
        series = str(normalize_filters(venue).series).lower()
        if series not in {split_venue(v)[0].lower() for v in known}:
            raise unknown_venue(str(normalize_filters(venue).series), known)
        records = [r for r in records if any(split_venue(v)[0].lower() == series for v in r.venues)]
        venue = None
    elif venue:
        venue = resolve_venue(venue, known)
    if topic and not any(topic.lower() in t.lower() for r in records for t in r.topics + r.tags):
        raise BadInputError(
            f"no topic of the notes contains {topic!r} (the topics column of `papernotes papers` lists them)"
        )
    return filter_records(records, venue, year, topic, search)


def index_stats(settings: Settings) -> dict[str, Any]:
    """``{"files", "files_skipped", "pages", "chunks", "chunks_by_kind", "papers", "papers_by_venue",
    "warnings", "pages_heading_only", "catalog_warnings", "sources"}`` for the whole index (all ingested
    origins). ``sources`` maps each origin to the counts of its last ingest and that ingest's
    ``warnings`` (one line each); ``catalog_warnings`` are the catalog merge's (papers sharing a link,
    across sources), as every ingest reports them; ``warnings`` is the total of both without the pages
    that have only a heading, which ``pages_heading_only`` counts
    (:func:`~papernotes.retrieval.ingest_warnings.split_warnings`; each source counted as of its last
    ingest, never accumulated) — the figures the last ingest printed ("5 warnings (22 pages with only a
    heading)").

    Raises IndexMissingError / IndexDamagedError / IndexOutdatedError (see
    :func:`~papernotes.retrieval.indexing.ensure_index`)."""
    ensure_index(settings)
    per_source: dict[str, dict[str, Any]] = dict(load_source_stats(settings))
    for v in per_source.values():
        v.setdefault("warnings", [])
    bm = read_bm25(settings)
    recs = read_catalog(settings)
    by_venue = Counter(r.venue for r in recs if r.venue)
    catalog = (load_json_safe(manifest_path(settings)) or {}).get("catalog")
    catalog_warnings = [str(w) for w in catalog.get("warnings", [])] if isinstance(catalog, dict) else []
    split = [split_warnings(v["warnings"]) for v in per_source.values()]
    return {
        "files": sum(v["files"] for v in per_source.values()),
        "files_skipped": sum(v.get("files_skipped", 0) for v in per_source.values()),
        "pages": sum(v["pages"] for v in per_source.values()),
        "chunks": len(bm),
        "chunks_by_kind": dict(Counter(m.get("kind", "?") for m in bm.metadatas)),
        "papers": len(recs),
        "papers_by_venue": dict(sorted(by_venue.items(), key=lambda kv: (-kv[1], kv[0]))),
        "warnings": sum(len(warned) for warned, _ in split) + len(catalog_warnings),
        "pages_heading_only": sum(len(empty) for _, empty in split),
        "catalog_warnings": catalog_warnings,
        "sources": per_source,
    }
