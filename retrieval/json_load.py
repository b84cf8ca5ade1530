"""Reading the index's large JSON files (the catalog's part cache, the keyword index's chunks, the paper
entries) with the cyclic garbage collector paused.

Parsing a multi-megabyte document allocates hundreds of thousands of containers that all stay alive;
CPython's collector, triggered by the allocation count, would traverse them (and, in an ingest process
already holding many objects, the older generations too) for nothing: a third of the time of reading
the 10x corpus's part cache. The same reason makes ``gc.freeze`` and pausing the collector common
practice around bulk loads (https://docs.python.org/3/library/gc.html#gc.freeze).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block (restored as it was, also on errors)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def loads(data: bytes | str) -> Any:
    """``orjson.loads(data)`` with the collector paused; raises ``orjson.JSONDecodeError`` (a
    ``ValueError``) as it does."""
    with collector_paused():
        return orjson.loads(data)
