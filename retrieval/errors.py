"""Errors of the retrieval layer (index, store, models). They derive from
:class:`papernotes.corpus.errors.PapernotesError`, so the edges turn them into one line like any other."""

from __future__ import annotations

from papernotes.corpus.errors import PapernotesError


class IndexMissingError(PapernotesError):
    """No index exists yet in the data dir (run ``papernotes ingest`` first)."""


class IndexOutdatedError(PapernotesError):
    """The index was built by an older papernotes whose term rules differ (run ``papernotes ingest``)."""


class EmbeddingMismatchError(PapernotesError):
    """The index was built with another embedding model than the configured one."""


class StoreBusyError(PapernotesError):
    """Another process holds the embedded store for writing."""


class StoreUnavailableError(PapernotesError):
    """The Chroma server (``PAPERNOTES_CHROMA_URL``) cannot be reached."""


class ModelUnavailableError(PapernotesError):
    """The embedding model files or the LLM endpoint cannot be used."""


class IndexDamagedError(PapernotesError):
    """A part of the index (the vector store, the keyword index, the catalog) is missing or disagrees
    with the others; the message names the part and the command that repairs it."""


class DataDirReadOnlyError(PapernotesError):
    """The data dir cannot be written (a read-only mount, no permission) where writing is needed."""


class DataDirFullError(PapernotesError):
    """The data dir's disk (or quota, or file-size limit) is full; the previous index is kept."""
