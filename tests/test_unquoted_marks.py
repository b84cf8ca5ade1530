"""A mark the notes put on some papers of a venue ("Industry Track", "Best Paper Nominee" under an
entry) asks for those papers when a question naming the venue types it, unquoted and with no list
word: its words are common English the notes rarely use, which alone would only frame the question
(retrieval/lists.topic_list, :func:`~papernotes.retrieval.lists._asked_pairs`)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.lists import typed_marks
from papernotes.retrieval.prompts import REFUSAL

PAGE = """# ISCA 2025

## Meta Info

Homepage: https://iscaconf.org/isca2025/

Acceptance rate: 23.5%

## Papers

### Training

* Scaling Llama 3 Training with Efficient Parallelism Strategies
  * Industry Track
* MeshSlice: Efficient 2D Tensor Parallelism for Distributed DNN Training
  * UIUC
* Chimera: Communication Fusion for Hybrid Parallelism in Large Language Models
  * HKUST-GZ

### Inference

* H2-LLM: Hardware-Dataflow Co-Exploration for Low-Batch LLM Inference
  * Best Paper Nominee
* WindServe: Phase-Disaggregated LLM Serving with Stream-based Dynamic Scheduling
* Insights into DeepSeek-V3: Scaling Challenges and Reflections on Hardware for AI Architectures
  * Industry Track

### Benchmarks

* DCPerf: An Open-Source Performance Benchmark Suite for Datacenter Workloads
  * Industry Track
* AMALI: An Analytical Model for Accurately Modeling LLM Inference on Modern GPUs

### Tiered Storage

* Rethinking Tiered Storage: Talk to File Systems, Not Device Drivers
  * UIUC
* My CXL Pool Obviates Your PCIe Switch
  * Columbia

### Serving

* FlashInfer: Efficient and Customizable Attention Engine for LLM Inference Serving
  * **Outstanding Paper Award**
* Seesaw: High-throughput LLM Inference via Model Re-sharding
  * **Outstanding Paper Honorable Mention**
* Marconi: Prefix Caching for the Era of Hybrid LLMs
  * **Outstanding Paper Honorable Mention**
* Hexa: Serving Many Small Models on One GPU
  * UCSD
"""

OTHER = """# OSDI 2024

## Papers

* ServerlessLLM: Low-Latency Serverless Inference for Large Language Models
  * Edinburgh
  * Best Paper Award
* Llumnix: Dynamic Scheduling for Large Language Model Serving
  * Alibaba
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"isca-2025.md": PAGE, "osdi-2024.md": OTHER}
    return notes_from_texts(tmp_path_factory.mktemp("unquoted-marks"), files, models_cache)


def listed(notes, question: str) -> set[str]:
    answer = notes.ask(question)
    assert answer.kind == "list", answer.answer
    return {c.paper_title.split(":")[0] for c in answer.citations if c.paper_title}


INDUSTRY = {"Scaling Llama 3 Training with Efficient Parallelism Strategies", "Insights into DeepSeek-V3", "DCPerf"}


@pytest.mark.parametrize(
    "question",
    [
        "isca 2025 industry track stuff — what's in there?",
        "what's in isca 2025's industry track",
        "ISCA 2025 industry track?",
    ],
)
def test_a_mark_typed_beside_the_venue_lists_its_papers(notes, question):
    assert listed(notes, question) == INDUSTRY


def test_a_mark_typed_with_a_word_between_its_words(notes):
    # "best paper nominee": "paper" frames the question, the mark is written whole in the entry
    assert listed(notes, "isca 2025 best paper nominee?") == {"H2-LLM"}


def test_the_mark_is_looked_for_at_the_named_venue_only(notes):
    answer = notes.ask("osdi 2024 industry track?")
    assert answer.kind != "list" or not answer.citations


def test_a_venue_attribute_beside_a_mark_is_no_list(notes):
    # the acceptance rate is the venue's, stated on its page; the words of the mark do not make a list
    answer = notes.ask("isca 2025 industry track acceptance rate")
    assert answer.kind != "list"
    assert answer.answer.startswith(REFUSAL) or "23.5%" in answer.answer


HONORABLE = {"Seesaw", "Marconi"}


@pytest.mark.parametrize(
    ("question", "papers"),
    [
        ("isca 2025 outstanding paper award?", {"FlashInfer"}),
        ("which isca 2025 paper won the outstanding paper award", {"FlashInfer"}),
        ("isca 2025 outstanding paper honorable mention papers", HONORABLE),
        ("the isca 2025 honorable mention ones, which were they", HONORABLE),
    ],
)
def test_a_typed_mark_selects_the_papers_that_write_all_of_it(notes, question, papers):
    """Two marks share words ("Outstanding Paper Award", "Outstanding Paper Honorable Mention"): the
    list is of the papers writing the mark as typed, not of every paper writing one of its words."""
    assert listed(notes, question) == papers


def test_typed_marks_keep_the_papers_writing_the_whole_mark(notes):
    retriever = notes.retriever
    isca = [i for i, r in enumerate(retriever.catalog) if r.venue == "ISCA 2025"]
    titles = {retriever.catalog[i].title.split(":")[0] for i in isca}
    assert {"FlashInfer", "Seesaw", "DCPerf"} <= titles

    def kept(question: str) -> set[str]:
        q = retriever.understand(question)
        return {retriever.catalog[i].title.split(":")[0] for i in typed_marks(retriever, q, isca)}

    assert kept("isca 2025 outstanding paper award?") == {"FlashInfer"}
    assert kept("isca 2025 outstanding paper honorable mention papers") == HONORABLE
    assert kept("isca 2025 papers on llm serving") == set()  # no mark typed: no selection by one


def test_a_headings_words_typed_unquoted_name_its_group_not_a_mark(notes):
    # one title writes "tiered storage"; the heading groups both papers under it
    assert listed(notes, "isca 2025 tiered storage papers") == {
        "Rethinking Tiered Storage",
        "My CXL Pool Obviates Your PCIe Switch",
    }


def test_marks_typed_as_alternatives_list_either(notes):
    assert listed(notes, "which isca 2025 papers got outstanding paper (award or honorable mention)") == {
        "FlashInfer",
        *HONORABLE,
    }
