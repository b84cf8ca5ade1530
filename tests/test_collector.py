"""The collector during an ingest: full collections deferred, young ones kept, thresholds restored."""

from __future__ import annotations

import gc
import threading

import pytest
from conftest import make_settings

from papernotes.retrieval import collector
from papernotes.retrieval.collector import full_collections_deferred


def _generations_collected(make) -> list[int]:
    """The generations the collector collected while ``make()`` ran (gc.callbacks)."""
    seen: list[int] = []

    def cb(phase: str, info: dict) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(cb)
    try:
        make()
    finally:
        gc.callbacks.remove(cb)
    return seen


def _long_lived_heap(n: int = 400_000) -> list[list[int]]:
    # surviving containers: enough to make CPython start full collections under its default thresholds
    return [[i] for i in range(n)]


@pytest.fixture
def default_thresholds():
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    gc.collect()
    yield
    gc.set_threshold(*saved)


def test_heap_growth_triggers_full_collections_without_deferral(default_thresholds):
    kept: list = []
    seen = _generations_collected(lambda: kept.append(_long_lived_heap()))
    assert 2 in seen  # the control: what the deferral is for


def test_deferral_collects_young_generations_only(default_thresholds):
    kept: list = []
    with full_collections_deferred():
        seen = _generations_collected(lambda: kept.append(_long_lived_heap()))
    assert 2 not in seen
    assert 0 in seen  # cyclic garbage made in the block is still found


def test_cyclic_garbage_made_in_the_block_is_freed(default_thresholds):
    class Node:
        other: object = None

    alive = []

    def make() -> None:
        for _ in range(5000):
            a, b = Node(), Node()
            a.other, b.other = b, a  # a cycle: only the collector frees it
        alive.append(sum(1 for o in gc.get_objects() if isinstance(o, Node)))

    with full_collections_deferred():
        make()
    assert alive[0] < 5000 * 2  # young collections freed cycles inside the block


def test_thresholds_restored_after_nesting_and_errors(default_thresholds):
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), full_collections_deferred():
        with full_collections_deferred():
            assert gc.get_threshold()[2] > 10**9
        assert gc.get_threshold()[2] > 10**9  # the outer block still defers
        raise RuntimeError("boom")
    assert gc.get_threshold() == before
    assert collector._depth == 0


def test_concurrent_blocks_share_one_deferral(default_thresholds):
    before = gc.get_threshold()
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with full_collections_deferred():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=other)
    with full_collections_deferred():
        t.start()
        inside.wait(5)
    assert gc.get_threshold()[2] > 10**9  # the other thread's block is still open
    release.set()
    t.join()
    assert gc.get_threshold() == before


def test_ingest_runs_with_full_collections_deferred(tmp_path, monkeypatch, default_thresholds):
    from papernotes.retrieval import indexing

    during: list[tuple[int, ...]] = []

    def fake(*args, **kwargs):
        during.append(gc.get_threshold())
        raise RuntimeError("stop")

    monkeypatch.setattr(indexing, "_ingest_locked", fake)
    settings = make_settings(tmp_path)
    with pytest.raises(RuntimeError):
        indexing.ingest(settings, [str(tmp_path)])
    assert during and during[0][2] > 10**9
    assert gc.get_threshold() == (700, 10, 10)
