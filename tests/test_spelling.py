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


def test_a_word_the_notes_use_reads_as_the_term_of_the_field_it_shortens():
    # "perf" is in the notes as the name of a paper (PeRF), "performance" in more than the field-term share of
    # the chunks (here every chunk but one of 12): typed in lower case, "perf" is read as "performance".
    # A word the notes use that shortens a rarer word is left alone, as are English words and names
    texts = [f"System {i} improves performance, gradient accuracy and temporal locality." for i in range(11)]
    texts.append("PeRF: a preemption-enabled RDMA framework; IMPL is its implementation; grad students.")
    vocab = Vocabulary(texts, english_word)
    assert vocab.shorthand("perf") == "performance" and vocab.variant("perf") == "performance"
    assert vocab.shorthand("impl") is None  # "implementation": one chunk, no term of the field
    assert vocab.variant("impl") is None  # and the notes use "impl"
    assert vocab.shorthand("grad") == "gradient"
    assert vocab.shorthand("tempo") is None  # an English word, though "temporal" begins with it
    assert vocab.shorthand("Perf") is None  # capitalized: a name
    assert vocab.shorthand("system") is None  # no shorthand at all
