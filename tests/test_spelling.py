"""Question words the notes never use read as the notes' word they misspell or abbreviate
(retrieval/spelling.py), and what that changes for answers."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

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


@pytest.mark.parametrize(
    ("typed", "meant"), [("thruput", "throughput"), ("fonetic", "phonetic"), ("thruputs", "throughputs")]
)
def test_a_word_spelt_as_it_sounds_reads_as_the_notes_word(typed, meant):
    # too many edits away to be a misspelling ("thruput": three insertions), the same Metaphone key
    texts = [*TEXTS, "Phonetic matching of throughputs and common names."]
    assert Vocabulary(texts, english_word).variant(typed) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "gemini",  # KMN sounds like the notes' "common", but a key of three codes is shared by too many words
        "thruptt",  # no word of the notes sounds like it
        "thruput",  # (in notes without "throughput")
    ],
)
def test_a_name_is_not_read_by_sound(typed):
    texts = ["Common names of systems.", "Serving latency.", "Thread pools." if typed == "thruput" else "throughput"]
    assert Vocabulary(texts, english_word).variant(typed) is None


@pytest.mark.parametrize(
    "question, figure",
    [("quokka thruput gains?", "3.1x"), ("quokka perf gain", "40%"), ("quokka kernal fusion speedup", "1.7x")],
)
def test_a_question_typed_by_sound_or_shorthand_is_answered(tmp_path, models_cache, question, figure):
    """Each way of typing a word the notes write otherwise — by sound ("thruput"), as the shorthand of a
    term of the field ("perf"), one edit away ("kernal") — is answered from the sentence holding it."""
    body = (
        "Quokka batches requests by deadline. It raises throughput by 3.1x over vLLM. "
        "Its fused attention kernel gives a 1.7x speedup. Overall performance improves by 40%."
    )
    files = {"quokka.md": f'---\ntitle: "Quokka: Deadline-Aware LLM Serving"\nvenue: "OSDI 2024"\n---\n\n{body}\n'}
    for i in range(12):  # "performance" a term of the field: in more than 10 chunks
        files[f"other{i}.md"] = f"# Note {i}\n\nSystem number {i} improves performance of storage.\n"
    answer = notes_from_texts(tmp_path, files, models_cache).ask(question)
    assert not answer.refused and figure in answer.answer


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("flashattn", "flashattention"),  # a name and "attn" typed as one word
        ("pagedattn", "pagedattention"),
        ("pagedatn", "pagedattention"),
        ("deepspd", "deepspeed"),  # consonants of the rest, in order
        ("fastertrans", "fastertransformer"),  # the rest cut short
    ],
)
def test_a_compound_name_typed_shortened_reads_as_the_name(typed, meant):
    texts = [
        "FlashAttention tiles attention.",
        "PagedAttention in vLLM.",
        "DeepSpeed ZeRO.",
        "FasterTransformer is a baseline.",
    ]
    assert Vocabulary(texts, english_word).variant(typed) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "flashattnx",  # a letter the name does not have after the shortened part
        "flashatex",  # a vowel in the shortened part: no contraction
        "flattn",  # only three letters written out
        "flashy",  # a common English word is meant as typed
        "deepsx",  # nothing of the rest
    ],
)
def test_a_word_that_shortens_no_name_is_left_alone(typed):
    texts = ["FlashAttention tiles attention.", "DeepSpeed ZeRO.", "Flashing lights."]
    assert Vocabulary(texts, english_word).variant(typed) is None


def test_a_question_typing_a_name_shortened_is_answered(tmp_path, models_cache):
    """ "flashattn path-x acc?" names FlashAttention: before, "flashattn" was a name no note writes and the
    question was refused."""
    files = {
        "flashattention.md": (
            '---\ntitle: "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness"\n'
            'venue: "NeurIPS 2022"\n---\n\nTiles attention so it never materializes the N×N matrix.\n\n'
            "## Results\n\n- first Transformer to get better-than-chance on Path-X (seq. length 16K, 61.4% accuracy)\n"
            "- 3x speedup on GPT-2 (seq. length 1K)\n"
        ),
        "vllm.md": '---\ntitle: "Efficient Memory Management for LLM Serving with PagedAttention"\n---\n\nPages the KV cache.\n',
    }
    notes = notes_from_texts(tmp_path, files, models_cache)
    answer = notes.ask("flashattn path-x acc?")
    assert not answer.refused and "61.4%" in answer.answer
    assert notes.ask("flashatx path-x acc?").refused  # no name it shortens
    # typed apart, or with a hyphen, a part shortened: the same name ("flash-attn" was refused)
    for typed in ("flash attn gpt-2 speedup?", "flash-attn gpt-2 speedup?", "gpt-2 speedup of flash-attn"):
        answer = notes.ask(typed)
        assert not answer.refused and "3x speedup" in answer.answer, (typed, answer.answer)
    assert notes.ask("flash-atx gpt-2 speedup?").refused  # no word of the notes it shortens
