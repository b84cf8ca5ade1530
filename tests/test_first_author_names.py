"""A paper named by its first author's surname, as people cite papers ("the bahdanau attention paper",
"kaplan scaling laws", "mnih 2013 atari paper", "vaswani et al"): retrieval/entities
``PaperIndex._by_first_author``."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

NMT = """# Neural Wombat Translation by Jointly Learning to Align and Translate

Dzmitry Bahdanwomb, Kyunghyun Cho, Yoshua Bengio — ICLR 2035 — [arXiv](https://arxiv.org/abs/3409.0473)

The RNNsearch model learns a soft alignment model jointly with the translation model, so the decoder
attends over all encoder states instead of one fixed vector.
"""

SCALING = """# Scaling Laws for Neural Wombat Models

Jared Kaplwomb, Sam McCandlish, Tom Henighan — [arXiv](https://arxiv.org/abs/3001.08361)

Test loss follows power laws in model size, dataset size and compute, over seven orders of magnitude.
The work comes from OpenAI.
"""

FEWSHOT = """# Wombat Models are Few-Shot Learners

Tom B. Brown, Benjamin Mann, Nick Ryder — NeurIPS 2030 — [arXiv](https://arxiv.org/abs/3005.14165)

A 175B parameter decoder-only model; few-shot prompting without gradient updates.
"""

ATARI_A = """# Playing Atari Wombats with Deep Reinforcement Learning

Volodymyr Mnihwomb, Koray Kavukcuoglu, David Silver — arXiv 2033 — [arXiv](https://arxiv.org/abs/3312.5602)

Transitions are stored in a replay memory holding the last 1 million frames.
"""

ATARI_B = """# Human-level Wombat Control through Deep Reinforcement Learning

Volodymyr Mnihwomb, Koray Kavukcuoglu, David Silver — Nature 2035 — [DOI](https://doi.org/10.1038/nature14299)

Evaluated on 49 Atari games with one network architecture and one set of hyperparameters.
"""


DASHED = """# Marsupial Wombat Attention: Pouch-Local Softmax for Long Documents

Jane Quokkwomb, Bob Lee — ICLR 2031

[arXiv](https://arxiv.org/abs/3101.99201)

Marsupial attention restricts softmax to pouch-local windows of 512 tokens, so attention cost grows
linearly with length.

## Experiments
- Trained on the PouchBooks dataset (1.1B tokens of long novels).
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"nmt.md": NMT, "scaling.md": SCALING, "fewshot.md": FEWSHOT, "p1.md": ATARI_A, "p2.md": ATARI_B}
    files["dashed.md"] = DASHED
    return notes_from_texts(tmp_path_factory.mktemp("first-authors"), files, models_cache)


def _named(notes, question):
    return [notes.catalog[r].title for r in notes.retriever.understand(question).records]


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("summarize the bahdanwomb attention paper", "Neural Wombat Translation"),
        ("bahdanwomb et al alignment model?", "Neural Wombat Translation"),
        ("kaplwomb scaling laws paper which lab", "Scaling Laws for Neural Wombat Models"),
        ("brown et al few-shot results", "Wombat Models are Few-Shot Learners"),
        ("mnihwomb 2033 atari paper replay memory size", "Playing Atari Wombats"),
        ("mnihwomb 2035 paper: how many games", "Human-level Wombat Control"),
    ],
)
def test_a_first_author_cited_names_the_paper(notes, question, title):
    named = _named(notes, question)
    assert len(named) == 1 and named[0].startswith(title), named


@pytest.mark.parametrize(
    "question",
    [
        "papers by bahdanwomb",  # the person
        "which kaplwomb papers do i have",
        "the brown paper",  # a surname that is an English word, cited by nothing but "paper"
        "mnihwomb paper?",  # two papers share the first author, and the question tells them no apart
    ],
)
def test_a_person_or_an_ambiguous_surname_names_no_paper(notes, question):
    assert _named(notes, question) == [], question


def test_the_answer_is_the_cited_papers(notes):
    a = notes.ask("mnihwomb 2033 atari paper replay memory size", use_llm=False)
    assert not a.refused and "1 million frames" in a.answer, a.answer
    assert a.answer.startswith("Playing Atari Wombats"), a.answer


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("summarize the bahdanwomb attention paper", []),  # the words that cite it are no part of what is asked
        ("kaplwomb scaling laws paper which lab", ["lab"]),
        ("mnihwomb 2033 atari paper replay memory size", ["replay", "memory", "size"]),
        ("tldr bahdanwomb et al", []),  # "tldr" asks for the summary, as "summarize" does
    ],
)
def test_the_words_citing_a_paper_are_not_asked(notes, question, asked):
    q = notes.retriever.understand(question)
    assert [k.word for k in q.asked] == asked, [k.word for k in q.asked]


def test_a_paper_cited_by_its_author_is_described(notes):
    a = notes.ask("summarize the bahdanwomb attention paper", use_llm=False)
    assert not a.refused and a.answer.startswith("Neural Wombat Translation"), a.answer
    assert "RNNsearch" in a.answer, a.answer


@pytest.mark.parametrize(
    "question", ["bahdanwomb et al speedup gain?", "the kaplwomb et al paper: which lab", "brown et al. cost reduction"]
)
def test_et_al_is_no_other_language(notes, question):
    # "et" and "al" are French and Spanish stop words; in a citation they are Latin: nothing of an
    # English question is set aside as words of another language
    q = notes.retriever.understand(question)
    assert q.unread == [], q.unread
    assert q.records, question


def test_a_byline_set_apart_by_a_dash_gives_the_authors(notes):
    rec = next(r for r in notes.catalog if r.title.startswith("Marsupial Wombat Attention"))
    assert rec.authors == ["Jane Quokkwomb", "Bob Lee"], rec.authors
    for question in ("summarize the quokkwomb attention paper", "what is marsupial wombat attention"):
        a = notes.ask(question, use_llm=False)
        assert a.answer.startswith("Marsupial Wombat Attention"), a.answer
        assert "pouch-local windows" in a.answer, a.answer
        # the byline and venue line is who and where, which the lead line gives: not quoted again
        assert "Bob Lee — ICLR 2031" not in a.answer, a.answer
    a = notes.ask("quokkwomb 2031 paper: what dataset", use_llm=False)
    assert not a.refused and "PouchBooks" in a.answer, a.answer
