"""The Chroma store: embedded ``PersistentClient`` under the data dir by default, ``HttpClient`` when
``PAPERNOTES_CHROMA_URL`` is set; the LangChain vector store over it; the embedding-model guard and the
single-writer lock of the embedded store."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlparse

from langchain_chroma import Chroma
from langchain_core.embeddings import Embeddings

from papernotes.retrieval.errors import EmbeddingMismatchError, StoreBusyError, StoreUnavailableError
from papernotes.retrieval.settings import Settings

os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")


def embedding_name(embeddings: Embeddings) -> str:
    """The name recorded with the index for an embedder (``all-MiniLM-L6-v2``, ``openai:MODEL``)."""
    name = getattr(embeddings, "name", None)
    if name:
        return str(name)
    return f"openai:{getattr(embeddings, 'model', type(embeddings).__name__)}"


def make_client(settings: Settings):
    """A chromadb client: HttpClient for ``chroma_url``, else PersistentClient at ``data_dir/chroma``.

    Raises
    ------
    StoreUnavailableError
        if the Chroma server cannot be reached.
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
    return chromadb.PersistentClient(path=str(settings.chroma_dir), settings=cs)


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
    """Hold the data dir's single-writer lock (an ``flock`` on ``data_dir/write.lock``).

    Raises
    ------
    StoreBusyError
        if another process holds it for more than ``store_lock_timeout`` seconds.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    path = settings.data_dir / "write.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    deadline = time.monotonic() + settings.store_lock_timeout
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = Path(path).read_text(errors="replace").strip() or "another process"
                    raise StoreBusyError(
                        f"the store in {settings.data_dir} is being written by {holder}; wait for it to "
                        "finish, or use a Chroma server (PAPERNOTES_CHROMA_URL) for several writers"
                    ) from None
                time.sleep(0.1)
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()}".encode())
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
