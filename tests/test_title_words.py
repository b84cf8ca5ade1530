"""Papers named by the few words of their title that single them out ("the bag of heuristics one",
"learned bloom filters paper"), as people ask about notes whose titles carry no system name
(retrieval/title_words.py). Fixture: tests/fixtures/families/plain_titles/notes (papers written for
the test: six notes titled as papers are, four of them using "neural networks" in passing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_answered, named_titles, notes_of

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "plain_titles" / "notes"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("plain-titles-index"), models_cache)


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("the bag of heuristics one - how many lines per minute", "A Bag of Heuristics for Fast Log Parsing"),
        ("learned bloom filters paper, summarize", "Learned Bloom Filters for Key-Value Stores"),
        ("rethinking checkpoint frequency - who wrote it", "Rethinking Checkpoint Frequency for Spot Training"),
        ("delta encoding paper how much smaller", "Checkpoint Compression with Delta Encoding"),
        ("how does the learned gates paper balance load", "Routing Tokens Between Experts with Learned Gates"),
        # a focus that says it is a paper names one
        ("which learned bloom filters paper saves memory", "Learned Bloom Filters for Key-Value Stores"),
    ],
)
def test_distinctive_title_words_name_the_paper(notes, question, title):
    assert named_titles(notes, question) == [title]


@pytest.mark.parametrize(
    "question",
    [
        "checkpoint paper?",  # in two titles: it singles out neither
        "how do neural networks predict reuse",  # in one title, but a phrase the notes use everywhere
        "list the checkpoint papers",  # a list asks for a topic, not a paper
        "which papers in my notes use bloom filters",
        "gan paper",  # too short to single out anything
        # what the interrogative asks for is the kind of answer, not a paper asked about
        "what heuristics does the log parser use",
        "which learned bloom filters do databases use",
        "日志解析用的是什么 heuristics",
        "日志解析用的是什么 heuristics？",  # a full-width question mark ends the word as "?" does
    ],
)
def test_shared_ordinary_or_listing_words_name_no_paper(notes, question):
    assert named_titles(notes, question) == []


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("the bag of heuristics one - how many log lines per minute", "10 million"),
        ("learned bloom filters memory savings", "36%"),
        ("rethinking checkpoint frequency wasted gpu time", "41%"),
    ],
)
def test_a_paper_named_by_title_words_is_answered_from_its_notes(notes, question, figure):
    assert_answered(notes, question, figure)


def test_who_wrote_a_paper_named_by_title_words(notes):
    a = notes.ask("rethinking checkpoint frequency - who wrote it", use_llm=False)
    assert not a.refused and "Okonkwo" in a.answer, a.answer
