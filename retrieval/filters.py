"""Metadata filters: one builder for Chroma ``where`` dicts (used by the dense and the sparse side
alike), an evaluator of those dicts over plain metadata, and detection of venues/years named in a
question."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.venues import find_venues, normalize_venue


@dataclass
class Filters:
    """Filters on retrieval; ``None`` means unfiltered on that field."""

    venue: str | None = None
    year: int | None = None
    topic: str | None = None
    source: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the filters that are set."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    def __bool__(self) -> bool:
        return bool(self.as_dict())


def normalize_filters(
    venue: str | None = None, year: int | None = None, topic: str | None = None, source: str | None = None
) -> Filters:
    """Validate user-given filters: the venue is normalized (any common spelling).

    Raises
    ------
    BadInputError
        if the venue cannot be read or the year is out of range.
    """
    v = None
    if venue:
        v = normalize_venue(venue)
        if not v:
            raise BadInputError(f"cannot read venue {venue!r}: write it like 'OSDI 2026' or 'osdi26'")
    if year is not None and not (1950 <= year <= 2100):
        raise BadInputError(f"year {year} is out of range")
    return Filters(venue=v, year=year, topic=topic or None, source=source or None)


def build_where(filters: Filters, topics: Iterable[str] = (), sources: Iterable[str] = ()) -> dict[str, Any] | None:
    """Chroma ``where`` for the filters: ``None`` (no clause), the single clause, or ``{"$and": [...]}``.

    ``topic`` and ``source`` match case-insensitive substrings, so they are resolved against the known
    values (``topics``, ``sources``) into ``$in`` lists; with no known match the clause matches nothing.
    """
    clauses: list[dict[str, Any]] = []
    if filters.venue:
        clauses.append({"venue": {"$eq": filters.venue}})
    if filters.year is not None:
        clauses.append({"year": {"$eq": int(filters.year)}})
    if filters.topic:
        t = filters.topic.lower()
        hits = sorted({x for x in topics if t in x.lower()})
        clauses.append({"topic": {"$in": hits or ["\u2205"]}})
    if filters.source:
        s = filters.source.lower()
        hits = sorted({x for x in sources if s in x.lower()})
        clauses.append({"source": {"$in": hits or ["\u2205"]}})
    if not clauses:
        return None
    if len(clauses) == 1:
        return clauses[0]
    return {"$and": clauses}


def matches_where(meta: dict[str, Any], where: dict[str, Any]) -> bool:
    """Evaluate the subset of Chroma's filter language we emit (``$and``, ``$or``, ``$eq``, ``$ne``,
    ``$in``, ``$nin``, and bare ``{field: value}`` equality) over one metadata dict."""
    for key, cond in where.items():
        if key == "$and":
            if not all(matches_where(meta, c) for c in cond):
                return False
        elif key == "$or":
            if not any(matches_where(meta, c) for c in cond):
                return False
        else:
            val = meta.get(key)
            if not isinstance(cond, dict):
                cond = {"$eq": cond}
            for op, arg in cond.items():
                if op == "$eq" and val != arg:
                    return False
                if op == "$ne" and val == arg:
                    return False
                if op == "$in" and val not in arg:
                    return False
                if op == "$nin" and val in arg:
                    return False
    return True


_YEAR_RE = re.compile(r"\b(?:in|from|during|of|since)\s+((?:19|20)\d\d)\b", re.IGNORECASE)


def detect_filters(question: str, known_venues: Iterable[str] = ()) -> Filters:
    """Filters a question names in passing: the venue ("at OSDI 2026", "OSDI'26"; also any venue of
    the index in ``known_venues``, e.g. a series the built-in list lacks), else a year ("in 2025").
    Returns empty :class:`Filters` when nothing (or more than one venue) is named."""
    venues = find_venues(question)
    for v in known_venues:
        series, _, year = v.rpartition(" ")
        if v in venues or not series or not year.isdigit():
            continue
        pat = rf"(?<!\w){re.escape(series)}\s*(?:[-_ ]|['’]\s*)?(?:{year}|(?<=['’]){year[2:]})(?!\d)"
        if re.search(pat, question, re.IGNORECASE):
            venues.append(v)
    if len(venues) == 1:
        return Filters(venue=venues[0])
    if venues:
        return Filters()  # several venues: a comparison; filtering to one would hide the other
    m = _YEAR_RE.search(question)
    if m:
        return Filters(year=int(m.group(1)))
    return Filters()
