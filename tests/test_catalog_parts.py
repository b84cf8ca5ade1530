"""Tests for retrieval.catalog_parts: the catalog merged part by part, re-merging only the parts whose
entries changed, equals the catalog merged from all entries at once, through an edit, a rename, a
deletion, and entries joining and leaving a merged record."""

from __future__ import annotations

from dataclasses import replace

from papernotes.corpus.catalog import build_catalog
from papernotes.corpus.models import PaperEntry
from papernotes.corpus.venues import split_venue
from papernotes.retrieval.catalog_parts import PartCache, catalog_parts, merge_catalog

DOI = "https://dl.acm.org/doi/10.1145/1234567.7654321"


def entry(title: str, source: str, venue: str | None = None, kind: str = "paper_entry", **extra) -> PaperEntry:
    links = extra.pop("links", {})
    return PaperEntry(
        title=title,
        kind=kind,
        source=source,
        page_title=source,
        venue=venue,
        year=split_venue(venue)[1] if venue else None,
        links=links,
        **extra,
    )


def notes() -> dict[str, list[PaperEntry]]:
    """Entries per source: listings, conference pages and deep notes whose entries join across sources
    (by title, notes link, system name at a venue, a notes link naming a note's file, a shared DOI), a
    git source's commit times, unknown venue spellings, a bold label shared by two papers, and papers
    that stand alone."""
    return {
        "topics.md": [
            entry(
                "FlexGen: High-Throughput Generative Inference of LLMs with a Single GPU",
                "topics.md",
                "ICML 2023",
                links={"personal notes": "/reading-notes/misc/2023/flexgen"},
            ),
            entry("EVStore: Storage and Caching Capabilities for Embedding Tables Systems", "topics.md", "ASPLOS 2023"),
            entry("OldName: Serving Many Adapters Cheaply", "topics.md", "arXiv 2024", links={"paper": DOI}),
            entry("Some Study", "topics.md", "HotOS 2023"),
            entry("Orca: A Distributed Serving System", "topics.md", links={"notes": "orca.md"}),
            entry("Lone Paper One", "topics.md", "toysys 2026", system="Operational Systems"),
            entry("Lone Paper Two", "topics.md", "ToySys 2026", system="Operational Systems"),
        ],
        "conf.md": [
            entry("NewName: Serving Many Adapters Cheaply", "conf.md", "OSDI 2025", links={"paper": DOI}),
            entry("Some Study", "conf.md", "OSDI 2024", committed=200),
            entry("Unrelated Work on Storage", "conf.md", "FAST 2024", committed=100),
        ],
        "flexgen.md": [
            entry(
                "High-throughput generative inference of large language models with a single GPU",
                "flexgen.md",
                "ICML 2023",
                kind="deep_note",
                site_path="reading-notes/misc/2023/flexgen",
            )
        ],
        "evstore.md": [
            entry(
                "EVStore: Storage and caching capabilities for embedding tables system",
                "evstore.md",
                "ASPLOS 2023",
                kind="deep_note",
            )
        ],
        "orca.md": [entry("Orca", "orca.md", "OSDI 2022", kind="deep_note")],
        "later.md": [
            entry("Some Study", "later.md", "arXiv 2025", committed=50),
            entry("A GAN Training Framework", "later.md", links={"paper": "https://arxiv.org/abs/2401.00001"}),
        ],
        "misc.md": [
            entry("Checkpointing GPU Programs Quickly", "misc.md", links={"arxiv": "https://arxiv.org/abs/2401.00001"})
        ],
    }


def listed(sources: dict[str, list[PaperEntry]], versions: dict[str, int]) -> list[tuple[str, PaperEntry]]:
    """``(entry id, entry)`` in ingest order: an id names the source, its version and the place."""
    return [(f"{s}@{versions.get(s, 0)}:{i}", e) for s, es in sources.items() for i, e in enumerate(es)]


