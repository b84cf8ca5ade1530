"""Re-ingest is O(change): a no-op touches no record, an edit re-indexes only the edited source's records,
a deleted note's records go through the record manager, the keyword index patched for a change equals
one rebuilt from the store, and an index whose records were grouped by origin is regrouped once."""

from __future__ import annotations

import json
from pathlib import Path

from papernotes.corpus.catalog import build_catalog, load_catalog
from papernotes.corpus.models import PaperEntry
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.index_update import group_of, rebuild_bm25
from papernotes.retrieval.indexing import ingest, load_entries, record_manager
from papernotes.retrieval.store import make_client, vector_store
from papernotes.retrieval.terms import lexical_terms

EDITED = "site/reading-notes/conference/toysys-2026/quokka.md"


def store_of(settings):
    from papernotes.retrieval.embeddings import make_embeddings

    return vector_store(settings, make_embeddings(settings), make_client(settings))


def groups_of_keys(settings, keys: list[str]) -> set[str]:
    got = store_of(settings).get(ids=keys, include=["metadatas"])
    return {group_of(m) for m in got["metadatas"]}


def test_noop_reingest_touches_no_record(indexed):
    settings, notes = indexed
    rm = record_manager(settings)
    before = rm.get_time()
    rep = ingest(settings, [str(notes)])
    assert (rep.added, rep.updated, rep.deleted) == (0, 0, 0) and rep.skipped == rep.chunks
    assert rm.list_keys(after=before) == []  # no timestamp refreshed: index() did not run over them


def group_named(settings, suffix: str) -> str:
    """The one record group (origin and source) whose source ends with ``suffix``."""
    state = json.loads((settings.data_dir / "source-state.json").read_text())["groups"]
    (group,) = [g for g in state if g.endswith(suffix)]
    return group


def test_edit_reindexes_only_the_edited_sources_records(indexed):
    settings, notes = indexed
    rm = record_manager(settings)
    keys_before = set(rm.list_keys())
    edited = group_named(settings, "quokka.md")
    edited_before = set(rm.list_keys(group_ids=[edited]))
    note = notes / EDITED
    note.write_text(note.read_text().replace("4.2K LoC of Rust", "4.2K LoC of Rust and 900 lines of Zig"))
    before = rm.get_time()
    rep = ingest(settings, [str(notes)])
    assert rep.added >= 1 and rep.deleted == rep.added
    assert rep.skipped == rep.chunks - rep.added  # the other sources' chunks were not hashed again
    touched = rm.list_keys(after=before)
    assert touched and groups_of_keys(settings, touched) == {edited}
    # every record of another source is the one written before
    assert set(rm.list_keys()) - set(rm.list_keys(group_ids=[edited])) == keys_before - edited_before


def test_patched_keyword_index_equals_a_rebuilt_one(indexed, tmp_path):
    settings, notes = indexed
    note = notes / EDITED
    note.write_text(note.read_text().replace("4.2K LoC of Rust", "4.2K LoC of Rust and 900 lines of Zig"))
    (notes / "dump.txt").unlink()
    rep = ingest(settings, [str(notes)])
    assert "bm25" in rep.stages
    patched = BM25Index.load(settings.bm25_dir)
    store = store_of(settings)
    assert set(patched.ids) == set(store.get(include=[])["ids"])
    again = settings.model_copy(update={"data_dir": tmp_path / "rebuilt"})
    again.bm25_dir.mkdir(parents=True)
    rebuild_bm25(again, store, "v")
    rebuilt = BM25Index.load(again.bm25_dir)
    for q in ["Zig lines of code", "paged attention", "storage systems venue", "Quokka"]:
        terms = lexical_terms(q)
        a = {patched.ids[p]: round(s, 4) for p, s in patched.search(terms, 20)}
        b = {rebuilt.ids[p]: round(s, 4) for p, s in rebuilt.search(terms, 20)}
        assert a == b and a, q


def test_catalog_after_changes_equals_one_merged_from_all_entries(indexed):
    """The catalog an ingest writes (only the parts whose entries changed merged again) is the one
    merged from every entry at once, after an edit that changes a paper's entry (its title), an edit of
    a listing, and a deleted note."""
    settings, notes = indexed
    assert load_catalog(settings.catalog_path)  # the first ingest's catalog
    note = notes / EDITED
    note.write_text(note.read_text().replace("# Quokka: Paged Attention", "# Quokka: Paged Attention, Revisited"))
    listing = notes / "site/paper-list/serving.md"
    listing.write_text(listing.read_text().replace("(ToySys 2026)", "(ToySys 2027)"))
    (notes / "pubs.txt").unlink()
    rep = ingest(settings, [str(notes)])
    assert "catalog" in rep.stages
    entries = [PaperEntry(**e) for es in load_entries(settings).values() for e in es]
    assert any("Revisited" in e.title for e in entries)
    want = [r.to_dict() for r in build_catalog(entries)]
    assert [r.to_dict() for r in load_catalog(settings.catalog_path)] == want
    assert rep.papers == len(want)


def test_deleted_note_leaves_through_the_record_manager(indexed):
    settings, notes = indexed
    rm = record_manager(settings)
    state = json.loads((settings.data_dir / "source-state.json").read_text())["groups"]
    gone = [g for g in state if g.split("\n")[1].startswith("notes/pubs.txt")]
    assert gone and rm.list_keys(group_ids=gone)
    (notes / "pubs.txt").unlink()
    rep = ingest(settings, [str(notes)])
    assert rep.deleted > 0 and rep.added == 0
    assert rm.list_keys(group_ids=gone) == []
    held = store_of(settings).get(include=["metadatas"])
    assert not any(str(m["source"]).startswith("notes/pubs.txt") for m in held["metadatas"])
    assert set(held["ids"]) == set(rm.list_keys())


