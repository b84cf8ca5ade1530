"""A name several papers share ("Jenga" of SOSP 2025 and "JENGA" of another venue): a question that
names a venue beside it is about the paper at that venue (entities.PaperIndex.at_named_venues), in any
language the question is typed in; without a venue, or naming both papers' venues, it names both."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

SOSP = "Jenga: Effective Memory Management for Serving LLMs with Heterogeneity"
ICML = "JENGA: Enhancing Long-Context Fine-tuning with Contextual Token Sparsity"


def _note(title: str, venue: str, body: str) -> str:
    return f'---\ntitle: "{title}"\nvenue: "{venue}"\n---\n\n# {title}\n\n{body}\n'


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {
        "jenga-sosp.md": _note(
            SOSP, "SOSP 2025", "Jenga is built on vLLM. It raises serving throughput by up to 4.92x."
        ),
        "jenga-icml.md": _note(
            ICML, "ICML 2025", "JENGA sparsifies context tokens. It cuts fine-tuning memory by 1.93x."
        ),
        "other.md": _note("Quokka: Deadline-Aware Serving", "OSDI 2024", "Quokka batches requests by deadline."),
    }
    return notes_from_texts(tmp_path_factory.mktemp("shared-names"), files, models_cache)


def named(notes, question: str) -> set[str]:
    return {notes.catalog[i].title for i in notes.analyze(question).question.records}


@pytest.mark.parametrize(
    "question, titles",
    [
        ("jenga sosp25 throughput gain?", {SOSP}),
        ("jenga 在 sosp25 上吞吐最多提升多少", {SOSP}),  # a Chinese question, the venue typed against CJK text
        ("what does jenga at sosp do", {SOSP}),  # a series without a year: any of its years
        ("jenga icml'25 memory savings", {ICML}),
        ("jenga throughput gain?", {SOSP, ICML}),  # no venue: both papers of the name
        ("the jenga papers at sosp'25 and icml'25", {SOSP, ICML}),  # both venues named: both papers
        ("jenga osdi 2024", {SOSP, ICML}),  # a venue neither paper is at narrows nothing
        ("jenga sosp25 vs the other jenga", {SOSP, ICML}),  # the name typed twice: the question tells them apart
    ],
)
def test_a_venue_beside_a_shared_name_picks_the_paper_at_that_venue(notes, question, titles):
    assert named(notes, question) == titles


def test_the_paper_at_the_named_venue_is_the_one_answered(notes):
    answer = notes.ask("jenga 在 sosp25 上吞吐最多提升多少")
    assert not answer.refused and "4.92x" in answer.answer and "1.93x" not in answer.answer
