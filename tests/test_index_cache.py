"""The cross-run cache of test indexes (tests/index_cache.py) cannot hide a regression: its key changes
with every input of a build, concurrent sessions build once, and the cached real-corpus index equals a
cold build made in this run."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import index_cache
import numpy as np
import pytest
from conftest import FIXTURE_NOTES, REAL_CORPUS, make_settings
from index_cache import CachedIndex, build_index, cached, copy_index, index_code, index_key

from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.store import make_client


def index_contents(data_dir: Path) -> dict:
    """What a build wrote: the store's chunks (text, metadata, vector) by id, the BM25 side's chunks
    by id, and the catalog."""
    s = make_settings(data_dir)
    got = make_client(s).get_collection(s.collection).get(include=["documents", "metadatas", "embeddings"])
    bm25 = BM25Index.load(s.bm25_dir)
    return {
        "store": {
            i: (doc, meta, np.asarray(vec))
            for i, doc, meta, vec in zip(got["ids"], got["documents"], got["metadatas"], got["embeddings"], strict=True)
        },
        "bm25": {i: (t, m) for i, t, m in zip(bm25.ids, bm25.texts, bm25.metadatas, strict=True)},
        "catalog": json.loads(s.catalog_path.read_text(encoding="utf-8")),
    }


def test_a_cold_build_of_the_real_corpus_equals_the_cached_index(real_index_cache, models_cache, tmp_path):
    assert real_index_cache.path.name == index_key(REAL_CORPUS, make_settings(tmp_path))
    cached_copy = tmp_path / "cached"
    copy_index(real_index_cache, cached_copy)
    from_cache = index_contents(cached_copy)
    if real_index_cache.built_now:
        cold = from_cache  # the session's own fixture just built it cold: not built twice
    else:
        build_index(REAL_CORPUS, tmp_path / "cold", models_cache)
        cold = index_contents(tmp_path / "cold")

    assert len(cold["store"]) > 1000 and len(cold["catalog"]) > 100
    assert sorted(cold["store"]) == sorted(cold["bm25"])  # both sides hold the same chunks
    assert sorted(from_cache["store"]) == sorted(cold["store"])
    assert from_cache["bm25"] == cold["bm25"]
    assert from_cache["catalog"] == cold["catalog"]
    for i, (doc, meta, vec) in cold["store"].items():
        c_doc, c_meta, c_vec = from_cache["store"][i]
        assert (c_doc, c_meta) == (doc, meta)
        np.testing.assert_allclose(c_vec, vec, atol=1e-5)


@pytest.fixture
def code_copy(tmp_path, monkeypatch) -> Path:
    """A copy of the packages' source, monkeypatched in as the repo that index_key reads."""
    repo = tmp_path / "repo"
    for package in ("corpus", "retrieval"):
        shutil.copytree(index_cache.REPO / package, repo / package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(index_cache, "REPO", repo)
    return repo


def test_the_code_of_a_build_is_followed_through_its_imports(code_copy):
    code = {f.relative_to(code_copy).as_posix() for f in index_code()}
    assert {"retrieval/indexing.py", "retrieval/embeddings.py", "retrieval/store.py", "retrieval/bm25.py"} <= code
    assert {"retrieval/terms.py", "retrieval/settings.py", "corpus/chunking.py", "corpus/readers.py"} <= code
    assert "retrieval/service.py" not in code  # answering, not indexing
    (code_copy / "retrieval" / "split_out.py").write_text("RULE = 1\n")
    with (code_copy / "retrieval" / "bm25.py").open("a") as f:
        f.write("\nfrom papernotes.retrieval.split_out import RULE  # noqa\n")
    assert "retrieval/split_out.py" in {f.relative_to(code_copy).as_posix() for f in index_code()}


def test_the_key_changes_with_every_input_of_a_build(tmp_path, code_copy):
    notes = tmp_path / "notes"
    shutil.copytree(FIXTURE_NOTES, notes)
    settings = make_settings(tmp_path / "a")
    key = index_key(notes, settings)
    assert index_key(notes, make_settings(tmp_path / "b")) == key  # the data dir is not an input
    (notes / ".git").mkdir()
    (notes / ".git" / "index").write_bytes(b"refreshed by git status")
    assert index_key(notes, settings) == key  # hidden files are not read
    (code_copy / "retrieval" / "service.py").write_text("# answering code\n")
    assert index_key(notes, settings) == key  # code a build does not run

    changed = []
    page = next(notes.rglob("*.md"))
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    changed.append(index_key(notes, settings))
    (notes / "new.md").write_text("# New page\n\nText.\n", encoding="utf-8")
    changed.append(index_key(notes, settings))
    changed.append(index_key(notes, make_settings(tmp_path / "a", chunk_tokens=200)))
    for module in ("corpus/chunking.py", "retrieval/embeddings.py", "retrieval/bm25.py", "retrieval/terms.py"):
        with (code_copy / module).open("a", encoding="utf-8") as f:
            f.write("\n# changed\n")
        changed.append(index_key(notes, settings))
    moved = tmp_path / "moved"
    notes.rename(moved)
    changed.append(index_key(moved, settings))  # origins record the source's location
    assert len({key, *changed}) == len(changed) + 1


@pytest.fixture
def cache_root(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv(index_cache.CACHE_ENV, str(root))
    return root


def test_two_sessions_at_once_build_once(cache_root):
    builds: list[Path] = []

    def build(data_dir: Path) -> None:
        builds.append(data_dir)
        time.sleep(0.5)  # the other session arrives while this one builds
        (data_dir / "catalog.json").write_text("[]")

    results: list[CachedIndex] = []
    threads = [threading.Thread(target=lambda: results.append(cached("k1", build))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and builds[0].parent == cache_root  # built beside the entry, then renamed
    assert sorted(r.built_now for r in results) == [False, True]
    assert results[0].path == results[1].path == cache_root / "k1"
    assert (cache_root / "k1" / "catalog.json").read_text() == "[]"
    copy = cache_root.parent / "copy"
    copy_index(results[0], copy)
    assert (copy / "catalog.json").read_text() == "[]"


def test_a_failed_build_leaves_nothing_behind(cache_root):
    def build(data_dir: Path) -> None:
        (data_dir / "half-written").write_text("x")
        raise RuntimeError("ingest failed")

    with pytest.raises(RuntimeError, match="ingest failed"):
        cached("k1", build)
    assert [p.name for p in cache_root.iterdir()] == [".lock"]
    assert cached("k1", lambda d: None).built_now  # the next session builds it


def test_only_the_most_recently_used_entries_are_kept(cache_root):
    names = [f"k{i}" for i in range(index_cache.KEEP)]
    for name in names:
        cached(name, lambda d: None)
        time.sleep(0.02)  # distinct modification times
    assert not cached("k0", lambda d: None).built_now  # used again: now the most recent
    time.sleep(0.02)
    cached("new", lambda d: None)  # a build drops the least recently used beyond KEEP
    kept = {p.name for p in cache_root.iterdir() if not p.name.startswith(".")}
    assert kept == {*names, "new"} - {"k1"}
