"""Index statistics and catalog listing that need no embedder (fast: read JSON files only)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from papernotes.corpus.catalog import filter_records, load_catalog
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.venues import resolve_venue
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.indexing import ensure_index, load_source_stats
from papernotes.retrieval.settings import Settings


def list_papers(
    settings: Settings,
    venue: str | None = None,
    year: int | None = None,
    topic: str | None = None,
    search: str | None = None,
) -> list[PaperRecord]:
    """Catalog records matching the filters. Raises IndexMissingError before the first ingest."""
    ensure_index(settings)
    records = load_catalog(settings.catalog_path)
    if venue:
        venue = resolve_venue(venue, [r.venue for r in records if r.venue])
    return filter_records(records, venue, year, topic, search)


def index_stats(settings: Settings) -> dict[str, Any]:
    """``{"files", "files_skipped", "pages", "chunks", "chunks_by_kind", "papers", "papers_by_venue",
    "sources"}`` for the whole index (all ingested origins)."""
    ensure_index(settings)
    per_source = load_source_stats(settings)
    bm = BM25Index.load(settings.bm25_dir)
    recs = load_catalog(settings.catalog_path)
    by_venue = Counter(r.venue for r in recs if r.venue)
    return {
        "files": sum(v["files"] for v in per_source.values()),
        "files_skipped": sum(v.get("files_skipped", 0) for v in per_source.values()),
        "pages": sum(v["pages"] for v in per_source.values()),
        "chunks": len(bm),
        "chunks_by_kind": dict(Counter(m.get("kind", "?") for m in bm.metadatas)),
        "papers": len(recs),
        "papers_by_venue": dict(sorted(by_venue.items(), key=lambda kv: (-kv[1], kv[0]))),
        "sources": per_source,
    }
