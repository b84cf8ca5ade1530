"""The Chroma store: embedded ``PersistentClient`` under the data dir by default, ``HttpClient`` when
``PAPERNOTES_CHROMA_URL`` is set; the LangChain vector store over it; the embedding-model guard and the
single-writer lock of the embedded store."""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

from filelock import FileLock, Timeout
from langchain_chroma import Chroma
from langchain_core.embeddings import Embeddings

from papernotes.corpus.errors import PapernotesError
from papernotes.retrieval.errors import (
    DataDirFullError,
    DataDirReadOnlyError,
    EmbeddingMismatchError,
    StoreBusyError,
    StoreUnavailableError,
)
from papernotes.retrieval.settings import Settings

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


def embedding_name(embeddings: Embeddings) -> str:
    """The name recorded with the index for an embedder (``all-MiniLM-L6-v2``, ``openai:MODEL``)."""
    name = getattr(embeddings, "name", None)
    if name:
        return str(name)
    return f"openai:{getattr(embeddings, 'model', type(embeddings).__name__)}"


def make_client(settings: Settings, read_only: bool = False, copy: bool = False, set_aside_damaged: bool = False):
    """A chromadb client: HttpClient for ``chroma_url``, else PersistentClient at ``data_dir/chroma``.

    ``read_only`` (queries): when the embedded store cannot be written (a read-only mount), a
    temporary copy of it is opened instead (see :func:`_read_only_copy`); ``copy`` opens such a copy
    in any case (a store on a full disk, which chromadb cannot open for reading either).
    ``set_aside_damaged`` (``ingest --rebuild``): an embedded store whose SQLite file is damaged, or that
    chromadb cannot open at all, is renamed to ``chroma.damaged-<UTC time>`` (kept, not deleted) and a
    new empty store is opened.

    Raises
    ------
    StoreUnavailableError
        if the Chroma server cannot be reached.
    DataDirReadOnlyError
        if a read-only store cannot be copied.
    IndexDamagedError
        if the embedded store's SQLite file is damaged (not a database, malformed) and
        ``set_aside_damaged`` is false; the message names the rebuild command.
    """
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    cs = ChromaSettings(anonymized_telemetry=False, allow_reset=True)
    if settings.chroma_url:
        u = urlparse(settings.chroma_url if "://" in settings.chroma_url else f"http://{settings.chroma_url}")
        try:
            client = chromadb.HttpClient(
                host=u.hostname or "127.0.0.1", port=u.port or 8000, ssl=u.scheme == "https", settings=cs
            )
            client.heartbeat()
        except Exception as e:  # chromadb raises several transport error types
            raise StoreUnavailableError(f"cannot reach the Chroma server at {settings.chroma_url}: {e}") from None
        return client
    settings.chroma_dir.mkdir(parents=True, exist_ok=True)
    path = settings.chroma_dir
    if copy or (read_only and not writable(path)):
        path = _read_only_copy(settings)
    try:
        return chromadb.PersistentClient(path=str(path), settings=cs)
    except Exception as e:  # chromadb's InternalError carries SQLite's own message
        from chromadb.errors import InternalError

        # a rebuild also moves aside a store chromadb cannot open at all ("unable to open database
        # file": its SQLite file replaced by a folder), which no other command can repair
        if not damaged_store(e) and not (set_aside_damaged and isinstance(e, InternalError)):
            raise
        if not set_aside_damaged or path != settings.chroma_dir:
            raise _damaged_error(settings, e) from None
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()  # the failed start stays cached under the path otherwise
    set_aside(settings.chroma_dir)
    settings.chroma_dir.mkdir()
    return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=cs)


