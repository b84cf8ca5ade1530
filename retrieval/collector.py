"""The cyclic garbage collector during an ingest: young generations only.

An ingest holds a large, long-lived heap (the keyword index's chunks, the paper entries, the catalog's
parts: hundreds of thousands of containers at 10x the notes) while it keeps allocating. CPython starts a
full collection whenever the objects that survived into the oldest generation since the last one
reach a quarter of it, and each full collection traverses the whole heap: at 10x, about 0.2 s each and
most of a one-note re-ingest's time in a loaded process. Collecting the young generations only (where
cyclic garbage made by the ingest itself is found) and leaving the old one to the next collection after
the ingest removes that cost. The threshold of the oldest generation is CPython's own knob for it
(https://docs.python.org/3/library/gc.html#gc.set_threshold); ``gc.freeze`` serves the same purpose
for a heap that is built once.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

#: threshold of the oldest generation while full collections are deferred: never reached in one ingest
_NEVER = 2**31 - 1

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, ...] = ()


@contextmanager
def full_collections_deferred() -> Iterator[None]:
    """Defer full (oldest-generation) collections for the block; the young generations are still
    collected as usual. The collector's thresholds are restored when the outermost such block ends
    (nested or concurrent blocks in other threads share one deferral); explicit ``gc.collect()`` calls
    still collect everything."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            gc.set_threshold(_saved[0], _saved[1], _NEVER)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_saved)
