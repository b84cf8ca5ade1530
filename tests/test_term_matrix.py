"""The keyword index updated in place (chunks dropped and added, nothing re-scored) scores every query as
one built from scratch over the same chunks, and both score as bm25s's own BM25 index (the rule the
index keeps: Lucene's, k1 = 1.5, b = 0.75) over the same terms."""

from __future__ import annotations

import bm25s
import numpy as np
import pytest
from conftest import FIXTURE_NOTES

from papernotes.retrieval.bm25 import EMPTY_TERM, BM25Index
from papernotes.retrieval.terms import lexical_terms

QUERIES = [
    "paged attention KV cache",
    "storage systems venue",
    "Quokka lines of Rust",
    "throughput latency GPU memory",
    "zebra giraffe",  # only in the added chunks
    "no such words anywhere",
]


def fixture_texts() -> list[str]:
    """Paragraphs of the fixture notes (a few hundred short texts, some repeated words)."""
    out = []
    for f in sorted(FIXTURE_NOTES.rglob("*")):
        if f.suffix in (".md", ".txt"):
            out += [p.strip() for p in f.read_text(encoding="utf-8").split("\n\n") if p.strip()]
    return out


@pytest.fixture(scope="module")
def texts() -> list[str]:
    found = fixture_texts()
    assert len(found) > 40
    return found


def scored(index: BM25Index, query: str, k: int = 25) -> dict[str, float]:
    return {index.ids[p]: round(s, 9) for p, s in index.search(lexical_terms(query), k)}


def test_updated_index_scores_as_a_rebuilt_one(texts):
    ids = [f"c{i}" for i in range(len(texts))]
    metas = [{"n": i} for i in range(len(texts))]
    first = BM25Index.build(ids, texts, metas)
    rng = np.random.default_rng(7)
    keep = rng.random(len(ids)) > 0.3
    keep[[i for i, t in enumerate(texts) if "Quokka" in t][:1]] = False  # some postings leave
    added = ["Zebra giraffe throughput on paged attention.", "", "giraffe " * 5, texts[0]]
    new_ids = ["n0", "n1", "n2", "n3"]
    patched = first.updated(keep, new_ids, added, [{"n": -1}] * 4)
    kept = np.flatnonzero(keep)
    assert patched.ids == [ids[i] for i in kept] + new_ids
    # the same chunks in another order, built from scratch
    order = list(reversed(range(len(patched.ids))))
    rebuilt = BM25Index.build(
        [patched.ids[i] for i in order], [patched.texts[i] for i in order], [patched.metadatas[i] for i in order]
    )
    assert sorted(patched.matrix.vocab) == sorted(rebuilt.matrix.vocab)
    for q in QUERIES:
        a, b = scored(patched, q), scored(rebuilt, q)
        assert a.keys() == b.keys() and all(abs(a[c] - b[c]) < 1e-9 for c in a), q
    assert scored(patched, "zebra giraffe") and not scored(first, "zebra giraffe")
    for term in ("giraff", "attent", EMPTY_TERM):
        assert {patched.ids[p] for p in patched.postings(term)} == {rebuilt.ids[p] for p in rebuilt.postings(term)}
        assert patched.df(term) == rebuilt.df(term) and patched.idf(term) == pytest.approx(rebuilt.idf(term))


def test_scores_are_bm25s_scores(texts):
    index = BM25Index.build([str(i) for i in range(len(texts))], texts, [{}] * len(texts))
    model = bm25s.BM25()  # bm25s's defaults: Lucene, k1=1.5, b=0.75
    model.index([lexical_terms(t) or [EMPTY_TERM] for t in texts], show_progress=False)
    for q in QUERIES[:4]:
        terms = [t for t in lexical_terms(q) if t in model.vocab_dict]
        ours = index.matrix.scores(terms)
        docs, theirs = model.retrieve([terms], k=len(texts), show_progress=False, n_threads=1)
        expected = np.zeros(len(texts))
        expected[docs[0]] = theirs[0]
        assert ours.any() and np.allclose(ours, expected, rtol=1e-5, atol=1e-6), q


def test_saved_index_loads_equal_and_stale_postings_are_rebuilt(texts, tmp_path):
    ids = [f"c{i}" for i in range(len(texts))]
    index = BM25Index.build(ids, texts, [{"n": i} for i in range(len(texts))])
    index.save(tmp_path / "bm25")
    loaded = BM25Index.load(tmp_path / "bm25")
    assert loaded.ids == index.ids and loaded.matrix.vocab == index.matrix.vocab
    assert all(scored(loaded, q) == scored(index, q) for q in QUERIES)
    # postings of another set of chunks (an interrupted write): rebuilt from the texts
    index.updated(np.ones(len(ids), dtype=bool), ["x"], ["extra words"], [{}]).matrix.save(
        tmp_path / "bm25" / "terms.npz"
    )
    again = BM25Index.load(tmp_path / "bm25")
    assert len(again.matrix) == len(ids) and all(scored(again, q) == scored(index, q) for q in QUERIES)