def set_aside(path: Path) -> Path:
    """Rename the damaged index part ``path`` to ``<name>.damaged-<UTC time>`` beside it (kept, not
    deleted) and return the new path.

    Raises
    ------
    OSError
        if it cannot be renamed (no permission on its folder).
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return path.rename(path.with_name(f"{path.name}.damaged-{stamp}"))


#: SQLite's result codes of a damaged database file, as chromadb reports them ("(code: 26) file is not
#: a database"): SQLITE_CORRUPT (11) and SQLITE_NOTADB (26), https://www.sqlite.org/rescode.html
_DAMAGED_WORDS = ("(code: 11)", "(code: 26)", "file is not a database", "disk image is malformed")


def damaged_store(exc: BaseException) -> bool:
    """Whether ``exc`` (or its cause) is SQLite reporting a damaged database file (see
    :data:`_DAMAGED_WORDS`)."""
    e: BaseException | None = exc
    for _ in range(5):
        if e is None:
            return False
        text = str(e).lower()
        if any(w in text for w in _DAMAGED_WORDS):
            return True
        e = e.__cause__ or e.__context__
    return False


def store_internal_error(settings: Settings, exc: BaseException) -> PapernotesError | None:
    """The one-line error for chromadb's own ``InternalError`` from the embedded store (a segment
    folder deleted, a file it cannot read: "Error finding id"): the vector store is damaged, and
    ``ingest --rebuild`` rebuilds it. None for anything else, and for a Chroma server (its own logs
    say more)."""
    from chromadb.errors import InternalError

    if settings.chroma_url or not isinstance(exc, InternalError):
        return None
    return _damaged_error(settings, exc, set_aside=False)


def _damaged_error(settings: Settings, e: BaseException, set_aside: bool = True) -> PapernotesError:
    from papernotes.retrieval.errors import IndexDamagedError
    from papernotes.retrieval.index_health import repair_command

    command = repair_command(settings, rebuild=True)
    reason = str(e).split(") ", 1)[-1].strip() or type(e).__name__
    return IndexDamagedError(
        f"the vector store of the index ({settings.chroma_dir}) cannot be read ({reason}); "
        f"run `{command}` to rebuild it" + (" (the damaged store is moved aside, not deleted)" if set_aside else "")
    )


def writable(directory: Path) -> bool:
    """Whether ``directory`` and the files directly in it can be written (False on a read-only mount
    or without permission)."""
    if not os.access(directory, os.W_OK):
        return False
    return all(os.access(f, os.W_OK) for f in directory.iterdir() if f.is_file())


def _read_only_copy(settings: Settings) -> Path:
    """A temporary copy of the embedded store, for reading a store that cannot be written (chromadb
    writes to its SQLite file whenever it opens it); removed when the process exits.

    Raises
    ------
    DataDirReadOnlyError
        if the copy cannot be made (no room in the temp dir, an unreadable file).
    """
    try:
        tmp = Path(tempfile.mkdtemp(prefix="papernotes-ro-"))
        atexit.register(shutil.rmtree, tmp, True)
        shutil.copytree(settings.chroma_dir, tmp / "chroma")
        # the copy keeps the originals' modes: made writable, chromadb can open it and the exit can remove it
        for root, _dirs, files in os.walk(tmp):
            os.chmod(root, 0o700)
            for f in files:
                os.chmod(os.path.join(root, f), 0o600)
    except OSError as e:  # no usable temp dir, no room in it, an unreadable file
        raise DataDirReadOnlyError(
            f"the data dir {settings.data_dir} is read-only and its vector store cannot be copied to a temporary "
            f"folder to be read ({e.strerror or e}); make the data dir writable, or point TMPDIR at a writable "
            "folder with room for it"
        ) from None
    return tmp / "chroma"


#: errno values of a full disk, an exhausted quota and a file over the size limit (RLIMIT_FSIZE).
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
_READ_ONLY_ERRNOS = {errno.EROFS, errno.EACCES, errno.EPERM}
_FULL_WORDS = ("disk is full", "no space left", "quota exceeded", "file too large")
_READ_ONLY_WORDS = ("readonly database", "read-only file system", "read-only database", "permission denied")


def storage_error(settings: Settings, exc: BaseException, doing: str) -> PapernotesError | None:
    """The user-facing error for a failed write to the data dir, or None if ``exc`` is something else.

    ``exc`` and its causes/contexts are inspected: ``OSError`` errno values and the messages SQLite and
    chromadb give ("database or disk is full", "attempt to write a readonly database"). ``doing`` says
    what stopped (e.g. ``"ingest"``).

    Returns
    -------
    DataDirFullError or DataDirReadOnlyError (messages name the data dir and the fix), or None.
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        text = str(e).lower()
        code = e.errno if isinstance(e, OSError) else None
        if code in _FULL_ERRNOS or any(w in text for w in _FULL_WORDS):
            return DataDirFullError(
                f"{doing} stopped: the disk of the data dir {settings.data_dir} is full ({_reason(e)}); "
                "the previous index is kept and still answers — free space and run `papernotes ingest` again"
            )
        if code in _READ_ONLY_ERRNOS or any(w in text for w in _READ_ONLY_WORDS):
            return DataDirReadOnlyError(
                f"{doing} stopped: the data dir {settings.data_dir} is read-only ({_reason(e)}); "
                "make it writable, or set PAPERNOTES_DATA_DIR to a writable folder (queries can still read it)"
            )
        e = e.__cause__ or e.__context__
    free = _free_bytes(settings.data_dir)
    if free is not None and free < LOW_SPACE_BYTES:  # chromadb's own words for it vary ("compaction")
        return DataDirFullError(
            f"{doing} stopped: the disk of the data dir {settings.data_dir} is full ({free // 1024} KB free; "
            f"{_reason(exc)}); the previous index is kept and still answers — free space and run "
            "`papernotes ingest` again"
        )
    return None


