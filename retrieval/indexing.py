"""Ingest: read sources → chunks and paper entries → LangChain ``index()`` into Chroma with a SQL record
manager (only new or changed chunks are embedded; chunks of deleted/renamed notes are removed), then
the BM25 side and the catalog are rebuilt from the store's current contents so all three stay in step.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.indexing import index

from papernotes.corpus.catalog import build_catalog, save_catalog
from papernotes.corpus.chunking import PageAnalysis, analyze_page
from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.corpus.models import Page, PaperEntry
from papernotes.corpus.readers import ReadResult, read_source
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.embeddings import make_embeddings, token_counter
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import drop_collection, embedding_name, make_client, vector_store, write_lock
from papernotes.retrieval.terms import TERMS_VERSION

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class IngestReport:
    """Counts from one ingest (the CLI's final line; ``ingest --json``)."""

    sources: list[str] = field(default_factory=list)
    files: int = 0
    files_skipped: int = 0
    pages: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    skipped: int = 0
    deleted: int = 0
    papers: int = 0
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    embedding_model: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _CountingEmbeddings(Embeddings):
    """Delegating embedder that reports progress and counts embedded texts."""

    def __init__(self, inner: Embeddings, total: int, progress: Progress | None):
        self.inner = inner
        self.total = total
        self.progress = progress
        self.embedded = 0
        self.name = embedding_name(inner)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        out = self.inner.embed_documents(texts)
        self.embedded += len(texts)
        if self.progress:
            self.progress("embed", self.embedded, self.total)
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def record_manager(settings: Settings):
    """The LangChain SQL record manager (SQLite under the data dir), schema created."""
    from langchain_classic.indexes import SQLRecordManager

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    # one namespace per store: switching to (or from) a Chroma server starts a fresh record set, so the
    # new store is filled instead of being skipped as "already indexed"
    store = settings.chroma_url.rstrip("/") if settings.chroma_url else "embedded"
    rm = SQLRecordManager(f"chroma:{store}/{settings.collection}", db_url=f"sqlite:///{settings.record_db}")
    rm.create_schema()
    return rm


def _analysis_key(page: Page, sig: str) -> str:
    h = hashlib.sha1()
    for part in (
        sig,
        page.source,
        page.origin,
        page.title,
        page.site_path,
        page.markdown,
        json.dumps(page.tags),
        repr(page.publications),
    ):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()


def _load_pickle(path: Path, version: str) -> dict:
    """A cache dict saved by :func:`_save_pickle` with the same ``version``; else empty."""
    try:
        saved_version, data = pickle.loads(path.read_bytes())
        return data if saved_version == version else {}
    except Exception:  # absent, stale or corrupt: rebuilt
        return {}


def _save_pickle(path: Path, version: str, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps((version, data), protocol=pickle.HIGHEST_PROTOCOL))
    tmp.replace(path)


def _bm25_version() -> str:
    """Hash of the sparse side's code (BM25 index and term rules): a change rebuilds it."""
    h = hashlib.sha1()
    h.update(str(TERMS_VERSION).encode())
    for mod in ("bm25.py", "terms.py"):
        h.update((Path(__file__).parent / mod).read_bytes())
    return h.hexdigest()[:16]


def _catalog_size(settings: Settings) -> int:
    return len(json.loads(settings.catalog_path.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def _parser_version() -> str:
    """Hash of the corpus package's source: a new parser invalidates cached pages and analyses."""
    from papernotes import corpus

    h = hashlib.sha1()
    for f in sorted(Path(corpus.__file__).parent.glob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def analyze_pages(pages: list[Page], settings: Settings, count, cache_path: Path | None) -> list[PageAnalysis]:
    """Chunk every page, reusing cached analyses of unchanged pages (keyed by page content and the
    chunking settings) so a no-op re-ingest does not re-parse."""
    sig = f"{settings.chunk_tokens}|{settings.chunk_overlap}|{settings.site_url}|{settings.embedding_model}"
    cache: dict[str, PageAnalysis] = _load_pickle(cache_path, _parser_version()) if cache_path else {}
    out, fresh = [], {}
    for p in pages:
        key = _analysis_key(p, sig)
        a = cache.get(key)
        if a is None:
            a = analyze_page(
                p,
                count=count,
                max_tokens=settings.chunk_tokens,
                overlap=settings.chunk_overlap,
                site_url=settings.site_url,
            )
        fresh[key] = a
        out.append(a)
    if cache_path:
        _save_pickle(cache_path, _parser_version(), fresh)
    return out


def _entries_path(settings: Settings) -> Path:
    return settings.data_dir / "entries.json"


def _stats_path(settings: Settings) -> Path:
    return settings.data_dir / "sources.json"


def _load_json(path: Path, default):
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    return default


def _save_json(path: Path, data) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)


def ingest(
    settings: Settings,
    sources: list[str] | None = None,
    rebuild: bool = False,
    progress: Progress | None = None,
    embeddings: Embeddings | None = None,
) -> IngestReport:
    """Index sources incrementally.

    Parameters
    ----------
    sources : paths or git URLs; defaults to ``settings.sources``.
    rebuild : drop the collection, record manager, BM25 index and catalog first (needed after changing
        the embedding model).
    progress : called as ``progress(stage, done, total)``; stages ``read``, ``chunk``, ``embed``.

    Returns
    -------
    IngestReport with counts; ``added`` = chunks embedded this run.

    Raises
    ------
    BadInputError if no source is given or configured; BadSourceError for a missing/empty source;
    EmbeddingMismatchError if the index was built with another model; StoreBusyError if another
    process is writing the embedded store.
    """
    sources = list(sources or settings.sources)
    if not sources:
        raise BadInputError("no sources: give one (`papernotes ingest PATH`) or set PAPERNOTES_SOURCES")
    with write_lock(settings):  # one writer: git clones, the parse cache, the store, BM25 and catalog
        return _ingest_locked(settings, sources, rebuild, progress, embeddings)


def _ingest_locked(
    settings: Settings, sources: list[str], rebuild: bool, progress: Progress | None, embeddings: Embeddings | None
) -> IngestReport:
    t0 = time.perf_counter()
    report = IngestReport(sources=sources)
    results: list[ReadResult] = []
    page_cache = _load_pickle(settings.data_dir / "pages.pkl", _parser_version())
    for i, s in enumerate(sources):
        results.append(read_source(s, settings.repos_dir, cache=page_cache))
        if progress:
            progress("read", i + 1, len(sources))
    used = set().union(*(r.cache_used for r in results))
    _save_pickle(settings.data_dir / "pages.pkl", _parser_version(), {k: page_cache[k] for k in used})
    emb = embeddings or make_embeddings(settings)
    report.embedding_model = embedding_name(emb)
    pages = [p for r in results for p in r.pages]
    analyses = analyze_pages(pages, settings, token_counter(emb), settings.data_dir / "analysis.pkl")
    for r in results:
        report.files += r.files_read
        report.files_skipped += r.files_skipped
        report.warnings += [str(w) for w in r.warnings]
    report.pages = len(pages)
    for a in analyses:
        if not a.chunks:
            report.warnings.append(f"{a.page.source}: page {a.page.title!r} has no text to index")
    docs = [Document(page_content=c.text, metadata=c.metadata) for a in analyses for c in a.chunks]
    report.chunks = len(docs)
    # index() embeds in batches of 256 docs and the embedder pads each of its sub-batches to the longest
    # text, so length-sorted docs keep the padding (and the embedding time) at the one-call level
    docs.sort(key=lambda d: len(d.page_content))
    if progress:
        progress("chunk", len(docs), len(docs))

    client = make_client(settings)
    if rebuild:
        drop_collection(settings, client)
        rm = record_manager(settings)
        rm.delete_keys(rm.list_keys())
    counting = _CountingEmbeddings(emb, len(docs), progress)
    store = vector_store(settings, counting, client)
    rm = record_manager(settings)
    res = index(docs, rm, store, cleanup="scoped_full", source_id_key="origin", key_encoder="sha256", batch_size=256)
    report.added, report.updated = res["num_added"], res["num_updated"]
    report.skipped, report.deleted = res["num_skipped"], res["num_deleted"]

    # the sparse side and the catalog follow the store's current contents (all origins); when the
    # store did not change and they were built by this code version, they are already right
    version = _parser_version() + _bm25_version()
    store_changed = rebuild or report.added or report.updated or report.deleted
    marker = settings.bm25_dir / "built-by"
    if store_changed or not marker.is_file() or marker.read_text() != version:
        got = store.get(include=["documents", "metadatas"])
        BM25Index.build(got["ids"], got["documents"], got["metadatas"]).save(settings.bm25_dir)
        marker.write_text(version)
    old_entries = {} if rebuild else _load_json(_entries_path(settings), {})
    entries = dict(old_entries)
    stats = {} if rebuild else _load_json(_stats_path(settings), {})
    for r in results:
        entries[r.origin] = []
        stats[r.origin] = {"files": r.files_read, "files_skipped": r.files_skipped, "pages": len(r.pages)}
    for a in analyses:
        entries[a.page.origin] += [asdict(e) for e in a.entries]
    _save_json(_stats_path(settings), stats)
    if entries != old_entries or not settings.catalog_path.is_file() or store_changed:
        _save_json(_entries_path(settings), entries)
        records = build_catalog(PaperEntry(**e) for es in entries.values() for e in es)
        save_catalog(records, settings.catalog_path)
        report.papers = len(records)
    else:
        report.papers = _catalog_size(settings)
    _save_json(_manifest_path(settings), {"terms_version": TERMS_VERSION})
    report.seconds = time.perf_counter() - t0
    return report


def load_entries(settings: Settings) -> dict[str, list[dict[str, Any]]]:
    """Paper entries per origin, each list in page order (``PaperEntry`` fields as dicts)."""
    return _load_json(_entries_path(settings), {})


def load_source_stats(settings: Settings) -> dict[str, dict[str, int]]:
    """Per-origin file/page counts recorded by the last ingest of each origin."""
    return _load_json(_stats_path(settings), {})


def _manifest_path(settings: Settings) -> Path:
    return settings.data_dir / "index.json"


def ensure_index(settings: Settings) -> None:
    """Check that the data dir holds an index this version of papernotes can query.

    Raises
    ------
    IndexMissingError
        when there is no index yet.
    IndexOutdatedError
        when the index was built with other term rules (:data:`~papernotes.retrieval.terms.TERMS_VERSION`,
        recorded in ``index.json`` by :func:`ingest`): its keyword side would not match the questions'
        terms. The next ``papernotes ingest`` rebuilds it (nothing is re-embedded).
    """
    from papernotes.retrieval.errors import IndexMissingError, IndexOutdatedError

    if not (settings.bm25_dir / "chunks.json").is_file():
        raise IndexMissingError(f"no index in {settings.data_dir}: run `papernotes ingest PATH` first")
    built = _load_json(_manifest_path(settings), {}).get("terms_version")
    if built != TERMS_VERSION:
        was = f"term rules v{built}" if built else "older term rules"
        raise IndexOutdatedError(
            f"the index in {settings.data_dir} was built with {was} (this papernotes uses v{TERMS_VERSION}); "
            "run `papernotes ingest` to update it (nothing is re-embedded)"
        )


__all__ = ["IngestReport", "ingest", "record_manager", "load_source_stats", "ensure_index", "PapernotesError"]
