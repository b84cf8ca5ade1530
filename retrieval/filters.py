"""Metadata filters: one builder for Chroma ``where`` dicts (used by the dense and the sparse side
alike), an evaluator of those dicts over plain metadata, and detection of venues/years named in a
question."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from rapidfuzz.distance import DamerauLevenshtein

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.normalize import unify_punctuation
from papernotes.corpus.venues import (
    VenueMention,
    find_venue_mentions,
    normalize_venue,
    series_spellings,
    split_venue,
    two_digit_year,
)


@dataclass
class Filters:
    """Filters on retrieval; ``None`` means unfiltered on that field. ``venue`` is one venue
    ("SOSP 2024"); ``series`` is every year of a venue series ("SOSP")."""

    venue: str | None = None
    year: int | None = None
    topic: str | None = None
    source: str | None = None
    series: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the filters that are set."""
        return {k: v for k, v in asdict(self).items() if v is not None}

    def __bool__(self) -> bool:
        return bool(self.as_dict())


def names_venue(v: str, f: Filters) -> bool:
    """True when ``v`` (a venue, or a topic path's page title) is the filters' venue or of its series."""
    if f.venue and v.lower() == f.venue.lower():
        return True
    return bool(f.series and split_venue(v)[1] and split_venue(v)[0].lower() == f.series.lower())


def at_venue(r: PaperRecord, f: Filters) -> bool:
    """True when the paper appeared at the filters' venue (or series): its venue, an earlier or later
    venue of its history ("NVMW 2022" for a MICRO 2021 paper also presented there), or a venue page
    that lists it."""
    venues = [*r.venues, *(t.split(" › ", 1)[0] for t in r.topics)]
    return any(names_venue(v, f) for v in venues)


def check_against_question(asked: Filters, given: Filters) -> None:
    """Raise when the filters ``given`` as flags contradict the venue or year the question names
    (``asked``, :func:`detect_filters`): "Which OSDI 2026 papers …" with ``--year 2024`` or
    ``--venue "NSDI 2025"``; flags that narrow or repeat it pass.

    Raises
    ------
    BadInputError
        naming the question's venue or year and the flag that contradicts it.
    """
    a_series, a_year = split_venue(asked.venue) if asked.venue else (asked.series, asked.year)
    g_series, g_year = split_venue(given.venue) if given.venue else (given.series, given.year)
    named = asked.venue or asked.series or (str(asked.year) if asked.year else None)
    flag = f"--venue {given.venue or given.series}" if (given.venue or given.series) else f"--year {given.year}"
    if a_year and g_year and a_year != g_year or a_series and g_series and a_series.lower() != g_series.lower():
        raise BadInputError(f"the question names {named}, and {flag} contradicts it; drop one of them")


def normalize_filters(
    venue: str | None = None, year: int | None = None, topic: str | None = None, source: str | None = None
) -> Filters:
    """Validate user-given filters. The venue is read by the one venue parser
    (:func:`papernotes.corpus.venues.find_venue_mentions`): "OSDI 2026", "osdi26", "OSDI '26" give one
    venue; a series alone ("SOSP", "sosp") gives every year of it.

    Raises
    ------
    BadInputError
        if the venue is empty, names several venues or cannot be read, the year is out of range or
        contradicts the venue's, or the topic or source is empty.
    """
    v = series = None
    if venue is not None:
        venue = unify_punctuation(venue)  # "OSDI‑2024" (a non-breaking hyphen), "ＯＳＤＩ 2024", zero-width spaces
        if len(venue) > MAX_FLAG_CHARS:
            raise BadInputError(f"the venue is too long ({len(venue)} characters): write it like 'OSDI 2026'")
        if not venue.strip():
            raise BadInputError("the venue is empty: write it like 'OSDI 2026', 'osdi26' or 'OSDI'")
        # the publisher before a series is part of its name ("USENIX OSDI 2024", "ACM SOSP 2024"), as
        # notes write it (papernotes.corpus.venue_names reads the same prefix)
        bare = _PUBLISHER_RE.sub("", venue, count=1)
        if bare != venue and parse_venue(bare) is not None:
            venue = bare
        several = find_venue_mentions(venue, any_case=venue.split())
        if len(several) > 1:
            named = ", ".join(m.venue or m.series for m in several)
            raise BadInputError(f"{venue!r} names several venues ({named}): give one")
        m = parse_venue(venue)
        if m is None:
            raise BadInputError(f"cannot read venue {venue!r}: write it like 'OSDI 2026', 'osdi26' or 'OSDI'")
        v, series = m.venue, (None if m.year else m.series)
    if year is not None and not (1950 <= year <= 2100):
        raise BadInputError(f"year {year} is out of range")
    if v and year is not None and split_venue(v)[1] not in (None, year):
        raise BadInputError(f"--venue {v} and --year {year} contradict each other")
    for name, value in (("topic", topic), ("source", source)):
        if value is not None and len(value) > MAX_FLAG_CHARS:
            raise BadInputError(f"the {name} is too long ({len(value)} characters; at most {MAX_FLAG_CHARS})")
        if value is not None and not value.strip():
            raise BadInputError(f"the {name} is empty: give part of one (see `papernotes stats`) or leave the flag out")
    return Filters(venue=v, year=year, topic=topic or None, source=source or None, series=series)


#: A publisher's name before a venue's series ("USENIX OSDI 2024", "ACM SOSP 2024", "IEEE ISCA 2024").
_PUBLISHER_RE = re.compile(r"^\s*(?:ACM|IEEE|USENIX)\s+", re.IGNORECASE)

