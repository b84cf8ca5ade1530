"""The first part of a compound system name, typed alone, names its paper ("sarathi vs distserve" for
Sarathi-Serve; retrieval/entities._compound_heads), unless it is ambiguous: it heads several papers'
names, it is also a word the notes use on its own for something else (the framework "DeepSpeed" of
DeepSpeed-Inference), or a paper is named exactly so."""

from __future__ import annotations

import pytest
from conftest import named_titles, notes_of

NOTES = {
    "quillfeed.md": """# Quillfeed-Serve: Chunked Prefill without Stalls

Presented in OSDI 2031. Authors from Wrenfield University.

## TL;DR

Quillfeed-Serve splits each prefill into equal chunks and schedules them next to ongoing decodes.
""",
    "drayport.md": """# Drayport: Disaggregated Prefill and Decode

Presented in OSDI 2031. Authors from Calloway Labs.

## TL;DR

Drayport runs prefill and decode on separate GPU pools and sizes each pool for its latency target.
""",
    "harborline.md": """# Harborline-Inference: Serving Giant Transformers

Presented in SC 2031.

## TL;DR

Harborline-Inference adds kernels and tensor slicing for inference to the Harborline training library.
""",
    "ospreyfit.md": """# Ospreyfit: Elastic Fine-tuning

Presented in EuroSys 2031.

## TL;DR

Ospreyfit is built on Harborline and restarts jobs from in-memory state.
""",
    "tidewise-train.md": """# Tidewise-Train: Pipelines for Sparse Experts

Presented in NSDI 2031.

## TL;DR

Tidewise-Train balances experts across pipeline stages.
""",
    "tidewise-serve.md": """# Tidewise-Serve: Routing Sparse Experts at Inference

Presented in NSDI 2032.

## TL;DR

Tidewise-Serve caches hot experts on every GPU.
""",
}


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    folder = tmp_path_factory.mktemp("compound-notes")
    for name, text in NOTES.items():
        (folder / name).write_text(text, encoding="utf-8")
    return notes_of(folder, tmp_path_factory.mktemp("compound-index"), models_cache)


@pytest.mark.parametrize("q", ["quillfeed vs drayport", "what is quillfeed?", "Quillfeed's prefill chunks"])
def test_the_head_of_a_compound_name_names_its_paper(notes, q):
    assert "Quillfeed-Serve: Chunked Prefill without Stalls" in named_titles(notes, q)


def test_a_comparison_through_a_head_cites_both_papers(notes):
    a = notes.ask("quillfeed vs drayport", use_llm=False)
    cited = {c.paper_title for c in a.citations}
    assert "Quillfeed-Serve: Chunked Prefill without Stalls" in cited
    assert "Drayport: Disaggregated Prefill and Decode" in cited


@pytest.mark.parametrize(
    "q",
    [
        "what is harborline",  # the notes use it alone for the training library
        "what is tidewise",  # heads two papers' names
    ],
)
def test_an_ambiguous_head_names_no_paper(notes, q):
    assert named_titles(notes, q) == []
