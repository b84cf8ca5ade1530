"""An origin whose files did not change since the last ingest is not read again: the ingest reuses what
the last one made of it, and ends with the same index, catalog and report as one that read everything;
an edited, renamed or deleted note is seen at once (its origin is read), and a file modified within the
timestamp granularity is never trusted by its stat."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, make_settings, seed_models

from papernotes.corpus.catalog import load_catalog
from papernotes.retrieval import indexing
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.indexing import ingest
from papernotes.retrieval.origin_state import fingerprint
from papernotes.retrieval.search import HybridRetriever

EDITED = "site/reading-notes/conference/toysys-2026/quokka.md"
HOUR = 3600


def backdate(root: Path, seconds: float = HOUR) -> None:
    """Set every file's modification time ``seconds`` into the past (older than the racy window)."""
    t = time.time() - seconds
    for f in [root, *root.rglob("*")] if root.is_dir() else [root]:
        if f.is_file():
            os.utime(f, (t, t))


@pytest.fixture()
def two_origins(tmp_path, models_cache, monkeypatch):
    """Settings of a data dir indexing two origins (a copy of the fixture notes, and a folder of one
    note of another paper), both backdated; the two folders; and the list of sources each ingest reads."""
    a = tmp_path / "a" / "notes"
    shutil.copytree(FIXTURE_NOTES, a)
    b = tmp_path / "b" / "more"
    b.mkdir(parents=True)
    (b / "wombat.md").write_text(
        "# Okapi: Burrowing Indexes for Log Stores\n\n## Summary\n\n"
        "Okapi keeps a burrow of sorted runs per log segment and answers range scans from them.\n"
    )
    backdate(a)
    backdate(b)
    data = tmp_path / "data"
    seed_models(models_cache, data)
    read: list[str] = []
    real = indexing.read_source

    def counting(source, *args, **kw):
        read.append(str(source))
        return real(source, *args, **kw)

    monkeypatch.setattr(indexing, "read_source", counting)
    settings = make_settings(data)
    ingest(settings, [str(a), str(b)])
    read.clear()
    return settings, a, b, read


def fresh_report(tmp_path, models_cache, sources):
    """An ingest of ``sources`` into a new data dir (everything read), with its settings."""
    data = tmp_path / f"fresh{len(list(tmp_path.glob('fresh*')))}"
    seed_models(models_cache, data)
    s = make_settings(data)
    return ingest(s, sources), s


def same_outcome(rep, settings, want, want_settings):
    assert (rep.chunks, rep.pages, rep.files, rep.papers) == (want.chunks, want.pages, want.files, want.papers)
    assert sorted(rep.warnings) == sorted(want.warnings)
    got = [r.to_dict() for r in load_catalog(settings.catalog_path)]
    assert got == [r.to_dict() for r in load_catalog(want_settings.catalog_path)]
    assert sorted(BM25Index.load(settings.bm25_dir).texts) == sorted(BM25Index.load(want_settings.bm25_dir).texts)


def test_unchanged_origins_are_not_read_again(two_origins, tmp_path, models_cache):
    settings, a, b, read = two_origins
    rep = ingest(settings, [str(a), str(b)])
    assert read == [] and (rep.added, rep.deleted) == (0, 0)
    want, want_settings = fresh_report(tmp_path, models_cache, [str(a), str(b)])
    same_outcome(rep, settings, want, want_settings)


def test_an_edit_reads_only_its_origin_and_is_searchable(two_origins, tmp_path, models_cache):
    settings, a, b, read = two_origins
    note = b / "wombat.md"
    note.write_text(note.read_text() + "\nOkapi compacts burrows with a quillback merge policy.\n")
    rep = ingest(settings, [str(a), str(b)])
    assert read == [str(b)] and rep.added >= 1
    want, want_settings = fresh_report(tmp_path, models_cache, [str(a), str(b)])
    same_outcome(rep, settings, want, want_settings)
    hits = HybridRetriever.from_settings(settings).search("quillback merge policy").hits
    assert any("quillback" in h.text for h in hits)


def test_renamed_and_deleted_notes_leave_catalog_and_search(two_origins, tmp_path, models_cache):
    settings, a, b, read = two_origins
    before = {s for r in load_catalog(settings.catalog_path) for s in r.sources}
    assert any(s.endswith("pubs.txt") for s in before)
    (b / "wombat.md").rename(b / "wombat-renamed.md")  # same content and stat, new name
    (a / "pubs.txt").unlink()
    rep = ingest(settings, [str(a), str(b)])
    assert sorted(read) == sorted([str(a), str(b)])
    want, want_settings = fresh_report(tmp_path, models_cache, [str(a), str(b)])
    same_outcome(rep, settings, want, want_settings)
    sources = {s for r in load_catalog(settings.catalog_path) for s in r.sources}
    assert not any(s.endswith("pubs.txt") for s in sources)
    hits = HybridRetriever.from_settings(settings).search("Okapi burrowing indexes for log stores").hits
    found = {str(h.get("source")) for h in hits}
    assert any(s.endswith("wombat-renamed.md") for s in found)
    assert not any(s.endswith(("wombat.md", "pubs.txt")) for s in found)


def test_an_origin_left_out_is_kept_and_reused_when_given_again(two_origins):
    settings, a, b, read = two_origins
    both = ingest(settings, [str(a), str(b)])
    only_a = ingest(settings, [str(a)])  # an origin not given keeps its chunks (as before)
    again = ingest(settings, [str(a), str(b)])
    assert read == [] and only_a.deleted == 0 and (again.added, again.deleted) == (0, 0)
    assert (again.chunks, again.papers, sorted(again.warnings)) == (both.chunks, both.papers, sorted(both.warnings))


def test_fingerprint_follows_the_files_and_distrusts_recent_ones(tmp_path):
    root = tmp_path / "notes"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "n.md").write_text("# N\n\ntext\n")
    (root / ".obsidian").mkdir()
    assert fingerprint(str(root), "v") is None  # just written: within the racy window
    backdate(root)
    first = fingerprint(str(root), "v")
    assert first is not None and first == fingerprint(str(root), "v")
    assert fingerprint(str(root), "other settings") != first
    (root / ".obsidian" / "workspace.json").write_text("{}")  # hidden: not read, not fingerprinted
    assert fingerprint(str(root), "v") == first
    (root / "sub" / "n.md").write_text("# N\n\ntext, longer\n")
    backdate(root)
    assert fingerprint(str(root), "v") not in (None, first)
    (root / "link.md").symlink_to(root / "sub" / "n.md")
    assert fingerprint(str(root), "v") is None  # a link's stat does not follow its target
    assert fingerprint("https://example.org/notes.git", "v") is None
    assert fingerprint(str(tmp_path / "missing"), "v") is None
