"""Built test indexes cached across test runs on one machine.

An index (a whole data dir: Chroma store, BM25 side, catalog, record manager, models folder) is stored
under ``<cache root>/<key>``, where the key hashes everything that can change what ingest writes: the
source's files (names and bytes; hidden ones, which the readers skip, excepted) and its location (the
index records it as the origin), the source of the code a build runs (:func:`index_code`), every
setting, and the versions of the libraries that write the stores. Any change gives a new key and a fresh build. The cache root is ``$PAPERNOTES_TEST_INDEX_CACHE`` or
platformdirs' user cache dir (e.g. ``~/.cache/papernotes/test-index``).

Builds run in a fresh process (nothing warm, everything flushed at exit) into a temporary folder that
is renamed into place when complete; a file lock makes concurrent sessions (or pytest-xdist workers)
wait for one build instead of building twice. Sessions copy an entry before use (tests may write).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

from filelock import FileLock
from platformdirs import user_cache_dir

from papernotes.retrieval.settings import Settings

REPO = Path(__file__).resolve().parent.parent
CACHE_ENV = "PAPERNOTES_TEST_INDEX_CACHE"
#: Where a build's code starts: ingest, and the whole corpus package (its hash versions ingest's caches).
INDEX_ENTRY = "retrieval/indexing.py"
INDEX_PACKAGE = "corpus/*.py"
#: Distributions that write the stores or compute what goes into them.
INDEX_LIBRARIES = (
    "chromadb",
    "langchain-core",
    "langchain-classic",
    "langchain-chroma",
    "langchain-text-splitters",
    "bm25s",
    "PyStemmer",
    "tokenizers",
    "onnxruntime",
    "numpy",
)
#: Entries kept (most recently used first; e.g. two sources × two code versions); older ones are
#: deleted when a new one is built.
KEEP = 4
#: Seconds a session waits for another session's build before failing.
LOCK_TIMEOUT = 900


@dataclass(frozen=True)
class CachedIndex:
    """A cache entry: the data dir holding the index, and whether this process built it just now."""

    path: Path
    built_now: bool


def cache_root() -> Path:
    """The folder holding the cached indexes (``$PAPERNOTES_TEST_INDEX_CACHE`` overrides)."""
    return Path(os.environ.get(CACHE_ENV) or Path(user_cache_dir("papernotes", appauthor=False)) / "test-index")


def _module_file(name: str) -> Path | None:
    """The repo file of a ``papernotes.*`` module (``papernotes.corpus.x`` → ``corpus/x.py`` or
    ``corpus/x/__init__.py``), or None for anything else."""
    parts = name.split(".")
    if parts[0] != "papernotes" or len(parts) < 2:
        return None
    base = REPO.joinpath(*parts[1:])
    return next((f for f in (base.with_suffix(".py"), base / "__init__.py") if f.is_file()), None)


def index_code() -> list[Path]:
    """The source files a build runs: the corpus package and every papernotes module that
    retrieval/indexing.py imports, directly or through other modules (read from their import
    statements, so a module split out of one of them is followed)."""
    seen = {REPO / INDEX_ENTRY, *REPO.glob(INDEX_PACKAGE)}
    todo = list(seen)
    while todo:
        for node in ast.walk(ast.parse(todo.pop().read_bytes())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for f in filter(None, map(_module_file, names)):
                if f not in seen:
                    seen.add(f)
                    todo.append(f)
    return sorted(seen)


def index_key(source: Path, settings: Settings) -> str:
    """Hex digest (24 characters) of everything that can change the index of ``source`` built with
    ``settings`` (see the module docstring)."""
    h = hashlib.sha256()

    def part(label: str, data: bytes) -> None:
        h.update(f"{label}\0{len(data)}\0".encode())
        h.update(data)

    part("source", str(source.resolve()).encode())
    for f in sorted(source.rglob("*")):
        rel = f.relative_to(source)
        if f.is_file() and not any(p.startswith(".") for p in rel.parts):  # the readers skip hidden files
            part(f"source:{rel.as_posix()}", f.read_bytes())
    for f in index_code():
        part(f"code:{f.relative_to(REPO).as_posix()}", f.read_bytes())
    part("settings", json.dumps(settings.model_dump(mode="json", exclude={"data_dir"}), sort_keys=True).encode())
    for dist in INDEX_LIBRARIES:
        part(f"library:{dist}", version(dist).encode())
    return h.hexdigest()[:24]


def build_index(source: Path, data_dir: Path, models: Path) -> None:
    """Ingest ``source`` into the empty ``data_dir`` in a fresh process (a cold build), with the
    prepared model folder ``models`` copied in; settings come from the environment as in the caller.

    Raises
    ------
    RuntimeError
        if the ingest process fails (its output is in the message).
    """
    shutil.copytree(models, data_dir / "models")
    script = (
        "import sys; from pathlib import Path\n"
        "from papernotes.retrieval.indexing import ingest\n"
        "from papernotes.retrieval.settings import Settings\n"
        "ingest(Settings(data_dir=Path(sys.argv[1]), _env_file=None), [sys.argv[2]])\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", script, str(data_dir), str(source)], capture_output=True, text=True, cwd=data_dir
    )
    if p.returncode != 0:
        raise RuntimeError(f"building the index of {source} failed:\n{p.stdout}\n{p.stderr}")


def cached_index(source: Path, settings: Settings, models: Path) -> CachedIndex:
    """The cache entry for ``source`` indexed with ``settings`` (its ``data_dir`` is ignored), built
    by :func:`build_index` now when absent.

    Raises
    ------
    filelock.Timeout
        if another session holds the cache for more than ``LOCK_TIMEOUT`` seconds.
    RuntimeError
        if the build fails.
    """
    return cached(index_key(source, settings), lambda data_dir: build_index(source, data_dir, models))


def cached(key: str, build: Callable[[Path], None]) -> CachedIndex:
    """The cache entry ``key``, made now by ``build(empty folder)`` when absent (in a temporary folder
    renamed to the entry when ``build`` returns; nothing is kept when it raises). Another session
    building meanwhile is waited for, not repeated.

    Raises
    ------
    filelock.Timeout
        if another session holds the cache for more than ``LOCK_TIMEOUT`` seconds.
    Exception
        whatever ``build`` raises.
    """
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    entry = root / key
    with FileLock(root / ".lock", timeout=LOCK_TIMEOUT):
        built = not entry.is_dir()
        if built:
            _remove_stale(root)
            tmp = Path(tempfile.mkdtemp(prefix=".building-", dir=root))
            try:
                build(tmp)
                tmp.rename(entry)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        os.utime(entry)  # most recently used
    return CachedIndex(entry, built)


def copy_index(entry: CachedIndex, dest: Path) -> None:
    """Copy a cache entry's data dir into ``dest`` (created, or empty)."""
    with FileLock(entry.path.parent / ".lock", timeout=LOCK_TIMEOUT):  # not deleted while copied
        shutil.copytree(entry.path, dest, dirs_exist_ok=True)


def _remove_stale(root: Path) -> None:
    """Delete unfinished builds (of killed sessions) and all but the ``KEEP - 1`` most recently used
    entries; called with the lock held, before a build."""
    for p in root.glob(".building-*"):
        shutil.rmtree(p, ignore_errors=True)
    entries = sorted(
        (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")),
        key=lambda p: p.stat().st_mtime,
        reverse=True,
    )
    for p in entries[KEEP - 1 :]:
        shutil.rmtree(p, ignore_errors=True)
