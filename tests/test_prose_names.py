"""Papers named the way their notes' prose names them when the title holds no name ("The authors
propose Quillfeather", "这篇论文提出了 Lumora", "This is the Marrowcache paper"), fields written on one
line ("**Authors:** … | **Year:** … | venue"), and lookups framed in a lookup part's own words ("who
wrote X" where the notes speak of a write path). Fixture: tests/fixtures/families/prose_names/notes
(papers written for the test: four plain-titled notes, one of them in Chinese, and a baseline with
its own note that another note cites again and again; a note whose summary coins its paper's name,
"DEPR (Dense Encoder for Passage Retrieval)", under an unlabelled author line, and a note that uses that
name more often than its own note does)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import assert_answered, named_titles, notes_of

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "prose_names" / "notes"
ROUTING = "Learning Compact Routing Tables for Datacenter Switches"
CACHE = "Sharing Embedding Caches Across Recommendation Models"
JOINS = "Fast Approximate Joins over Compressed Columns"
PLACEMENT = "Adaptive Checkpoint Placement for Preemptible Training"
TESSELLATE = "Tessellate: Periodic Checkpointing for Elastic Training"
PASSAGES = "Learning Passage Encoders for Open-Domain Question Answering"
DISTILL = "Distilling Rerankers into Retrievers"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("prose-names-index"), models_cache)


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("what's quillfeather", ROUTING),
        ("Quillfeather sram savings?", ROUTING),
        ("marrowcache hit rate", CACHE),
        ("lumora 的误差上界是多少", JOINS),
        ("what is Lumora", JOINS),
        ("what is tessellate", TESSELLATE),  # cited again and again by another note: still its own paper's
        ("depr paper?", PASSAGES),  # coined by its summary, used more often by the note that compares with it
        ("What is DEPR", PASSAGES),
        ("depr's batch size", PASSAGES),
    ],
)
def test_the_name_a_note_gives_its_paper_names_it(notes, question, title):
    assert named_titles(notes, question) == [title]


def test_a_name_the_summary_does_not_give_is_no_name(notes):
    # the placement note's most used name is its baseline's, which its summary never names
    assert named_titles(notes, "poisson preemption scheduler") == []
    assert PLACEMENT not in named_titles(notes, "tessellate restore time")


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("quillfeather sram vs the trie", "6.5x"),
        ("marrowcache memory reduction", "44%"),
        ("lumora 比先解压再 join 快多少", "4.7"),
    ],
)
def test_a_paper_named_in_prose_is_answered_from_its_notes(notes, question, figure):
    assert_answered(notes, question, figure)


@pytest.mark.parametrize(
    ("question", "author"),
    [
        ("who wrote the quillfeather paper", "Okafor"),  # its notes speak of a "write path"
        ("who authored marrowcache", "Hirano"),
        ("tldr lumora", "Lumora"),
        ("where did quillfeather appear", "NSDI 2023"),
    ],
)
def test_lookups_in_a_lookup_parts_words(notes, question, author):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and a.kind == "lookup" and author in a.answer, a.answer


@pytest.mark.parametrize(
    ("title", "authors", "venue"),
    [
        (ROUTING, ["Mira Okafor", "Tomas Lindqvist"], "NSDI 2023"),  # "**Authors:** … | **Year:** … | NSDI 2023"
        (JOINS, ["Chen Wei", "Zhao Lin"], "VLDB 2024"),  # "论文链接: … 作者: … 发表于: VLDB 2024"
    ],
)
def test_fields_written_on_one_line(notes, title, authors, venue):
    r = next(r for r in notes.catalog if r.title == title)
    assert (r.authors, r.venue) == (authors, venue)
    # "**Authors:**" is a label, no name (a note filed as "lumora.md" that writes "Lumora" is named so)
    assert r.system not in ("Authors", "Author", "Venue", "Year"), r.system


def test_a_two_word_title_is_named_by_its_coined_first_word(notes):
    assert named_titles(notes, "vantrix window size") == ["Vantrix Transformer"]
    a = notes.ask("vantrix window size", use_llm=False)
    assert not a.refused and "7x7" in a.answer, a.answer


def test_a_lookup_describes_a_paper_whose_opening_only_repeats_its_title(notes):
    from papernotes.retrieval.extractive import paper_lookup

    rec = next(i for i, r in enumerate(notes.catalog) if r.title == "Vantrix Transformer")
    hits = notes.retriever.chunk_hits(notes.retriever.papers.chunks[rec])  # the note's chunks, its opening first
    # a catalog whose one-liner is the opening's line: the chunk holding it says no more than the title
    record = replace(notes.catalog[rec], summary="Vantrix Transformer: 一个分层的视觉骨干网络。")
    text, _ = paper_lookup(record, hits)
    described = [line for line in text.split("\n")[1:] if not line.startswith("Link:")]
    assert described and all("Vantrix" not in line for line in described), text  # from another section


def test_an_unlabelled_author_line_under_the_title_gives_the_authors_not_the_summary(notes):
    r = next(r for r in notes.catalog if r.title == PASSAGES)
    assert r.authors == ["Hana Kobayashi", "Peter Lindgren", "Amara Nwosu"]
    assert r.summary.startswith("This paper introduces DEPR"), r.summary
    other = next(r for r in notes.catalog if r.title == DISTILL)
    assert other.authors == ["Sofia Marin", "Ivo Petrov"] and other.summary.startswith("We train"), other


@pytest.mark.parametrize(
    ("question", "figure"),
    [("depr top-20 accuracy on natural questions", "78.4%"), ("how big is the batch in depr", "128")],
)
def test_a_coined_name_is_answered_from_its_own_note(notes, question, figure):
    assert_answered(notes, question, figure)


def test_a_field_term_spelled_out_is_no_coined_name():
    from papernotes.retrieval.abbreviations import coined, definitions

    assert definitions("This paper introduces ELMo (Embeddings from Language Models).") == {
        "ELMo": "Embeddings from Language Models"
    }
    assert coined("Embeddings from Language Models")
    assert not coined("deep Q-network") and not coined("convolutional neural network")
