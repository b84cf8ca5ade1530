"""A paper's name that its collection uses everywhere ("lora", "llama" in notes that build on them) is
a term of the field there, yet a question about that paper names it: "who wrote lumen", "lumen vs lumen
2"; a list question about it asks for the papers that use it (retrieval/entities.PaperIndex.
field_mentions). Fixture: tests/fixtures/families/field_names/notes (papers written for the test:
Lumen, its successor, twelve papers that fine-tune with Lumen and are evaluated on "real workloads", and
ReaL, a paper named by that word in its own casing)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import named_titles, notes_of

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "field_names" / "notes"
LUMEN = "Lumen: Low-Rank Adapters for Every Layer"
LUMEN2 = "Lumen 2: Adapters That Pick Their Own Rank"
REAL = "ReaL: Reallocating Model Parameters for RLHF Training"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("field-names-index"), models_cache)


@pytest.mark.parametrize(
    ("question", "titles"),
    [
        ("who wrote lumen", [LUMEN]),
        ("lumen trainable params share", [LUMEN]),
        ("what is Lumen?", [LUMEN]),
        ("lumen vs lumen 2 - what changed", [LUMEN, LUMEN2]),
    ],
)
def test_a_name_the_field_uses_still_names_its_paper(notes, question, titles):
    assert sorted(named_titles(notes, question)) == sorted(titles)


@pytest.mark.parametrize("question", ["which papers use lumen", "list the papers fine-tuning with lumen adapters"])
def test_a_list_question_about_that_name_names_no_paper(notes, question):
    q = notes.retriever.understand(question)
    assert q.is_list and not q.records


def test_who_wrote_it_is_answered_from_its_note(notes):
    a = notes.ask("who wrote lumen", use_llm=False)
    assert not a.refused and "Varga" in a.answer, a.answer


@pytest.mark.parametrize(
    ("question", "titles"),
    [
        ("what is ReaL", [REAL]),
        ("ReaL speedup over static placement?", [REAL]),
        ("lumen trainable params on real workloads", [LUMEN]),
        ("which paper tests on real workloads in real time", []),
    ],
)
def test_a_name_the_notes_write_as_an_ordinary_word_names_its_paper_only_in_its_casing(notes, question, titles):
    """ "ReaL": the other notes write "real" in lower case, as a word ("real workloads"), so "real" typed so
    is that word, and "ReaL" the paper."""
    assert sorted(named_titles(notes, question)) == sorted(titles)
