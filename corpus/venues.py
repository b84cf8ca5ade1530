"""Venue names: one canonical spelling per venue ("OSDI '26", "osdi-2026", "osdi26" → "OSDI 2026").

The canonical casing of known series follows the venues' own spelling (e.g. "EuroSys", "MLSys",
"SoCC", "PPoPP", "arXiv"). A series not in :data:`SERIES` keeps the casing it is written in
(``"ToySys 2026"``; compare venues case-insensitively — the catalog gives each such venue one spelling);
publication pages upper-case it (``"FOOCONF 2021"``, see :mod:`~papernotes.corpus.publications`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from papernotes.corpus.errors import BadInputError

#: Canonical spelling of venue series seen in systems/ML notes (lower-case key → canonical name).
SERIES: dict[str, str] = {
    s.lower(): s
    for s in (
        "OSDI SOSP NSDI ATC EuroSys SoCC ASPLOS MLSys CAIS FAST HPCA PPoPP SC ISCA MICRO SIGCOMM "
        "SIGMETRICS SIGMOD VLDB ICDE KDD WWW HotOS HotNets HotCloud HotChips ICML ICLR NeurIPS CVPR "
        "ICCV ECCV ACL EMNLP NAACL AAAI IJCAI CLUSTER IPDPS HPDC ICPP IWQoS Middleware INFOCOM CoNEXT "
        "TPDS TCC TC TOCS arXiv NVMW CGO PLDI LCTES DAC ICS PACT MobiSys MobiCom SenSys BigData "
        "SIGGRAPH ISSCC USENIX DSN SRDS"
    ).split()
}
SERIES["usenix atc"] = "ATC"
SERIES["atc"] = "ATC"
SERIES["neurips"] = "NeurIPS"
SERIES["nips"] = "NeurIPS"
SERIES["ieee bigdata"] = "BigData"
SERIES["hot chips"] = "HotChips"

_series_alt = "|".join(sorted((re.escape(k) for k in SERIES), key=len, reverse=True))
# "OSDI 2026", "OSDI'26", "OSDI '26", "osdi-2026", "osdi26", "OSDI-26", "SoCC 2024"
VENUE_RE = re.compile(
    rf"(?<![A-Za-z0-9])(?P<series>{_series_alt})\s*(?:[-_ ]\s*|['’‘]\s*)?(?P<year>(?:19|20)\d\d|\d\d)(?![0-9])",
    re.IGNORECASE,
)


def _year(text: str) -> int:
    y = int(text)
    return y + 2000 if y < 100 else y


def normalize_venue(text: str | None) -> str | None:
    """Canonical ``"SERIES YEAR"`` for a venue written any common way, or ``None`` if none is found.

    >>> normalize_venue("OSDI '26"), normalize_venue("osdi-2026"), normalize_venue("mlsys26")
    ('OSDI 2026', 'OSDI 2026', 'MLSys 2026')
    """
    if not text:
        return None
    m = VENUE_RE.search(text.strip())
    if not m:
        # a series we do not know, written plainly: "ToySys 2026", "toysys-2026", "ToySys '26"
        u = _UNKNOWN_RE.match(text.strip())
        if not u:
            return None
        return f"{u.group(1)} {_year(u.group(2))}"
    return f"{SERIES[m.group('series').lower()]} {_year(m.group('year'))}"


_UNKNOWN_RE = re.compile(r"^([A-Za-z][A-Za-z&+]{1,19})\s*[-_ ]?\s*['’]?\s*((?:19|20)\d\d|(?<=['’])\d\d)$")


def find_venues(text: str) -> list[str]:
    """Every venue named in free text, canonical, in order of appearance, without repeats.

    Two-digit years only count when written with an apostrophe or glued to the series ("OSDI'26",
    "osdi26"), so "SC 25 nodes" is not a venue.
    """
    out: list[str] = []
    for m in VENUE_RE.finditer(text):
        raw_year = m.group("year")
        if len(raw_year) == 2:
            between = text[m.end("series") : m.start("year")]
            if between.strip() == "" and between != "":
                continue  # "SC 25": a number after a space, not a year
        v = f"{SERIES[m.group('series').lower()]} {_year(raw_year)}"
        # "SC" / "TC" / "FAST" are ordinary words too: require the canonical casing for them
        if m.group("series") != SERIES[m.group("series").lower()] and m.group("series").lower() in _AMBIGUOUS:
            continue
        if v not in out:
            out.append(v)
    return out


#: Series names that are also ordinary words/abbreviations; matched only in their canonical casing.
_AMBIGUOUS = {"sc", "tc", "fast", "atc", "acl", "dac", "ics", "pact", "www", "cluster", "middleware", "usenix"}


def split_venue(venue: str) -> tuple[str, int | None]:
    """``"OSDI 2026"`` → ``("OSDI", 2026)``; a venue without a year → ``(venue, None)``."""
    m = re.match(r"^(.*?)\s+(\d{4})$", venue)
    if not m:
        return venue, None
    return m.group(1), int(m.group(2))


def venue_from_site_path(path: str) -> str | None:
    """Venue of a GitBook conference page from its path (``reading-notes/conference/osdi-2026/x`` →
    ``"OSDI 2026"``); ``None`` outside ``reading-notes/conference`` / ``journal``."""
    m = re.search(r"reading-notes/(?:conference|journal)/(?:[a-z]+/)?([a-z]+)-(\d{4})", path)
    if not m:
        return None
    return normalize_venue(f"{m.group(1)} {m.group(2)}")


def resolve_venue(text: str, known: Iterable[str]) -> str:
    """Canonical venue for ``text`` ("mlsys26" → "MLSys 2026") if it is one of ``known`` (given most
    important first, e.g. by paper count).

    Raises BadInputError with the closest known venues (same series, newest first, then difflib's
    closest spellings) otherwise, or a few examples when nothing is close.
    """
    known = list(dict.fromkeys(known))
    raw = (text or "").strip()
    if not raw:
        raise BadInputError("no venue given: name one, e.g. 'MLSys 2026' or 'osdi26'")
    v = normalize_venue(raw)
    by_lower = {k.lower(): k for k in known}
    if v and v.lower() in by_lower:
        return by_lower[v.lower()]
    if not v:  # a series venues.py does not know, written compactly: "toysys26", "ToySys-2026"
        compact = re.sub(r"[^a-z0-9]", "", raw.lower())
        for k in known:
            series, year = split_venue(k)
            forms = {re.sub(r"[^a-z0-9]", "", f"{series}{y}".lower()) for y in (year, (year or 0) % 100)}
            if year and compact in forms:
                return k
    probe = v or raw
    series = split_venue(probe)[0].lower()
    same = sorted(
        (k for k in known if split_venue(k)[0].lower() == series), key=lambda k: split_venue(k)[1] or 0, reverse=True
    )
    close = [by_lower[c] for c in difflib.get_close_matches(probe.lower(), list(by_lower), n=6, cutoff=0.5)]
    near = list(dict.fromkeys(same[:5] + close))[:6]
    what = f"unknown venue {probe!r}" if v else f"{raw!r} is not a venue name (e.g. 'MLSys 2026' or 'osdi26')"
    if near:
        raise BadInputError(f"{what}; closest known venues: {', '.join(near)}")
    raise BadInputError(f"{what}; the notes have {len(known)} venues, e.g. {', '.join(known[:5])}")
