"""A paper presented at several venues (a workshop version, then the conference paper, both on a
publication page) is found under each of them: lists, `papers --venue` and conference summaries read
the paper's venue and its history (:attr:`~papernotes.corpus.models.PaperRecord.venues`)."""

from __future__ import annotations

import pytest
from conftest import notes_of

PAGE = """\
Ada Q. Lovelace

Ada Q. Lovelace, Research Scientist, Example Labs

Publications

• Kelp: Fast Recovery for Sharded Stores
  Ada Q. Lovelace, Bob Smith, and Carol Jones
  In Proceedings of the 30th ACM Symposium on Operating Systems Principles (SOSP 2024)
  [paper]

• Kelp: Fast Recovery for Sharded Stores
  Ada Q. Lovelace, Bob Smith, and Carol Jones
  In Proceedings of the 14th Annual Non-Volatile Memories Workshop (NVMW 2023)
  [paper]

• Wave: Scaling Graph Analytics on Persistent Memory
  Bob Smith and Ada Q. Lovelace
  In Proceedings of the 14th Annual Non-Volatile Memories Workshop (NVMW 2023)

• Pebble: A Tiny Key-Value Store
  Ada Q. Lovelace
  In Proceedings of the 2022 USENIX Annual Technical Conference (ATC 2022)
"""
KELP = "Kelp: Fast Recovery for Sharded Stores"
WAVE = "Wave: Scaling Graph Analytics on Persistent Memory"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    folder = tmp_path_factory.mktemp("venue-history-notes")
    (folder / "lovelace.txt").write_text(PAGE, encoding="utf-8")
    return notes_of(folder, tmp_path_factory.mktemp("venue-history-index"), models_cache)


def test_the_record_keeps_both_venues(notes):
    kelp = next(r for r in notes.catalog if r.title == KELP)
    assert set(kelp.venues) == {"SOSP 2024", "NVMW 2023"}


@pytest.mark.parametrize("venue", ["NVMW", "nvmw 2023", "NVMW '23"])
def test_papers_flag_finds_a_paper_by_a_venue_of_its_history(notes, venue):
    from papernotes.retrieval.stats import list_papers

    assert {r.title for r in list_papers(notes.settings, venue=venue)} == {KELP, WAVE}


def test_papers_flag_still_finds_it_by_its_own_venue(notes):
    from papernotes.retrieval.stats import list_papers

    assert [r.title for r in list_papers(notes.settings, venue="SOSP 2024")] == [KELP]


@pytest.mark.parametrize("question", ["ada's nvmw workshop papers?", "which NVMW 2023 papers are in the notes"])
def test_a_list_question_lists_every_paper_of_the_venue(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and KELP in a.answer and WAVE in a.answer and "Pebble" not in a.answer, a.answer
