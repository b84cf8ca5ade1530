"""A comparison that asks which paper has the lower or higher value of something ("X vs Y, which has
lower overhead?", "does X have higher throughput than Y"): the comparative is the comparison's form, so
each paper's sentences on the attribute are quoted, whether or not they write the comparative; and each
side's coverage is read in passages of its own (retrieval/question.understand, retrieval/answerability
``cov_best``). A line both papers' entries share (a tag line) tells them no apart: a comparison quotes
neither (retrieval/extractive ``_shared_lines``)."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

OTTERCHECK = """# Ottercheck: Online Corruption Sensing for Training Jobs

- **Paper:** [arXiv](https://arxiv.org/abs/3108.01111)
- **Venue:** OSDI 2031

Ottercheck watches gradient checksums while a training job runs.
It was deployed on a fleet of 4,096 accelerators for six months.
Runtime overhead stays at 0.9% of step time.
"""

BADGERHUNT = """# Badgerhunt: Replaying Failed Steps to Find Faulty Accelerators

- **Paper:** [arXiv](https://arxiv.org/abs/3108.02222)
- **Venue:** NSDI 2031

Badgerhunt replays the training step that failed on a spare node to find the faulty accelerator.
Its end-to-end overhead is under 3.5% on 512-accelerator traces.
Throughput of the replay node reaches 1,200 samples per second.
"""

#: A topic page whose entries carry the same tag line.
RELIABILITY = """# Reliability and Fault Tolerance

* Lynxguard: Sensing Corrupted Gradients Online (OSDI 2032) \\[[Paper](https://example.org/lynxguard)]
  * Alpine University & Lynx Labs
  * Axis: **Empirical reliability studies**; **Production reliability infrastructure**
  * Presents **Lynxguard**, which compares cheap gradient fingerprints across data-parallel ranks while training runs.
  * Deployed over 9 million accelerator hours with 0.7% overhead.

* Pumawatch: Localizing Faulty Accelerators by Replay (OSDI 2032) \\[[Paper](https://example.org/pumawatch)]
  * Prairie University & Puma Cloud
  * Axis: **Empirical reliability studies**; **Production reliability infrastructure**
  * Introduces **Pumawatch**, replaying the failed step on spare nodes to localize the faulty accelerator.
  * Localizes a faulty accelerator within one hour.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("compared-attributes"),
        {"ottercheck.md": OTTERCHECK, "badgerhunt.md": BADGERHUNT, "reliability.md": RELIABILITY},
        models_cache,
    )


@pytest.mark.parametrize(
    "question",
    [
        "ottercheck vs badgerhunt, which has lower overhead",
        "ottercheck or badgerhunt - which one has higher overhead?",
        "does ottercheck have lower overhead than badgerhunt",
        "which has less overhead, badgerhunt or ottercheck?",
    ],
)
def test_each_sides_attribute_is_quoted(notes, question):
    q = notes.retriever.understand(question)
    assert [k.word for k in q.asked] == ["overhead"], question
    a = notes.ask(question, use_llm=False)
    assert not a.refused, question
    assert "0.9%" in a.answer and "3.5%" in a.answer, a.answer
    assert "4,096 accelerators" not in a.answer and "1,200 samples" not in a.answer, a.answer


def test_a_comparative_alone_is_what_is_asked(notes):
    """A comparative alone ("which is faster"): no other word says what is compared, so the comparative stays asked."""
    q = notes.retriever.understand("ottercheck vs badgerhunt which is faster")
    assert [k.word for k in q.asked] == ["faster"]


def test_a_comparative_of_one_paper_stays_asked(notes):
    """Naming one paper, "lower overhead" is no comparison of two sides: the phrase stays as typed."""
    q = notes.retriever.understand("ottercheck lower overhead config?")
    assert len(q.records) == 1 and any("lower" in k.word for k in q.asked), [k.word for k in q.asked]


@pytest.mark.parametrize(
    "question", ["ottercheck vs badgerhunt overhead", "how do ottercheck and badgerhunt differ in overhead"]
)
def test_each_side_is_covered_by_a_passage_of_its_own(notes, question):
    """No passage names both papers; each paper's own passage holds its name and what is asked, so the
    single-passage coverage of the comparison is full (``cov_best``, side by side)."""
    assert notes.analyze(question).features["cov_best"] >= 0.99


@pytest.mark.parametrize(
    "question", ["lynxguard vs pumawatch - whats the difference", "how do lynxguard and pumawatch differ?"]
)
def test_a_line_both_papers_share_is_no_difference(notes, question):
    """Both entries carry the same tag line; the comparison quotes what each paper does instead."""
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert "Axis" not in a.answer, a.answer
    assert "gradient fingerprints" in a.answer and "replaying the failed step" in a.answer, a.answer
