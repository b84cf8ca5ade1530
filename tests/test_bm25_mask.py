"""The keyword index's filter mask (per-field value codes built once per index) selects exactly the
chunks :func:`~papernotes.retrieval.filters.matches_where` accepts, for every operator ingest and search
emit, on the fixture notes' index."""

from __future__ import annotations

import pytest

from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.filters import Filters, build_where, matches_where


@pytest.fixture(scope="module")
def bm25(fixture_index) -> BM25Index:
    return BM25Index.load(fixture_index.bm25_dir)


def wheres(idx: BM25Index) -> list[dict]:
    venues = sorted({m.get("venue", "") for m in idx.metadatas} - {""})
    topics = sorted({m.get("topic", "") for m in idx.metadatas} - {""})
    sources = sorted({m.get("source", "") for m in idx.metadatas} - {""})
    years = sorted({m["year"] for m in idx.metadatas if isinstance(m.get("year"), int)})
    assert venues and sources
    out = [
        {"venue": {"$eq": venues[0]}},
        {"venue": venues[-1]},
        {"venue": {"$ne": venues[0]}},
        {"venue": {"$in": venues[:2] + ["no such venue"]}},
        {"source": {"$nin": sources[:3]}},
        {"venue": {"$in": ["\u2205"]}},
        {"$or": [{"venue": {"$eq": venues[0]}}, {"source": {"$eq": sources[-1]}}]},
        {"$and": [{"venue": {"$in": venues}}, {"source": {"$ne": sources[0]}}]},
        {"kind": {"$eq": "no such kind"}},
    ]
    out += [w for w in [build_where(Filters(topic=t[:4])) for t in topics[:2]] if w]
    out += [{"year": {"$eq": y}} for y in years[:2]]
    out += [w for w in [build_where(Filters(venue=venues[0], year=years[0] if years else None))] if w]
    return out


def test_mask_selects_what_matches_where_selects(bm25):
    for where in wheres(bm25):
        mask = bm25.mask(where)
        assert mask is not None
        expected = [matches_where(m, where) for m in bm25.metadatas]
        assert [bool(x) for x in mask] == expected, where
    assert bm25.mask(None) is None


def test_filtered_search_returns_only_matching_chunks(bm25):
    venue = next(m["venue"] for m in bm25.metadatas if m.get("venue"))
    where = {"venue": {"$eq": venue}}
    hits = bm25.search(["system", "memori", "throughput"], 10, where)
    assert all(bm25.metadatas[p].get("venue") == venue for p, _ in hits)
