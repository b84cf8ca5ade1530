"""The parse caches kept beside the stores (parsed pages by file content, page analyses by page content):
one SQLite table of pickled values per cache, so an ingest writes only the keys that changed (a
one-note edit adds one row and deletes one instead of rewriting every parsed page), and reads either
every value or only the ones it needs (:meth:`ParseCache.get`, :class:`LazyList`)."""

from __future__ import annotations

import pickle
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar, overload

T = TypeVar("T")


class ParseCache:
    """A ``key → value`` cache in the SQLite file ``path``, valid for one code ``version`` (a cache
    written by another version reads as empty and is replaced)."""

    def __init__(self, path: Path, version: str):
        self.path = path
        self.version = version
        self._held: set[str] = set()

    def load(self) -> dict[str, Any]:
        """Every value, by key; empty when the file is absent, unreadable or of another version."""
        self._held = set()
        if not self.path.is_file():
            return {}
        try:
            with closing(sqlite3.connect(self.path)) as db:
                (version,) = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() or ("",)
                if version != self.version:
                    return {}
                out = {k: pickle.loads(v) for k, v in db.execute("SELECT key, value FROM entries")}
        except Exception:  # unreadable, stale or corrupt: rebuilt by the caller
            return {}
        self._held = set(out)
        return out

    def load_keys(self) -> set[str]:
        """The keys held (values are read one by one with :meth:`get`); empty as :meth:`load` would be."""
        self._held = set()
        try:
            with closing(sqlite3.connect(self.path)) as db:
                (version,) = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone() or ("",)
                if version == self.version:
                    self._held = {k for (k,) in db.execute("SELECT key FROM entries")}
        except Exception:  # absent, unreadable or corrupt: rebuilt by the caller
            pass
        return set(self._held)

    def get(self, key: str) -> Any:
        """The value of one held key.

        Raises
        ------
        KeyError
            when the file no longer holds ``key``.
        """
        with closing(sqlite3.connect(self.path)) as db:
            row = db.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return pickle.loads(row[0])

    def save(self, data: dict[str, Any]) -> None:
        """Make the file hold exactly ``data``: the keys :meth:`load` did not return are added, those it
        returned that ``data`` lacks are deleted (one transaction); nothing is written when the keys are
        the same. A file that cannot be updated is replaced whole."""
        if set(data) == self._held and self.path.is_file():
            return
        try:
            self._update(data)
        except sqlite3.Error:
            self.path.unlink(missing_ok=True)
            self._held = set()
            self._update(data)
        self._held = set(data)

    def _update(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            db.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value BLOB)")
            row = db.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
            if row is None or row[0] != self.version or not self._held:
                db.execute("DELETE FROM entries")
                db.execute("INSERT OR REPLACE INTO meta VALUES ('version', ?)", (self.version,))
                held: set[str] = set()
            else:
                held = self._held
            db.executemany("DELETE FROM entries WHERE key = ?", [(k,) for k in held - data.keys()])
            db.executemany(
                "INSERT OR REPLACE INTO entries VALUES (?, ?)",
                [(k, pickle.dumps(data[k], protocol=pickle.HIGHEST_PROTOCOL)) for k in data.keys() - held],
            )


class LazyList(Sequence[T]):
    """A list of known length whose items are read on first use (``load()``, once): a cached page's
    chunks, which an ingest needs only for the sources it re-indexes."""

    def __init__(self, length: int, load: Callable[[], list[T]]):
        self._length = length
        self._load = load
        self._items: list[T] | None = None

    def _list(self) -> list[T]:
        if self._items is None:
            self._items = self._load()
        return self._items

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...
    def __getitem__(self, i: int | slice) -> T | list[T]:
        return self._list()[i]

    def __iter__(self) -> Iterator[T]:
        return iter(self._list())
