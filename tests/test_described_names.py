"""A paper's name followed by words that describe it by its title, shortened and in any order
("dfvg spec decoding - drafts on what hw", "mixnet moe training - uses what switching tech", "hotline
(isca24) recsys training - what is it?"): those words go with the name, and only what comes after them is
asked (retrieval/entities.py ``PaperIndex._described``, retrieval/abbreviations.py ``shortens``).
Fixture: tests/fixtures/families/described_names/notes (four papers written for the test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_answered, notes_of

from papernotes.retrieval.abbreviations import shortens
from papernotes.retrieval.evidence import _number_beside, has_number

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "described_names" / "notes"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("described-names-index"), models_cache)


def asked_words(notes, question: str) -> set[str]:
    return {w for k in notes.retriever.understand(question).asked for w in k.word.split()}


@pytest.mark.parametrize(
    ("word", "title", "expected"),
    [
        ("spec", "Kestrix: Asynchronous Pipelined Speculation for LLM Inference", True),  # a start of a word
        ("async", "Kestrix: Asynchronous Pipelined Speculation for LLM Inference", True),
        ("speculative", "Kestrix: Asynchronous Pipelined Speculation for LLM Inference", True),  # the same stem
        ("recsys", "Brindlo: Heterogeneous Acceleration for Recommendation System Training", True),
        ("moe", "Quarrion: A Reconfigurable Optical Fabric for Distributed Mixture-of-Experts Training", True),
        ("ml", "Lumora: Carbon-aware Resource Scheduling for Machine Learning Clusters", True),
        ("to", "Training on Old GPUs", False),  # a stop word stands only for itself
        ("drafts", "Kestrix: Asynchronous Pipelined Speculation for LLM Inference", False),
        ("sp", "Kestrix: Asynchronous Pipelined Speculation for LLM Inference", False),  # too short a start
        ("rs", "Brindlo: Heterogeneous Acceleration for Recommendation System Training", True),
        ("rt", "Brindlo: Heterogeneous Acceleration for Recommendation System Training", False),  # skips a word
    ],
)
def test_a_typed_word_shortens_title_words(word, title, expected):
    assert shortens(word, title) is expected


@pytest.mark.parametrize(
    ("question", "described", "asked"),
    [
        ("kestrix async pipelined spec - what are the main techniques", {"async", "pipelined", "spec"}, {"techniques"}),
        ("brindlo recsys training - what is it?", {"recsys", "training"}, set()),
        ("hey, brindlo (isca 2024) recsys training - what is it", {"recsys", "training"}, set()),
        ("quarrion moe training - how often is it reconfigured", {"moe", "training"}, {"reconfigured"}),
        ("lumora carbon-aware scheduling for ML clusters - from?", {"carbon-aware", "scheduling", "ml"}, set()),
        ("quarrion optical fabric uses what switches", {"optical", "fabric"}, {"switches"}),
    ],
)
def test_describing_words_after_a_name_are_not_asked(notes, question, described, asked):
    got = asked_words(notes, question)
    assert not described & got, got
    assert asked <= got, got


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("kestrix speculation?", {"speculation"}),  # nothing after it: the title word is what is asked
        ("brindlo recsys - training speedup?", {"training"}),  # a clause mark ends the description
        ("lumora scheduling which clusters", {"clusters"}),  # a question word ends it
        ("brindlo training speedup?", {"training"}),  # one title word may be the question's own
    ],
)
def test_a_description_stops_where_the_question_starts(notes, question, asked):
    assert asked <= asked_words(notes, question)


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("kestrix async pipelined spec - what drops the invalidated drafts", "Early Cancellation"),
        ("brindlo recsys training - what is it?", "embeddings"),
        ("quarrion moe training - how often is the fabric reconfigured", "40 ms"),
        ("lumora carbon-aware scheduling for ML clusters - from?", "University of Porto"),
        ("lumora carbon aware sched - emissions cut by how much", "31%"),
    ],
)
def test_a_described_paper_is_answered_from_its_notes(notes, question, figure):
    assert_answered(notes, question, figure)


@pytest.mark.parametrize(
    ("text", "asked", "expected"),
    [
        ("rolls the pipeline back by one stage", "stage", True),  # "one" counting the asked noun
        ("one of the stages drafts", "stage", False),  # a pronoun is not
        ("the one that drafts", "draft", False),
        ("one can roll back", "roll", False),
        ("nine low-level metrics", "metric", True),
    ],
)
def test_one_before_what_it_counts_is_a_number_beside_it(text, asked, expected):
    assert _number_beside(text, [asked], frozenset()) is expected


def test_one_alone_states_no_amount():
    """Outside the clause of what is asked, "one" is no amount: "prefetches them one layer ahead" states
    no speedup."""
    assert not has_number("Wombatcache prefetches cold blocks one layer ahead.")
