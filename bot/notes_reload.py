"""The loaded notes of a long-running reader (the Discord bot), reopened after an ingest.

The bot only reads the index. Before each question it checks the mtime of the BM25 ``chunks.json``
(rewritten at the end of every ingest); when it changed and no ingest holds the data dir's write lock,
the notes are reopened (:class:`NotesIndex`).
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from papernotes.retrieval.search import HybridRetriever
from papernotes.retrieval.service import Notes
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import lock_held

log = logging.getLogger("papernotes.discord")


def writer_active(settings: Settings) -> bool:
    """Whether an ingest holds the data dir's write lock now.

    The lock is an ``flock`` on ``data_dir/write.lock`` taken by
    :func:`~papernotes.retrieval.store.write_lock`. The probe takes a non-blocking shared lock and
    releases it at once, so a starting ingest is never held up for more than an instant.

    Returns
    -------
    bool
        True while an ingest runs; False when the lock file is free or does not exist.
    """
    return lock_held(settings)


def forget_chroma_client(settings: Settings) -> None:
    """Drop chromadb's cached client systems so the next ``PersistentClient`` for
    ``settings.chroma_dir`` reads the store afresh (``SharedSystemClient.clear_system_cache()``,
    chromadb's public reset of its per-path cache; the bot holds one embedded store, so clearing every
    path is clearing that one). Objects made from the old system keep working until dropped.
    """
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


class NotesIndex:
    """The loaded :class:`~papernotes.retrieval.service.Notes`, reopened after an ingest.

    ``await get()`` returns the current notes. It compares the mtime of ``bm25_dir/chunks.json``
    (rewritten at the end of every ingest) with the one seen at load; when it changed and no ingest
    is running (:func:`writer_active`), the notes are rebuilt in a worker thread, reusing the loaded
    embedding model. With the embedded Chroma store, chromadb's per-path client cache is cleared
    first, because a cached client keeps serving the vectors it loaded before the ingest; questions
    already running keep their old ``Notes`` object to the end. A failed reload is logged and the
    old notes stay in use.

    Parameters
    ----------
    settings
        Where the index lives (``data_dir``, ``bm25_dir``, ``chroma_dir`` or ``chroma_url``).
    notes
        Notes already loaded (tests, or to share one loaded index); None to load them in :meth:`load`.

    Attributes
    ----------
    reloads : int
        How many times the notes were reopened after an ingest.
    """

    def __init__(self, settings: Settings, notes: Notes | None = None):
        self.settings = settings
        self._notes = notes
        self._seen = self._stamp() if notes is not None else None
        self._lock = asyncio.Lock()
        self.reloads = 0

    @property
    def current(self) -> Notes | None:
        """The notes loaded now (None before :meth:`load`), without checking for an ingest."""
        return self._notes

    @property
    def chunks_file(self) -> Path:
        """The BM25 ``chunks.json`` whose mtime tells that an ingest finished."""
        return self.settings.bm25_dir / "chunks.json"

    def _stamp(self) -> int | None:
        try:
            return self.chunks_file.stat().st_mtime_ns
        except OSError:
            return None

    def _open(self, old: Notes | None = None) -> tuple[Notes, int | None]:
        """Build fresh notes (worker thread), reusing ``old``'s embedding model, and warm them up
        (:meth:`Notes.warm_up`) before anyone asks them. Returns ``(notes, stamp)``."""
        stamp = self._stamp()
        if old is not None and not self.settings.chroma_url:
            forget_chroma_client(self.settings)
        emb = old.retriever.embeddings if old is not None else None
        notes = Notes(self.settings, retriever=HybridRetriever.from_settings(self.settings, embeddings=emb))
        notes.warm_up()
        return notes, stamp

    async def load(self) -> Notes:
        """Load the notes if not loaded yet.

        Returns
        -------
        Notes
            The loaded notes.

        Raises
        ------
        IndexMissingError, EmbeddingMismatchError, StoreUnavailableError
            Whatever opening the index raises (no index yet, another embedding model, an unreachable
            Chroma server).
        """
        async with self._lock:
            if self._notes is None:
                notes, self._seen = await asyncio.to_thread(self._open)
                self._notes = notes
        return self._notes

    def stale(self) -> bool:
        """True when an ingest finished since the notes were loaded (and none is running now)."""
        return self._stamp() != self._seen and not writer_active(self.settings)

    async def get(self, wait: bool = False) -> Notes:
        """The current notes, reopened first if an ingest finished since they were loaded.

        The caller that finds the index changed reopens it; callers arriving while that reopening runs
        get the previous notes at once instead of queueing behind it (``wait=True``: wait for it and get
        the new notes, as a scheduled refresh does).

        Raises
        ------
        IndexMissingError, EmbeddingMismatchError, StoreUnavailableError
            Only on the first load (see :meth:`load`); a failed reopen keeps the previous notes.
        """
        if self._notes is None:
            return await self.load()
        if self._lock.locked() and not wait:
            return self._notes
        if self.stale():
            async with self._lock:
                if self.stale():
                    stamp = self._stamp()
                    try:
                        notes, self._seen = await asyncio.to_thread(self._open, self._notes)
                        self._notes = notes
                        self.reloads += 1
                        log.info("index changed on disk; notes reloaded")
                    except Exception as e:
                        self._seen = stamp  # do not retry until the index changes again
                        log.error(
                            "could not reload the notes after an ingest (%s: %s); keeping the previous ones",
                            type(e).__name__,
                            e,
                        )
        return self._notes
