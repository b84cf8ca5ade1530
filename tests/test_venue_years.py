"""Venues as flags and notes write them: a two-digit year read by the POSIX strptime %y rule (69–99 →
1969–1999, 00–68 → 2000–2068: "OSDI '99" is 1999, not 2099), and a publisher's name before the series
("USENIX OSDI 2024") as part of the venue's name."""

from __future__ import annotations

import pytest

from papernotes.corpus.venues import normalize_venue, two_digit_year
from papernotes.retrieval.filters import venue_mentions


@pytest.mark.parametrize(
    ("written", "venue"),
    [("osdi'99", "OSDI 1999"), ("OSDI '26", "OSDI 2026"), ("sosp24", "SOSP 2024"), ("SOSP 2003", "SOSP 2003")],
)
def test_two_digit_years(written, venue):
    assert normalize_venue(written) == venue


@pytest.mark.parametrize(("y", "year"), [(0, 2000), (26, 2026), (68, 2068), (69, 1969), (99, 1999), (2014, 2014)])
def test_the_pivot(y, year):
    assert two_digit_year(y) == year


def test_a_misspelt_series_with_a_two_digit_year():
    mentions = venue_mentions("nsid'99 papers", known_series=["NSDI"])
    assert [(v.series, v.year) for v in mentions] == [("NSDI", 1999)]


@pytest.mark.parametrize(
    ("flag", "venue"),
    [("USENIX OSDI 2024", "OSDI 2024"), ("usenix fast 2025", "FAST 2025"), ("ACM SOSP 2024", "SOSP 2024")],
)
def test_a_publisher_before_the_series_is_part_of_its_name(flag, venue):
    """`--venue "USENIX OSDI 2024"` is OSDI 2024 for every command, as `summarize` already read it."""
    from papernotes.retrieval.filters import normalize_filters

    assert normalize_filters(venue=flag).venue == venue


def test_two_series_are_still_several_venues():
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.filters import normalize_filters

    with pytest.raises(BadInputError, match="several venues"):
        normalize_filters(venue="OSDI/SOSP 2024")
