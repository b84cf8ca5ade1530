"""The chunks' vectors beside the keyword index: exact nearest neighbours (with and without a filter
mask), a file that is refused for other ids, the copy an ingest writes and patches equal to the store's
vectors, and the retriever's in-memory dense ranking equal to the store's own on the same chunks."""

from __future__ import annotations

import numpy as np
import pytest

from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.chunk_vectors import (
    DIGEST_FILE,
    VECTORS_FILE,
    load_vectors,
    nearest,
    patch_vectors,
    save_vectors,
)
from papernotes.retrieval.embeddings import make_embeddings
from papernotes.retrieval.index_update import rebuild_bm25
from papernotes.retrieval.indexing import ingest
from papernotes.retrieval.search import HybridRetriever
from papernotes.retrieval.store import make_client, vector_store

EDITED = "site/reading-notes/conference/toysys-2026/quokka.md"


def unit_rows(n: int, dim: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nearest_is_the_exact_cosine_ranking(seed):
    vecs = unit_rows(300, 16, seed)
    q = unit_rows(1, 16, seed + 10)[0]
    sims = vecs @ q
    want = sorted(range(300), key=lambda r: (-sims[r], r))
    got = nearest(vecs, q, 25)
    assert [r for r, _ in got] == want[:25]
    assert np.allclose([s for _, s in got], sims[want[:25]])
    mask = np.arange(300) % 3 == 0
    masked = nearest(vecs, q, 25, mask)
    assert [r for r, _ in masked] == [r for r in want if mask[r]][:25]
    assert nearest(vecs, q, 500, mask) == nearest(vecs, q, 100, mask)  # fewer candidates than n: all of them
    assert nearest(vecs, q, 0) == [] and nearest(vecs[:0], q, 5) == []


def test_vectors_file_is_refused_for_other_ids(tmp_path):
    ids = [f"c{i}" for i in range(5)]
    vecs = unit_rows(5, 8, 3)
    save_vectors(tmp_path, ids, vecs)
    back = load_vectors(tmp_path, ids)
    assert back is not None and np.array_equal(back, vecs)
    assert load_vectors(tmp_path, ids[::-1]) is None  # same ids, another order
    assert load_vectors(tmp_path, ids[:4] + ["other"]) is None
    assert load_vectors(tmp_path / "absent", ids) is None
    (tmp_path / VECTORS_FILE).write_bytes(b"not a file of vectors")
    assert load_vectors(tmp_path, ids) is None
    with pytest.raises(ValueError):
        save_vectors(tmp_path, ids, vecs[:4])


@pytest.mark.parametrize(
    "keep",
    [[1, 1, 1, 1, 1, 1], [0, 1, 1, 0, 1, 0], [1, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0], [0, 1, 0, 1, 0, 1]],
)
@pytest.mark.parametrize("n_added", [0, 1, 3])
def test_patched_vectors_equal_the_kept_rows_then_the_added(tmp_path, keep, n_added):
    ids = [f"c{i}" for i in range(6)]
    old = unit_rows(6, 8, 4)
    save_vectors(tmp_path, ids, old)
    mapped = load_vectors(tmp_path, ids, mmap=True)
    assert mapped is not None
    mask = np.array(keep, dtype=bool)
    added = unit_rows(n_added, 8, 5)
    new_ids = [i for i, k in zip(ids, mask, strict=True) if k] + [f"new{j}" for j in range(n_added)]
    patch_vectors(tmp_path, mapped, mask, added, new_ids)
    got = load_vectors(tmp_path, new_ids)
    assert got is not None and np.array_equal(got, np.concatenate([old[mask], added]))
    assert load_vectors(tmp_path, ids) is None or new_ids == ids


def test_vectors_without_their_digest_are_not_used(tmp_path):
    """The digest is written before the vectors: vectors whose digest file is missing or names other ids
    (an ingest stopped between the two files) are never paired with an index."""
    ids = [f"c{i}" for i in range(4)]
    save_vectors(tmp_path, ids, unit_rows(4, 8, 6))
    (tmp_path / DIGEST_FILE).unlink()
    assert load_vectors(tmp_path, ids) is None
    save_vectors(tmp_path, ids, unit_rows(4, 8, 6))
    (tmp_path / DIGEST_FILE).write_text("0" * 40)
    assert load_vectors(tmp_path, ids) is None


def store_vectors(settings, ids: list[str]) -> np.ndarray:
    store = vector_store(settings, make_embeddings(settings), make_client(settings))
    got = store.get(ids=ids, include=["embeddings"])
    row = dict(zip(got["ids"], got["embeddings"], strict=True))
    return np.asarray([row[cid] for cid in ids], dtype=np.float32)


def test_ingest_keeps_the_stores_vectors_in_the_keyword_index_order(indexed, tmp_path):
    settings, notes = indexed
    index = BM25Index.load(settings.bm25_dir)
    first = load_vectors(settings.bm25_dir, index.ids)
    assert first is not None and np.allclose(first, store_vectors(settings, index.ids))
    # an edit and a deletion patch the file (the changed sources' rows only) ...
    note = notes / EDITED
    note.write_text(note.read_text().replace("4.2K LoC of Rust", "4.2K LoC of Rust and 900 lines of Zig"))
    (notes / "dump.txt").unlink()
    rep = ingest(settings, [str(notes)])
    assert rep.added >= 1 and rep.deleted >= 1
    patched = BM25Index.load(settings.bm25_dir)
    vecs = load_vectors(settings.bm25_dir, patched.ids)
    assert vecs is not None and np.allclose(vecs, store_vectors(settings, patched.ids))
    # ... to what a rebuild from the store writes
    again = settings.model_copy(update={"data_dir": tmp_path / "rebuilt"})
    rebuild_bm25(again, vector_store(settings, make_embeddings(settings), make_client(settings)), "v")
    rebuilt = BM25Index.load(again.bm25_dir)
    row = {cid: i for i, cid in enumerate(rebuilt.ids)}
    assert set(row) == set(patched.ids)
    other = load_vectors(again.bm25_dir, rebuilt.ids)
    assert other is not None and np.array_equal(other[[row[cid] for cid in patched.ids]], vecs)


def test_an_index_without_the_file_gets_it_from_a_noop_ingest(indexed):
    settings, notes = indexed
    (settings.bm25_dir / VECTORS_FILE).unlink()
    r = HybridRetriever.from_settings(settings)
    assert r.vectors is None and r.search("paged attention").hits  # the store answers the dense side
    ingest(settings, [str(notes)])
    assert HybridRetriever.from_settings(settings).vectors is not None


@pytest.mark.parametrize(
    "question", ["paged attention for KV caches", "which storage papers at ToySys 2026", "Quokka's Rust code"]
)
def test_in_memory_dense_ranking_equals_the_stores(indexed, question):
    settings, _ = indexed
    r = HybridRetriever.from_settings(settings)
    assert r.vectors is not None and r.venues and r.topics  # the filtered rankings are compared too
    qv = r.embeddings.embed_query(question)
    wheres = [None] + [{"venue": v} for v in r.venues[:2]] + [{"topic": t} for t in r.topics[:1]]
    for where in wheres:
        mine = r._dense(qv, 10, where)
        held, r.vectors = r.vectors, None
        theirs = r._dense(qv, 10, where)
        r.vectors = held
        assert [i for _, i in mine] == [i for _, i in theirs], where
        assert np.allclose([s for s, _ in mine], [s for s, _ in theirs], atol=1e-5)
