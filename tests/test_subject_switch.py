"""A question that names a model but asks which *other* paper did something with it ("Which paper
improves the Chinese ability of LLaMA3 8B?" when the notes hold the Llama 3 paper too) is answered by
the paper whose sentence says what is asked, not by the named model's own note
(retrieval/extractive.py ``compose``, ``SUBJECT_SWITCH_MARGIN``). Notes written for the test: a model
paper that lists its sizes, and two papers that build on it."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

MODEL = """# Open model families

* The Orvel 3 Family of Models (arXiv:2407.91783) \\[[arXiv](https://arxiv.org/abs/2407.91783)]
  * MetaLab
  * **Orvel 3**
  * Models
    * Orvel 3 8B: <https://example.org/orvel-3-8b>
    * Orvel 3 70B
  * The models are trained on 15T tokens with a context length of 8K, extended to 128K later.
"""

ADAPTED = """# Papers on continual pre-training

* Towards Efficient Language Adaptation of Open Models (ACL 2025) [[Paper](https://aclanthology.org/2025.acl-long.911/)]
  * University of Helsinki
  * Presents Orvel-3-Finn, a continual pre-training recipe for improving Finnish ability on Orvel-3-8B.
* Sparse Replay for Domain Pre-training (EMNLP 2024) [[Paper](https://aclanthology.org/2024.emnlp-main.77/)]
  * KAIST
  * Replays 5% of general data while adapting Orvel-3-70B to legal text, keeping its general benchmarks.
* Curriculum Mixing for Continual Pre-training (ICLR 2025) [[Paper](https://openreview.net/forum?id=cm2025)]
  * EPFL
  * Schedules the share of new-domain tokens with a curriculum that rises over training.
* Forgetting in Long Continual Pre-training Runs (NeurIPS 2024) [[Paper](https://openreview.net/forum?id=fg2024)]
  * Mila
  * Measures how much general ability a model loses after 300B tokens of domain data.
* Tokenizer Extension for New Scripts (COLING 2025) [[Paper](https://aclanthology.org/2025.coling-main.12/)]
  * Charles University
  * Adds 20K tokens for Cyrillic text and initializes their embeddings from subword averages.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"topics/open-models.md": MODEL, "topics/continual-pretraining.md": ADAPTED}
    return notes_from_texts(tmp_path_factory.mktemp("subject-switch"), files, models_cache)


def cited(a) -> list[str]:
    return [c.paper_title or c.page_title or "" for c in a.citations]


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        ("Which paper improves the Finnish ability of Orvel3 8B?", "Towards Efficient Language Adaptation"),
        ("which paper improves finnish ability of orvel 3 8b", "Towards Efficient Language Adaptation"),
        ("which work made Orvel 3 8B better at finnish", "Towards Efficient Language Adaptation"),
        ("who adapted Orvel-3-70B to legal text", "Sparse Replay for Domain Pre-training"),
    ],
)
def test_the_paper_that_does_what_is_asked_answers(notes, question, paper):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert cited(a)[0].startswith(paper), a.answer


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("what context length does orvel 3 have", "8K"),  # the model's own note says it: no switch
        ("how many tokens was orvel 3 trained on", "15T"),
    ],
)
def test_the_named_paper_answers_what_its_own_note_says(notes, question, text):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and text in a.answer, a.answer
    assert cited(a)[0].startswith("The Orvel 3 Family"), a.answer


@pytest.fixture(scope="module")
def real_notes(real_index):
    from papernotes.retrieval.service import Notes

    return Notes(real_index)


@pytest.mark.parametrize("spelling", ["LLaMA3 8B", "Llama-3-8B", "llama 3 8b"])
def test_real_notes_answer_with_the_paper_that_adapts_the_named_model(real_notes, spelling):
    """The real notes hold *The Llama 3 Herd of Models*, whose own lines name "Llama 3 8B" (its link
    line ranks first); the paper that improves its Chinese ability is another."""
    a = real_notes.ask(f"Which paper improves the Chinese ability of {spelling}?", use_llm=False)
    assert not a.refused, a.answer
    assert cited(a)[0].startswith("Towards Effective and Efficient Continual Pre-training"), a.answer
    assert "Chinese ability" in a.answer


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("distserve in one sentence", "DistServe"),
        ("vllm in one sentence", "vLLM"),
        ("splitwise in a sentence", "Splitwise"),
        ("sarathi-serve in one sentence", "Sarathi-Serve"),
    ],
)
def test_another_paper_that_does_not_write_the_name_is_no_subject(real_notes, question, name):
    """Another paper's sentence holding what is asked ("sentence classification" for "in one sentence")
    but not the named paper's name builds nothing on it: the question stays about the named paper,
    answered by its own notes or refused, never by the other paper."""
    a = real_notes.ask(question, use_llm=False)
    assert a.refused or name in cited(a)[0] or name in a.answer.split("\n")[0], a.answer


@pytest.mark.parametrize(
    ("question", "paper"),
    [
        # the name read (Mirage) is a word of the title of the paper that answers (Mirage Persistent Kernel)
        ("mirage persistant kernel latency reduction vs kernel-per-operator", "Mirage Persistent Kernel"),
        ("mirage persisent kernel - how much lower latency than kernel per operator", "Mirage Persistent Kernel"),
        # the named library is written in the sentence of the paper that answers
        (
            "Is there an autonomous GPU kernel optimizer that starts from an end-to-end PyTorch model and ranks "
            "kernels with Amdahl's law? Who built it?",
            "AutoKernel",
        ),
    ],
)
def test_another_paper_that_writes_the_name_in_its_title_or_sentence_takes_over(real_notes, question, paper):
    """A paper that writes the named paper's name — in the sentence that covers what is asked, or in its
    title when that sentence is the best of all — takes the question over."""
    a = real_notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert cited(a)[0].startswith(paper), a.answer
