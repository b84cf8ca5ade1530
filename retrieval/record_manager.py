"""LangChain's SQL record manager as ingest uses it (SQLite under the data dir, WAL pragmas), the record
group of a document, and the batch size of ``index()``."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from langchain_core.documents import Document
from sqlalchemy import event

from papernotes.retrieval.index_update import group_of
from papernotes.retrieval.settings import Settings


def record_manager(settings: Settings):
    """The LangChain SQL record manager (SQLite under the data dir), schema created.

    A damaged SQLite file (see :func:`papernotes.retrieval.store.damaged_store`) is renamed to
    ``records.sqlite.damaged-<UTC time>`` (kept) and a new one is created; ingest then re-records the
    chunks the vector store holds (its report says so; nothing is embedded again)."""
    from papernotes.retrieval.store import damaged_store

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    rm = _open(settings)
    try:
        rm.create_schema()
        rm.list_keys(limit=1)
    except Exception as e:  # SQLAlchemy's DatabaseError carries SQLite's message
        if not damaged_store(e):
            raise
        rm.engine.dispose()
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        aside = settings.record_db.with_name(f"{settings.record_db.name}.damaged-{stamp}")
        settings.record_db.rename(aside)
        for suffix in ("-wal", "-shm"):  # the write-ahead log belongs to the damaged file
            Path(f"{settings.record_db}{suffix}").unlink(missing_ok=True)
        rm = _open(settings)
        rm.create_schema()
    return rm


def _open(settings: Settings):
    # the module itself: the package's __init__ also imports its vector-store index helpers and their
    # chains (about 0.2 s more on an ingest's path)
    from langchain_classic.indexes._sql_record_manager import SQLRecordManager

    # one namespace per store: switching to (or from) a Chroma server starts a fresh record set, so the
    # new store is filled instead of being skipped as "already indexed"
    store = settings.chroma_url.rstrip("/") if settings.chroma_url else "embedded"
    rm = SQLRecordManager(f"chroma:{store}/{settings.collection}", db_url=f"sqlite:///{settings.record_db}")
    event.listen(rm.engine, "connect", _sqlite_pragmas)
    return rm


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    """Write-ahead log with ``synchronous=NORMAL`` on each record-manager connection: one fsync per
    checkpoint instead of one per transaction (``index()`` commits once per batch), still crash-safe
    (https://www.sqlite.org/wal.html)."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def doc_group(doc: Document) -> str:
    """``index()``'s source id of a document: its record-manager group."""
    return group_of(doc.metadata)


#: Chunks per ``index()`` batch (embedded, written and recorded together): the bound on an ingest's
#: batch memory (texts plus 384-d vectors, about 12 MB) and few enough record-manager transactions.
INDEX_BATCH = 1024


def index_batch_size(client) -> int:
    """``index()``'s batch size: :data:`INDEX_BATCH`, or the store's own maximum batch if smaller
    (``client.get_max_batch_size()``, chromadb's limit on one write), so each batch is one write."""
    try:
        return max(1, min(INDEX_BATCH, int(client.get_max_batch_size())))
    except Exception:  # a client without the call (older servers)
        return INDEX_BATCH
