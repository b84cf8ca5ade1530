"""What is asked about named papers is found where its words stand together (retrieval/answerability
``asked_coverage``, :func:`~papernotes.retrieval.terms.coverage`): a word of several terms ("learning
rate") is covered by one passage of the papers' notes holding all of them, not by "in-context learning"
in one section and "error rate" in another; and a passage found elsewhere confirms what is asked only
when it names every paper the question names ("lowomb learning rate for gpt-7" is not answered by a third
paper's notes naming Gpt-7 beside their own learning-rate schedule)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.question import phrases
from papernotes.retrieval.terms import Key, coverage

ADAPTERS = """---
title: "LoWomb: Low-Rank Adaptation of Wombat Models"
paper: "https://arxiv.org/abs/3106.09685"
---

Freeze the pretrained weights and learn a low-rank update BA. On Gpt-7 175B it cuts the trainable
parameters by 10,000x and GPU memory by 3x, with no extra inference latency.

## Where it helps

Adapters keep in-context learning intact, since the base weights never change.

## Results

The error rate on the summarization benchmark is 2.1 points lower than full fine-tuning, at rank 4 and
8 layers adapted.
"""

GPT7 = """---
title: "Gpt-7: Wombat Models are Few-Shot Learners"
paper: "https://arxiv.org/abs/3005.14165"
---

A 175B-parameter decoder trained on 300B tokens. In-context learning: the task is given as a few
examples in the prompt, with no gradient updates.
"""

ATTENTION = """---
title: "Wombat Attention: Attention Is What Wombats Need"
paper: "https://arxiv.org/abs/3706.03762"
---

Replace recurrence with self-attention; the decoder that Gpt-7 later scales up.

Training tricks: a warmup learning-rate schedule (4000 warmup steps), label smoothing 0.1, dropout 0.1.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"lowomb.md": ADAPTERS, "gpt7.md": GPT7, "attention.md": ATTENTION}
    return notes_from_texts(tmp_path_factory.mktemp("asked-together"), files, models_cache)


@pytest.mark.parametrize(
    "question",
    [
        # "learning" and "rate" in two sections of LoWomb's notes; the schedule is another paper's
        "lowomb learning rate used for gpt-7",
        "what learning rate did lowomb use on gpt-7",
        "lowomb learning rate?",
    ],
)
def test_words_apart_do_not_answer(notes, question):
    # nothing of what is asked is found: not in LoWomb's sections apart, nor in the attention notes that
    # name Gpt-7 but not LoWomb
    assert notes.analyze(question).features["asked_cov"] == 0.0
    a = notes.ask(question, use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how much does lowomb cut trainable parameters on gpt-7", "10,000x"),
        ("what learning rate schedule does wombat attention use", "4000 warmup steps"),
        ("lowomb error rate vs full fine-tuning?", "2.1 points lower"),
    ],
)
def test_words_together_answer(notes, question, expected):
    assert notes.analyze(question).features["asked_cov"] == 1.0
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


def test_a_compound_is_covered_only_where_its_words_stand_together():
    key = Key("learning rate", (("learningr",), ("learn", "rate")))
    apart = [{"learn", "context"}, {"error", "rate"}]
    together = [{"learn", "rate", "warmup"}]
    idf = lambda t: 1.0  # noqa: E731
    union = set().union(*apart)
    assert coverage([key], union, idf) == 1.0  # the terms alone are all in the union
    assert max(coverage([key], p, idf) for p in apart) == 0.0
    assert max(coverage([key], p, idf) for p in together) == 1.0
    # a one-term word is covered by a passage as by the union
    assert max(coverage([Key("rate", (("rate",),))], p, idf) for p in apart) == 1.0


# The same papers in notes that never join the two words ("learning-rate"): the question's "learning" and
# "rate" are two words, typed as one phrase
APART = {
    "lowomb.md": ADAPTERS,
    "gpt7.md": GPT7,
    "attention.md": ATTENTION.replace("learning-rate schedule", "schedule for the step size"),
    # rates of other things, so that "rate" is a word these notes use
    "serving.md": """# Serving notes

## Caching

The prefix cache keeps a 92% hit rate on chat traffic.

## Admission

Requests are admitted at a fixed rate; the drop rate stays under 1%.

## Scheduling

The scheduler keeps the preemption rate low by reserving memory per request.

## Failures

The error rate of the RPC layer doubled under load.
""",
}


@pytest.fixture(scope="module")
def apart_notes(tmp_path_factory, models_cache):
    return notes_from_texts(tmp_path_factory.mktemp("asked-apart"), APART, models_cache)


def test_the_words_of_one_phrase_count_where_they_stand_together(apart_notes):
    an = apart_notes.analyze("lowomb learning rate used for gpt-7")
    assert [k.word for k in an.question.asked] == ["learning", "rate"]
    # "learning" (in-context learning) and "rate" (error rate) are in the named papers' notes, never in
    # one passage: a part of the phrase at best (the union of their notes held all of it)
    assert an.features["asked_cov"] < 0.7


def test_phrases():
    keys = [Key(w, ((w,),)) for w in ("learning", "rate", "gpt-7")]
    runs = phrases("lowomb learning rate used for gpt-7", keys)
    assert [[k.word for k in run] for run in runs] == [["learning", "rate"], ["gpt-7"]]
    # a word not typed as such is a phrase of its own
    assert len(phrases("batch sizes", [Key("batch size", (("batch", "size"),))])) == 1
