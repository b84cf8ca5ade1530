"""The short names a notes collection's index gives its paper notes (``- [x] [Ferrule](papers/001_ferrule.md)``)
are aliases of those papers' records, so a question naming a paper by its index name finds it. Fixture:
tests/fixtures/families/index_names/notes (papers written for the test: an index README over three
plain-titled paper notes, a note that is no paper, a venue page and a link to a missing note; and a
numbered list titling two notes that are folders named after those titles, whose README opens with
"## Notes", and a third whose folder is missing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_answered, notes_of

from papernotes.corpus.markdown import parse_blocks
from papernotes.corpus.papers import pointer_name

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "index_names" / "notes"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("index-names-index"), models_cache)


def _item(markdown: str):
    return next(b for b in parse_blocks(markdown) if b.kind == "list").items[0]


@pytest.mark.parametrize(
    ("bullet", "pointer"),
    [
        ("- [x] [SDXL](./notes/027_sdxl.md)", ("SDXL", "./notes/027_sdxl.md")),
        ("* [DETR](notes/012_detr.md)", ("DETR", "notes/012_detr.md")),
        ("- [ ] [Ferrule](papers/001_ferrule.md)", ("Ferrule", "papers/001_ferrule.md")),
        ("- 2024-03-01: [Orca](papers/0042.md)", ("Orca", "papers/0042.md")),
        ("- [Orca](orca.md)", None),  # the file's own name: no other name
        ("- [Deep contextualized word representations](nlp/elmo.md) — ELMo", ("ELMo", "nlp/elmo.md")),
        ("- [Training Compute-Optimal LLMs](c.md) — Chinchilla（英文笔记）", ("Chinchilla", "c.md")),
        (
            "- [Training language models to follow instructions](i.md) — InstructGPT，2024-03-11 读",
            ("InstructGPT", "i.md"),
        ),
        ("- [Some Paper Title Here](p.md) (RAG)", ("RAG", "p.md")),
        ("- [Orca](orca.md) (OSDI 2022)", None),  # a venue after the link
        ("- [Some Paper Title Here](p.md) — read twice, great", None),  # a comment, no name
        ("- [OSDI 2024](osdi-2024.md)", None),  # a venue's page
        ("- [Reading group schedule and how we pick](s.md)", None),  # no short name
        ("- [vLLM](https://arxiv.org/abs/2309.06180)", None),  # a paper on the web, not a note
        ("- [papers.nlp.seq2seq](papers.nlp.seq2seq.md)", None),  # a link showing its target
        (  # a title naming a note named after it
            "1. [Dissecting the Loomwork Tile Architecture](papers/Dissecting-the-Loomwork-Tile-Architecture)",
            ("Dissecting the Loomwork Tile Architecture", "papers/Dissecting-the-Loomwork-Tile-Architecture"),
        ),
        ("- [Reading Group Schedule And Picks](papers/schedule.md)", None),  # a title, not the note's name
    ],
)
def test_pointer_name(bullet, pointer):
    assert pointer_name(_item(bullet)) == pointer


@pytest.mark.parametrize(
    ("title", "alias"),
    [
        ("Coordinating Retries Across Microservice Call Graphs", "Ferrule"),
        ("Moving Objects Between Managed Runtimes Without Serialization", "Skyway"),
        ("Tiered Storage for Vector Indexes on Object Stores", "Brinevault"),
    ],
)
def test_an_index_name_is_an_alias_of_the_note_it_points_to(notes, title, alias):
    r = next(r for r in notes.catalog if r.title == title)
    assert alias in r.aliases


def test_index_names_make_no_records(notes):
    titles = {r.title for r in notes.catalog}
    assert not titles & {"Ferrule", "Skyway", "Brinevault", "Lattice", "OSDI 2024"}
    assert all("Lattice" not in r.aliases for r in notes.catalog)  # its note does not exist


@pytest.mark.parametrize(
    ("question", "figure"),
    [("ferrule retry traffic reduction", "71%"), ("how much faster are shuffles with skyway", "2.3x")],
)
def test_a_paper_asked_by_its_index_name(notes, question, figure):
    assert_answered(notes, question, figure)


LOOMWORK = "Dissecting the Loomwork Tile Architecture"
SPARSE = "Scheduling Sparse Kernels on Loomwork Tiles"


def test_an_index_title_names_a_titleless_note_named_after_it(notes):
    by_title = {r.title: r for r in notes.catalog}
    assert by_title[LOOMWORK].deep_note and by_title[LOOMWORK].deep_note.endswith(
        "Dissecting-the-Loomwork-Tile-Architecture/README.md"
    )
    assert by_title[SPARSE].deep_note  # its note opens with another heading
    assert "Pruning Attention Heads Without Retraining" not in by_title  # its note is not there
    assert "Reading group schedule and how we pick the papers" not in by_title  # a note named otherwise


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("loomwork tile architecture: how much sram per tile", "624 KiB"),
        ("how much does the loomwork sparse kernel scheduler cut superstep time", "37%"),
    ],
)
def test_a_titleless_note_is_answered_as_its_papers(notes, question, figure):
    assert_answered(notes, question, figure)


def test_a_list_finds_the_titled_notes(notes):
    a = notes.ask("which papers are about loomwork?", use_llm=False)
    assert LOOMWORK in a.answer and SPARSE in a.answer, a.answer


def test_an_index_title_spells_out_a_note_titled_by_its_file_name(notes):
    # the note has a paper link but no title of its own: its record was titled by its folder's name
    r = next(r for r in notes.catalog if r.deep_note and "speculative-decoding-with-draft-trees" in r.deep_note)
    assert r.title == "Speculative Decoding with Draft Trees"
