"""A question of two parts is answered in both: past the best sentences, each word of what is asked
that none of them says is answered by the best other sentence that says it and that the sentence model
takes for an answer (retrieval/extractive ``_add_sentences``)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

NOTE = """---
title: "Efficient Memory Management for Wombat Model Serving with PagedBurrow"
tags: ["llm-serving", "kv-cache", "memory"]
categories: ["SOSP 2031"]
paper: "https://doi.org/10.1145/3600006.3613999"
---

**TL;DR:** the Wombllm paper. Manage the KV cache like OS virtual memory: fixed-size blocks, a block
table per sequence, no need for contiguous memory.

## Problem

Existing systems pre-allocate a contiguous chunk per request for the max possible length. Because of
reservation, internal and external fragmentation, they waste 60-80% of KV-cache memory. Only
20.4%-38.2% of the KV cache memory actually holds token states in their profiling of existing systems.

## Method

- PagedBurrow kernel: attention over non-contiguous KV blocks.
- Block-level memory sharing with copy-on-write: parallel sampling and beam search share the prompt's KV cache.
- Waste in Wombllm is under 4% (only in the last block of a sequence).

## Results

2-4x throughput improvement over FasterWombat and Orcwomb at the same level of latency; the gain is
bigger with longer sequences and larger models.
"""

OTHER = """---
title: "Orcwomb: A Distributed Serving System for Wombat Models"
categories: ["OSDI 2030"]
paper: "https://www.usenix.org/conference/osdi30/presentation/orcwomb"
---

Iteration-level scheduling: the batch is re-formed after every model iteration, so finished requests
leave and new ones join. 36.9x throughput over FasterWombat at the same latency.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"posts/wombllm/index.md": NOTE, "posts/orcwomb/index.md": OTHER}
    return notes_from_texts(tmp_path_factory.mktemp("two-part"), files, models_cache)


@pytest.mark.parametrize(
    "question",
    [
        "According to the PagedBurrow paper, how much KV-cache memory do existing serving systems waste, "
        "and what throughput gain does Wombllm report?",
        "wombllm: how much kv cache memory is wasted today and what's the throughput gain",
        "how much KV-cache memory do existing systems waste and what throughput improvement does wombllm get?",
    ],
)
def test_both_parts_of_a_question_are_answered(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert "60-80%" in a.answer and "2-4x" in a.answer, a.answer


def test_a_one_part_question_gets_no_extra_sentence(notes):
    a = notes.ask("how much KV-cache memory do existing systems waste according to wombllm?", use_llm=False)
    assert "60-80%" in a.answer, a.answer
    assert "2-4x" not in a.answer, a.answer  # throughput is not asked
