"""Words as people type them in a hurry, read as the notes write them: a venue misspelt with its year
attached ("sops25", "eurosy24") is that venue; a compound typed as one word that the notes write as two
("realtime", "codesize") matches the two words (retrieval/filters.venue_mentions, question.match_keys)."""

from __future__ import annotations

import pytest

from papernotes.retrieval.filters import detect_filters, venue_mentions
from papernotes.retrieval.question import match_keys
from papernotes.retrieval.terms import lexical_terms

KNOWN = ["SOSP 2025", "EuroSys 2024", "NSDI 2026", "OSDI 2024", "ATC 2025"]


@pytest.mark.parametrize(
    ("question", "venue"),
    [
        ("mercury sops25 IR name", "SOSP 2025"),  # transposition
        ("orion eurosy24 baselines?", "EuroSys 2024"),  # a letter left out
        ("what about nsid'26", "NSDI 2026"),
        ("osdi24 papers", "OSDI 2024"),  # spelt right: read as before
    ],
)
def test_a_misspelt_venue_with_its_year_is_that_venue(question, venue):
    assert detect_filters(question, KNOWN).venue == venue


@pytest.mark.parametrize(
    "question",
    [
        "hive24 thing",  # a name with a number, near no series
        "Sops25 results",  # a capitalized word is a name, not a typo
        "lora24 paper",
        "how fast is sosp",  # no year: no guess
    ],
)
def test_a_word_near_no_series_or_without_a_year_names_no_venue(question):
    assert not [m for m in venue_mentions(question, ["SOSP", "EuroSys", "NSDI"]) if m.year]


NOTES = "Support the online generation of videos in real time. The code size is small."


def _in_notes(term: str) -> bool:
    return term in set(lexical_terms(NOTES))


@pytest.mark.parametrize(
    ("typed", "parts"),
    [("realtime", ("real", "time")), ("codesize", ("code", "size"))],
)
def test_a_compound_typed_as_one_word_matches_the_notes_two_words(typed, parts):
    (key,) = match_keys(typed, _in_notes)
    assert tuple(lexical_terms(" ".join(parts))) in key.alternatives
    assert key.covered(set(lexical_terms(NOTES)))


@pytest.mark.parametrize("typed", ["paxosdb", "onlinegen", "sizecode"])
def test_a_name_or_words_the_notes_lack_are_not_split(typed):
    """ "paxosdb": "paxos" is no English word; "onlinegen": "gen" is not in the notes as a word;
    "sizecode" splits into two English words the notes use, so only a word the notes hold whole is
    left alone — this one is split (both parts are the notes' words)."""
    (key,) = match_keys(typed, _in_notes)
    split = [alt for alt in key.alternatives if len(alt) == 2]
    if typed == "sizecode":
        assert split
    else:
        assert not split
