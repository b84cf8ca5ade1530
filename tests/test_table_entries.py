"""Papers listed as Markdown table rows ("awesome" lists): a row is a paper by the evidence a bullet needs
(a title-like cell plus a paper link or a venue), each paper row is its own chunk, and rows of other
tables (contents, tools, data sets, scores) and tables inside a note about one paper stay table text.
The collection is tests/fixtures/families/paper_tables (its catalog is also checked, with the other
families, by tests/test_paper_note_families.py)."""

from __future__ import annotations

import pytest
from conftest import TESTS, make_settings, seed_models
from test_note_styles import catalog_of

from papernotes.corpus.chunking import analyze_page
from papernotes.corpus.markdown import parse_blocks
from papernotes.corpus.models import Page
from papernotes.corpus.table_entries import table_entries

NOTES = TESTS / "fixtures" / "families" / "paper_tables" / "notes"


def _page(markdown: str, title: str = "List") -> Page:
    return Page(source="list.md", title=title, origin="notes", markdown=markdown)


def _rows(markdown: str) -> list[str]:
    page = _page(markdown)
    return [e.title for b in parse_blocks(markdown) if b.kind == "table" for _, e in table_entries(b, page, "", None)]


@pytest.mark.parametrize(
    ("table", "titles"),
    [
        (  # a linked title to a paper page, the venue in its own cell
            "| Paper | Venue |\n|---|---|\n| [Orca: A Distributed Serving System](https://www.usenix.org/conference/"
            "osdi22/presentation/yu) | OSDI'22 |",
            ["Orca: A Distributed Serving System"],
        ),
        (  # a linked name starting the title, a code link after it
            "| Paper | Venue |\n|---|---|\n| [Orca](https://arxiv.org/abs/2201.0001): Iteration-Level Scheduling "
            "[GitHub](https://github.com/o/orca) | OSDI 2022 |",
            ["Orca: Iteration-Level Scheduling"],
        ),
        (  # an author list beside the title is no title, however many capitalized words it has
            "| Paper | Authors | Venue |\n|---|---|---|\n| Exact Attention with IO-Awareness | Tri Dao, Daniel Y. Fu, "
            "Stefano Ermon, Atri Rudra, Christopher Re | NeurIPS 2022 |",
            ["Exact Attention with IO-Awareness"],
        ),
        (  # the venue only after the title, no link
            "| Paper | Notes |\n|---|---|\n| Attention Sinks for Streaming Models (ICLR'24) | sinks |",
            ["Attention Sinks for Streaming Models"],
        ),
        (  # a bare series dated by the row's date cell
            "| Date | Paper | Conf |\n|---|---|---|\n| 2022-05 | Fast Exact Attention with IO-Awareness | NeurIPS |",
            ["Fast Exact Attention with IO-Awareness"],
        ),
        (  # a code link is not the paper's, and no venue: a tool
            "| Name | About | Repo |\n|---|---|---|\n| Text Generation Inference | Serving server for "
            "LLMs | [GitHub](https://github.com/huggingface/text-generation-inference) |",
            [],
        ),
        (  # scores beside a report's link: a results row
            "| Model | MMLU | GSM8K | Report |\n|---|---|---|---|\n| Llama 2 70B | 68.9 | 56.8 | "
            "[arXiv](https://arxiv.org/abs/2307.09288) |",
            [],
        ),
        (  # a conference calendar: the venue is the row's subject, the place no paper
            "| Venue | Dates | Where |\n|---|---|---|\n| [MLSys 2025](https://mlsys.org) | May 12-15, 2025 | "
            "Santa Clara, CA, USA |",
            [],
        ),
        (  # one paper's fields: a key/value table inside a note
            "| Venue | OSDI 2022 |\n|---|---|\n| Link | [ACM DL](https://dl.acm.org/doi/10.1145/945445.945450) |",
            [],
        ),
        (  # a table of contents: links into the page
            "| Part | Part |\n|---|---|\n| [Model Serving](#serving) | [Attention Kernels](#kernels) |",
            [],
        ),
        (  # papers named by their short names, linked to the paper; the notes cell is no title
            "| Paper | Venue | Notes |\n|---|---|---|\n| [Orcwomb](https://arxiv.org/abs/3201.00001) | OSDI 2032 | "
            "Iteration-Level Scheduling Of Wombats — Yu, Jeong (SNU) |\n| [SpecWomb](https://arxiv.org/abs/3305.09781) "
            "| MLSys 2034 | Token Trees For Wombats |",
            ["Orcwomb", "SpecWomb"],
        ),
        (  # a short name linked beside the full title that holds it: the full title
            "| Name | Title | Venue |\n|---|---|---|\n| [GPTWomb](https://arxiv.org/abs/3210.17323) | GPTWomb: Accurate "
            "Quantization for Wombats | ICLR 2033 |",
            ["GPTWomb: Accurate Quantization for Wombats"],
        ),
        (  # a name linked to its code, no venue: a tool
            "| Tool | About |\n|---|---|\n| [vWomb](https://github.com/w/vwomb) | A Serving Engine For Wombats |",
            [],
        ),
    ],
)
def test_a_row_is_a_paper_by_evidence(table, titles):
    assert _rows(table) == titles


