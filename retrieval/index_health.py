"""The health of a data dir's index: which parts it holds and whether they agree, an ingest that did
not finish, the command that repairs it, and the JSON files ingest keeps beside the stores
(``sources.json`` per-source stats, ``index.json`` manifest, ``ingest-in-progress.json`` marker).
Used by :mod:`~papernotes.retrieval.indexing` (which repairs) and by every query (which checks)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shlex
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from papernotes.corpus.catalog import load_catalog
from papernotes.corpus.errors import PapernotesError
from papernotes.corpus.models import PaperRecord
from papernotes.retrieval import json_load
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import lock_held
from papernotes.retrieval.terms import TERMS_VERSION

T = TypeVar("T")

if TYPE_CHECKING:
    from papernotes.retrieval.bm25 import BM25Index
    from papernotes.retrieval.indexing import IngestReport


def stats_path(settings: Settings) -> Path:
    """``sources.json``: per-source stats and warnings of the last ingest of each source."""
    return settings.data_dir / "sources.json"


def load_json(path: Path, default):
    """The JSON document at ``path``, or ``default`` when the file is missing."""
    if path.is_file():
        return json_load.loads(path.read_bytes())
    return default


def save_json(path: Path, data) -> None:
    """Write ``data`` as JSON (UTF-8, compact, by orjson: several times faster than the standard
    library on the index's large files) to ``path`` (through a temporary file, replaced atomically)."""
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))
    tmp.replace(path)


def marker_path(settings: Settings) -> Path:
    """``ingest-in-progress.json``: written when an ingest starts writing, removed when it ends."""
    return settings.data_dir / "ingest-in-progress.json"


def unfinished_ingest(settings: Settings) -> str | None:
    """The notice for an ingest that started and did not finish (killed, or stopped by an error after
    it began writing), or None. While an ingest is running (it holds the write lock) the notice says
    so instead: answers come from the index as it was before — or, during ``--rebuild``, from the part
    of the new index written so far."""
    data = load_json_safe(marker_path(settings))
    if data is None:
        return None
    started = str(data.get("started", "at an unknown time"))
    if lock_held(settings) and data.get("rebuild"):
        return (
            f"an ingest --rebuild is running (started {started}): the index is being rebuilt, so answers "
            "can miss what it has not written yet"
        )
    if lock_held(settings):
        return f"an ingest is running (started {started}); answers come from the index as it was before it"
    sources = [str(x) for x in data.get("sources", []) if x]
    cmd = "papernotes ingest" + ("" if settings.sources or not sources else " " + " ".join(map(shlex.quote, sources)))
    return f"the last ingest did not finish (started {started}); run `{cmd}` to complete it"


def load_json_safe(path: Path) -> dict | None:
    """The JSON object at ``path``: None when the file is missing, ``{}`` when it is unreadable."""
    try:
        data = json_load.loads(path.read_bytes())
    except (OSError, ValueError):
        return None if not path.exists() else {}
    return data if isinstance(data, dict) else {}


def start_marker(settings: Settings, sources: list[str], rebuild: bool = False) -> None:
    """Leave the in-progress marker (removed when the ingest completes; see :func:`unfinished_ingest`);
    ``rebuild``: the ingest drops the index first (``--rebuild``)."""
    save_json(
        marker_path(settings),
        {
            "started": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
            "pid": os.getpid(),
            "sources": sources,
            "rebuild": rebuild,
        },
    )


def records_agree(store, rm) -> set[str] | None:
    """The store's chunk ids when they are exactly the record manager's keys (the parts agree, nothing to
    reconcile), else None. Reads ids only: no documents or metadata."""
    from papernotes.retrieval.index_update import recorded_keys

    held = set(store.get(include=[])["ids"])
    return held if held == set(recorded_keys(rm)) else None


