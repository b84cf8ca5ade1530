"""Several papers in one file, one per heading (tests/fixtures/families/sectioned_logs): a reading
group's week files (``## Title`` with presenter, link and venue bullets, a ``### Discussion`` under
each paper, a heading holding the paper link and its venue), a running log (``### Title (Venue Year)
⭐`` under ``## 2024`` groups, one-line entries) — each paper section is one record whose chunks carry
its title; sections about no paper (tools, follow-ups, presenter notes, blog posts, a to-read list with
one arXiv link, courses, advice sections each linking one essay by its title) and the headings that group papers are none."""

from __future__ import annotations

import dataclasses

from conftest import TESTS
from test_note_styles import catalog_of

from papernotes.corpus.chunking import analyze_page
from papernotes.corpus.note_sections import logged_sections
from papernotes.corpus.papers import title_key
from papernotes.corpus.readers import read_path

NOTES = TESTS / "fixtures" / "families" / "sectioned_logs" / "notes"


def _page(name: str):
    (page,) = read_path(NOTES / name).pages
    return page


def test_non_paper_sections_and_group_headings_are_no_records():
    records, _ = catalog_of(NOTES)
    keys = {title_key(r.title) for r in records}
    for heading in ["Follow-ups", "Tools we used", "Presenter notes", "Discussion", "2024", "Other stuff"]:
        assert title_key(heading) not in keys, heading
    for heading in ["Blog posts", "To read", "Courses", "Mamba", "The Illustrated Transformer", "Pyserini"]:
        assert title_key(heading) not in keys, heading
    # a section whose one link is another work named beside it (advice.md) is not that work's record
    assert not any(r.sources == ["notes/advice.md"] for r in records)


def test_a_log_title_loses_its_venue_and_marks():
    records, _ = catalog_of(NOTES)
    adam = next(r for r in records if r.title.startswith("Adam"))
    assert adam.title == "Adam: A Method for Stochastic Optimization" and (adam.venue, adam.year) == ("ICLR 2015", 2015)
    assert adam.url == "https://arxiv.org/abs/1412.6980"


def test_summary_line_is_the_one_liner_without_its_label():
    records, _ = catalog_of(NOTES)
    by_title = {r.title: r for r in records}
    assert by_title["Dense Passage Retrieval for Open-Domain Question Answering"].summary.startswith("A dual BERT")
    colbert = next(r for r in records if r.title.startswith("ColBERT"))
    assert colbert.summary.startswith("each query token")


def test_chunks_of_a_paper_section_carry_its_title():
    analysis = analyze_page(_page("weekly/2025-03-05-retrieval.md"))
    by_text = {c.text.split("\n", 1)[0]: c.metadata for c in analysis.chunks}
    discussion = [m for head, m in by_text.items() if head.endswith("Discussion")]
    titles = {m.get("paper_title") for m in discussion}
    assert titles == {
        "Dense Passage Retrieval for Open-Domain Question Answering",
        "REALM: Retrieval-Augmented Language Model Pre-Training",
    }
    follow = [m for head, m in by_text.items() if head.endswith("Follow-ups")]
    assert follow and all("paper_title" not in m for m in follow)


def test_log_sections_span_their_lines():
    page = _page("log.md")
    sections = logged_sections(page)
    lines = page.markdown.splitlines()
    assert [lines[s.start] for s in sections] == [
        "### Sequence to Sequence Learning with Neural Networks (NeurIPS 2014)",
        "### Adam: A Method for Stochastic Optimization (ICLR 2015) ⭐",
        "### Dropout: A Simple Way to Prevent Neural Networks from Overfitting (JMLR 2014)",
    ]
    assert lines[sections[-1].end].startswith("## Other stuff")


def test_one_paper_section_is_no_log():
    """A page with only one paper section (and a to-read list) is not read section by section, unless
    its title names a collection ("Reading log"): then one paper section is a log too."""
    page = _page("log.md")
    one = page.markdown.split("### Adam")[0] + page.markdown[page.markdown.index("## Other stuff") :]
    assert logged_sections(dataclasses.replace(page, markdown=one, title="Sequence models")) == []
    assert len(logged_sections(dataclasses.replace(page, markdown=one))) == 1
