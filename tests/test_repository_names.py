"""A paper's code repository is named for its system: when a paper's notes write that name and the paper
has no coined name of its own, the repository's name is an alias of the paper, in the notes' spelling
(corpus/catalog ``_repository_names``). A paper listed under a long title ("Training with Confidence: …")
whose notes call it "TrainCheck" is asked about as TrainCheck."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.prompts import REFUSAL

PAGE = """# OSDI 2031

## Papers

### Model Training

* Training with Certainty: Catching Quiet Faults in Model Training with Proactive Probes \\[[Paper](https://www.usenix.org/conference/osdi31/presentation/lind)] \\[[Code](https://github.com/FjordLab/QuietProbe)]
  * UMich
  * **QuietProbe** targets objective correctness violations (wrong API usage, buggy library code, faulty hardware).
  * Infer and check training invariants to prevent quiet training faults.
  * Results: caught 17/21 real-world quiet issues, identified 5 new bugs in two training libraries.
* Sharing Accelerators Fairly in Container Clouds for Training Workloads \\[[Paper](https://www.usenix.org/conference/osdi31/presentation/berg)] \\[[Code](https://github.com/northlab/ShareFair)]
  * Northwind University
  * ShareFair gives each job a guaranteed share of accelerator time and lends idle time to others.
  * 3.1x higher throughput than time slicing.
* PipeWeaver: Software-Defined Pipelining for Efficient Tensor Programs \\[[Paper](https://www.usenix.org/conference/osdi31/presentation/dahl)] \\[[Code](https://github.com/weave-ai/weavelang)]
  * Fjord Research
  * Implemented on top of WeaveLang, a tile-level language; 1.8x over hand-written kernels.
* Measuring Memory Faults in Production Fleets \\[[Paper](https://www.usenix.org/conference/osdi31/presentation/holm)] \\[[Code](https://github.com/holmlab/experiments)]
  * Holm Institute
  * The experiments cover 410 million memory error events from eleven data centers.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(tmp_path_factory.mktemp("repository-names"), {"osdi31.md": PAGE}, models_cache)


def _record(notes, start: str):
    return next(r for r in notes.catalog if r.title.startswith(start))


def test_a_repository_named_in_the_notes_is_an_alias(notes):
    assert "QuietProbe" in _record(notes, "Training with Certainty").aliases
    # in the notes' spelling, the paper having no system name at all
    assert "ShareFair" in _record(notes, "Sharing Accelerators").aliases


def test_a_coined_system_name_stays_the_only_one(notes):
    # the repository names the language the system is built on, which its notes also write
    rec = _record(notes, "PipeWeaver")
    assert rec.system == "PipeWeaver"
    assert "WeaveLang" not in rec.aliases and "weavelang" not in [a.casefold() for a in rec.aliases]


def test_an_ordinary_word_is_no_name(notes):
    # "experiments" names the repository and is written in the notes, as an ordinary word
    assert not any(a.casefold() == "experiments" for a in _record(notes, "Measuring Memory Faults").aliases)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("quietprobe - how many quiet issues did it catch?", "17/21"),
        ("how many new bugs did QuietProbe find", "5 new bugs"),
        ("sharefair throughput vs time slicing?", "3.1x"),
    ],
)
def test_a_paper_is_asked_about_by_its_repository_name(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


def test_asked_by_its_repository_name_the_paper_is_named(notes):
    q = notes.analyze("what venue was quietprobe at").question
    assert [notes.catalog[r].title for r in q.records] == [_record(notes, "Training with Certainty").title]
    a = notes.ask("what venue was quietprobe at", use_llm=False)
    assert not a.refused and "OSDI 2031" in a.answer, a.answer


def test_what_its_notes_do_not_state_is_refused(notes):
    a = notes.ask("what learning rate did quietprobe use", use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer
