"""The real notes' catalog: one record per paper where the notes name it twice (a renamed system on a
topic page and a conference page), venues preferring the peer-reviewed one with the history kept, and
one result per paper in answers and summaries."""

from __future__ import annotations

import pytest

from papernotes.corpus.catalog import load_catalog


@pytest.fixture(scope="module")
def catalog(real_index):
    return load_catalog(real_index.catalog_path)


def named(catalog, prefix: str):
    return [r for r in catalog if r.title.startswith(prefix) or any(a.startswith(prefix) for a in r.aliases)]


def test_renamed_system_is_one_paper_with_its_other_name(catalog):
    (r,) = named(catalog, "PrefillOnly")
    assert named(catalog, "LMPrefill") == [r]
    assert r.title.startswith("PrefillOnly:") and any(a.startswith("LMPrefill:") for a in r.aliases)
    assert r.venue == "SOSP 2025"


def test_preprint_then_venue_keeps_the_history(catalog):
    (r,) = named(catalog, "PowerInfer:")
    assert r.venue == "SOSP 2024" and r.history == ["arXiv 2023", "SOSP 2024"]


def test_summary_lists_the_renamed_paper_once(real_index):
    from papernotes.retrieval.summarize.pipeline import summarize

    s = summarize(real_index, "SOSP 2025", "llm", use_llm=False)
    titles = [p.title for g in s.groups for p in g.papers]
    assert sum(t.startswith(("PrefillOnly", "LMPrefill")) for t in titles) == 1


def test_one_result_per_paper_and_the_papers_venue(real_index):
    from papernotes.retrieval.service import Notes

    notes = Notes(real_index)
    a = notes.ask("Which papers share KV caches across fine-tuned model variants?", use_llm=False)
    assert sum("DroidSpeak" in (c.paper_title or "") for c in a.citations) == 1
    b = notes.ask("What is PowerInfer?", use_llm=False)
    assert "SOSP 2024" in b.answer and "(arXiv 2023)" not in b.answer
    assert all(c.venue != "arXiv 2023" for c in b.citations if (c.paper_title or "").startswith("PowerInfer"))
    c = notes.ask("What is LMPrefill?", use_llm=False)
    assert not c.refused and "PrefillOnly" in " ".join(x.paper_title or "" for x in c.citations) + c.answer
