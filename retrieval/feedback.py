"""Feedback on answers: 👍/👎 on the Discord bot's answers and ``papernotes chat``'s ``/bad``, kept in
``data_dir/feedback.sqlite`` (:class:`FeedbackStore`).

Every answer a front end shows may be recorded with the ids of the messages that carried it (the
``answers`` and ``answer_messages`` tables), so a vote is looked up by message id — a restart or a
rolled-over message cache loses nothing. A vote belongs to one user and one answer (``votes``):
voting again with the other value updates it, removing the vote deletes it. User ids are stored only
as a keyed hash (HMAC-SHA256 with a random key kept in the store). Unlike the rest of the data dir,
this file is not rebuilt by ``ingest``: deleting it deletes the feedback.

:meth:`FeedbackStore.export_eval` turns votes into lines of the ``papernotes eval`` file format, so a
wrong answer becomes a test question.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from papernotes.retrieval.answer import Answer

#: The reactions that count as votes, and their values.
VOTES = {"👍": 1, "👎": -1}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    question TEXT NOT NULL,
    searched TEXT,
    answer TEXT NOT NULL,
    mode TEXT NOT NULL,
    citations TEXT NOT NULL,
    place TEXT,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS answer_messages (
    message_id TEXT PRIMARY KEY,
    answer_id INTEGER NOT NULL REFERENCES answers(id)
);
CREATE TABLE IF NOT EXISTS votes (
    answer_id INTEGER NOT NULL REFERENCES answers(id),
    user_hash TEXT NOT NULL,
    vote INTEGER NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (answer_id, user_hash)
);
"""


@dataclass
class Feedback:
    """One vote on one answer: ``vote`` is +1 (👍) or -1 (👎); ``citations`` are the answer's
    ``Citation.as_dict()`` objects; ``at`` is a Unix time (seconds)."""

    answer_id: int
    question: str
    searched: str | None
    answer: str
    mode: str
    citations: list[dict[str, Any]]
    place: str | None
    user_hash: str
    vote: int
    at: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def as_eval_row(self) -> dict[str, Any]:
        """The vote as one line of the ``papernotes eval`` format (``id, type, question, gold_titles,
        answer_must_contain``). A 👍 takes the cited papers as gold titles; a 👎 has no gold titles yet
        (``needs_review``: fill them in, or leave them empty when the notes really lack the answer)
        and keeps the bad answer and what it cited for reference."""
        titles = list(dict.fromkeys(c["paper_title"] for c in self.citations if c.get("paper_title")))
        good = self.vote > 0
        return {
            "id": f"feedback-{self.answer_id}",
            "type": "feedback_good" if good else "feedback_bad",
            "question": self.searched or self.question,
            "gold_titles": titles if good else [],
            "answer_must_contain": [],
            "needs_review": not good,
            "answer": self.answer,
            "cited_titles": titles,
            "notes": "answer marked good by a reader"
            if good
            else "answer marked wrong by a reader: set gold_titles (and answer_must_contain) to what it should be",
        }


