"""An amount asked of one paper against another ("X speedup vs Y?", "X vs Y how much faster", "how
much better is X than Y"): the notes state it as a factor in X's sentence that names Y ("2.4x the
throughput of Koalaserve"), not with the comparative; a pair whose notes state no amount of one
against the other is refused."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.retrieval.question import understand

WOMBAT = """# Wombatserve: Pouch-Aware Batching for Marsupial Model Serving

- **Paper:** [arXiv](https://arxiv.org/abs/3107.01111)
- **Venue:** OSDI 2031

Wombatserve batches requests by the length of their prompts.
It reaches 2.4x the throughput of Koalaserve at the same tail latency.
"""

KOALA = """# Koalaserve: Eucalyptus-Tiered KV Storage for Model Serving

- **Paper:** [arXiv](https://arxiv.org/abs/3107.02222)
- **Venue:** NSDI 2031

Koalaserve keeps cold KV blocks on SSD and prefetches them one layer ahead of the attention kernel.
"""

DINGO = """# Dingoflow: Pack Scheduling for Diffusion Serving

- **Paper:** [arXiv](https://arxiv.org/abs/3107.03333)
- **Venue:** ATC 2031

Dingoflow groups image-generation requests that share a prompt prefix into one denoising batch.
It cuts the cost per image by 31%.
"""


WOMBAT2 = """# Wombatserve-2: Faster Pouch-Aware Batching

- **Paper:** [arXiv](https://arxiv.org/abs/3107.04444)
- **Venue:** SOSP 2032

Wombatserve-2 splits each batch across two GPUs.
It gives around 2x speedup over Wombatserve.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("compared-amounts"),
        {"wombatserve.md": WOMBAT, "koalaserve.md": KOALA, "dingoflow.md": DINGO, "wombatserve2.md": WOMBAT2},
        models_cache,
    )


@pytest.mark.parametrize(
    "question",
    [
        "wombatserve speedup vs koalaserve?",
        "wombatserve vs koalaserve how much faster",
        "how much better is wombatserve than koalaserve",
        "koalaserve vs wombatserve speedup??",
    ],
)
def test_an_amount_of_one_paper_against_another_is_its_sentence_naming_the_other(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and "2.4x" in a.answer, a.answer


def test_a_pair_whose_notes_state_no_amount_of_one_against_the_other_is_refused(notes):
    """Dingoflow's notes state an amount (31%), but not against Koalaserve."""
    assert notes.ask("dingoflow vs koalaserve speedup?", use_llm=False).refused


@pytest.mark.parametrize(
    "question, comparative",
    [
        ("how much faster is x than y", "faster"),
        ("how much longer does x take", "longer"),
        ("how much better is x", "better"),
        ("how much slower is sort without backup tasks in x", "slower"),  # any comparative the lexicon knows
        ("how much cheaper is x than y", "cheaper"),
        ("how much fewer gpus does x need", "fewer"),
    ],
)
def test_the_comparative_of_an_amount_interrogative_is_no_asked_word(question, comparative):
    q = understand(question)
    assert q.asks_quantity and not any(k.word == comparative for k in q.keys), q.keys


def test_a_noun_after_how_much_stays_asked():
    q = understand("how much memory does x use")
    assert any(k.word == "memory" for k in q.keys)


@pytest.mark.parametrize(
    "question", ["wombatserve vs wombatserve-2 how much faster", "how much faster is wombatserve-2 than wombatserve"]
)
def test_a_version_number_of_a_name_is_no_amount_the_question_states(notes, question):
    """ "2x" in Wombatserve-2's notes is a new amount, not the "2" of its name repeated."""
    a = notes.ask(question, use_llm=False)
    assert not a.refused and "2x" in a.answer, a.answer


@pytest.mark.parametrize(
    "question, numbers",
    [
        ("flashattention vs flashattention-2 how much faster", set()),
        ("gpt-3 175b learning rate", {"175"}),
        ("h100 vs a100 2x?", {"2"}),
        ("qwen2.5 7b vs llama3 8b", {"7", "8"}),
        ("is it 1-2 gpus or 10%", {"1", "2", "10"}),
        ("llama 3 405b tokens?", {"3", "405"}),  # a version typed apart: "Llama 3 405B" in a note repeats it
    ],
)
def test_the_numbers_a_question_states_leave_out_those_of_names(question, numbers):
    assert understand(question).numbers == numbers


@pytest.mark.parametrize("comparing", ["vs", "versus", "compared to"])
def test_a_comparing_word_is_no_term_the_passages_must_cover(notes, comparing):
    """ "X vs Y throughput" asks what "X and Y throughput" asks: the comparing word is the question's
    form, so it weighs nothing in the coverage of the question's terms by the passages."""
    plain = notes.analyze("wombatserve and koalaserve throughput").features
    compared = notes.analyze(f"wombatserve {comparing} koalaserve throughput").features
    assert compared["cov_best"] == pytest.approx(plain["cov_best"])
    assert compared["cov_union"] == pytest.approx(plain["cov_union"])


@pytest.mark.parametrize(
    "question", ["wombatserve vs wombatserve-2 how much faster is v2", "wombatserve-2 vs wombatserve: v2 speedup?"]
)
def test_a_version_typed_alone_is_the_named_paper_of_that_version(notes, question):
    """ "v2" is Wombatserve-2, named beside it: no word asked, which no sentence would hold."""
    an = notes.analyze(question)
    assert "v2" not in [k.word for k in an.question.asked]
    a = notes.ask(question, use_llm=False)
    assert not a.refused and "2x" in a.answer, a.answer
