"""A list of the papers the notes mark with a phrase ("**Our work!**", "Must read") asked by quoting it:
the papers whose own entry writes the quoted phrase, however it is quoted, within a venue when one is
named (retrieval/lists.marked_papers)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.lists import quoted_phrases

PAGE = """# LLM Serving

## Systems

* Quokka: Deadline-Aware LLM Serving ([SOSP 2025](/c/sosp-2025))
  * CMU
  * **Must read!**
  * Batches requests by deadline.
* Pelican: Prefix Caching Across Tenants ([OSDI 2024](/c/osdi-2024))
  * MIT
  * Shares prefix caches across tenants.
* Heron: Elastic Expert Parallelism ([SOSP 2025](/c/sosp-2025))
  * ETH
  * Resizes expert groups under load.
* Osprey: Speculative Decoding at Scale ([OSDI 2024](/c/osdi-2024))
  * UW
  * **Must read!**
  * Drafts tokens with a small model.
* Kestrel: Disaggregated KV Storage ([SOSP 2025](/c/sosp-2025))
  * THU
  * Must read, says the reading group.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(tmp_path_factory.mktemp("marked"), {"serving.md": PAGE}, models_cache)


def listed(notes, question: str) -> set[str]:
    answer = notes.ask(question)
    return {c.paper_title.split(":")[0] for c in answer.citations if c.paper_title}


@pytest.mark.parametrize(
    "question",
    [
        "which papers are marked 'must read'?",
        "which papers does the author mark as “Must Read”",  # curly quotes, another casing
        'list the "must read" papers',
    ],
)
def test_the_papers_marked_with_the_quoted_phrase_are_listed(notes, question):
    assert listed(notes, question) == {"Quokka", "Osprey", "Kestrel"}


def test_a_venue_keeps_the_marked_papers_at_that_venue(notes):
    assert listed(notes, "which sosp 2025 papers are marked 'must read'?") == {"Quokka", "Kestrel"}


def test_a_quote_no_entry_writes_is_read_as_the_topic(notes):
    # no entry writes "prefix caching across" as a mark; the quote is the topic's words
    assert "Pelican" in listed(notes, "which papers are about 'prefix caching'?")


@pytest.mark.parametrize(
    "text, phrases",
    [
        ("papers marked 'our work'", [" our work "]),
        ("the author's picks", []),  # an apostrophe in a word opens no quote
        ("“must read” or ‘classic’", [" must read ", " classic "]),
        ("'a b c d e f g h' papers", []),  # too long to be a mark
    ],
)
def test_quoted_phrases(text, phrases):
    assert quoted_phrases(text) == phrases


def test_a_headings_words_in_quotes_name_its_group_not_a_mark(notes):
    # "LLM Serving" heads the page; Quokka's title also writes it, but the quote names the page's group
    assert listed(notes, "which papers are under 'llm serving'?") == {"Quokka", "Pelican", "Heron", "Osprey", "Kestrel"}
