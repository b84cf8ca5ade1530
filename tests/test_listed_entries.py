"""Papers listed as items of one page with notes nested under each ("- **Title** (Venue)" and under it
"  - Trained on 2048 chips in 4 days."): a question naming one of them is answered from its own item and
what is nested under it (the page's chunks are about several papers, none of them that paper's alone),
never from a neighbour's item; a shorthand the paper's own notes spell out ("params", "acc") is read as
their word even where other notes write the shorthand; a versioned name no note writes ("gpt-9") lists
nothing."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.entries import entry_span

SCALING = """# Scaling notes

## Mixture of experts

- **Quokkashard: Scaling Giant Marsupial Models with Conditional Pouches** (Lepik et al., ICLR 2031) — [arXiv](https://arxiv.org/abs/3106.16668)
  - Two parts: pouch annotations for the compiler and a 600B-parameter sparsely-gated pouch transformer.
  - Top-2 gating, pouch capacity, auxiliary load-balancing loss.
  - Trained on 2048 TPU v9 cores in 4 days.
- **Wallabyswitch: Scaling to Trillion Parameter Marsupials with Simple Hops** (Fedus, JMLR 2032) — [arXiv](https://arxiv.org/abs/3201.03961)
  - Route each token to one pouch instead of two: less compute and communication.
  - Up to 7x pretraining speedup over T9-Base at the same FLOPs per token.

## Vision

1. **Bandicoot Vision Transformers: An Image is Worth Many Pouches** (ICLR 2033) — [arXiv](https://arxiv.org/abs/3310.11929)
   1. Bandicoot-H/14 reaches 88.5% top-1 accuracy on ImageNet after pretraining on JFT.
   2. Pretraining took 2.5k TPUv9-core-days.
"""

TABLE = """# Model sizes

| Model | Params | Layers |
|---|---|---|
| Potoroo-Base | 110M | 12 |
| Potoroo-Large | 340M | 24 |
"""

GPT = """# Numbat-3: Marsupial Language Models are Few-Shot Learners

- Venue: NeurIPS 2030
- Link: https://arxiv.org/abs/3005.14165

Numbat-3 is a 175 billion parameter autoregressive language model.
Evaluated zero-shot on TriviaQA with 64.3% accuracy.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("listed-entries"),
        {"scaling.md": SCALING, "sizes.md": TABLE, "numbat3.md": GPT},
        models_cache,
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("quokkashard trained on how many tpus", "2048 TPU v9"),
        ("how long was quokkashard trained", "4 days"),
        ("wallabyswitch speedup over t9-base?", "7x"),
        ("bandicoot vision transformers pretraining cost", "2.5k"),  # a numbered list
    ],
)
def test_a_listed_paper_is_answered_from_its_own_nested_notes(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


@pytest.mark.parametrize(
    ("question", "neighbours"),
    [
        ("quokkashard speedup over t9-base?", "7x pretraining speedup"),  # only Wallabyswitch's item says it
        ("how many days was wallabyswitch trained", "4 days"),  # only Quokkashard's item says it
    ],
)
def test_a_neighbours_nested_notes_are_not_the_named_papers(notes, question, neighbours):
    a = notes.ask(question, use_llm=False)
    assert neighbours not in a.answer, a.answer


def test_an_entry_is_its_item_and_the_lines_nested_under_it():
    body = SCALING.split("## Mixture of experts\n", 1)[1]
    span = entry_span(body, "Quokkashard: Scaling Giant Marsupial Models with Conditional Pouches")
    assert span is not None
    assert span.startswith("- **Quokkashard") and span.endswith("in 4 days.")
    assert "Wallabyswitch" not in span
    assert entry_span(body, "Koala: A Paper No Line Names") is None
    assert entry_span("- **Numbat**: short", "Numbat") is None  # too short a title to search lines for
    # cut off by the chunk's end after its title and link: nothing of the paper is stated there
    title = "Potoroo Leases: Fast Local Reads"
    assert entry_span(f"- **{title}** (NSDI 2031)\nhttps://arxiv.org/abs/3101.00003", title) is None
    # a line right below the item that starts no item continues it, indented or not
    span = entry_span(f"- **{title}** (NSDI 2031)\nLeases serve reads locally.\n- **Other Paper Title Here**", title)
    assert span is not None and span.endswith("Leases serve reads locally.")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how many params in numbat-3", "175 billion parameter"),  # another note's table says "Params"
        ("numbat-3 param count", "175 billion parameter"),
        ("numbat-3 triviaqa acc?", "64.3%"),
    ],
)
def test_a_truncated_word_is_read_as_the_named_papers_own_word(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


@pytest.mark.parametrize(
    "question",
    ["do i have notes on the numbat-4 technical report", "any numbat-5 papers?", "which papers use bandicoot-9"],
)
def test_a_versioned_name_no_note_writes_lists_nothing(notes, question):
    a = notes.ask(question, use_llm=False)
    assert a.refused, a.answer


def test_a_versioned_name_the_notes_write_is_listed(notes):
    a = notes.ask("which papers are about numbat-3", use_llm=False)
    assert not a.refused, a.answer
    assert "Numbat-3" in a.answer
