"""The notes a long-running reader (the bot, the MCP server) holds: warmed up when opened
(``Notes.warm_up``, called by ``NotesIndex``) so the first question builds nothing, with no answer
changed; questions that arrive while the notes are reopened after an ingest get the previous notes at
once instead of queueing behind the reopening; and notes not yet reopened after an ingest never cite a
chunk it deleted."""

from __future__ import annotations

import asyncio
import os
import shutil
import threading

from conftest import make_settings

from papernotes.bot.notes_reload import NotesIndex
from papernotes.retrieval.service import Notes

QUESTIONS = [
    "How much higher throughput does Quokka reach by paging the KV cache?",
    "What block size does Quokka use?",
    "Which diffusion system reuses denoiser features across adjacent steps?",
    "quokka?",
    "What does the weather look like on Mars?",
]


def _answer(notes: Notes, q: str) -> tuple[str, bool, list[str | None]]:
    a = notes.ask(q, use_llm=False)
    return a.answer, a.refused, [c.id for c in a.citations]


def test_warming_up_changes_no_answer(fixture_index):
    cold = Notes(fixture_index)
    warm = Notes(fixture_index)
    warm.warm_up()
    assert [_answer(warm, q) for q in QUESTIONS] == [_answer(cold, q) for q in QUESTIONS]


def test_notes_opened_by_the_index_are_warmed_up(fixture_index):
    notes = asyncio.run(NotesIndex(fixture_index).load())
    bm25 = notes.retriever.bm25
    # built on first use otherwise: while the first person to ask waits
    assert {"vocabulary", "acronyms", "abbreviations"} <= set(vars(bm25))
    assert notes.retriever._record_terms is not None