#: Free space below which a failed write is put down to a full disk (chromadb reports a full disk
#: during compaction as "Failed to apply logs to the metadata segment").
LOW_SPACE_BYTES = 64 * 1024 * 1024


def _free_bytes(directory: Path) -> int | None:
    try:
        return shutil.disk_usage(directory).free
    except OSError:
        return None


def _reason(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror:
        return e.strerror
    return str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__


def vector_store(settings: Settings, embeddings: Embeddings, client=None, create: bool = True) -> Chroma:
    """The LangChain Chroma vector store (cosine space) recording the embedding model's name in the
    collection metadata.

    Raises
    ------
    EmbeddingMismatchError
        if the existing collection was built with another embedding model.
    """
    client = client or make_client(settings)
    name = embedding_name(embeddings)
    existing = {c.name if hasattr(c, "name") else c for c in client.list_collections()}
    if settings.collection in existing:
        meta = client.get_collection(settings.collection).metadata or {}
        built = meta.get("embedding_model")
        if built and built != name:
            raise EmbeddingMismatchError(
                f"the index was built with embedding model {built!r} but {name!r} is configured; "
                f"run `papernotes ingest --rebuild` to re-embed everything with {name!r} "
                f"(or set PAPERNOTES_EMBEDDING_MODEL={built})"
            )
    return Chroma(
        client=client,
        collection_name=settings.collection,
        embedding_function=embeddings,
        collection_metadata={"hnsw:space": "cosine", "embedding_model": name},
        create_collection_if_not_exists=create,
    )


def drop_collection(settings: Settings, client=None) -> None:
    """Delete the collection if it exists (for ``ingest --rebuild``)."""
    client = client or make_client(settings)
    with contextlib.suppress(Exception):
        client.delete_collection(settings.collection)


@contextlib.contextmanager
def write_lock(settings: Settings) -> Iterator[None]:
    """Hold the data dir's single-writer lock (``data_dir/write.lock``, an ``flock`` taken through the
    filelock library; the holder's pid is written into the file for the busy message).

    Raises
    ------
    StoreBusyError
        if another process holds it for more than ``store_lock_timeout`` seconds.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    path = settings.data_dir / "write.lock"
    lock = FileLock(path, timeout=settings.store_lock_timeout, is_singleton=False)
    try:
        lock.acquire()
    except Timeout:
        holder = path.read_text(errors="replace").strip() or "another process"
        raise StoreBusyError(
            f"the store in {settings.data_dir} is being written by {holder}; wait for it to "
            "finish, or use a Chroma server (PAPERNOTES_CHROMA_URL) for several writers"
        ) from None
    try:
        with contextlib.suppress(OSError):
            path.write_text(f"pid {os.getpid()}")
        yield
    finally:
        lock.release()


def lock_held(settings: Settings) -> bool:
    """Whether a writer (an ingest) holds the data dir's write lock now (see :func:`write_lock`).

    Probes with a non-blocking shared ``flock`` released at once, so a starting ingest is never held
    up for more than an instant. False when the lock file is free or does not exist.
    """
    try:
        fd = os.open(settings.data_dir / "write.lock", os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