def reconcile_records(
    store, rm, groups_by_origin: dict[str, list[str]], report: IngestReport
) -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Make the record manager agree with the vector store before indexing (appends to
    ``report.repaired``).

    Records whose vector is missing (the store deleted or restored from an older backup) are
    dropped, so :func:`index` embeds them again. Vectors without a record (the record manager deleted)
    are recorded again under their group (:func:`~papernotes.retrieval.index_update.group_of`; no
    re-embedding; the ingest then deletes those its sources no longer give); vectors without an origin
    are orphans and are deleted.

    Parameters
    ----------
    groups_by_origin : origin → the record groups it had (an origin's own name is also tried: indexes
        built before per-source groups recorded chunks under their origin).

    Returns
    -------
    ``(metadata, lost)``: chunk id → metadata of every chunk the store holds after the repair, and
    origin → number of its recorded chunks that were missing from the store.
    """
    from papernotes.retrieval.index_update import group_of, keys_of, read_store, recorded_keys

    held = read_store(store, ["metadatas"])
    metas = {i: (m or {}) for i, m in zip(held["ids"], held["metadatas"], strict=True)}
    recorded = set(recorded_keys(rm))
    missing = recorded - metas.keys()
    lost: dict[str, int] = {}
    if missing:
        for origin, groups in groups_by_origin.items():
            n = len(missing.intersection(keys_of(rm, [origin, *groups])))
            if n:
                lost[origin] = n
        rm.delete_keys(sorted(missing))
        report.repaired.append(
            f"vector store was missing {len(missing)} recorded chunks ("
            + ", ".join(f"{n} of {o}" for o, n in sorted(lost.items()))
            + "; those of the sources ingested now were embedded again)"
        )
    unrecorded = [i for i in metas if i not in recorded]
    adopt = [i for i in unrecorded if metas[i].get("origin")]
    orphans = [i for i in unrecorded if not metas[i].get("origin")]
    if adopt:
        rm.update(adopt, group_ids=[group_of(metas[i]) for i in adopt])
        report.repaired.append(f"record manager was missing {len(adopt)} chunks held by the vector store (re-recorded)")
    if orphans:
        store.delete(orphans)
        for i in orphans:
            del metas[i]
        report.repaired.append(f"{len(orphans)} orphaned vectors deleted")
    return metas, lost


def catalog_readable(settings: Settings, sha1: str | None = None) -> bool:
    """Whether the paper catalog file exists and holds a JSON list: true at once when its bytes have the
    SHA-1 hex digest ``sha1`` (the one recorded when it was written), else read and parsed."""
    try:
        if sha1 and file_sha1(settings.catalog_path) == sha1:
            return True
        return isinstance(json.loads(settings.catalog_path.read_text(encoding="utf-8")), list)
    except (OSError, ValueError):
        return False


def file_sha1(path: Path) -> str:
    """SHA-1 hex digest of a file's bytes.

    Raises
    ------
    OSError
        when the file cannot be read.
    """
    return hashlib.sha1(path.read_bytes()).hexdigest()


def load_source_stats(settings: Settings) -> dict[str, dict[str, Any]]:
    """Per-origin file/page counts and warnings (``files``, ``files_skipped``, ``pages``, ``warnings``:
    a list of lines) recorded by the last ingest of each origin."""
    return load_json_safe(stats_path(settings)) or {}  # garbled: the next ingest writes it again


def manifest_path(settings: Settings) -> Path:
    """``index.json``: the term rules version (and model) the index was built with."""
    return settings.data_dir / "index.json"


def repair_command(settings: Settings, rebuild: bool = False) -> str:
    """The ingest command that rebuilds this data dir's index: ``papernotes ingest`` (``--rebuild`` with
    ``rebuild``, for a store that must be set aside) with the sources it was built from (as recorded by
    the last ingest of each), else with ``PATH``."""
    command = "papernotes ingest --rebuild" if rebuild else "papernotes ingest"
    if settings.sources:  # a bare `papernotes ingest` reads them
        return command
    origins = sorted(load_source_stats_safe(settings))
    return f"{command} " + (" ".join(shlex.quote(o) for o in origins) if origins else "PATH")


def load_source_stats_safe(settings: Settings) -> dict[str, dict[str, Any]]:
    """:func:`load_source_stats`, empty when the file is missing or unreadable."""
    return load_json_safe(stats_path(settings)) or {}


def unreadable_part(settings: Settings, part: str, where: object, e: BaseException) -> PapernotesError:
    """The one-line error of a part of the index that cannot be read (damaged on disk): it names the
    part and the ``papernotes ingest`` command that rebuilds it."""
    from papernotes.retrieval.errors import IndexDamagedError

    return IndexDamagedError(
        f"the {part} of the index ({where}) cannot be read ({type(e).__name__}); "
        f"run `{repair_command(settings)}` to rebuild it"
    )


def _read_part(settings: Settings, part: str, where: Path, load: Callable[[Path], T]) -> T:
    try:
        return load(where)
    except (ValueError, KeyError, TypeError, EOFError, OSError, zipfile.BadZipFile, pickle.UnpicklingError) as e:
        # not JSON, not the part's shape, or a file cut short or overwritten (a truncated terms.npz)
        raise unreadable_part(settings, part, where, e) from None


def read_catalog(settings: Settings) -> list[PaperRecord]:
    """The paper catalog of the index (``catalog.json``).

    Raises
    ------
    IndexDamagedError
        when it is not the catalog's JSON (damaged on disk).
    """
    return _read_part(settings, "paper catalog", settings.catalog_path, load_catalog)


def read_bm25(settings: Settings) -> BM25Index:
    """The keyword index (``bm25/``).

    Raises
    ------
    IndexDamagedError
        when it is not the keyword index's JSON (damaged on disk).
    """
    from papernotes.retrieval.bm25 import BM25Index

    return _read_part(settings, "keyword index", settings.bm25_dir, BM25Index.load)


def _stray_part(path: Path, data_dir: Path) -> str | None:
    """Why ``path`` (a file of the index, missing as a file) cannot be read when something else stands
    in its way — ``path`` itself is a folder, or one of its folders under ``data_dir`` is a file — else
    None (it is just missing)."""
    if path.exists():
        return f"{path.name} is a folder, not a file"
    for parent in path.parents:
        if parent == data_dir or not parent.is_relative_to(data_dir):
            return None
        if parent.exists() and not parent.is_dir():
            return f"{parent.name} is a file, not a folder"
    return None


def ensure_index(settings: Settings) -> None:
    """Check that the data dir holds a complete index this version of papernotes can query.

    Raises
    ------
    IndexMissingError
        when there is no index yet.
    IndexDamagedError
        when a part of it is missing or unreadable (the keyword index, the paper catalog, the
        embedded vector store): the message names the part and the ``papernotes ingest`` command that
        rebuilds it (only what is missing is embedded again).
    IndexOutdatedError
        when the index was built with other term rules (:data:`~papernotes.retrieval.terms.TERMS_VERSION`,
        recorded in ``index.json`` by :func:`ingest`): its keyword side would not match the questions'
        terms. The next ``papernotes ingest`` rebuilds it (nothing is re-embedded).
    """
    from papernotes.retrieval.errors import IndexDamagedError, IndexMissingError, IndexOutdatedError

    parts = {
        "keyword index": settings.bm25_dir / "chunks.json",
        "paper catalog": settings.catalog_path,
    }
    if not settings.chroma_url:
        parts["vector store"] = settings.chroma_dir / "chroma.sqlite3"
    present = {name: f.is_file() for name, f in parts.items()}
    unfinished = unfinished_ingest(settings)
    if unfinished and not all(present.values()):  # killed before it wrote every part: that is the cause
        if lock_held(settings) and not manifest_path(settings).is_file():  # the first ingest, still running
            started = (load_json_safe(marker_path(settings)) or {}).get("started", "at an unknown time")
            raise IndexMissingError(
                f"no index in {settings.data_dir} yet: the first ingest is running (started {started}); "
                "ask again when it has finished"
            )
        raise IndexDamagedError(unfinished)
    if not any(present.values()) and not manifest_path(settings).is_file():
        raise IndexMissingError(f"no index in {settings.data_dir}: run `papernotes ingest PATH` first")
    for name, ok in present.items():
        if not ok:
            where = parts[name] if name != "vector store" else settings.chroma_dir
            stray = _stray_part(parts[name], settings.data_dir)
            if stray is None:
                raise IndexDamagedError(
                    f"the {name} of the index ({where}) is missing; run `{repair_command(settings)}` to rebuild it"
                )
            # a folder where a file belongs (or the reverse): the store needs a rebuild, which sets it aside
            command = repair_command(settings, rebuild=name == "vector store")
            raise IndexDamagedError(f"the {name} of the index ({where}) cannot be read ({stray}); run `{command}`")
    try:
        manifest = load_json(manifest_path(settings), {})
    except (OSError, ValueError):
        manifest = None
    if not isinstance(manifest, dict):
        raise IndexDamagedError(
            f"the manifest of the index ({manifest_path(settings)}) cannot be read; "
            f"run `{repair_command(settings)}` to rebuild it"
        )
    built = manifest.get("terms_version")
    if built != TERMS_VERSION:
        was = f"term rules v{built}" if built else "older term rules"
        raise IndexOutdatedError(
            f"the index in {settings.data_dir} was built with {was} (this papernotes uses v{TERMS_VERSION}); "
            f"run `{repair_command(settings)}` to update it (nothing is re-embedded)"
        )
