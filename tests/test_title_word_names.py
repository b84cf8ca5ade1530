"""A title without a colon may open with its paper's name ("Graphicionado A High-Performance …",
"ZeRO Memory Optimizations …"); a first word with one capital that other titles also hold is a word of
the field, not a name ("Bayesian Code Diffusion for …" beside "… Multi-Objective Bayesian
Optimization"), and a list question using it asks for a topic (retrieval/entities.py
``_title_word_names``). Notes written for the test."""

from __future__ import annotations

import pytest
from conftest import named_titles, notes_from_texts

PAGE = """# Systems papers

* Bayesian Code Diffusion for Efficient Deep Learning Program Optimization (OSDI 2025) [[Paper](https://example.org/bcd)]
  * UNIST
  * Diffuses program code from prior to posterior distributions to search a smaller space.
* Otter: Cost-Efficient Serving via Multi-Objective Bayesian Optimization (MLSys 2026) [[Paper](https://example.org/otter)]
  * Cambridge
  * Picks GPU types and routing with multi-objective Bayesian optimization.
* Graphicionado A High-Performance Graph Analytics Accelerator (MICRO 2016) [[Paper](https://example.org/gra)]
  * Princeton
  * A pipeline specialized for vertex programs with on-chip scratchpads.
* Pelican: Elastic Stream Joins over Tiered Memory (VLDB 2025) [[Paper](https://example.org/pelican)]
  * ETH
  * Spills join state to CXL memory under a bandwidth budget.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(tmp_path_factory.mktemp("title-word-names"), {"systems.md": PAGE}, models_cache)


@pytest.mark.parametrize(
    "question", ["which papers use bayesian optimization", "Which papers in the notes rely on Bayesian optimization?"]
)
def test_a_field_word_opening_a_title_names_no_paper(notes, question):
    assert named_titles(notes, question) == []
    a = notes.ask(question, use_llm=False)
    titles = " ".join(c.paper_title or "" for c in a.citations)
    assert a.kind == "list" and "Otter" in titles and "Bayesian Code Diffusion" in titles, a.answer
    assert "Pelican" not in titles and "Graphicionado" not in titles, a.answer


@pytest.mark.parametrize("question", ["graphicionado paper?", "what does Graphicionado accelerate"])
def test_a_coined_word_opening_a_title_still_names_its_paper(notes, question):
    assert named_titles(notes, question) == ["Graphicionado A High-Performance Graph Analytics Accelerator"]
