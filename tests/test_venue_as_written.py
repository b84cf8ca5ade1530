"""A paper's lookup quotes its venue as the notes write it when that says more than the lead line's
normal form ("In Proceedings of the 2024 IEEE International Conference on Big Data (IEEE BigData 2024)"
for "BigData 2024"); a venue line that only repeats it ("Venue: OSDI 2031") is not quoted again
(retrieval/extractive ``venue_line``)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

HOMEPAGE = """\
Ada Q. Lovelace

Ada Q. Lovelace, Ph.D. Research Scientist, Example Labs, 1 Main St, Springfield Email: ada [AT] example [DOT] org

Publications

• Wave: Scaling Graph Analytics on Trainium Clusters
  Bob Smith, and Ada Q. Lovelace
  In Proceedings of the 2031 IEEE International Conference on Big Data (IEEE BigData 2031)

• Tern: Durable Transactions at Scale
  R.Madhava Krishnan, and Ada Q. Lovelace
  In Proceedings of the 21st Annual Non-Volatile Memories Workshop (NVMW 2031)

• Kelp: Fast Recovery for Sharded Stores
  Ada Q. Lovelace, Bob Smith, and Carol Jones
  In Proceedings of the 40th ACM Symposium on Operating Systems Principles (SOSP 2031)
  [paper | slides | code]
"""

WOMBAT = """# Wombat: A Burrow Store for Key-Value Data

- Venue: OSDI 2031
- Link: https://arxiv.org/abs/3107.04321

Wombat keeps its log on persistent memory and its index in DRAM.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("venue-as-written"), {"ada.txt": HOMEPAGE, "wombat.md": WOMBAT}, models_cache
    )


@pytest.mark.parametrize(
    ("question", "written"),
    [
        ("wave paper what venue", "(IEEE BigData 2031)"),
        ("where was kelp published?", "Symposium on Operating Systems Principles (SOSP 2031)"),
        ("what's wave", "IEEE International Conference on Big Data"),
    ],
)
def test_the_venue_is_quoted_as_the_notes_write_it(notes, question, written):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and written in a.answer, a.answer
    # quoted once, on a line of its own: the authors beside it on the record's line are the lead line's
    assert a.answer.count(written) == 1, a.answer


def test_a_venue_line_that_repeats_the_lead_line_is_not_quoted(notes):
    a = notes.ask("where was wombat published?", use_llm=False)
    assert not a.refused and "OSDI 2031" in a.answer, a.answer
    assert "Venue: OSDI 2031" not in a.answer, a.answer


def test_a_venue_and_author_line_is_not_quoted_as_a_description(notes):
    """The record's "venue · authors" line (authors written "R.Madhava Krishnan") is who and where, which
    the lead line and the venue line give: never quoted whole."""
    a = notes.ask("where was tern published?", use_llm=False)
    assert not a.refused and "(NVMW 2031)" in a.answer, a.answer
    assert " · " not in a.answer, a.answer