def test_the_collection_gives_its_table_papers_and_no_other_row():
    records, _ = catalog_of(NOTES)
    by_title = {r.title: r for r in records}
    assert by_title["Orca: A Distributed Serving System for Transformer-Based Generative Models"].venue == "OSDI 2022"
    flash = by_title["FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness"]
    assert flash.venue == "NeurIPS 2022" and flash.links["pdf"] == "https://arxiv.org/pdf/2205.14135"
    zero = by_title["ZeRO: Memory Optimizations Toward Training Trillion Parameter Models"]
    assert zero.links == {"paper": "https://arxiv.org/abs/1910.02054", "code": "https://github.com/microsoft/DeepSpeed"}
    texts = " ".join(by_title)
    for not_paper in ("vLLM", "Text Generation", "Ray Serve", "Llama 2", "Mistral", "ShareGPT", "LMSYS", "Serving"):
        assert not any(t.startswith(not_paper) for t in by_title), not_paper
    assert "Self-attention Does Not Need" not in texts and "Blockwise" not in texts  # a deep note's table


def test_a_table_row_paper_merges_with_its_note():
    records, _ = catalog_of(NOTES)
    (fa2,) = [r for r in records if r.title.startswith("FlashAttention-2")]
    assert (fa2.deep_note or "").endswith("flash-attention-2.md") and any(s.endswith("README.md") for s in fa2.sources)
    assert fa2.venue == "ICLR 2024" and fa2.links["paper"] == "https://arxiv.org/abs/2307.08691"


def test_each_paper_row_is_its_own_chunk_under_the_header():
    page = Page(source="README.md", title="Awesome", origin="notes", markdown=(NOTES / "README.md").read_text())
    chunks = analyze_page(page).chunks
    entries = [c for c in chunks if c.metadata["kind"] == "paper_entry"]
    orca = [c for c in entries if c.metadata["paper_title"].startswith("Orca")]
    assert len(orca) == 1 and "| Title | Venue | Paper | Code |" in orca[0].text
    assert "PagedAttention" not in orca[0].text  # the next row is a chunk of its own
    tables = " ".join(c.text for c in chunks if c.metadata["kind"] == "table")
    assert "Ray Serve" in tables and "Llama 2 70B" in tables and "Orca" not in tables


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.service import Notes

    data = tmp_path_factory.mktemp("table-index")
    seed_models(models_cache, data)
    s = make_settings(data)
    ingest(s, [str(NOTES)])
    return Notes(s)


def test_a_question_on_a_table_row_paper_cites_the_row(notes):
    a = notes.ask("What is DistServe?", use_llm=False)
    assert not a.refused
    assert "OSDI 2024" in a.answer
    cited = [c for c in a.citations if c.source and c.source.endswith("README.md")]
    assert cited and any("DistServe" in (c.paper_title or "") and "DistServe" in c.snippet for c in cited)
