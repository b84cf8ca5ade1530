"""Ingest: read sources → chunks and paper entries → LangChain ``index()`` into Chroma with a SQL record
manager (only new or changed chunks are embedded; chunks of deleted/renamed notes are removed), then
the BM25 side and the catalog are rebuilt from the store's current contents so all three stay in step.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import orjson
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.indexing import index
from sqlalchemy import event

from papernotes.corpus.catalog import save_catalog
from papernotes.corpus.chunking import PageAnalysis, analyze_page
from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.corpus.models import Page, PaperEntry
from papernotes.corpus.readers import ReadResult, read_source
from papernotes.retrieval.catalog_parts import PartCache, merge_catalog
from papernotes.retrieval.embeddings import make_embeddings, token_counter
from papernotes.retrieval.index_health import (
    catalog_readable,
    ensure_index,
    file_sha1,
    load_json,
    load_json_safe,
    load_source_stats,
    manifest_path,
    marker_path,
    reconcile_records,
    records_agree,
    repair_command,
    save_json,
    start_marker,
    stats_path,
    unfinished_ingest,
)
from papernotes.retrieval.index_update import (
    RECORD_GROUPS,
    delete_groups,
    entry_dict,
    group_of,
    keys_of,
    load_state,
    patch_bm25,
    rebuild_bm25,
    save_state,
    signatures,
)
from papernotes.retrieval.json_load import collector_paused
from papernotes.retrieval.origin_state import (
    fingerprint,
    load_origins,
    new_record,
    origin_of,
    reuse_check,
    save_origins,
)
from papernotes.retrieval.parse_cache import CacheView, LazyList, ParseCache
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import (
    drop_collection,
    embedding_name,
    make_client,
    storage_error,
    vector_store,
    write_lock,
)
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
    #: what the consistency check found and repaired (record manager, vector store, keyword index,
    #: catalog), one phrase each; empty when all parts agreed
    repaired: list[str] = field(default_factory=list)
    #: hidden folders and files not read (``.obsidian``, ``.trash``, ``.git``, …)
    hidden_skipped: int = 0
    #: the unfinished ingest this one completed (its start time, UTC ISO), if any
    resumed: str | None = None
    #: seconds per stage: ``read`` (files and git), ``chunk``, ``index`` (embed, write, record; ``embed``
    #: is its time inside the embedder), ``bm25`` and ``catalog`` (rebuilds; absent when not needed)
    stages: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _CountingEmbeddings(Embeddings):
    """Delegating embedder that reports progress and counts embedded texts."""

    def __init__(self, inner: Embeddings, total: int, progress: Progress | None):
        self.inner = inner
        self.total = total
        self.progress = progress
        self.embedded = 0
        self.seconds = 0.0
        self.name = embedding_name(inner)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        t = time.perf_counter()
        out = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - t
        self.embedded += len(texts)
        if self.progress:
            self.progress("embed", self.embedded, self.total)
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def record_manager(settings: Settings):
    """The LangChain SQL record manager (SQLite under the data dir), schema created."""
    # the module itself: the package's __init__ also imports its vector-store index helpers and their
    # chains (about 0.2 s more on an ingest's path)
    from langchain_classic.indexes._sql_record_manager import SQLRecordManager

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    # one namespace per store: switching to (or from) a Chroma server starts a fresh record set, so the
    # new store is filled instead of being skipped as "already indexed"
    store = settings.chroma_url.rstrip("/") if settings.chroma_url else "embedded"
    rm = SQLRecordManager(f"chroma:{store}/{settings.collection}", db_url=f"sqlite:///{settings.record_db}")
    event.listen(rm.engine, "connect", _sqlite_pragmas)
    rm.create_schema()
    return rm


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    """Write-ahead log with ``synchronous=NORMAL`` on each record-manager connection: one fsync per
    checkpoint instead of one per transaction (``index()`` commits once per batch), still crash-safe
    (https://www.sqlite.org/wal.html)."""
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


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


def _bm25_version() -> str:
    """Hash of the sparse side's code (BM25 index and term rules): a change rebuilds it."""
    h = hashlib.sha1()
    h.update(str(TERMS_VERSION).encode())
    for mod in ("bm25.py", "term_matrix.py", "terms.py"):
        h.update((Path(__file__).parent / mod).read_bytes())
    return h.hexdigest()[:16]


@lru_cache(maxsize=1)
def _parser_version() -> str:
    """Hash of the corpus package's source: a new parser invalidates cached pages and analyses."""
    from papernotes import corpus

    h = hashlib.sha1()
    for f in sorted(Path(corpus.__file__).parent.glob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def chunk_signature(settings: Settings) -> str:
    """The chunking settings a page's analysis depends on, as one string (part of :func:`page_key`)."""
    return f"{settings.chunk_tokens}|{settings.chunk_overlap}|{settings.site_url}|{settings.embedding_model}"


def page_key(page: Page, settings: Settings) -> str:
    """A page's content key (SHA-1 hex of its fields and the chunking settings): equal keys, equal chunks."""
    return _analysis_key(page, chunk_signature(settings))


def analyze_pages(
    pages: list[Page],
    settings: Settings,
    count,
    cache_path: Path | None,
    keys: list[str] | None = None,
    keep: set[str] | None = None,
) -> list[PageAnalysis]:
    """Chunk every page, reusing cached analyses of unchanged pages (keyed by page content and the
    chunking settings, :func:`page_key`; ``keys`` gives them when the caller has them already) so a
    no-op re-ingest does not re-parse.

    The cache is two :class:`~papernotes.retrieval.parse_cache.ParseCache` files written only for the
    keys that changed: ``cache_path`` holds each page's paper entries and chunk count, read whole, and
    ``<cache_path stem>-chunks.sqlite`` its chunks, read only when a cached page's chunks are used
    (:class:`~papernotes.retrieval.parse_cache.LazyList`): an ingest that re-indexes a few sources reads
    only their chunks. Only the heads of ``pages`` are read; ``keep`` names further cached keys to keep
    (the pages of origins not read this time)."""
    sig = chunk_signature(settings)
    if keys is None:
        keys = [_analysis_key(p, sig) for p in pages]
    heads = ParseCache(cache_path, _parser_version()) if cache_path else None
    bodies = (
        ParseCache(cache_path.with_name(cache_path.stem + "-chunks.sqlite"), _parser_version()) if cache_path else None
    )
    cached: dict[str, tuple[list[PaperEntry], bool, int]] = {}
    if heads is not None:
        heads.load_keys()
        cached = heads.get_many(keys)
    have_bodies = bodies.load_keys() if bodies else set()
    out: list[PageAnalysis] = []
    fresh_heads: dict[str, tuple[list[PaperEntry], bool, int]] = {}
    fresh_bodies: dict[str, Any] = {}
    for p, key in zip(pages, keys, strict=True):
        head = cached.get(key)
        if head is not None and bodies is not None and key in have_bodies:
            entries, deep, n = head
            a = PageAnalysis(p, LazyList(n, partial(bodies.get, key)), entries, deep)
        else:
            a = analyze_page(
                p,
                count=count,
                max_tokens=settings.chunk_tokens,
                overlap=settings.chunk_overlap,
                site_url=settings.site_url,
            )
        fresh_heads[key] = (a.entries, a.is_deep_note, len(a.chunks))
        fresh_bodies[key] = a.chunks
        out.append(a)
    if heads is not None and bodies is not None:
        kept = set(keep or ())
        bodies.save_keys(kept | fresh_bodies.keys(), fresh_bodies)  # chunks first: a head needs its chunks
        heads.save_keys(kept | fresh_heads.keys(), fresh_heads)
    return out


def _entries_path(settings: Settings) -> Path:
    return settings.data_dir / "entries.json"


def ingest(
    settings: Settings,
    sources: list[str] | None = None,
    rebuild: bool = False,
    progress: Progress | None = None,
    embeddings: Embeddings | None = None,
    follow_external_links: bool = False,
) -> IngestReport:
    """Index sources incrementally, checking and repairing the index on the way.

    Before writing, an in-progress marker is left in the data dir (see :func:`unfinished_ingest`);
    it is removed when the ingest completes, so an ingest that is killed leaves it for the next
    command to report. Every ingest compares the record manager with the vector store (ids, per
    origin), embeds what is recorded but missing, re-records vectors the records lost, deletes
    orphans, and rebuilds the keyword index and the catalog when they disagree with the store or are
    missing; ``IngestReport.repaired`` says what was repaired.

    Parameters
    ----------
    sources : paths or git URLs; defaults to ``settings.sources``.
    rebuild : drop the collection, record manager, BM25 index and catalog first (needed after changing
        the embedding model).
    progress : called as ``progress(stage, done, total)``; stages ``read``, ``chunk``, ``embed``.
    follow_external_links : also follow symbolic links that lead outside a source folder.

    Returns
    -------
    IngestReport with counts; ``added`` = chunks embedded this run.

    Raises
    ------
    BadInputError if no source is given or configured; BadSourceError for a missing/empty source;
    EmbeddingMismatchError if the index was built with another model; StoreBusyError if another
    process is writing the embedded store; DataDirFullError when the data dir's disk fills up (the
    previous index stays usable; the next ingest completes); DataDirReadOnlyError when the data dir
    cannot be written.
    """
    sources = list(sources or settings.sources)
    if not sources:
        raise BadInputError("no sources: give one (`papernotes ingest PATH`) or set PAPERNOTES_SOURCES")
    try:
        with write_lock(settings):  # one writer: git clones, the parse cache, the store, BM25 and catalog
            return _ingest_locked(settings, sources, rebuild, progress, embeddings, follow_external_links)
    except PapernotesError:
        raise
    except Exception as e:  # a failed write to the data dir becomes one line naming it and the fix
        translated = storage_error(settings, e, "ingest")
        if translated is None:
            raise
        raise translated from e


def _ingest_locked(
    settings: Settings,
    sources: list[str],
    rebuild: bool,
    progress: Progress | None,
    embeddings: Embeddings | None,
    follow_external_links: bool = False,
) -> IngestReport:
    t0 = time.perf_counter()
    stages: dict[str, float] = {}
    report = IngestReport(sources=sources)
    previous = load_json_safe(marker_path(settings))
    if previous is not None:
        report.resumed = str(previous.get("started", "")) or None
    results: list[ReadResult] = []
    for legacy in ("pages.pkl", "analysis.pkl"):  # the caches' earlier format
        (settings.data_dir / legacy).unlink(missing_ok=True)
    # an origin whose files are unchanged since the last ingest (origin_state.py) is not read: what that
    # ingest made of it is reused, when the index's parts agree and nothing was left unfinished
    early = (
        None
        if rebuild or previous is not None
        else reuse_check(settings, _parser_version(), partial(record_manager, settings), _entries_path(settings))
    )
    prior = early.prior if early else {}
    context = f"{_parser_version()}|{chunk_signature(settings)}|{follow_external_links}"
    once = {o for o, n in Counter(origin_of(s) for s in sources).items() if n == 1}
    fps: dict[str, str | None] = {}
    reused: dict[str, dict[str, Any]] = {}
    pages_store = ParseCache(settings.data_dir / "pages.sqlite", _parser_version())
    page_cache = CacheView(pages_store)  # values unpickled only for the files read
    for i, s in enumerate(sources):
        origin = origin_of(s)
        fps[origin] = fp = fingerprint(s, context) if origin in once else None
        rec = prior.get(origin)
        if fp is not None and rec is not None and rec.get("fingerprint") == fp:
            reused[origin] = rec
        else:
            results.append(
                read_source(s, settings.repos_dir, cache=page_cache, follow_external_links=follow_external_links)
            )
        if progress:
            progress("read", i + 1, len(sources))
    used = set().union(*(r.cache_used for r in results), *(rec["file_keys"] for rec in reused.values()))
    page_cache.close()
    pages_store.save_keys(used, page_cache.fresh)
    del page_cache
    t_read = time.perf_counter()
    emb = embeddings or make_embeddings(settings)
    report.embedding_model = embedding_name(emb)
    pages = [p for r in results for p in r.pages]
    keys = [page_key(p, settings) for p in pages]
    kept_keys = {k for rec in reused.values() for k in rec["page_keys"]}
    analyses = analyze_pages(
        pages, settings, token_counter(emb), settings.data_dir / "analysis.sqlite", keys, kept_keys
    )
    # each source's signature (its pages' content keys): only sources whose signature changed are indexed
    page_groups = [group_of({"origin": p.origin, "source": p.source}) for p in pages]
    sigs = signatures(zip(page_groups, keys, strict=True), _parser_version())
    group_origin = {g: p.origin for g, p in zip(page_groups, pages, strict=True)}
    for r in results:
        report.files += r.files_read
        report.files_skipped += r.files_skipped
        report.hidden_skipped += len(r.hidden_skipped)
        report.warnings += [str(w) for w in r.warnings]
    for rec in reused.values():
        report.files += rec["files"]
        report.files_skipped += rec["files_skipped"]
        report.hidden_skipped += rec["hidden_skipped"]
        report.warnings += rec["read_warnings"]
    report.pages = len(pages) + sum(rec["pages"] for rec in reused.values())
    for a in analyses:
        if not a.chunks:
            report.warnings.append(f"{a.page.source}: page {a.page.title!r} has no text to index")
    for rec in reused.values():
        report.warnings += rec["empty_warnings"]
    with_chunks = {g for g, a in zip(page_groups, analyses, strict=True) if a.chunks}
    for g, (o, sig) in (early.state if early and reused else {}).items():
        if o in reused:  # a reused origin's groups with chunks, as the last ingest left them
            with_chunks.add(g)
            sigs[g], group_origin[g] = sig, o
    report.chunks = sum(len(a.chunks) for a in analyses) + sum(rec["chunks"] for rec in reused.values())
    # what the catalog and sources.json need of this ingest, so the pages and analyses can go before
    # the writes (the index and the keyword index hold their own copies of the texts)
    new_stats: dict[str, dict[str, Any]] = {}
    new_entries: dict[str, list[dict[str, Any]]] = {}
    new_ids: dict[str, list[str]] = {}  # each entry's id for the catalog's part cache: its page's key and place
    origin_recs: dict[str, dict[str, Any]] = dict(reused)
    for r in results:
        new_entries[r.origin] = []
        new_ids[r.origin] = []
        new_stats[r.origin] = {
            "files": r.files_read,
            "files_skipped": r.files_skipped,
            "pages": len(r.pages),
            "warnings": [str(w) for w in r.warnings],
        }
        origin_recs[r.origin] = new_record(r, fps.get(r.origin))
        origin_recs[r.origin]["entry_ids"] = new_ids[r.origin]
    for a, key in zip(analyses, keys, strict=True):
        rec = origin_recs[a.page.origin]
        new_entries[a.page.origin] += [entry_dict(e) for e in a.entries]
        new_ids[a.page.origin] += [f"{key}:{i}" for i in range(len(a.entries))]
        rec["chunks"] += len(a.chunks)
        rec["page_keys"].append(key)
        if not a.chunks:
            empty = f"{a.page.source}: page {a.page.title!r} has no text to index"
            new_stats[a.page.origin]["warnings"].append(empty)
            rec["empty_warnings"].append(empty)
    for origin, rec in reused.items():
        new_ids[origin] = rec["entry_ids"]
        new_stats[origin] = {
            "files": rec["files"],
            "files_skipped": rec["files_skipped"],
            "pages": rec["pages"],
            "warnings": rec["read_warnings"] + rec["empty_warnings"],
        }
    origins_now = set(new_stats)
    if progress:
        progress("chunk", report.chunks, report.chunks)
    t_chunk = time.perf_counter()

    client = early.client if early else make_client(settings)
    if rebuild:
        start_marker(settings, sources)
        drop_collection(settings, client)
        rm = record_manager(settings)
        rm.delete_keys(rm.list_keys())
    counting = _CountingEmbeddings(emb, 0, progress)
    store = vector_store(settings, counting, client)  # raises before any write if the model differs
    if not rebuild:
        start_marker(settings, sources)
    rm = early.rm if early else record_manager(settings)
    old_entries = early.entries if early else ({} if rebuild else load_json(_entries_path(settings), {}))
    manifest = {} if rebuild else (load_json_safe(manifest_path(settings)) or {})
    state = early.state if early else ({} if rebuild else load_state(settings, rm.namespace))
    agreed = early.agreed if early else (None if rebuild else records_agree(store, rm))
    # a full pass hashes every chunk through index() (and reads the store's metadata to reconcile): on the
    # first ingest, after an unfinished one, when the parts disagree or the records are grouped otherwise
    full = (
        rebuild
        or not agreed  # the parts disagree, or the store is empty
        or previous is not None
        or not state
        or manifest.get("record_groups") != RECORD_GROUPS
    )
    lost: dict[str, int] = {}
    assert not (full and reused), "origins are reused only when the parts agree"
    if full:
        by_origin = {o: [g for g, (og, _) in state.items() if og == o] for o in origins_now | set(old_entries)}
        metas, lost = reconcile_records(store, rm, by_origin, report)
        mine = {i: m for i, m in metas.items() if m.get("origin") in origins_now}
        if mine and manifest.get("record_groups") != RECORD_GROUPS:  # records grouped by origin: regrouped
            rm.update(list(mine), group_ids=[group_of(m) for m in mine.values()])
        stale = {group_of(m) for m in mine.values()} - with_chunks
        dirty = with_chunks
    else:
        stale = {g for g, (o, _) in state.items() if o in origins_now} - with_chunks
        dirty = {g for g in with_chunks if state.get(g, ["", ""])[1] != sigs[g]}
    stages["read"], stages["chunk"] = t_read - t0, t_chunk - t_read
    t = time.perf_counter()
    # the changed groups' records before this ingest: with their records after it, the store's ids
    # follow from the ids it held at the start without reading them all again
    changed_before = set() if full else set(keys_of(rm, dirty | stale))
    report.deleted = delete_groups(rm, store, stale)
    docs = [
        Document(page_content=c.text, metadata=c.metadata)
        for g, a in zip(page_groups, analyses, strict=True)
        if g in dirty
        for c in a.chunks
    ]
    del results, pages, analyses
    counting.total = len(docs)
    # index() embeds in batches and the embedder pads each of its sub-batches to the longest text, so
    # length-sorted docs keep the padding (and the embedding time) at the one-call level
    docs.sort(key=lambda d: len(d.page_content))
    report.skipped = report.chunks - len(docs)
    if docs:
        res = index(
            docs,
            rm,
            store,
            cleanup="scoped_full",
            source_id_key=_doc_group,
            key_encoder="sha256",
            batch_size=index_batch_size(client),
        )
        report.added, report.updated = res["num_added"], res["num_updated"]
        report.skipped += res["num_skipped"]
        report.deleted += res["num_deleted"]
    del docs
    stages["index"] = time.perf_counter() - t
    stages["embed"] = counting.seconds
    for origin, n in sorted(lost.items()):
        if origin not in origins_now:
            report.warnings.append(
                f"{origin}: {n} of its chunks were missing from the vector store; "
                f"run `papernotes ingest {origin}` to restore them"
            )

    # the sparse side follows the store's current contents (all origins): patched with the changed
    # sources' chunks, rebuilt from the store when it cannot be patched; when the store did not change,
    # it was built by this code version and it holds the store's ids, it is already right
    version = _parser_version() + _bm25_version()
    store_changed = rebuild or report.added or report.updated or report.deleted or bool(report.repaired)
    if agreed is not None and not store_changed:
        held = agreed
    elif agreed is not None and not full and not report.repaired:
        held = (agreed - changed_before) | set(keys_of(rm, dirty))
    else:
        held = set(store.get(include=[])["ids"])
    saved = load_json_safe(settings.bm25_dir / "chunks.json")
    held_bm25 = set(saved["ids"]) if saved and isinstance(saved.get("ids"), list) else None
    if held_bm25 is None and not rebuild and manifest_path(settings).is_file():  # an index was built before
        report.repaired.append("keyword index rebuilt (it was missing or unreadable)")
    elif held_bm25 is not None and not store_changed and held_bm25 != held:
        report.repaired.append(f"keyword index rebuilt (it held {len(held_bm25)} chunks, the vector store {len(held)})")
    marker = settings.bm25_dir / "built-by"
    if store_changed or report.repaired or not marker.is_file() or marker.read_text() != version:
        t = time.perf_counter()
        patched = (
            not full and not report.repaired and patch_bm25(settings, saved, store, rm, dirty | stale, held, version)
        )
        if not patched:
            rebuild_bm25(settings, store, version)
        stages["bm25"] = time.perf_counter() - t
    del saved
    entries = dict(old_entries)
    stats = {} if rebuild else load_json(stats_path(settings), {})
    for origin in [o for o in entries if o not in origins_now]:
        if not store.get(where={"origin": origin}, limit=1, include=[])["ids"]:
            del entries[origin]  # nothing of it is left in the store (the warning above says how to restore it)
            stats.pop(origin, None)
    entries.update(new_entries)
    stats.update(new_stats)
    save_json(stats_path(settings), stats)
    cached = manifest.get("catalog")
    catalog_ok = catalog_readable(settings, cached.get("sha1") if isinstance(cached, dict) else None)
    if not catalog_ok and not rebuild and old_entries:
        report.repaired.append("paper catalog rebuilt (it was missing or unreadable)")
    # the catalog is merged from every origin's entries when they changed (only the parts whose entries
    # changed, catalog_parts.py); its warnings (papers sharing a link) are kept in index.json, so every
    # ingest reports them
    t = time.perf_counter()
    if entries != old_entries or not catalog_ok or not isinstance(cached, dict):
        catalog_warnings: list[str] = []
        with collector_paused():  # tens of thousands of live objects made at once (json_load.py)
            listed = [
                (i, PaperEntry(**e))
                for origin, es in entries.items()
                for i, e in zip(new_ids.get(origin) or [_entry_id(e) for e in es], es, strict=True)
            ]
            records, _ = merge_catalog(
                listed, PartCache(settings.data_dir / "catalog-parts.json", _parser_version()), catalog_warnings
            )
            save_json(_entries_path(settings), entries)
            save_catalog(records, settings.catalog_path)
        cached = {"papers": len(records), "warnings": catalog_warnings, "sha1": file_sha1(settings.catalog_path)}
        stages["catalog"] = time.perf_counter() - t
    report.warnings += [f"catalog: {w}" for w in cached["warnings"]]
    report.papers = int(cached["papers"])
    new_state = {g: v for g, v in state.items() if v[0] not in origins_now}
    new_state.update({g: [group_origin[g], sigs[g]] for g in with_chunks})
    save_state(settings, rm.namespace, new_state)
    save_json(
        manifest_path(settings),
        {"terms_version": TERMS_VERSION, "record_groups": RECORD_GROUPS, "catalog": cached},
    )
    # the origins not given this time keep their records while their chunks stay (as their entries do)
    others = {
        o: r for o, r in load_origins(settings, _parser_version()).items() if o in entries and o not in origin_recs
    }
    save_origins(settings, _parser_version(), {**others, **origin_recs})
    marker_path(settings).unlink(missing_ok=True)
    report.seconds = time.perf_counter() - t0
    report.stages = {k: round(v, 3) for k, v in stages.items()}
    return report


def _entry_id(entry: dict[str, Any]) -> str:
    """The catalog id of a paper entry kept from an earlier ingest (an origin not read this time): a
    SHA-1 hex digest of its fields."""
    return hashlib.sha1(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _doc_group(doc: Document) -> str:
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


def load_entries(settings: Settings) -> dict[str, list[dict[str, Any]]]:
    """Paper entries per origin, each list in page order (``PaperEntry`` fields as dicts)."""
    return load_json(_entries_path(settings), {})


__all__ = [
    "IngestReport",
    "ingest",
    "record_manager",
    "load_source_stats",
    "ensure_index",
    "unfinished_ingest",
    "repair_command",
    "PapernotesError",
]
