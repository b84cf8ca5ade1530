"""A guess typed after a question ("which gpus? h100 or a100?"): the values the asker offers.

- The guess is read from fragments after the question, each ending in its own question mark, or from
  brackets ("(tomahawk?)", "(h100? a100?)"); a fragment that asks ("and overall?", "what's the
  difference?"), names only common words ("aws?", "seconds?") or is in another script is none.
- Names in a guess are values, not papers the question is about ("flashps - which models? sdxl?" is
  about FlashPS alone); with no paper named before it, a fragment is the question itself ("which is
  faster? splitwise or distserve?").
- A guess the named paper's notes never write is refused with a note saying so; one they write is
  answered; a model number they answer with another ("a100?" when they say "H100") is answered too.
"""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.answer import REFUSAL
from papernotes.retrieval.guesses import typed_guess

WOMBAT = """# Wombatserve: Pouch-Aware Batching for Marsupial Model Serving

- **Paper:** [arXiv](https://arxiv.org/abs/3107.01111)
- **Venue:** OSDI 2031

Wombatserve batches requests by the length of their prompts and runs on H100 GPUs.
The evaluation serves Llama-2 70B and reaches 2.4x the throughput of vLLM.
"""

KOALA = """# Koalacache: Eucalyptus-Tiered KV Storage for Long Contexts

- **Paper:** [arXiv](https://arxiv.org/abs/3107.02222)
- **Venue:** NSDI 2031

Koalacache keeps cold KV blocks on SSD and prefetches them one layer ahead of the attention kernel.
"""

DINGO = """# Dingoflow: Pack Scheduling for Diffusion Serving

- **Paper:** [arXiv](https://arxiv.org/abs/3107.03333)
- **Venue:** ATC 2031

Dingoflow groups image-generation requests that share a prompt prefix into one denoising batch.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("guesses"),
        {"wombatserve.md": WOMBAT, "koalacache.md": KOALA, "dingoflow.md": DINGO},
        models_cache,
    )


@pytest.mark.parametrize(
    ("question", "alternatives"),
    [
        ("sdchunter - which gpu model were the defective ones? h100 or a100?", ("h100", "a100")),
        ("kernelevolve - which llm powers the agent? claude? gpt-5?", ("claude", "gpt-5")),
        ("metis atc24 - what gpu types mixed in the eval? v100 + a100?", ("v100", "a100")),
        ("alibaba hpn switches - what switch chip (tomahawk?) and port speed?", ("tomahawk",)),
        ("what gpu model were the defective ones (h100? a100?)", ("h100", "a100")),
        ("DFVG - which fpga board? alveo u280?", ("alveo u280",)),
        ("vasa-1 - what dataset is it trained on? voxceleb?", ("voxceleb",)),
        ("agentix - which models did they test, llama?", ("llama",)),  # after a comma ending the question
    ],
)
def test_a_guess_is_read_after_the_question(question, alternatives):
    g = typed_guess(question)
    assert g is not None and g.alternatives == alternatives


@pytest.mark.parametrize(
    "question",
    [
        "splitwise paper? venue + award?",  # fields: a lookup, not values (answered as one)
        "how selective was the spring cycle of nsdi 2025? and overall?",
        "jenga vs JENGA - same paper or not? what's the difference?",
        "oobleck, how long does reconfiguration take? seconds?",
        "skywalker - which clouds in the eval? aws?",
        "Qui a construit Llumnix ? et c'est publié où ?",
        "Splitwise 是哪篇论文?是谁做的?",
        "what is flashps?",
        "compare splitwise, distserve?",  # a comma with no interrogative before it
    ],
)
def test_asking_or_common_words_are_no_guess(question):
    assert typed_guess(question) is None


@pytest.mark.parametrize(
    "question",
    [
        "koalacache - which ssd model? samsung pm9a3?",
        "koalacache, what eviction policy (lru? arc?)",
        "dingoflow - which diffusion models? sdxl or flux?",
        "wombatserve - which framework is it built on? deepspeed-mii?",
        "koalacache - which ssd did they use, pm9a3?",
    ],
)
def test_a_guess_the_notes_never_write_is_refused_with_a_note(notes, question):
    a = notes.ask(question, use_llm=False)
    assert a.refused and a.answer == REFUSAL, a.answer
    assert a.note and "never mention" in a.note, a.note


@pytest.mark.parametrize(
    ("question", "stated"),
    [
        ("wombatserve - which gpus? h100?", "H100"),
        ("wombatserve which model did they serve? llama-2?", "Llama-2"),
        ("wombatserve - which gpus? a100?", "H100"),  # another model number: the notes answer it
    ],
)
def test_a_guess_the_notes_write_or_answer_otherwise_is_answered(notes, question, stated):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and stated in a.answer, a.answer


def test_names_in_a_guess_are_not_the_papers_asked_about(notes):
    """A guess "dingoflow - which models? koalacache?" is about Dingoflow: Koalacache is a guessed value, so
    the question is no comparison; a fragment with no paper named before it is the question."""
    q = notes.retriever.understand("dingoflow - which kv store does it use? koalacache?")
    assert [notes.catalog[r].system for r in q.records] == ["Dingoflow"] and q.guess is not None
    q = notes.retriever.understand("which is faster? wombatserve or dingoflow?")
    assert len(q.records) == 2 and q.guess is None
