"""A per-user daily cap on model-written answers (:class:`DailyCap`), so one member of a shared server
cannot spend the owner's API budget. Counts live in ``data_dir/usage.sqlite`` (they survive a
restart), one row per hashed user id and UTC day."""

from __future__ import annotations

import datetime as dt
import hashlib
import sqlite3
from contextlib import closing
from pathlib import Path


class DailyCap:
    """At most ``limit`` model answers per user per UTC day (``limit`` 0: no cap).

    Parameters
    ----------
    path
        The SQLite file (created with its folder when missing), normally ``data_dir/usage.sqlite``.
    limit
        Model answers a user may get per UTC day; 0 for no limit.
    """

    def __init__(self, path: Path, limit: int):
        self.path = Path(path)
        self.limit = limit
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(self.path, timeout=10)) as db, db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS usage (user_hash TEXT, day TEXT, n INTEGER NOT NULL, "
                "PRIMARY KEY (user_hash, day))"
            )

    @staticmethod
    def _user(user: int | str) -> str:
        return hashlib.sha256(f"papernotes-usage:{user}".encode()).hexdigest()[:32]

    @staticmethod
    def today() -> str:
        """The current UTC day, ``YYYY-MM-DD``."""
        return dt.datetime.now(dt.UTC).date().isoformat()

    def used(self, user: int | str, day: str | None = None) -> int:
        """Model answers ``user`` got on ``day`` (default today)."""
        with closing(sqlite3.connect(self.path, timeout=10)) as db:
            row = db.execute(
                "SELECT n FROM usage WHERE user_hash = ? AND day = ?", (self._user(user), day or self.today())
            ).fetchone()
        return int(row[0]) if row else 0

    def take(self, user: int | str) -> bool:
        """Count one model answer for ``user`` today if the cap allows it.

        Returns
        -------
        bool
            True when the user may have a model answer (and it was counted), False past the cap.
        """
        if self.limit <= 0:
            return True
        u, day = self._user(user), self.today()
        with closing(sqlite3.connect(self.path, timeout=10, isolation_level="IMMEDIATE")) as db, db:
            row = db.execute("SELECT n FROM usage WHERE user_hash = ? AND day = ?", (u, day)).fetchone()
            n = int(row[0]) if row else 0
            if n >= self.limit:
                return False
            db.execute(
                "INSERT INTO usage VALUES (?, ?, 1) ON CONFLICT (user_hash, day) DO UPDATE SET n = n + 1", (u, day)
            )
        return True
