"""The chunks' embedding vectors kept beside the keyword index, in its order, so that a question's dense
ranking is one matrix–vector product in memory: exact cosine over every chunk, or over the chunks a
filter keeps (the keyword index's filter mask), instead of a query to the vector store (whose filtered
queries select the matching chunks in SQLite before searching, about 50 ms at 24k chunks).

The vector store stays the record of the vectors; this file is a copy written by ingest with the keyword
index (read from the store for the chunks an ingest changed) and checked against the keyword index's ids
when it is read.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

#: the vectors, a float32 ``.npy`` under the keyword index's folder, and the digest of the ids they are for
VECTORS_FILE = "vectors.npy"
DIGEST_FILE = "vectors.ids-sha1"


def ids_digest(ids: list[str]) -> str:
    """SHA-1 hex digest of the chunk ids in order (the vectors file's check against ``chunks.json``)."""
    return hashlib.sha1("".join(f"{i}\n" for i in ids).encode("utf-8", "surrogatepass")).hexdigest()


def _raw(rows: np.ndarray) -> memoryview:
    """The bytes of C-contiguous float32 rows, without a copy."""
    return np.ascontiguousarray(rows, dtype=np.float32).reshape(-1).view(np.uint8).data


def _replace(path: Path, write) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as f:
        write(f)
    tmp.replace(path)


def _write(directory: Path, ids: list[str], rows: int, dim: int, write_rows) -> None:
    """Write the digest of ``ids`` first, then the ``(rows, dim)`` float32 ``.npy`` whose rows
    ``write_rows(file)`` writes after its header, each file replaced atomically. In this order a reader
    never pairs vectors with the digest of other ids: between the two files, and until ``chunks.json``
    (written after both) holds ``ids``, the digest matches no index and the vectors are not used."""
    if rows != len(ids):
        raise ValueError(f"{len(ids)} ids but {rows} vectors")
    directory.mkdir(parents=True, exist_ok=True)
    _replace(directory / DIGEST_FILE, lambda f: f.write(ids_digest(ids).encode()))
    header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)), "fortran_order": False, "shape": (rows, dim)}

    def npy(f) -> None:
        np.lib.format.write_array_header_1_0(f, header)
        write_rows(f)

    _replace(directory / VECTORS_FILE, npy)


def save_vectors(directory: Path, ids: list[str], vectors: np.ndarray) -> None:
    """Write ``vectors`` (float32, one row per id of ``ids``, in that order) to ``directory`` (see
    :func:`_write`).

    Raises
    ------
    ValueError
        when ``vectors`` is not one row per id.
    """
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim != 2:
        raise ValueError(f"vectors of shape {vectors.shape}")
    _write(directory, ids, len(vectors), vectors.shape[1], lambda f: f.write(_raw(vectors)))


def patch_vectors(directory: Path, old: np.ndarray, keep: np.ndarray, added: np.ndarray, ids: list[str]) -> None:
    """Write the rows of ``old`` where ``keep`` is true, in order, then ``added``, as the vectors of
    ``ids`` (see :func:`_write`). ``old`` may be the current file mapped in memory
    (:func:`load_vectors` with ``mmap``): the kept runs of rows go from its pages to the new file
    without a copy of the whole matrix in memory (at 24k chunks that copy cost more than the write)."""
    keep = np.asarray(keep, dtype=bool)
    added = np.ascontiguousarray(added, dtype=np.float32).reshape(-1, old.shape[1])
    edges = np.flatnonzero(np.diff(np.concatenate([[0], keep.view(np.int8), [0]])))

    def rows(f) -> None:
        for a, b in zip(edges[::2], edges[1::2], strict=True):
            f.write(_raw(old[a:b]))
        f.write(_raw(added))

    _write(directory, ids, int(keep.sum()) + len(added), old.shape[1], rows)


def load_vectors(directory: Path, ids: list[str], mmap: bool = False) -> np.ndarray | None:
    """The vectors saved for exactly ``ids`` (in that order) as a float32 ``(len(ids), dim)`` array (mapped
    read-only from the file with ``mmap``); None when a file is absent or unreadable or they were
    written for other ids (an index from before the vectors file, an ingest interrupted between the
    files, or one writing them now)."""
    try:
        if (directory / DIGEST_FILE).read_text(encoding="ascii") != ids_digest(ids):
            return None
        vectors = np.load(directory / VECTORS_FILE, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError):
        return None
    if vectors.ndim != 2 or len(vectors) != len(ids) or vectors.dtype != np.float32:
        return None
    return vectors


def as_matrix(rows, dim: int = 0) -> np.ndarray:
    """Vectors read from the store (a list of rows or an array) as one float32 ``(n, dim)`` array; ``dim``
    gives the width of an empty one."""
    if len(rows) == 0:
        return np.zeros((0, dim), dtype=np.float32)
    return np.asarray(np.stack([np.asarray(r, dtype=np.float32) for r in rows]), dtype=np.float32)


def nearest(vectors: np.ndarray, query: np.ndarray, n: int, mask: np.ndarray | None = None) -> list[tuple[int, float]]:
    """The ``n`` rows of ``vectors`` (unit-norm, float32) most similar to the unit-norm ``query`` by cosine
    (their dot product), among the rows where ``mask`` (bool, one per row) is true when given: ``(row,
    cosine)``, best first, equal similarities by row. Exact: every candidate row is scored.

    The product is numpy's own loop (``einsum``), not BLAS: a matrix–vector product reads the whole
    matrix once (37 MB at 24k chunks) and is bound by memory, and BLAS's worker threads only add CPU
    time on shared cores (measured at 24k chunks: 3.3 ms of CPU against 7–8 ms)."""
    if n <= 0 or len(vectors) == 0:
        return []
    q = np.asarray(query, dtype=np.float32)
    rows = np.flatnonzero(mask) if mask is not None else None
    sims = np.einsum("ij,j->i", vectors if rows is None else vectors[rows], q)
    top = np.arange(len(sims))
    if len(top) > n:
        top = np.argpartition(-sims, n - 1)[:n]
    top = top[np.lexsort((top, -sims[top]))]
    at = top if rows is None else rows[top]
    return [(int(r), float(s)) for r, s in zip(at, sims[top], strict=True)]
