"""`papernotes stats --json` on the fixture index, checked against counts derived here from the fixture
files with plain regexes (not from the parser, and not copied from the command's output)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES
from typer.testing import CliRunner

from papernotes.corpus.venues import normalize_venue

FENCE_RE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.S | re.M)
LINK_LABEL_RE = re.compile(r"\\\[\[(?:Paper|Code|arXiv|Personal Notes)\]\(")
BULLET_TITLE_RE = re.compile(r"^\s*[*-]\s+(.+?)\s*(?:\((?:\[)?([A-Za-z]+ \d{4})(?:\]\([^)]*\))?\))?\s*\\\[\[", re.M)


def note_files() -> list[Path]:
    """Every Markdown/text note; a GitBook's SUMMARY.md is its table of contents, not a note."""
    return sorted(p for p in FIXTURE_NOTES.rglob("*") if p.suffix in (".md", ".txt") and p.name != "SUMMARY.md")


def level1_headings(text: str) -> list[str]:
    return re.findall(r"^# (.+)$", FENCE_RE.sub("", text), re.M)


def key(title: str) -> str:
    return re.sub(r"[^a-z0-9]", "", title.lower())


def expected_papers() -> dict[str, str | None]:
    """Normalized paper title → its venue, from paper bullets (a title followed by link labels), deep
    notes (a page with a 'Presented in' line) and publication records (a '•' bullet followed by an
    indented author line)."""
    papers: dict[str, str | None] = {}
    for f in note_files():
        text = f.read_text(encoding="utf-8")
        # a conference page lends its venue to the bullets on it: its own title is "Series YYYY"
        heads = level1_headings(text)
        page_venue = heads[0] if heads and re.fullmatch(r"[A-Za-z]+ \d{4}", heads[0]) else None
        for line in text.splitlines():
            if not LINK_LABEL_RE.search(line):
                continue
            m = BULLET_TITLE_RE.match(line)
            if m:
                papers.setdefault(key(m.group(1)), None)
                papers[key(m.group(1))] = papers[key(m.group(1))] or m.group(2) or page_venue
        if presented := re.search(r"^Presented in \[([A-Za-z]+ \d{4})\]", text, re.M):
            papers[key(heads[0])] = papers.get(key(heads[0])) or presented.group(1)
        for m in re.finditer(r"^• (.+)\n((?:  .+\n)+)", text, re.M):
            v = re.search(r"\(([A-Za-z]+ \d{4})\)", m.group(2))
            # the venue in the catalog's spelling ("ATC 2024" is "USENIX ATC 2024")
            papers.setdefault(key(m.group(1)), normalize_venue(v.group(1)) if v else None)
    return papers


