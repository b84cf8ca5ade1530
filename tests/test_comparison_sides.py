"""Both sides of a comparison and what a sentence itself says: a paper named by its initials ("dbpm")
beside one named by its title's words ("latent burrow") are both read; a word only an outer heading
holds (a page titled "… & ordering") does not make every line under it an answer, so each side is
answered with its own sentence on what is asked; a names line ("System name: zLLM") names its paper;
a title's exact initials name it even where another note uses them ("the WFS replica"); a count is
answered by a sentence whose number stands beside the counted noun; a dated line ("MLSys 2024 Best
Paper Award.") states no affiliation; "… papers in my log", "papers I have", "which of my notes …" ask for a
list, "what do my notes say about X" does not."""

from __future__ import annotations

import pytest
from conftest import assert_answered, named_titles, notes_from_texts

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.papers import looks_like_affiliation
from papernotes.retrieval.entities import _compound_heads
from papernotes.retrieval.evidence import _number_beside
from papernotes.retrieval.terms import Key

WEEK = """# Week 5 — Classics II: replication & ordering

## Quokka: A Globally Distributed Burrow Database

- **Presenter:** Tom
- **Link:** https://www.usenix.org/conference/osdi31/presentation/quokka
- **Venue:** OSDI 2031

**Summary.** Globally distributed burrow database with externally ordered read-write transactions.
Key enabler: the TrueBurrow API, which returns an interval of bounded uncertainty from GPS receivers.

## Numbat: A Highly Available Nest Store

- **Presenter:** Mateo
- **Link:** https://dl.acm.org/doi/10.1145/9999999.1111111
- **Venue:** SOSP 2032

**Summary.** Always-writable nest store for shopping carts; it gives up ordering for availability
(eventual ordering). Tunable (N, R, W), commonly (3, 2, 2).

## Efficient Pouch Management for Large Marsupial Serving with PagedPouch

- **Presenter:** Priya
- **Link:** https://arxiv.org/abs/3309.06180
- **Venue:** SOSP 2033
- **System name:** zLLM

**Summary.** Pouch memory is split into fixed-size blocks allocated on demand, so only the last block
of each joey wastes memory. Result: 2-4x throughput over earlier pouch servers.
"""

DIFFUSION = """# Burrow papers log

### High-Resolution Nest Synthesis with Latent Burrow Models (CVPR 2032)
- https://arxiv.org/abs/3112.10752
- run burrowing in the latent space of a pretrained autoencoder instead of pixel space
- conditioning via cross-attention in the UNet

### Denoising Burrow Probabilistic Models (NeurIPS 2030)
- https://arxiv.org/abs/3006.11239
- forward process adds Gaussian noise over T=1000 steps in pixel space; learn the reverse process
- CIFAR10 unconditional: FID 3.17
"""

WALLABY = """# The Wallaby File System

- Venue: SOSP 2033
- Link: https://dl.acm.org/doi/10.1145/9454.9450

A single master holds all metadata in memory; files are stored as 64 MB chunks on chunk servers, with
3 replicas by default.
"""

MAPHOP = """# MapHop: Simplified Hopping on Large Clusters

- Venue: OSDI 2034
- Link: https://www.usenix.org/conference/osdi34/maphop

Users write hop and land functions; the runtime handles partitioning and retries.
Locality: schedule hop tasks near the WFS replica of their input.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("comparison-sides"),
        {"week05.md": WEEK, "burrows.md": DIFFUSION, "wallaby.md": WALLABY, "maphop.md": MAPHOP},
        models_cache,
    )


@pytest.mark.parametrize(
    "question",
    ["dbpm vs latent burrow what's different", "how is dbpm different from latent burrow", "latent burrow vs dbpm"],
)
def test_a_comparison_reads_each_side_however_it_is_named(notes, question):
    assert sorted(named_titles(notes, question)) == [
        "Denoising Burrow Probabilistic Models",
        "High-Resolution Nest Synthesis with Latent Burrow Models",
    ]
    assert_answered(notes, question, "pixel space")


@pytest.mark.parametrize("question", ["quokka vs numbat ordering model", "how do quokka and numbat differ in ordering"])
def test_each_side_is_answered_by_its_own_sentence_on_what_is_asked(notes, question):
    """The page title says "ordering", so every line under it would cover the word; each side is quoted
    with a sentence that says it, not with its presenter or its link."""
    a = assert_answered(notes, question, "externally ordered", "eventual ordering")
    assert "Presenter:" not in a.answer


def test_an_outer_heading_word_counts_half_a_sentences_own(notes):
    an = notes.analyze("quokka ordering model")
    said = [s for s in an.sentences if "externally ordered" in s.text]
    heading_only = [s for s in an.sentences if s.text.startswith("Key enabler")]
    assert said and heading_only
    assert said[0].says > 0 and heading_only[0].says == 0
    assert said[0].asked > heading_only[0].asked > 0


@pytest.mark.parametrize("question", ["zllm paper?", "how much faster is zllm", "what does zLLM do"])
def test_a_names_line_names_its_paper(notes, question):
    assert named_titles(notes, question) == ["Efficient Pouch Management for Large Marsupial Serving with PagedPouch"]


@pytest.mark.parametrize("question", ["wfs chunk size", "how many replicas does wfs keep", "WFS venue?"])
def test_a_titles_exact_initials_name_it_where_another_note_uses_them(notes, question):
    assert named_titles(notes, question) == ["The Wallaby File System"]


def test_a_count_is_answered_by_the_number_beside_the_counted_noun(notes):
    assert_answered(notes, "how many replicas does the wallaby file system keep", "3 replicas")


@pytest.mark.parametrize(
    ("text", "near"),
    [
        ("The Base model has 86M parameters and 12 layers.", True),
        ("layers: 24; hidden: 1024", True),
        ("a 24-layer encoder", True),
        ("They rearranged the layer normalization, which made the 3.9B model train stably.", False),
        ("Layer norm placement matters; the largest run used 512 GPUs for a week.", False),
        ("see arXiv 2312.07104 for the layer details", False),
        ("the encoder stacks 1,024 layers", True),
        ("Layers are randomized (e.g., 12 or 24) per run.", True),
        ("The deep stack of layers, which made the 3.9B model train stably (2 weeks).", False),
        ("论文里 BERT-Large 有 24 层。", True),
    ],
)
def test_a_number_in_one_clause_with_the_counted_noun(text, near):
    assert _number_beside(text, [Key("layers", (("layer",),))], set()) is near


@pytest.mark.parametrize(
    ("line", "affiliation"),
    [("MLSys 2024 Best Paper Award.", False), ("Kangaroo Corp.", True), ("UMacau & SIAT, CAS", True)],
)
def test_a_dated_line_states_no_affiliation(line, affiliation):
    assert looks_like_affiliation(line) is affiliation


def test_the_head_of_a_name_whose_tail_is_an_acronym_names_the_paper():
    records = [
        PaperRecord(title="Marsupial-LM: Training Pouch Models", system="Marsupial-LM"),
        PaperRecord(title="Wombat-V3 Technical Report", system="Wombat-V3"),
    ]
    assert _compound_heads(records) == {"Marsupial": 0}


@pytest.mark.parametrize(
    "question",
    ["burrow papers in my log", "which of my notes are about burrows", "burrow papers i have"],
)
def test_a_question_about_my_collection_asks_for_a_list(notes, question):
    assert notes.retriever.understand(question).is_list


def test_what_my_notes_say_about_a_paper_is_no_list(notes):
    q = notes.retriever.understand("what do my notes say about quokka")
    assert not q.is_list
