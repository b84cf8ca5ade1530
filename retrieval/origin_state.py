"""What the last ingest made of each origin (a path given to ``ingest``), kept with a fingerprint of the
origin's files, so that an origin whose files are unchanged is neither read, parsed nor unpickled again:
its pages' keys, paper entries, chunk count and warnings are taken from here instead.

The fingerprint is the origin's file tree by name, size, modification time and inode (the quick check
of rsync and of Git's index). As in Git's index, a file modified within :data:`RACY_SECONDS` of the
fingerprint could change again within the file system's timestamp granularity without changing its
stat, so such a tree gets no fingerprint and is read in full (Git: "racy-git", Documentation/technical/
racy-git.txt). Git URLs (pulled on every ingest) and trees holding symbolic links (whose targets the
stat of the link does not follow) get none either.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from papernotes.corpus.readers import ReadResult, is_git_url
from papernotes.retrieval.settings import Settings

#: a file modified this recently (seconds before the fingerprint) leaves its origin unfingerprinted
RACY_SECONDS = 2.0


def origin_of(source: str) -> str:
    """The origin a local ``source`` path is ingested under (``read_path``'s: the resolved path); the
    source itself for a git URL."""
    return source if is_git_url(source) else str(Path(source).expanduser().resolve())


def fingerprint(source: str, context: str) -> str | None:
    """SHA-1 hex digest of ``context`` (the parser version and reading settings) and every file of the
    local ``source`` (a folder, walked without its hidden entries, or one file): relative path, size,
    modification time (ns) and inode. None for a git URL, a missing source, a tree holding a symbolic
    link or a file modified in the last :data:`RACY_SECONDS`."""
    if is_git_url(source):
        return None
    root = Path(source).expanduser()
    h = hashlib.sha1(context.encode("utf-8", "surrogatepass"))
    newest = time.time_ns() - int(RACY_SECONDS * 1e9)
    try:
        if root.is_symlink():
            return None
        if root.is_file():
            return h.hexdigest() if _add(h, "", os.stat(root), newest) else None
        start = str(root)
        cut = len(os.path.join(start, ""))  # an entry's path relative to the root: what follows this prefix
        stack = [start]
        while stack:
            with os.scandir(stack.pop()) as it:
                entries = sorted(it, key=lambda e: e.name)
            for e in entries:
                if e.name.startswith("."):
                    continue
                if e.is_symlink():
                    return None
                if e.is_dir():
                    stack.append(e.path)
                    h.update(f"d\x1f{e.path[cut:]}\x1e".encode("utf-8", "surrogatepass"))
                elif not _add(h, e.path[cut:], e.stat(), newest):
                    return None
    except OSError:
        return None
    return h.hexdigest()


def _add(h: Any, rel: str, st: os.stat_result, newest: int) -> bool:
    """Add one file's stat to ``h``; False (nothing added) for a file modified after ``newest`` (ns)."""
    if st.st_mtime_ns > newest:
        return False
    h.update(f"f\x1f{rel}\x1f{st.st_size}\x1f{st.st_mtime_ns}\x1f{st.st_ino}\x1e".encode("utf-8", "surrogatepass"))
    return True


def state_path(settings: Settings) -> Path:
    """``origins.json``: origin → its record (see :func:`load_origins`)."""
    return settings.data_dir / "origins.json"


def load_origins(settings: Settings, version: str) -> dict[str, dict[str, Any]]:
    """Each origin's record from the last ingest written by code ``version``: ``fingerprint``,
    ``files``, ``files_skipped``, ``hidden_skipped``, ``pages``, ``chunks``, ``warnings`` (its read
    warnings, then its pages without text), ``file_keys`` (its parsed files' cache keys), ``page_keys``
    and ``entry_ids`` (its pages' content keys and its paper entries' catalog ids, in order). Empty
    when missing, unreadable or written by another version."""
    try:
        data = orjson.loads(state_path(settings).read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != version or not isinstance(data.get("origins"), dict):
        return {}
    return data["origins"]


def save_origins(settings: Settings, version: str, origins: dict[str, dict[str, Any]]) -> None:
    """Write the origins' records (through a temporary file, replaced atomically)."""
    path = state_path(settings)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps({"version": version, "origins": origins}))
    tmp.replace(path)


def new_record(result: ReadResult, fp: str | None) -> dict[str, Any]:
    """An origin's record (see :func:`load_origins`) from what reading it gave: the counts, warnings and
    file keys; ``chunks``, ``empty_warnings``, ``page_keys`` and ``entry_ids`` start empty (the caller
    fills them page by page)."""
    return {
        "fingerprint": fp,
        "files": result.files_read,
        "files_skipped": result.files_skipped,
        "hidden_skipped": len(result.hidden_skipped),
        "pages": len(result.pages),
        "chunks": 0,
        "read_warnings": [str(w) for w in result.warnings],
        "empty_warnings": [],
        "file_keys": sorted(result.cache_used),
        "page_keys": [],
        "entry_ids": [],
    }


@dataclass
class Reuse:
    """What reusing origins is decided on, read before the sources (and used again after them): the
    origins' records, the store client, the record manager, the source state, the ids the store and the
    record manager agree on, and the paper entries per origin."""

    prior: dict[str, dict[str, Any]]
    client: Any
    rm: Any
    state: dict[str, list[str]]
    agreed: set[str]
    entries: dict[str, list[dict[str, Any]]]


def reuse_check(settings: Settings, version: str, open_records: Callable[[], Any], entries_path: Path) -> Reuse | None:
    """The origins' records of the last ingest by code ``version`` (:func:`load_origins`) with what the
    ingest reads anyway, when they may be reused: the records are grouped by source, the record manager
    (``open_records()``) and the store hold the same ids, and each recorded origin's entries are in
    ``entries_path``; else None (every origin is read). The caller checks first that the last ingest
    finished and that this is no rebuild."""
    from papernotes.retrieval.index_health import load_json_safe, manifest_path, records_agree
    from papernotes.retrieval.index_update import RECORD_GROUPS, load_state
    from papernotes.retrieval.store import make_client

    prior = load_origins(settings, version)
    manifest = load_json_safe(manifest_path(settings)) or {}
    if not prior or manifest.get("record_groups") != RECORD_GROUPS:
        return None
    client = make_client(settings)
    rm = open_records()
    state = load_state(settings, rm.namespace)
    try:
        collection = client.get_collection(settings.collection)
    except Exception:  # no collection yet: nothing to reuse
        return None
    agreed = records_agree(collection, rm) if state else None
    if not agreed:
        return None
    entries = load_json_safe(entries_path) or {}  # garbled: no origin is reused, each is read again
    prior = {o: r for o, r in prior.items() if len(entries.get(o, ())) == len(r.get("entry_ids", ()))}
    return Reuse(prior, client, rm, state, agreed, entries)