def test_questions_during_a_reopening_get_the_previous_notes_at_once(fixture_index, tmp_path, monkeypatch):
    data = tmp_path / "data"
    shutil.copytree(fixture_index.data_dir, data)
    s = make_settings(data)
    index = NotesIndex(s)
    gate = threading.Event()
    real_open = index._open

    def slow_open(old=None):
        if old is not None:  # a reopening after an ingest, not the first load
            assert gate.wait(30)
        return real_open(old)

    monkeypatch.setattr(index, "_open", slow_open)

    async def main():
        old = await index.load()
        st = index.chunks_file.stat()
        os.utime(index.chunks_file, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # an ingest finished
        reopening = asyncio.ensure_future(index.get())  # the first caller reopens the notes
        while not index._lock.locked():
            await asyncio.sleep(0.01)
        meanwhile = await asyncio.wait_for(index.get(), 5)  # not held up by the reopening
        waiter = asyncio.ensure_future(index.get(wait=True))  # a refresh waits for the new notes
        await asyncio.sleep(0.2)
        waited = not waiter.done() and not reopening.done()
        gate.set()
        new = await asyncio.wait_for(reopening, 60)
        after = await asyncio.wait_for(waiter, 60)
        return old, meanwhile, waited, new, after

    old, meanwhile, waited, new, after = asyncio.run(main())
    assert meanwhile is old and waited
    assert new is not old and after is new and index.reloads == 1
    assert _answer(new, QUESTIONS[0]) == _answer(old, QUESTIONS[0])


def _indexed_copy(tmp_path, models_cache):
    """Settings of a fresh index of a copy of the fixture notes, and the copy's folder."""
    from conftest import FIXTURE_NOTES, seed_models

    from papernotes.retrieval.indexing import ingest

    notes_dir = tmp_path / "notes"
    shutil.copytree(FIXTURE_NOTES, notes_dir)
    data = tmp_path / "data"
    seed_models(models_cache, data)
    s = make_settings(data)
    ingest(s, [str(notes_dir)])
    return s, notes_dir


def test_notes_not_yet_reopened_after_an_ingest_cite_no_deleted_chunk(tmp_path, models_cache):
    """Between the end of an ingest (its write lock released) and the reopening of the notes, the
    notes' keyword index and vectors still hold the chunks the ingest deleted: an answer leaves them
    out instead of citing them."""
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.store import make_client

    s, notes_dir = _indexed_copy(tmp_path, models_cache)
    old = Notes(s)
    store = make_client(s).get_collection(s.collection)

    def cited(q: str) -> list[str]:
        return [c.id for c in old.ask(q, use_llm=False).citations if c.id]

    def deleted(ids: list[str]) -> set[str]:
        return set(ids) - set(store.get(ids=ids, include=[])["ids"]) if ids else set()

    question = "How much higher throughput does Quokka reach by paging the KV cache?"
    before = cited(question)
    note = next(notes_dir.rglob("quokka.md"))
    note.write_text(note.read_text(encoding="utf-8").replace("3.7x", "3.9x"), encoding="utf-8")
    ingest(s, [str(notes_dir)])  # finished: the lock is free, the old notes are not reopened
    assert deleted(before), "the edit deleted none of the chunks the answer cited"
    assert not deleted(cited(question))
    other = old.ask("Which diffusion system reuses denoiser features across adjacent steps?", use_llm=False)
    ids = [c.id for c in other.citations if c.id]
    assert ids and not deleted(ids)
    assert other.citations_checked  # found in the store after the answer was made, an ingest having run
    assert not Notes(s).ask(other.question, use_llm=False).citations_checked  # notes opened since: no need


def test_an_ingest_that_stopped_after_deleting_chunks_leaves_no_dangling_citation(tmp_path, models_cache, monkeypatch):
    """An ingest that dies after the store's deletes and before the keyword index is rewritten (a full
    disk, a kill) leaves the write lock free and ``chunks.json`` as it was: its in-progress marker
    still tells the notes that chunks may be gone."""
    import errno

    import pytest

    from papernotes.corpus.errors import PapernotesError
    from papernotes.retrieval import indexing
    from papernotes.retrieval.store import make_client

    s, notes_dir = _indexed_copy(tmp_path, models_cache)
    held_before = Notes(s)  # opened before the failed ingest
    question = "How much higher throughput does Quokka reach by paging the KV cache?"
    assert held_before.ask(question, use_llm=False).citations

    def full_disk(*a, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(indexing, "patch_bm25", full_disk)
    monkeypatch.setattr(indexing, "rebuild_bm25", full_disk)
    next(notes_dir.rglob("quokka.md")).unlink()
    with pytest.raises(PapernotesError):
        indexing.ingest(s, [str(notes_dir)])
    store = make_client(s).get_collection(s.collection)
    for notes in (held_before, Notes(s)):  # and notes opened after it
        assert notes.retriever.index_changed()
        a = notes.ask(question, use_llm=False)
        ids = [c.id for c in a.citations if c.id]
        assert set(ids) <= set(store.get(ids=ids, include=[])["ids"] if ids else [])


def test_a_paper_whose_notes_an_ingest_deleted_is_not_answered_from_other_notes(tmp_path, models_cache):
    """Notes not yet reopened after an ingest still list the papers it deleted; a question about one
    is refused, not answered from whatever chunk is left."""
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.prompts import REFUSAL
    from papernotes.retrieval.service import DELETED_NOTE

    s, notes_dir = _indexed_copy(tmp_path, models_cache)
    old = Notes(s)
    questions = ["What is Bilby about?", "Who wrote Cassowary?", "bilby?"]
    assert not any(old.ask(q, use_llm=False).refused for q in questions)
    (notes_dir / "pubs.txt").unlink()  # the page that lists them
    ingest(s, [str(notes_dir)])
    for q in questions:
        a = old.ask(q, use_llm=False)
        assert a.refused and a.answer == REFUSAL and not a.citations, q
        assert a.note and DELETED_NOTE in a.note  # why, and that asking again will do
    kept = old.ask("What block size does Quokka use?", use_llm=False)  # a paper still in the notes
    assert not kept.refused and kept.citations


def test_notes_opened_before_a_rebuild_answer_through_it(tmp_path, models_cache):
    """``ingest --rebuild`` drops the store's collection and makes a new one: notes opened before look
    it up again by name (no raw store error); while there is none (a rebuild stopped after dropping
    it, its marker left), they hold nothing and refuse."""
    from papernotes.retrieval.index_health import start_marker
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.store import drop_collection

    s, notes_dir = _indexed_copy(tmp_path, models_cache)
    old = Notes(s)
    question = "How much higher throughput does Quokka reach by paging the KV cache?"
    before = old.ask(question, use_llm=False)
    ingest(s, [str(notes_dir)], rebuild=True)
    after = old.ask(question, use_llm=False)  # the same chunks (same ids) in the new collection
    assert not after.refused and [c.id for c in after.citations] == [c.id for c in before.citations]
    start_marker(s, [str(notes_dir)], rebuild=True)  # a rebuild that stopped after dropping it
    drop_collection(s)
    stopped = old.ask(question, use_llm=False)
    assert stopped.refused and not stopped.citations