def test_records_grouped_by_origin_are_regrouped_without_re_embedding(indexed):
    """An index whose records were grouped by origin (before per-source groups) is regrouped by the
    next ingest, with nothing embedded again; later edits then touch one source only."""
    settings, notes = indexed
    rm = record_manager(settings)
    keys = rm.list_keys()
    rm.update(keys, group_ids=[str(notes)] * len(keys))
    manifest = settings.data_dir / "index.json"
    data = json.loads(manifest.read_text())
    del data["record_groups"]
    manifest.write_text(json.dumps(data))
    rep = ingest(settings, [str(notes)])
    assert (rep.added, rep.deleted) == (0, 0)
    assert rm.list_keys(group_ids=[str(notes)]) == []
    assert groups_of_keys(settings, keys) == set(
        json.loads(Path(settings.data_dir / "source-state.json").read_text())["groups"]
    )
    note = notes / EDITED
    note.write_text(note.read_text() + "\nA sentence added at the end.\n")
    before = rm.get_time()
    rep = ingest(settings, [str(notes)])
    assert rep.added >= 1
    assert len(groups_of_keys(settings, rm.list_keys(after=before))) == 1


def test_a_front_matter_or_bibliography_edit_reaches_the_catalog(tmp_path, models_cache):
    """A re-ingest after an edit of a note's front matter only, or of the .bib entry its citation key
    names, gives the catalog the new venue (the page's analysis is keyed by both, not by its text alone)."""
    from conftest import make_settings, seed_models

    notes = tmp_path / "notes"
    notes.mkdir()
    note = notes / "orca.md"
    note.write_text("---\ntitle: Orca\ncitekey: yu2022orca\n---\n\nIteration-level scheduling for serving.\n")
    bib = notes / "refs.bib"
    bib.write_text(
        "@inproceedings{yu2022orca, title={Orca: A Distributed Serving System for Transformer-Based Generative"
        " Models}, author={Yu, Gyeong-In}, booktitle={OSDI}, year={2022}}\n"
    )
    settings = make_settings(tmp_path / "data")
    seed_models(models_cache, settings.data_dir)

    def venue() -> str | None:
        ingest(settings, [str(notes)])
        (record,) = load_catalog(settings.catalog_path)
        assert record.title.startswith("Orca: A Distributed Serving System")  # the entry's full title
        return record.venue

    assert venue() == "OSDI 2022"
    bib.write_text(bib.read_text().replace("{OSDI}", "{SOSP}").replace("year={2022}", "year={2023}"))
    assert venue() == "SOSP 2023"
    note.write_text(note.read_text().replace("citekey: yu2022orca", "citekey: yu2022orca\nvenue: NSDI 2024"))
    assert venue() == "NSDI 2024"  # the note's own front matter wins over the .bib


def test_a_folder_whose_every_note_was_deleted_is_emptied_and_the_others_still_ingested(tmp_path, models_cache):
    """``ingest A B`` after B's last note was deleted: A's edit is indexed, B's chunks and papers go (as a
    deleted note's do) with a warning naming B; an empty folder never indexed is still an error."""
    import pytest
    from conftest import make_settings, seed_models

    from papernotes.corpus.errors import BadSourceError

    a, b = tmp_path / "A", tmp_path / "B"
    a.mkdir()
    b.mkdir()
    (a / "a.md").write_text("# Alpha\n\nAlpha caches pages.\n")
    (b / "b.md").write_text("# [Beta: Zebra Scheduling](https://arxiv.org/abs/2401.00001)\n\nBeta schedules zebras.\n")
    settings = make_settings(tmp_path / "data")
    seed_models(models_cache, settings.data_dir)
    ingest(settings, [str(a), str(b)])
    (b / "b.md").unlink()
    (a / "a.md").write_text("# Alpha\n\nAlpha caches pages and evicts them.\n")
    rep = ingest(settings, [str(a), str(b)])
    assert any("holds no notes now" in w and str(b) in w for w in rep.warnings), rep.warnings
    texts = BM25Index.load(settings.bm25_dir).texts
    assert any("evicts" in t for t in texts) and not any("zebras" in t for t in texts)
    assert load_catalog(settings.catalog_path) == []
    (tmp_path / "C").mkdir()
    with pytest.raises(BadSourceError):
        ingest(settings, [str(a), str(tmp_path / "C")])


def test_new_catalog_code_merges_the_catalog_again_without_re_embedding(indexed, monkeypatch):
    """The same entries make another catalog when the code that merges them changed (a new release): a
    re-ingest by new code merges the catalog again though no note changed, and embeds nothing; the next
    re-ingest by that code is a no-op again."""
    import papernotes.retrieval.indexing as indexing

    settings, notes = indexed
    again = ingest(settings, [str(notes)])
    assert "catalog" not in again.stages and again.added == 0  # same code, same notes: nothing merged
    monkeypatch.setattr(indexing, "parser_version", lambda: "a-newer-release")
    rep = ingest(settings, [str(notes)])
    assert "catalog" in rep.stages and rep.added == 0
    assert "catalog" not in ingest(settings, [str(notes)]).stages
