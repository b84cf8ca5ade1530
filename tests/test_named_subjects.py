"""What a question names and the catalog does not ("how many experts does mixtral use per token", "gpt-3
175b batch size") is its subject: it is answered from the papers and pages whose notes write the name,
never from another paper's passage that covers the rest of the question (retrieval/service ``analyze``,
:func:`~papernotes.retrieval.question.written_name`)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.question import written_name
from papernotes.retrieval.terms import Key, clipped

SCALING = """# Scaling notes

## Mixture of experts

Switch-style routing sends each token to one expert (top-1) instead of two: less compute and
communication per token, and quality holds. Up to 7x pretraining speedup at the same FLOPs per token.

Wallabix routes each token to 2 of its 8 experts per layer, so only 13B of 47B parameters are active.

## Data

Trained on 1.4 trillion tokens; parameters and tokens should grow together.
"""

KERNEL = """---
title: "FlashBurrow: Faster Attention with Better Work Partitioning"
categories: ["ICLR 2031"]
paper: "https://arxiv.org/abs/3107.08691"
---

Parallelize over the sequence length as well as the batch and the heads, so long sequences with a small
batch size still fill the GPU. 2x faster than the first version on long sequences.
"""

ADAPTERS = """---
title: "LoWomb: Low-Rank Adaptation of Wombat Models"
categories: ["ICLR 2030"]
paper: "https://arxiv.org/abs/3106.09685"
---

Freeze the pretrained weights and learn a low-rank update BA. On Gpt-7 175B it cuts the trainable
parameters by 10,000x and GPU memory by 3x, with no extra inference latency.
"""

ORDERED = """---
title: "Ordered Wombats: Tree Structures in Recurrent Networks"
excerpt: "WB-LSTM orders the neurons of the cell state so that high-ranking neurons keep long-term information."
categories: ["ICLR 2029"]
paper: "https://arxiv.org/abs/2910.09536"
---

Language is hierarchical, but a recurrent cell does not model constituents explicitly. WB-LSTM adds an
inductive bias: neurons are ordered, and higher-ranking ones are updated less often, so they keep
long-term information while lower-ranking ones follow the short-term changes.

## The gating function

The master forget gate and master input gate use the cumsoft function, the cumulative sum of a softmax,
which gives a soft monotone split point over the neurons.
"""

SWITCHBACK = """---
title: "Switchback Transformers: Simple Sparse Routing at Scale"
desc: "top-1 MoE routing"
paper: "https://arxiv.org/abs/3101.03961"
---

## Notes (skimmed)

- route each token to one expert (top-1) instead of top-2 — simpler, less communication
- expert capacity factor 1.25; overflowing tokens are dropped and passed through the residual

## Versus Dingotral

- sends each token to two experts chosen by a learned gate, at twice the compute per token

Follow-up reading: Kangatral (haven't read, not noting it yet).
"""

QUEUE = """# Reading queue

Papers someone suggested but nobody has written up yet.

- [ ] TODO read: Quokkatral of Experts
- [ ] TODO read: the Dingo-4 technical report
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {
        "scaling.md": SCALING,
        "flashburrow.md": KERNEL,
        "lowomb.md": ADAPTERS,
        "ordered.md": ORDERED,
        "queue.md": QUEUE,
        "switchback.md": SWITCHBACK,
    }
    return notes_from_texts(tmp_path_factory.mktemp("named-subjects"), files, models_cache)


@pytest.mark.parametrize(
    "question",
    [
        # the name is only in a reading queue: another passage on experts or batches is no answer
        "how many experts does quokkatral use per token",
        "quokkatral experts per token?",
        "what router does Quokkatral use",
        # the name is written beside other numbers, in another paper's notes
        "what batch size did gpt-7 175b train with",
        "gpt-7 175b context length?",
        "how many layers does dingo-4 have",
    ],
)
def test_a_name_whose_notes_do_not_answer_is_refused(notes, question):
    a = notes.ask(question, use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # the name's page answers, in a section of a page about something else
        ("how many experts does wallabix use per token", "2 of its 8 experts"),
        ("wallabix active params?", "13B of 47B"),
        # the note names it in its opening; the answering section never writes it
        ("Which function does WB-LSTM use for its master gates?", "cumsoft"),
        # the name in another paper's notes, and what is asked beside it
        ("how much does gpt-7 175b save in trainable parameters with low-rank adaptation", "10,000x"),
    ],
)
def test_a_name_is_answered_from_the_notes_that_write_it(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


@pytest.mark.parametrize(
    "question",
    ["what did the kangatral paper find about routing?", "kangatral routing?", "how does kangatral route tokens"],
)
def test_a_name_another_papers_notes_only_mention_is_no_subject_of_their_lines(notes, question):
    # "Follow-up reading: Kangatral" ends the Switchback notes: none of their other lines is about Kangatral
    a = notes.ask(question, use_llm=False)
    assert "top-1" not in a.answer and "capacity factor" not in a.answer, a.answer


def test_a_line_under_a_heading_that_writes_the_name_speaks_of_it(notes):
    a = notes.ask("how many experts does dingotral send each token to", use_llm=False)
    assert not a.refused and "two experts" in a.answer, a.answer


def test_a_dendron_desc_is_the_one_line_summary(notes):
    (rec,) = [r for r in notes.catalog if r.title.startswith("Switchback")]
    assert rec.summary == "top-1 MoE routing"


def test_without_the_name_the_other_passages_still_answer(notes):
    # naming nothing, the question is about the topic: the experts passage answers it
    a = notes.ask("how many experts does switch routing send each token to", use_llm=False)
    assert not a.refused, a.answer
    assert "top-1" in a.answer


@pytest.mark.parametrize("word", ["infra", "impl", "config", "perf", "arch"])
def test_a_clipped_word_is_no_name(word):
    # titles capitalize it ("AI Infra Reliability"), but it shortens an English word
    assert clipped(word)
    assert not written_name(Key(word, ((word,),)), lambda w: {w.capitalize()})


@pytest.mark.parametrize(
    ("word", "written"),
    [("phantora", "Phantora"), ("mixtral", "Mixtral"), ("massivetext", "MassiveText"), ("sglang", "SGLang")],
)
def test_a_coined_word_written_capitalized_is_a_name(word, written):
    assert not clipped(word)
    assert written_name(Key(word, ((word,),)), lambda w: {written})
    # written in lower case somewhere, it is an ordinary word of the notes
    assert not written_name(Key(word, ((word,),)), lambda w: {written, word})


@pytest.mark.parametrize("word", ["gpt-3", "llama3", "deepseek-r1"])
def test_a_versioned_word_is_a_name(word):
    assert written_name(Key(word, ((word,),)), lambda w: set())