class FeedbackStore:
    """Answers and votes in one SQLite file.

    Parameters
    ----------
    path
        The database file (created with its folder when missing), normally
        ``data_dir/feedback.sqlite`` (:meth:`for_data_dir`).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._db() as db:
            db.executescript(_SCHEMA)
            row = db.execute("SELECT value FROM meta WHERE key = 'hash_key'").fetchone()
            if row is None:
                db.execute("INSERT OR IGNORE INTO meta VALUES ('hash_key', ?)", (secrets.token_hex(32),))
                row = db.execute("SELECT value FROM meta WHERE key = 'hash_key'").fetchone()
        self._key = bytes.fromhex(row[0])

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> FeedbackStore:
        """The store at ``data_dir/feedback.sqlite``."""
        return cls(Path(data_dir) / "feedback.sqlite")

    @contextmanager
    def _db(self) -> Iterator[sqlite3.Connection]:
        with closing(sqlite3.connect(self.path, timeout=10)) as db, db:  # one transaction
            yield db

    def user_hash(self, user: int | str) -> str:
        """The stored form of a user id: HMAC-SHA256 under the store's own key, 32 hex digits."""
        return hmac.new(self._key, str(user).encode(), hashlib.sha256).hexdigest()[:32]

    def record_answer(self, answer: Answer, message_ids: Sequence[int | str], place: str | None = None) -> int:
        """Remember an answer shown in the messages ``message_ids`` (Discord message ids, or any
        unique key such as a chat turn's). ``place`` says where (e.g. ``"guild 1/channel 2"``, ``"dm"``).

        Returns
        -------
        int
            The answer's id in the store.
        """
        with self._db() as db:
            cur = db.execute(
                "INSERT INTO answers (question, searched, answer, mode, citations, place, created) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    answer.question,
                    answer.searched,
                    answer.answer,
                    answer.mode,
                    json.dumps([c.as_dict() for c in answer.citations], ensure_ascii=False),
                    place,
                    time.time(),
                ),
            )
            answer_id = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT OR REPLACE INTO answer_messages VALUES (?, ?)", [(str(m), answer_id) for m in message_ids]
            )
        return answer_id

    def answer_id(self, message_id: int | str) -> int | None:
        """The answer a message carried, or None when it carried none."""
        with self._db() as db:
            row = db.execute(
                "SELECT answer_id FROM answer_messages WHERE message_id = ?", (str(message_id),)
            ).fetchone()
        return int(row[0]) if row else None

    def vote(self, message_id: int | str, user: int | str, value: int) -> bool:
        """Record ``user``'s vote (+1 or -1) on the answer of ``message_id``; a second vote by the same
        user on the same answer replaces the first.

        Returns
        -------
        bool
            False (nothing stored) when the message carried no answer.

        Raises
        ------
        ValueError
            if ``value`` is not +1 or -1.
        """
        if value not in (1, -1):
            raise ValueError("a vote is +1 or -1")
        aid = self.answer_id(message_id)
        if aid is None:
            return False
        with self._db() as db:
            db.execute(
                "INSERT INTO votes VALUES (?, ?, ?, ?) ON CONFLICT (answer_id, user_hash) "
                "DO UPDATE SET vote = excluded.vote, at = excluded.at",
                (aid, self.user_hash(user), value, time.time()),
            )
        return True

    def unvote(self, message_id: int | str, user: int | str, value: int) -> bool:
        """Delete ``user``'s vote on the answer of ``message_id`` if it is ``value`` (removing a 👍
        after switching to 👎 keeps the 👎). Returns True when a vote was deleted."""
        aid = self.answer_id(message_id)
        if aid is None:
            return False
        with self._db() as db:
            cur = db.execute(
                "DELETE FROM votes WHERE answer_id = ? AND user_hash = ? AND vote = ?",
                (aid, self.user_hash(user), value),
            )
        return cur.rowcount > 0

    def feedback(self, vote: int | None = None) -> list[Feedback]:
        """Every vote with its answer, oldest first; only ``vote`` (+1 or -1) when given."""
        sql = (
            "SELECT a.id, a.question, a.searched, a.answer, a.mode, a.citations, a.place, v.user_hash, v.vote, v.at "
            "FROM votes v JOIN answers a ON a.id = v.answer_id"
        )
        args: tuple[Any, ...] = ()
        if vote is not None:
            sql += " WHERE v.vote = ?"
            args = (vote,)
        with self._db() as db:
            rows = db.execute(sql + " ORDER BY v.at, a.id", args).fetchall()
        return [Feedback(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7], r[8], r[9]) for r in rows]

    def export_eval(self, path: Path, vote: int | None = None) -> int:
        """Write the votes (one line per answer: the latest vote wins when several users voted) as
        ``papernotes eval`` JSONL (:meth:`Feedback.as_eval_row`). Returns the number of lines."""
        latest: dict[int, Feedback] = {}
        for f in self.feedback(vote):
            latest[f.answer_id] = f
        lines = [json.dumps(f.as_eval_row(), ensure_ascii=False) for f in latest.values()]
        Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return len(lines)
