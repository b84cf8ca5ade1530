"""Scheduled re-ingest (``papernotes ingest --watch``, ``papernotes discord --refresh``): the interval
syntax, one refresh (pull git sources, ingest incrementally, record when it happened) and the time of the
last successful one.

A refresh is an ordinary :func:`~papernotes.retrieval.indexing.ingest` (git sources are pulled by it), so
only new or changed chunks are embedded and a failure leaves the previous index in place: the keyword
index and the catalog are written only at the end of a successful ingest (each through a temporary file
renamed over the old one), and readers reopen them only when no ingest holds the write lock.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from langchain_core.embeddings import Embeddings

from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.retrieval.index_health import manifest_path
from papernotes.retrieval.indexing import IngestReport, ingest
from papernotes.retrieval.settings import Settings

log = logging.getLogger("papernotes.refresh")

#: Seconds per unit of an interval ("90s", "5m", "1h", "1d"); a bare number is seconds.
UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_INTERVAL = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([smhd]?)\s*$", re.IGNORECASE | re.ASCII)


#: The longest interval between refreshes, seconds (a year): longer ones are typos, and past the
#: platform's time range they cannot be scheduled at all.
MAX_INTERVAL = 366 * 86400


def parse_interval(text: str) -> float:
    """Seconds of an interval written as a positive number with an optional unit: ``90``, ``90s``,
    ``5m``, ``1.5h``, ``1d``.

    Raises
    ------
    BadInputError
        (one line, naming the value and the accepted forms) for anything else: ``5x``, ``-1``, ``0``,
        an empty string, or more than :data:`MAX_INTERVAL`.
    """
    m = _INTERVAL.match(text or "")
    seconds = float(m.group(1)) * UNITS[m.group(2).lower()] if m else 0.0
    if seconds <= 0:
        raise BadInputError(
            f"bad interval {text[:40]!r}: give a positive number of seconds, or one with a unit: 90s, 5m, 1h, 1d"
        )
    if seconds > MAX_INTERVAL:
        raise BadInputError(f"bad interval {text[:40]!r}: at most {MAX_INTERVAL // 86400:.0f} days")
    return seconds


def last_refreshed(settings: Settings) -> datetime | None:
    """When the last successful ingest of ``settings.data_dir`` finished (UTC), or None before the
    first: the modification time of the index manifest, written last by every successful ingest."""
    try:
        return datetime.fromtimestamp(manifest_path(settings).stat().st_mtime, UTC)
    except OSError:
        return None


@dataclass
class RefreshOutcome:
    """One refresh: the ingest report (None when it failed), the one-line error otherwise, and seconds."""

    report: IngestReport | None
    error: str | None
    seconds: float


def refresh_once(
    settings: Settings, sources: list[str] | None = None, embeddings: Embeddings | None = None
) -> RefreshOutcome:
    """Pull and re-ingest ``sources`` (default ``settings.sources``) incrementally; never raises for a
    failed ingest: the error becomes one logged line and :attr:`RefreshOutcome.error`, the previous index
    stays as it was.

    Parameters
    ----------
    embeddings
        An embedder already loaded (the bot's), so a refresh does not load a second model.
    """
    t = time.perf_counter()
    try:
        report = ingest(settings, sources, embeddings=embeddings)
    except PapernotesError as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        log.error("refresh failed, keeping the previous index: %s", msg)
        return RefreshOutcome(None, msg, time.perf_counter() - t)
    except Exception as e:  # an unexpected failure must not stop the schedule (or the bot) either
        msg = f"unexpected {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}".rstrip(": ")
        log.error("refresh failed, keeping the previous index: %s", msg)
        return RefreshOutcome(None, msg, time.perf_counter() - t)
    return RefreshOutcome(report, None, time.perf_counter() - t)
