"""The parse caches kept beside the stores (parsed pages by file content, page analyses by page content):
one SQLite table of pickled values per cache, so an ingest writes only the keys that changed (a
one-note edit adds one row and deletes one instead of rewriting every parsed page), and reads either
every value or only the ones it needs (:meth:`ParseCache.get`, :class:`LazyList`)."""

from __future__ import annotations

import pickle
import sqlite3
from collections.abc import Callable, Iterable, Iterator, MutableMapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar, overload

T = TypeVar("T")

#: keys per ``SELECT … IN (…)`` (SQLite allows 32,766 bound parameters per statement since 3.32)
KEYS_PER_QUERY = 500


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

    def get(self, key: str, db: sqlite3.Connection | None = None) -> Any:
        """The value of one held key (read through ``db``, a connection to the file, when given).

        Raises
        ------
        KeyError
            when the file no longer holds ``key``.
        """
        if db is None:
            with closing(sqlite3.connect(self.path)) as own:
                return self.get(key, own)
        row = db.execute("SELECT value FROM entries WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return pickle.loads(row[0])

    def get_many(self, keys: Iterable[str]) -> dict[str, Any]:
        """The values of those of ``keys`` the file holds (read :data:`KEYS_PER_QUERY` at a time), by key;
        empty when the file is absent, unreadable or of another version."""
        keys = sorted(set(keys) & self._held)
        out: dict[str, Any] = {}
        if not keys:
            return out
        try:
            with closing(sqlite3.connect(self.path)) as db:
                for i in range(0, len(keys), KEYS_PER_QUERY):
                    part = keys[i : i + KEYS_PER_QUERY]
                    marks = ",".join("?" * len(part))
                    rows = db.execute(f"SELECT key, value FROM entries WHERE key IN ({marks})", part)
                    out.update((k, pickle.loads(v)) for k, v in rows)
        except Exception:  # unreadable or corrupt: the caller parses again
            return {}
        return out

    def save(self, data: dict[str, Any]) -> None:
        """Make the file hold exactly ``data``: the keys :meth:`load` did not return are added, those it
        returned that ``data`` lacks are deleted (one transaction); nothing is written when the keys are
        the same. A file that cannot be updated is replaced whole."""
        self.save_keys(set(data), data)

    def save_keys(self, keys: set[str], fresh: dict[str, Any]) -> None:
        """Make the file hold exactly ``keys``: those it holds keep their stored values (never read
        here), the others are written from ``fresh`` (those it lacks are left out), those not in ``keys``
        are deleted (one transaction). A file that cannot be updated is replaced whole, which needs every
        value: then ``fresh`` must hold all of ``keys`` (else the missing ones are left out, to be
        parsed again next time)."""
        keys = {k for k in keys if k in self._held or k in fresh}  # a key neither held nor given is parsed again
        if keys == self._held and self.path.is_file():
            return
        try:
            self._update({k: fresh.get(k) for k in keys - self._held}, keys)
        except sqlite3.Error:
            self.path.unlink(missing_ok=True)
            self._held = set()
            keys = {k for k in keys if k in fresh}
            self._update({k: fresh[k] for k in keys}, keys)
        self._held = set(keys)

    def _update(self, data: dict[str, Any], keys: set[str] | None = None) -> None:
        keys = set(data) if keys is None else keys
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
            db.executemany("DELETE FROM entries WHERE key = ?", [(k,) for k in held - keys])
            db.executemany(
                "INSERT OR REPLACE INTO entries VALUES (?, ?)",
                [(k, pickle.dumps(data[k], protocol=pickle.HIGHEST_PROTOCOL)) for k in keys - held if k in data],
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


class CacheView(MutableMapping[str, Any]):
    """A ``key → value`` mapping over a :class:`ParseCache` that reads only the keys at first and each
    value when it is asked for, so a reader that needs a few cached values does not unpickle them all;
    values set are kept in :attr:`fresh` (with those read) for :meth:`ParseCache.save_keys`."""

    def __init__(self, cache: ParseCache):
        self.cache = cache
        self.held = cache.load_keys()
        self.fresh: dict[str, Any] = {}
        self._db: sqlite3.Connection | None = None

    def close(self) -> None:
        """Close the connection the values were read through (reopened if more are read)."""
        if self._db is not None:
            self._db.close()
            self._db = None

    def __contains__(self, key: object) -> bool:
        return key in self.fresh or key in self.held

    def __getitem__(self, key: str) -> Any:
        if key not in self.fresh:
            if key not in self.held:
                raise KeyError(key)
            if self._db is None:
                self._db = sqlite3.connect(self.cache.path)
            self.fresh[key] = self.cache.get(key, self._db)
        return self.fresh[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.fresh[key] = value

    def __delitem__(self, key: str) -> None:
        self.fresh.pop(key, None)
        self.held.discard(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self.held | self.fresh.keys())

    def __len__(self) -> int:
        return len(self.held | self.fresh.keys())
