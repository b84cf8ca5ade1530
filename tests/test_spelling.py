"""Question words the notes never use read as the notes' word they misspell or abbreviate
(retrieval/spelling.py), and what that changes for answers."""

from __future__ import annotations

import pytest

from papernotes.retrieval.spelling import Vocabulary
from papernotes.retrieval.terms import english_word

TEXTS = [
    "Hyperparameter tuning service; tuning runs share GPUs.",
    "Mooncake pools DRAM into a distributed KVCache for disaggregated serving.",
    "The implementation uses a distributed database; attention kernels are fused.",
    "Authors from the university of Washington measure latency and throughput of attention.",
    "Orchestration of serverless functions; the orchestrator keeps latency low.",
    "Kairox schedules quantization jobs.",
    "The accelerator offloads attention to an FPGA.",
    "Accelerator memory is small; ACCL moves tensors between accelerator boards.",
    "A new accelerator for sparse attention.",
]


@pytest.fixture(scope="module")
def vocab():
    return Vocabulary(TEXTS, english_word)


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("databse", "database"),  # a letter left out
        ("distribued", "distributed"),
        ("latnecy", "latency"),  # two letters swapped
        ("throughtput", "throughput"),  # a letter added
        ("quantisation", "quantization"),  # a letter replaced
    ],
)
def test_misspellings_read_as_the_notes_word(vocab, typed, meant):
    assert vocab.variant(typed) == meant


@pytest.mark.parametrize(
    ("typed", "meant"), [("attn", "attention"), ("univ", "university"), ("impl", "implementation")]
)
def test_abbreviations_read_as_the_notes_word(vocab, typed, meant):
    assert vocab.variant(typed) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "Databse",  # capitalized: taken as a name, never corrected
        "Orca",  # an unknown name, even though "orchestration" holds its letters
        "latency",  # in the notes already
        "dbs",  # too short to tell
        "fooserve",  # nothing close
        "kv3",  # not a word
    ],
)
def test_names_and_known_words_are_left_alone(vocab, typed):
    assert vocab.variant(typed) is None


@pytest.mark.parametrize("typed", ["turing", "turning", "tubing"])
def test_an_english_word_the_notes_lack_is_not_read_as_a_misspelling(vocab, typed):
    # "turing" (as in the Turing award) is one edit from the notes' "tuning", but it is a word: only
    # non-words are corrected, so an asked word the notes lack still counts against an answer
    assert vocab.variant(typed) is None
    assert vocab.variant("tunnig") == "tuning"  # the non-word next to it is still read


def test_an_english_word_is_not_read_as_an_abbreviation(vocab):
    # "orca" is an English word: it is not short for "orchestration"/"orchestrator"
    assert vocab.variant("orca") is None


def test_a_word_read_both_ways_takes_the_more_common_reading(vocab):
    # "accel" is one edit from the rare "accl" and cuts "accelerator" short: the notes' common word wins
    assert vocab.variant("accel") == "accelerator"