@pytest.fixture
def stats(fixture_index, monkeypatch) -> dict:
    """The parsed output of `papernotes stats --json` (the real command, run in-process)."""
    from papernotes.bot.cli import app

    monkeypatch.setenv("PAPERNOTES_DATA_DIR", str(fixture_index.data_dir))
    res = CliRunner().invoke(app, ["stats", "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_files_and_pages(stats):
    files = note_files()
    extra_pages = 0
    for f in files:
        heads = level1_headings(f.read_text(encoding="utf-8"))
        if len(heads) >= 2:  # a one-file dump: one page per level-1 heading outside fences
            extra_pages += len(heads) - 1
    assert extra_pages == 2  # the fixture dump: three pages, one title repeated, one fenced "#" line
    assert stats["files"] == len(files)
    assert stats["files_skipped"] == 0
    assert stats["pages"] == len(files) + extra_pages
    (per_origin,) = stats["sources"].values()
    assert per_origin == {"files": len(files), "files_skipped": 0, "pages": len(files) + extra_pages, "warnings": []}


def test_papers_and_venues(stats):
    papers = expected_papers()
    assert len(papers) == 8
    assert stats["papers"] == len(papers)
    by_venue = Counter(v for v in papers.values() if v)
    assert stats["papers_by_venue"] == dict(by_venue)


def test_chunks_by_kind(stats):
    kinds = stats["chunks_by_kind"]
    assert sum(kinds.values()) == stats["chunks"]
    bullets = 0
    for f in note_files():
        bullets += sum(
            1
            for ln in f.read_text(encoding="utf-8").splitlines()
            if LINK_LABEL_RE.search(ln) and BULLET_TITLE_RE.match(ln)
        )
    assert kinds["paper_entry"] == bullets  # every paper bullet is exactly one chunk (all are short)
    pubs = sum(len(re.findall(r"^• .+\n  ", f.read_text(encoding="utf-8"), re.M)) for f in note_files())
    assert kinds["publication"] == pubs
    tables = sum(len(re.findall(r"^\|.*\|\n\|[ :|-]+\|$", f.read_text(encoding="utf-8"), re.M)) for f in note_files())
    assert kinds["table"] == tables  # each fixture table is small: one chunk
    # deep-note chunks: one per non-empty section of the deep note (each is short)
    deep = (FIXTURE_NOTES / "site" / "reading-notes" / "conference" / "toysys-2026" / "quokka.md").read_text()
    sections = [s for s in re.split(r"^#{2,} .+$", FENCE_RE.sub("```", deep), flags=re.M)[1:] if s.strip()]
    assert kinds["deep_note"] == len(sections)
    assert set(kinds) == {"paper_entry", "publication", "table", "deep_note", "page_section"}


def test_stats_reports_each_sources_last_ingest_warnings_not_a_running_total(tmp_path, models_cache):
    """Warnings and skipped files of an ingest are those of the source's last ingest: a clean
    re-ingest clears them; another source keeps its own."""
    from conftest import make_settings, seed_models

    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.stats import index_stats

    data = tmp_path / "data"
    seed_models(models_cache, data)
    settings = make_settings(data)
    a, b = tmp_path / "a", tmp_path / "b"
    for root, word in ((a, "wombat"), (b, "capybara")):
        root.mkdir()
        (root / "good.md").write_text(f"# Good {word}\n\nThe {word} scheduler keeps every burrow busy.\n")
    (a / "binary.md").write_bytes(b"\x00\x01\x02 not text")
    (a / "empty.md").write_text("")
    (b / "heading.md").write_text("# Only A Heading\n")
    ingest(settings, [str(a), str(b)])
    st = index_stats(settings)
    src_a, src_b = st["sources"][str(a.resolve())], st["sources"][str(b.resolve())]
    assert sorted(w.split(":")[0] for w in src_a["warnings"]) == ["a/binary.md", "a/empty.md"]
    assert [w.split(":")[0] for w in src_b["warnings"]] == ["b/heading.md"]
    # a page with only a heading is counted apart, as the ingest's summary line counts it
    assert st["warnings"] == 2 and st["pages_heading_only"] == 1 and st["files_skipped"] == 2

    (a / "binary.md").unlink()
    (a / "empty.md").unlink()
    for _ in range(2):  # the same clean ingest twice: nothing accumulates
        ingest(settings, [str(a)])
        st = index_stats(settings)
        assert st["sources"][str(a.resolve())]["warnings"] == []
        assert st["sources"][str(a.resolve())]["files_skipped"] == 0
        assert st["sources"][str(b.resolve())]["warnings"] == src_b["warnings"]  # not ingested: as it was
        assert st["warnings"] == 0 and st["pages_heading_only"] == 1 and st["files_skipped"] == 0


def test_stats_counts_the_warnings_the_last_ingest_printed_catalog_ones_included(tmp_path, models_cache):
    """Two notes giving different papers one link: the catalog warns at the merge, and ``stats`` counts
    and lists that warning as the ingest reported it (it had shown only the per-source ones)."""
    from conftest import make_settings, seed_models

    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.ingest_warnings import split_warnings
    from papernotes.retrieval.stats import index_stats

    data = tmp_path / "data"
    seed_models(models_cache, data)
    settings = make_settings(data)
    notes = tmp_path / "notes"
    notes.mkdir()
    link = "https://arxiv.org/abs/2401.00001"
    (notes / "a.md").write_text(
        f"# Wombat: Burrow-Aware Scheduling for Clusters\n\n[Paper]({link})\n\nWombat schedules burrows.\n"
    )
    (notes / "b.md").write_text(
        f"# Capybara: Lazy Replication of Ponds\n\n[Paper]({link})\n\nCapybara replicates ponds.\n"
    )
    (notes / "c.md").write_text("# Only A Heading\n")
    report = ingest(settings, [str(notes)])
    st = index_stats(settings)
    assert [w for w in report.warnings if w.startswith("catalog: ")] == [
        f"catalog: {w}" for w in st["catalog_warnings"]
    ]
    assert len(st["catalog_warnings"]) == 1 and link in st["catalog_warnings"][0]
    # the figures the ingest printed: "1 warning (1 page with only a heading)"
    warned, empty = split_warnings(report.warnings)
    assert st["warnings"] == len(warned) == 1 and st["pages_heading_only"] == len(empty) == 1


def test_stats_text_separates_pages_with_only_a_heading():
    """The text report gives a source's warnings and its heading-only pages apart, as the ingest does."""
    from rich.console import Console

    from papernotes.bot.render import render_stats

    con = Console(record=True, width=200)
    st = {
        "files": 3,
        "files_skipped": 1,
        "pages": 2,
        "chunks": 4,
        "papers": 1,
        "chunks_by_kind": {"paper_entry": 4},
        "papers_by_venue": {},
        "sources": {
            "/notes": {
                "warnings": ["a/binary.md: not UTF-8 text, skipped", "b/heading.md: page 'Only' has no text to index"]
            }
        },
    }
    render_stats(con, st)
    text = con.export_text()
    assert "/notes: 1 warning (1 page with only a heading) at its last ingest" in text, text
    assert "    b/heading.md" in text and "has no text to index" not in text, text
