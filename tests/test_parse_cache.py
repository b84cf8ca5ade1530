"""The parse caches: a save writes only the keys that changed (rows of unchanged keys stay as they were),
a cache of another code version or a damaged file reads as empty and is replaced, values read one by one
or lazily equal the saved ones; a GitBook's SUMMARY.md order is kept in the readers' cache by content."""

from __future__ import annotations

import sqlite3

from conftest import FIXTURE_NOTES

from papernotes.corpus.readers import read_path
from papernotes.retrieval.parse_cache import LazyList, ParseCache


def rows(path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return {k: r for r, k in db.execute("SELECT rowid, key FROM entries")}


def test_save_writes_only_changed_keys(tmp_path):
    path = tmp_path / "c.sqlite"
    first = ParseCache(path, "v1")
    assert first.load() == {}
    first.save({"a": [1, 2], "b": {"x": "y"}, "c": "text"})
    before = rows(path)
    again = ParseCache(path, "v1")
    data = again.load()
    assert data == {"a": [1, 2], "b": {"x": "y"}, "c": "text"}
    data.pop("b")
    data["d"] = ("new",)
    again.save(data)
    after = rows(path)
    assert set(after) == {"a", "c", "d"}
    assert after["a"] == before["a"] and after["c"] == before["c"]  # untouched rows
    keys_only = ParseCache(path, "v1")
    assert keys_only.load_keys() == {"a", "c", "d"} and keys_only.get("d") == ("new",)


def test_other_version_or_damaged_file_reads_empty_and_is_replaced(tmp_path):
    path = tmp_path / "c.sqlite"
    ParseCache(path, "v1").save({"a": 1})
    stale = ParseCache(path, "v2")
    assert stale.load() == {} and stale.load_keys() == set()
    stale.save({"b": 2})
    assert ParseCache(path, "v2").load() == {"b": 2}
    path.write_bytes(b"not a database")
    damaged = ParseCache(path, "v2")
    assert damaged.load() == {}
    damaged.save({"c": 3})
    assert ParseCache(path, "v2").load() == {"c": 3}


def test_lazy_list_reads_once_on_first_use():
    calls = []

    def load() -> list[int]:
        calls.append(1)
        return [4, 5, 6]

    lazy = LazyList(3, load)
    assert len(lazy) == 3 and bool(lazy) and calls == []
    assert list(lazy) == [4, 5, 6] and lazy[1] == 5 and lazy[1:] == [5, 6]
    assert calls == [1]


def test_summary_order_is_cached_by_content():
    cache: dict = {}
    first = read_path(FIXTURE_NOTES, cache=cache)
    orders = [k for k in first.cache_used if isinstance(cache[k], dict)]
    assert orders  # the fixture site is a GitBook with a SUMMARY.md
    second = read_path(FIXTURE_NOTES, cache=cache)
    assert second.cache_used == first.cache_used
    assert [(p.source, p.title) for p in second.pages] == [(p.source, p.title) for p in first.pages]
