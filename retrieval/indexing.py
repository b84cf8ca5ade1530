"""Ingest: read sources → chunks and paper entries → LangChain ``index()`` into Chroma with a SQL record
manager (only new or changed chunks are embedded; chunks of deleted/renamed notes are removed), then
the BM25 side and the catalog are rebuilt from the store's current contents so all three stay in step.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import orjson
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.indexing import index

from papernotes.corpus.catalog import save_catalog
from papernotes.corpus.errors import BadInputError, BadSourceError, PapernotesError
from papernotes.corpus.files import note_files
from papernotes.corpus.models import PaperEntry, Warning_
from papernotes.corpus.readers import ReadResult, is_git_url, read_source
from papernotes.retrieval.catalog_parts import PartCache, merge_catalog
from papernotes.retrieval.chunk_vectors import VECTORS_FILE
from papernotes.retrieval.collector import full_collections_deferred
from papernotes.retrieval.embeddings import make_embeddings, token_counter
from papernotes.retrieval.index_health import (
    catalog_readable,
    ensure_index,
    file_sha1,
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
    bm25_version,
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
from papernotes.retrieval.ingest_report import CountingEmbeddings, IngestReport, Progress
from papernotes.retrieval.json_load import collector_paused
from papernotes.retrieval.origin_state import (
    fingerprint,
    load_origins,
    new_record,
    origin_of,
    reuse_check,
    save_origins,
)
from papernotes.retrieval.page_analysis import analyze_pages, chunk_signature, page_key, parser_version
from papernotes.retrieval.parse_cache import CacheView, ParseCache
from papernotes.retrieval.record_manager import INDEX_BATCH, doc_group, index_batch_size, record_manager
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import (
    drop_collection,
    embedding_name,
    make_client,
    storage_error,
    store_internal_error,
    vector_store,
    write_lock,
)
from papernotes.retrieval.terms import TERMS_VERSION


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
    # a source given twice (or by two paths to one folder) is one source: read, counted and indexed once
    sources = list({origin_of(s): s for s in (sources or settings.sources)}.values())
    if not sources:
        raise BadInputError("no sources: give one (`papernotes ingest PATH`) or set PAPERNOTES_SOURCES")
    try:
        # one writer: git clones, the parse cache, the store, BM25 and catalog; the collector leaves the
        # index's long-lived objects alone meanwhile (collector.py)
        with write_lock(settings), full_collections_deferred():
            return _ingest_locked(settings, sources, rebuild, progress, embeddings, follow_external_links)
    except PapernotesError:
        raise
    except Exception as e:  # a failed write to the data dir becomes one line naming it and the fix
        translated = storage_error(settings, e, "ingest") or store_internal_error(settings, e)
        if translated is None:
            raise
        raise translated from e


def _emptied(source: str, origin: str, settings: Settings, follow_external_links: bool) -> ReadResult | None:
    """What to read of a local folder that an earlier ingest indexed and that now holds no notes at all
    (every note deleted; nothing skipped, unreadable or left behind a link): an empty read, so its
    chunks and papers are removed as a deleted note's are, with a warning saying so. None otherwise (a
    folder never indexed, a missing one, one whose notes cannot be read now: the usual error)."""
    path = Path(source).expanduser()
    if is_git_url(source) or not path.is_dir() or origin not in load_origins(settings, parser_version()):
        return None
    walk = note_files(path, follow_external_links)
    if walk.files or walk.warnings or walk.unlisted or walk.links_skipped:
        return None
    out = ReadResult(origin=origin)
    out.warnings.append(Warning_(source, "holds no notes now: what was indexed from it is removed"))
    return out


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
        else reuse_check(settings, parser_version(), partial(record_manager, settings), _entries_path(settings))
    )
    prior = early.prior if early else {}
    context = f"{parser_version()}|{chunk_signature(settings)}|{follow_external_links}"
    once = {o for o, n in Counter(origin_of(s) for s in sources).items() if n == 1}
    fps: dict[str, str | None] = {}
    reused: dict[str, dict[str, Any]] = {}
    pages_store = ParseCache(settings.data_dir / "pages.sqlite", parser_version())
    page_cache = CacheView(pages_store)  # values unpickled only for the files read
    for i, s in enumerate(sources):
        origin = origin_of(s)
        fps[origin] = fp = fingerprint(s, context) if origin in once else None
        rec = prior.get(origin)
        if fp is not None and rec is not None and rec.get("fingerprint") == fp:
            reused[origin] = rec
        else:
            try:
                results.append(
                    read_source(s, settings.repos_dir, cache=page_cache, follow_external_links=follow_external_links)
                )
            except BadSourceError:
                emptied = _emptied(s, origin, settings, follow_external_links)
                if emptied is None:
                    raise
                results.append(emptied)
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
    sigs = signatures(zip(page_groups, keys, strict=True), parser_version())
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
    # a file that cannot be read now (a permission, a lock) is not gone: its groups keep their chunks
    # (when the last ingest finished: a rebuild or a resumed one starts from what can be read)
    unreadable = {r.origin: r.unreadable for r in results if r.unreadable} if early else {}
    for g, (o, sig) in (early.state if early else {}).items():
        if o in unreadable and _under(g.split("\n", 1)[1], unreadable[o]):
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
    for origin, prefixes in unreadable.items():  # ... and its paper entries stay in the catalog
        kept = [
            e for e in (early.entries if early else {}).get(origin, []) if _under(str(e.get("source", "")), prefixes)
        ]
        new_entries[origin] += kept
        new_ids[origin] += [_entry_id(e) for e in kept]
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

    client = early.client if early else make_client(settings, set_aside_damaged=rebuild)
    if rebuild:
        start_marker(settings, sources, rebuild=True)
        drop_collection(settings, client)
        rm = record_manager(settings)
        rm.delete_keys(rm.list_keys())
    counting = CountingEmbeddings(emb, 0, progress)
    store = vector_store(settings, counting, client)  # raises before any write if the model differs
    if not rebuild:
        start_marker(settings, sources)
    rm = early.rm if early else record_manager(settings)
    old_entries = early.entries if early else ({} if rebuild else load_json_safe(_entries_path(settings)) or {})
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
            source_id_key=doc_group,
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
    version = parser_version() + bm25_version()
    store_changed = rebuild or report.added or report.updated or report.deleted or bool(report.repaired)
    if agreed is not None and not store_changed:
        held = agreed
    elif agreed is not None and not full and not report.repaired:
        held = (agreed - changed_before) | set(keys_of(rm, dirty))
    else:
        held = set(store.get(include=[])["ids"])
    saved = load_json_safe(settings.bm25_dir / "chunks.json")
    saved_ids = saved["ids"] if saved and isinstance(saved.get("ids"), list) else None
    held_bm25 = set(saved_ids) if saved_ids is not None else None
    if held_bm25 is None and not rebuild and manifest_path(settings).is_file():  # an index was built before
        report.repaired.append("keyword index rebuilt (it was missing or unreadable)")
    elif held_bm25 is not None and not store_changed and held_bm25 != held:
        report.repaired.append(f"keyword index rebuilt (it held {len(held_bm25)} chunks, the vector store {len(held)})")
    elif saved_ids is not None and not store_changed and not _bm25_loads(settings, saved_ids):
        report.repaired.append("keyword index rebuilt (a file of it was unreadable)")  # a truncated terms.npz
    marker = settings.bm25_dir / "built-by"
    if (
        store_changed
        or report.repaired
        or not marker.is_file()
        or marker.read_text() != version
        or not (settings.bm25_dir / VECTORS_FILE).is_file()  # an index from before the vectors file
    ):
        t = time.perf_counter()
        patched = (
            not full and not report.repaired and patch_bm25(settings, saved, store, rm, dirty | stale, held, version)
        )
        if not patched:
            rebuild_bm25(settings, store, version)
        stages["bm25"] = time.perf_counter() - t
    del saved
    entries = dict(old_entries)
    stats = {} if rebuild else load_json_safe(stats_path(settings)) or {}  # garbled: rebuilt from what is read
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
    # changed, catalog_parts.py) or the code that merges them did (the same entries make another
    # catalog); its warnings (papers sharing a link) are kept in index.json, so every ingest reports them
    t = time.perf_counter()
    merged_by = parser_version()
    if entries != old_entries or not catalog_ok or not isinstance(cached, dict) or cached.get("parser") != merged_by:
        catalog_warnings: list[str] = []
        with collector_paused():  # tens of thousands of live objects made at once (json_load.py)
            listed = [
                (i, PaperEntry(**e))
                for origin, es in entries.items()
                for i, e in zip(new_ids.get(origin) or [_entry_id(e) for e in es], es, strict=True)
            ]
            records, _ = merge_catalog(
                listed, PartCache(settings.data_dir / "catalog-parts.json", parser_version()), catalog_warnings
            )
            save_json(_entries_path(settings), entries)
            save_catalog(records, settings.catalog_path)
        cached = {
            "papers": len(records),
            "warnings": catalog_warnings,
            "sha1": file_sha1(settings.catalog_path),
            "parser": merged_by,
        }
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
        o: r for o, r in load_origins(settings, parser_version()).items() if o in entries and o not in origin_recs
    }
    save_origins(settings, parser_version(), {**others, **origin_recs})
    marker_path(settings).unlink(missing_ok=True)
    report.seconds = time.perf_counter() - t0
    report.stages = {k: round(v, 3) for k, v in stages.items()}
    return report


def _bm25_loads(settings: Settings, ids: list[str]) -> bool:
    """True when the keyword index's files load whole for its chunks ``ids`` (as ``chunks.json`` lists
    them; each file opened as a query opens it: about 25 ms at 2k chunks); False for a damaged one: a
    truncated, overwritten or deleted ``terms.npz`` or ``vectors.npy`` (which queries would otherwise
    work around on every load, by re-tokenizing every chunk or by asking the store)."""
    from papernotes.retrieval.chunk_vectors import load_vectors
    from papernotes.retrieval.term_matrix import TermMatrix

    if not ids:
        return True
    try:
        matrix = TermMatrix.load(settings.bm25_dir / "terms.npz")
        vectors = load_vectors(settings.bm25_dir, ids, mmap=True)
    except Exception:  # any damage: zip, numpy or I/O errors alike
        return False
    return matrix is not None and len(matrix) == len(ids) and vectors is not None


def _under(source: str, paths: list[str]) -> bool:
    """True when ``source`` (a page's source, ``"notes/a.md"`` or ``"notes/dump.txt#page"``) is one of
    ``paths`` (files) or inside one of them (folders)."""
    file = source.split("#", 1)[0]
    return any(file == p or file.startswith(p.rstrip("/") + "/") for p in paths)


def _entry_id(entry: dict[str, Any]) -> str:
    """The catalog id of a paper entry kept from an earlier ingest (an origin not read this time): a
    SHA-1 hex digest of its fields."""
    return hashlib.sha1(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS)).hexdigest()


def load_entries(settings: Settings) -> dict[str, list[dict[str, Any]]]:
    """Paper entries per origin, each list in page order (``PaperEntry`` fields as dicts)."""
    return load_json_safe(_entries_path(settings)) or {}


__all__ = [
    "INDEX_BATCH",
    "IngestReport",
    "Progress",
    "analyze_pages",
    "chunk_signature",
    "page_key",
    "ingest",
    "record_manager",
    "load_source_stats",
    "ensure_index",
    "unfinished_ingest",
    "repair_command",
    "PapernotesError",
]
