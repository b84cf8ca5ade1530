"""A "how many" question asks for a count of what it names ("how many GPUs", "how many masks"): a
percentage or a factor beside that noun ("save up to 80% of GPU memory", "1.9x to 4.8x faster on 4
GPU types") states no count of it (:attr:`~papernotes.retrieval.question.Question.counted`,
:func:`~papernotes.retrieval.evidence.has_number` with ``count``); the notes' way of counting devices,
"8x A100", still does; nor does a name's number ("GPT-3", "ViT-B/16"; in
``tests/test_evidence_reading.py``). "How many *more* requests", "how many *times* fewer parameters" ask for a
factor and are answered by one."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.evidence import _number_beside, has_number
from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.question import Question, amount_interrogatives
from papernotes.retrieval.terms import Key, lexical_terms

SHARING = """---
title: "Quokkaserve: Co-Serving Inference and Finetuning with SLO Guarantees"
paper: "https://arxiv.org/abs/3402.18789"
---

Quokkaserve co-serves LLM inference and parameter-efficient finetuning on shared GPU memory. Saves up
to 80% of GPU memory and improves finetuning throughput by 1.9x to 4.8x under heavy inference load.
Token-level finetuning lets inference requests preempt finetuning within a GPU iteration. The evaluation
runs OPT-13 and GPT-3 models on A100 GPUs.
"""

SCALING = """---
title: "Numbatron: Scaling Dense Transformer Training"
paper: "https://arxiv.org/abs/3909.08053"
---

Numbatron splits every layer across devices with two all-reduces per layer. Evaluated on 8x A100
servers with NVLink; the largest run used 512 GPUs at 76% scaling efficiency. Twice the throughput of
the data-parallel baseline at 64 GPUs.
"""

MIGRATION = """---
title: "Bilbyflow: Migrating KV Caches Across a Serving Cluster"
paper: "https://arxiv.org/abs/3411.16666"
---

Bilbyflow migrates KV caches between servers so that requests can be rescheduled at token granularity.
It handles 8x as many requests as the baselines at a similar latency, with 3 times fewer stalls.
"""

COLD_START = """---
title: "Dingostart: Minimizing Cold Start Latency for Serverless LLM Serving"
paper: "https://arxiv.org/abs/3412.11222"
---

Dingostart fetches model weights from several storage servers in parallel and pipelines loading with
execution. It reduces cold-start latency by 1.7x to 4.7x and improves SLO attainment by 1.43x over the
serverless baselines.
"""

TITLED = """# LLM Training

## Long-context training

* Wombatscale: Communication-Efficient LLM Training with Long Contexts on 16384 GPUs [[Paper](https://dl.acm.org/doi/10.1145/3718958.3754999)]
  * PKU & ByteDance
  * Balances sequence lengths across data-parallel ranks; throughput up to 7.9x over the static baseline.
* Koalacontext: Training Transformers with a 4096K Context Length on 8192 GPUs [[Paper](https://dl.acm.org/doi/10.1145/3718958.3754777)]
  * THU & Alibaba
  * Splits each sequence across ring groups and overlaps the key-value exchange with compute.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {
        "quokkaserve.md": SHARING,
        "numbatron.md": SCALING,
        "bilbyflow.md": MIGRATION,
        "dingostart.md": COLD_START,
        "llm-training.md": TITLED,
    }
    return notes_from_texts(tmp_path_factory.mktemp("counted"), files, models_cache)


@pytest.mark.parametrize(
    "question",
    [
        "how many GPUs did Quokkaserve's evaluation use",
        "quokkaserve - how many gpus?",
        "How many GPU servers does Quokkaserve need?",
        "how many gpus does quokkaserve use",  # all that is asked is counted
        # a title's amount is the paper's scale, not the gain a factor asked for measures
        "koalacontext - context length speedup?",
    ],
)
def test_a_count_is_not_answered_by_a_percentage_or_a_factor(notes, question):
    an = notes.analyze(question)
    assert an.features["quantity_near"] < 0.5  # no count stands beside "GPU(s)"
    a = notes.ask(question, use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how many GPUs did the largest Numbatron run use", "512 GPUs"),
        ("numbatron: how many A100s per server?", "8x A100"),
        ("how many more requests can bilbyflow handle", "8x as many requests"),
        ("how many times fewer stalls does bilbyflow have", "3 times fewer stalls"),
        # "how many times" and a comparative asks a factor, as "how much faster" does
        ("how many times faster is dingostart's cold start", "1.7x to 4.7x"),
        ("how many times lower is dingostart cold start latency", "1.7x to 4.7x"),
        # a title stating the count is a fact about the paper, not only its name
        ("how many GPUs does Wombatscale use", "16384 GPUs"),
        ("wombatscale 用了多少 gpu", "16384 GPUs"),
    ],
)
def test_a_count_or_an_asked_factor_is_answered(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("how many GPUs did FlexLLM's evaluation use", ["GPUs"]),
        ("how many papers did mlsys take, out of how many submissions?", ["papers", "submissions"]),
        ("how many more requests can it handle", []),
        ("how many times fewer trainable params than full finetuning", []),
        ("how much memory does it save", []),
    ],
)
def test_the_counted_nouns(question, counted):
    assert Question(text=question, terms=[]).counted == counted


@pytest.mark.parametrize(
    ("sentence", "counts"),
    [
        ("Saves up to 80% of GPU memory.", False),
        ("Improves throughput by 1.9x to 4.8x.", False),
        ("Twice the throughput of the baseline.", False),
        ("Cuts GPU memory by 3 times.", False),
        ("Runs on one H100 80GB.", False),
        ("Recovers within 300 ms.", False),
        ("Evaluated on 8x A100 servers.", True),
        ("The largest run used 2,048 GPUs.", True),
        ("Scales to hundreds of GPUs.", True),
        ("Trained on 10K GPUs.", True),
        ("Restarted 3 times a day.", False),  # how many times, not how many things
    ],
)
def test_an_amount_that_counts(sentence, counts):
    assert has_number(sentence)  # every one states an amount
    assert has_number(sentence, count=True) is counts


def test_a_count_beside_the_counted_noun():
    gpus = [Key("gpus", ((t,),)) for t in lexical_terms("gpus")]
    counted = frozenset(lexical_terms("gpus"))
    text = "Saves up to 80% of GPU memory"
    assert _number_beside(text, gpus, set())  # an amount beside the word
    assert not _number_beside(text, gpus, set(), counted)  # but no count of it
    assert _number_beside("Evaluated on 8 GPUs", gpus, set(), counted)
    # a word asked beside the counted one takes any amount ("how many GPUs, and what overhead?")
    both = [*gpus, Key("overhead", (("overhead",),))]
    assert _number_beside("A 3% overhead", both, set(), counted)


@pytest.mark.parametrize(
    ("question", "interrogative", "factor"),
    [
        ("how many times faster is hydraserve", "how many times faster", True),
        ("how many times smaller is llama-13b than gpt-3", "how many times smaller", True),
        ("how much slower is it", "how much slower", True),
        ("how many times did the job restart", "how many times", False),
        ("how many gpus did it use", "how many", False),
    ],
)
def test_how_many_times_and_a_comparative_asks_a_factor(question, interrogative, factor):
    (a, b), *_ = amount_interrogatives(question)
    assert question[a:b].strip() == interrogative
    assert Question(text=question, terms=[]).asks_factor is factor