def assert_same_as_full(entries, cache) -> int:
    warnings: list[str] = []
    got, merged = merge_catalog(entries, cache, warnings)
    want_warnings: list[str] = []
    want = build_catalog([e for _, e in entries], want_warnings)
    assert [r.to_dict() for r in got] == [r.to_dict() for r in want]
    assert sorted(warnings) == sorted(want_warnings)
    return merged


def test_parts_are_closed_under_shared_keys():
    entries = listed(notes(), {})
    parts = catalog_parts(entries)
    assert sorted(i for p in parts for i in p) == list(range(len(entries)))
    part_of = {i: n for n, p in enumerate(parts) for i in p}
    by_title = {e.title: i for i, (_, e) in enumerate(entries)}
    # joined by a notes link, a system name at a venue, a note's file name, a DOI, the title
    for a, b in [
        ("FlexGen: High-Throughput Generative Inference of LLMs with a Single GPU", "High-throughput generative"),
        ("EVStore: Storage and Caching Capabilities for Embedding Tables Systems", "EVStore: Storage and caching"),
        ("Orca: A Distributed Serving System", "Orca"),
        ("OldName: Serving Many Adapters Cheaply", "NewName: Serving Many Adapters Cheaply"),
    ]:
        j = next(i for t, i in by_title.items() if t.startswith(b))
        assert part_of[by_title[a]] == part_of[j]
    assert part_of[by_title["Lone Paper One"]] != part_of[by_title["Lone Paper Two"]]
    assert len(parts) < len(entries)
    warnings: list[str] = []
    merge_catalog(entries, None, warnings)
    assert len(warnings) == 1 and "A GAN Training Framework" in warnings[0]  # two titles, one link


def test_part_wise_merge_equals_the_full_merge_through_changes(tmp_path):
    cache = PartCache(tmp_path / "catalog-parts.json", "v1")
    sources, versions = notes(), dict[str, int]()
    first = listed(sources, versions)
    assert assert_same_as_full(first, cache) == len(catalog_parts(first))
    assert assert_same_as_full(first, cache) == 0  # nothing changed: every part read back

    # an edit: one entry's venue changes, so another place's venue wins for that paper
    sources["conf.md"][1] = replace(sources["conf.md"][1], venue="SOSP 2024", year=2024)
    versions["conf.md"] = 1
    merged = assert_same_as_full(listed(sources, versions), cache)
    assert 0 < merged < len(catalog_parts(listed(sources, versions)))

    # a rename: the deep note's file moves (its name no longer matches the listing's notes link)
    sources["orca-notes.md"] = [replace(e, source="orca-notes.md") for e in sources.pop("orca.md")]
    assert assert_same_as_full(listed(sources, versions), cache) > 0

    # a deletion: the conference page goes, and NewName leaves the record it had joined
    del sources["conf.md"]
    entries = listed(sources, versions)
    assert assert_same_as_full(entries, cache) > 0
    assert any(r.title.startswith("OldName") for r in build_catalog([e for _, e in entries]))

    # an entry joins a merged record by its DOI (a new source), and the git source's commit moves
    sources["new.md"] = [entry("NewerName: Serving Many Adapters Cheaply", "new.md", "NSDI 2026", links={"doi": DOI})]
    sources["later.md"] = [replace(sources["later.md"][0], committed=500), *sources["later.md"][1:]]
    versions["later.md"] = 1
    assert assert_same_as_full(listed(sources, versions), cache) > 0
    # and a source moves to the front of the ingest order: only places change
    reordered = {"new.md": sources.pop("new.md"), **sources}
    assert assert_same_as_full(listed(reordered, versions), cache) >= 0


def test_a_cache_of_another_version_or_unreadable_is_merged_again(tmp_path):
    entries = listed(notes(), {})
    path = tmp_path / "catalog-parts.json"
    assert_same_as_full(entries, PartCache(path, "v1"))
    assert assert_same_as_full(entries, PartCache(path, "v2")) == len(catalog_parts(entries))
    path.write_text("{not json")
    assert assert_same_as_full(entries, PartCache(path, "v2")) == len(catalog_parts(entries))
    assert assert_same_as_full(entries, None) == len(catalog_parts(entries))
