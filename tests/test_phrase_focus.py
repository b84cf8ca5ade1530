"""A question asked as a noun phrase naming an amount, without an interrogative ("batch size in the
chinchilla paper", "llama tokenizer vocab size"), asks for the amount of what its opening phrase names,
as "what batch size …" does
(retrieval/question ``PHRASE_RE``, :func:`~papernotes.retrieval.question.question_focus`): notes of the
named paper that never write it do not answer it, however many of its other words they hold ("model
size", "tokens")."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.corpus.normalize import normalize
from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.question import PHRASE_RE, question_focus
from papernotes.retrieval.terms import Key, lexical_terms

BUDGET = """---
title: "Wombatilla: Training Compute-Optimal Wombat Models"
paper: "https://arxiv.org/abs/3203.15556"
---

For a fixed compute budget, model size and training tokens should grow equally: double the model,
double the tokens. Wombatilla has 70B parameters and was trained on 1.4 trillion tokens, with the same
compute as a 280B model trained on 300B tokens.

## Results

Wombatilla beats the 280B model on 4 of 5 benchmark suites, and inference is 4x cheaper.
"""

FAMILY = """---
title: "Lemuroid: Open and Efficient Foundation Models"
paper: "https://arxiv.org/abs/3302.13971"
---

Models from 7B to 65B parameters, trained only on public data; the 65B model was trained on 1.4T tokens
and the 7B on 1T tokens. Pre-normalization with RMSNorm, SwiGLU activations and rotary embeddings.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"wombatilla.md": BUDGET, "lemuroid.md": FAMILY}
    return notes_from_texts(tmp_path_factory.mktemp("phrase-focus"), files, models_cache)


@pytest.mark.parametrize(
    "question",
    [
        "batch size in the wombatilla paper",
        "wombatilla batch size",
        "lemuroid tokenizer vocab size",
        "lemuroid vocab size?",
    ],
)
def test_a_phrase_the_notes_never_write_is_refused(notes, question):
    assert notes.analyze(question).features["focus_cov"] < 0.5  # what it asks for is not in the paper's notes
    a = notes.ask(question, use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("wombatilla training tokens", "1.4 trillion tokens"),
        ("wombatilla parameter count", "70B parameters"),
        ("lemuroid normalization?", "RMSNorm"),
        ("lemuroid pretraining data", "public data"),
        ("inference cost of wombatilla vs the 280B model", "4x cheaper"),
    ],
)
def test_a_phrase_the_notes_write_is_answered(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert expected in a.answer


def _keys(words: str) -> list[Key]:
    return [Key(w, ((t,),)) for w in words.split() for t in lexical_terms(w)]


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("batch size in the chinchilla paper", "batch size"),
        ("llama tokenizer vocab size", "llama tokenizer vocab size"),
        ("ddpm fid on lsun bedroom?", "ddpm fid"),
        ("lora learning rate used for gpt-3", "lora learning rate used"),
        ("orca throughput vs vllm", "orca throughput"),
    ],
)
def test_the_opening_phrase(question, phrase):
    m = PHRASE_RE.match(normalize(question))
    assert m is not None and m.group(1) == phrase


def test_the_focus_of_a_phrase_question():
    asked = _keys("batch size")
    # the measure noun asks for a number; the compound's other word is the focus
    assert [k.word for k in question_focus("batch size in the chinchilla paper", asked)] == ["batch"]
    # a phrase naming no amount asks for what the notes may say in other words ("2.3x faster")
    assert question_focus("ditron e2e vllm gains", _keys("e2e vllm gains")) == []
    assert question_focus("ditron perf numbers vs cuda baselines", _keys("perf numbers cuda baselines")) == []
    assert question_focus("fid on lsun bedroom", _keys("fid lsun bedroom")) == []
    # with an interrogative, its own phrase is the focus
    assert [k.word for k in question_focus("what batch size did orca use", asked)] == ["batch"]
    assert [k.word for k in question_focus("orca batch size - how many gpus", _keys("batch size gpus"))] == ["gpus"]
    # a measure noun asks for a number, of whatever the phrase names
    assert [k.word for k in question_focus("orca parameter count", _keys("parameter count"))] == ["parameter"]
    # a phrase headed by a general noun names no kind of answer
    assert question_focus("orca main idea", _keys("main idea")) == []