#: The longest venue, topic or source a flag may give (a question is capped at 2,000 characters).
MAX_FLAG_CHARS = 200


def parse_venue(text: str, known_series: Iterable[str] = ()) -> VenueMention | None:
    """The venue a flag value names ("SOSP", "sosp24", "fast 2026", "ToySys 2026"), or None.

    A flag holds nothing but the venue, so a series counts in any casing; a series unknown to
    :data:`papernotes.corpus.venues.SERIES` is read as "NAME YEAR" (:func:`normalize_venue`)."""
    raw = (text or "").strip()
    if not raw:
        return None
    found = find_venue_mentions(raw, known_series, any_case=[raw.split()[0]] if raw.split() else [])
    if len(found) == 1 and found[0].span == (0, len(raw)):
        return found[0]
    v = normalize_venue(raw)
    if v:
        series, year = split_venue(v)
        return VenueMention(series, year, (0, len(raw)))
    return None


def build_where(
    filters: Filters, topics: Iterable[str] = (), sources: Iterable[str] = (), venues: Iterable[str] = ()
) -> dict[str, Any] | None:
    """Chroma ``where`` for the filters: ``None`` (no clause), the single clause, or ``{"$and": [...]}``.

    ``topic`` and ``source`` match case-insensitive substrings, so they are resolved against the known
    values (``topics``, ``sources``) into ``$in`` lists; a ``series`` becomes the ``$in`` list of the
    known ``venues`` of that series. With no known match a clause matches nothing.
    """
    clauses: list[dict[str, Any]] = []
    if filters.venue:
        clauses.append({"venue": {"$eq": filters.venue}})
    if filters.series:
        s = filters.series.lower()
        hits = sorted({v for v in venues if split_venue(v)[0].lower() == s})
        clauses.append({"venue": {"$in": hits or ["\u2205"]}})
    if filters.year is not None:
        clauses.append({"year": {"$eq": int(filters.year)}})
    if filters.topic:
        t = filters.topic.lower()
        # singular or plural alike ("databases" finds the topic "Database")
        one = t[:-1] if t.endswith("s") and not t.endswith("ss") and len(t) > 3 else t
        hits = sorted({x for x in topics if t in x.lower() or one in x.lower()})
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


def detect_filters(question: str, known_venues: Iterable[str] = (), any_case: Iterable[str] = ()) -> Filters:
    """Filters a question names in passing: one venue ("at OSDI 2026", "osdi'26", "sosp 24"), one
    series ("SOSP papers", "at fast"; every year of it), else a year ("in 2025"). Series of
    ``known_venues`` (the index's venues) are recognised besides the built-in ones; ``any_case`` are
    the series that count in any casing (:func:`papernotes.corpus.venues.find_venue_mentions`).
    Returns empty :class:`Filters` when nothing, or more than one venue, is named (a comparison:
    filtering to one would hide the other)."""
    series = {split_venue(v)[0] for v in known_venues}
    found = venue_mentions(question, series, any_case)
    labels = {(m.series.lower(), m.year) for m in found}
    if len(labels) == 1:
        m = found[0]
        spelled = {v.lower(): v for v in known_venues}
        if m.year:
            return Filters(venue=spelled.get(f"{m.series} {m.year}".lower(), f"{m.series} {m.year}"))
        by_series = {split_venue(v)[0].lower(): split_venue(v)[0] for v in known_venues}
        return Filters(series=by_series.get(m.series.lower(), m.series))
    if found:
        return Filters()
    y = _YEAR_RE.search(question)
    if y:
        return Filters(year=int(y.group(1)))
    return Filters()


#: A lower-case word glued to a year, or set off by an apostrophe: where a misspelt venue is typed
#: ("sops25", "eurosy24", "nsid'26").
_TYPED_VENUE_RE = re.compile(r"(?<![\w'])(?P<series>[a-z]{4,12})\s*'?\s*(?P<year>20\d\d|\d\d)(?![\w.])")


def venue_mentions(question: str, known_series: Iterable[str] = (), any_case: Iterable[str] = ()) -> list[VenueMention]:
    """:func:`~papernotes.corpus.venues.find_venue_mentions` over the normalized-punctuation question
    (curly apostrophes and dash variants unified, case kept); a lower-case word with a year attached
    that is one edit (Damerau–Levenshtein: insertion, deletion, substitution, transposition) from
    exactly one series of four or more letters is that series misspelt ("sops25" → SOSP 2025,
    "eurosy24" → EuroSys 2024); lower case only, as :mod:`papernotes.retrieval.spelling` reads typed
    words (a capitalized word is a name)."""
    text = unify_punctuation(question)
    found = find_venue_mentions(text, known_series, any_case)
    spelled = series_spellings(frozenset(known_series))  # every listed series, lower case → spelling
    series = {k: v for k, v in spelled.items() if len(k) >= 4 and k.isalpha()}
    for m in _TYPED_VENUE_RE.finditer(text):
        word = m.group("series")
        overlaps = [v for v in found if v.span[0] < m.end() and m.start() < v.span[1]]
        if word in series or any(v.series.lower() in spelled for v in overlaps):
            continue
        near = {series[s] for s in series if DamerauLevenshtein.distance(word, s, score_cutoff=1) <= 1}
        if len(near) == 1:  # read as the listed series, not as one nobody listed ("nsid'26")
            year = int(m.group("year"))
            found = [v for v in found if v not in overlaps]
            found.append(VenueMention(near.pop(), two_digit_year(year), m.span()))
    return sorted(found, key=lambda v: v.span)
