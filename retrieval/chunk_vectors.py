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

#: the file under the keyword index's folder
VECTORS_FILE = "vectors.npz"


def ids_digest(ids: list[str]) -> str:
    """SHA-1 hex digest of the chunk ids in order (the vectors file's check against ``chunks.json``)."""
    return hashlib.sha1("".join(f"{i}\n" for i in ids).encode("utf-8", "surrogatepass")).hexdigest()


def save_vectors(directory: Path, ids: list[str], vectors: np.ndarray) -> None:
    """Write ``vectors`` (float32, one row per id of ``ids``, in that order) to ``directory``'s
    :data:`VECTORS_FILE` with the ids' digest (through a temporary file, replaced atomically)."""
    directory.mkdir(parents=True, exist_ok=True)
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or len(vectors) != len(ids):
        raise ValueError(f"{len(ids)} ids but vectors of shape {vectors.shape}")
    tmp = directory / (VECTORS_FILE + ".tmp")
    with tmp.open("wb") as f:
        np.savez(f, vectors=vectors, digest=np.frombuffer(ids_digest(ids).encode(), dtype=np.uint8))
    tmp.replace(directory / VECTORS_FILE)


def load_vectors(directory: Path, ids: list[str]) -> np.ndarray | None:
    """The vectors saved for exactly ``ids`` (in that order) as a float32 ``(len(ids), dim)`` array;
    None when the file is absent, unreadable or was written for other ids (an index written by an
    earlier version, or an ingest interrupted between the two files)."""
    try:
        with np.load(directory / VECTORS_FILE) as z:
            if z["digest"].tobytes().decode() != ids_digest(ids):
                return None
            vectors = z["vectors"]
    except (OSError, ValueError, KeyError):
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
