"""Suggestions for a venue the notes lack: the same series' other years first, else the other series of
that year, else nothing — never a venue picked for how its name is spelled."""

from __future__ import annotations

import re

import pytest

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.venues import split_venue, suggest_venues, unknown_venue

KNOWN = ["OSDI 2024", "OSDI 2026", "OSDI 2021", "SIGMOD 2025", "SOSP 2025", "MLSys 2026", "SIGCOMM 2024"]


@pytest.mark.parametrize(
    ("series", "year", "expected"),
    [
        ("OSDI", 2030, ["OSDI 2026", "OSDI 2024", "OSDI 2021"]),  # nearest year first
        ("OSDI", 2023, ["OSDI 2024", "OSDI 2021", "OSDI 2026"]),
        ("osdi", 2022, ["OSDI 2021", "OSDI 2024", "OSDI 2026"]),  # equally near: the newer first
        ("OSDI", None, ["OSDI 2026", "OSDI 2024", "OSDI 2021"]),
        ("SIGGRAPH", 2025, ["SIGMOD 2025", "SOSP 2025"]),  # the year's venues, in the given order
        ("FOOCONF", 2026, ["OSDI 2026", "MLSys 2026"]),
        ("FOOCONF", 1999, []),
        ("SIGGRAPH", None, []),
    ],
)
def test_suggestion_tiers(series, year, expected):
    assert suggest_venues(series, year, KNOWN) == expected


def test_spelling_never_brings_in_another_year():
    # "SIGCOMM 2024" is spelled like "SIGMOD 2025" and "SIGGRAPH 2025" but is of neither series nor year
    assert "SIGCOMM 2024" not in suggest_venues("SIGGRAPH", 2025, KNOWN)
    assert "SIGCOMM 2024" not in suggest_venues("SIGMOD", 2026, KNOWN)


def test_messages_are_one_line_and_say_which_tier():
    same = str(unknown_venue("OSDI 2030", KNOWN))
    year = str(unknown_venue("FOOCONF 2026", KNOWN))
    none = str(unknown_venue("FOOCONF 1999", KNOWN))
    assert same == "unknown venue 'OSDI 2030'; the notes have OSDI 2026, OSDI 2024, OSDI 2021"
    assert "no FOOCONF papers" in year and "2026 venues: OSDI 2026, MLSys 2026" in year
    assert "no FOOCONF papers and none of 1999" in none
    assert not re.search(r"\b(?:OSDI|SIGMOD|SOSP|MLSys|SIGCOMM) 20\d\d", none)
    assert all("\n" not in m for m in (same, year, none))


def test_real_corpus_suggestions(real_index):
    """On the real notes: an OSDI year they lack suggests only OSDI years; a series they lack suggests
    only venues of the year asked for (or nothing for a year they lack)."""
    from papernotes.retrieval.stats import list_papers

    def message(venue: str) -> str:
        with pytest.raises(BadInputError) as e:
            list_papers(real_index, venue)
        return str(e.value)

    def named(msg: str) -> list[tuple[str, int | None]]:
        tail = re.sub(r" \(and \d+ more\)$", "", msg.split("the notes have ", 1)[1].split(": ")[-1])
        return [split_venue(v.strip()) for v in tail.split(",")]

    osdi = message("OSDI 2030")
    assert named(osdi) and all(s == "OSDI" for s, _ in named(osdi)), osdi
    assert named(osdi)[0] == ("OSDI", 2026)
    for venue, year in (("SIGGRAPH 2025", 2025), ("FOOCONF 2026", 2026)):
        msg = message(venue)
        assert "venues:" in msg and all(y == year for _, y in named(msg)), msg
        assert venue.split()[0] not in msg.split(";", 1)[1].split(":")[-1], msg
    nothing = message("FOOCONF 1999")
    assert "none of 1999" in nothing and not re.search(r"[A-Za-z]+ 20\d\d", nothing), nothing
    assert "no SIGGRAPH papers" in message("SIGGRAPH")


@pytest.mark.parametrize("raw", ["OSDI", "osdi", "Osdi", "ToySys", "toysys"])
def test_a_series_without_its_year_is_told_which_years_the_notes_hold(raw):
    from papernotes.corpus.venues import resolve_venue

    known = ["MLSys 2026", "OSDI 2024", "OSDI 2026", "ToySys 2026"]
    with pytest.raises(BadInputError) as e:
        resolve_venue(raw, known)
    msg = str(e.value)
    assert "needs a year" in msg and "\n" not in msg
    series = "OSDI" if raw.lower() == "osdi" else "ToySys"
    assert all(k in msg for k in known if k.startswith(series)) and "MLSys" not in msg, msg


def test_an_unknown_venue_says_how_many_suggestions_it_left_out():
    from papernotes.corpus.venues import unknown_venue

    known = [f"{s} 2026" for s in ("OSDI", "NSDI", "MLSys", "SOSP", "FAST", "HPCA", "ASPLOS", "EuroSys", "ATC")]
    msg = str(unknown_venue("FOOCONF 2026", known))
    assert "more" in msg and msg.count(",") < len(known), msg
