"""What a question asks, read against the named paper's own notes: shorthand the notes never write
("tput", "hw", "avg") read as the words of that paper's notes it shortens; a word's derivational
relative that the stemmer keeps apart ("reduction" / "reduces", "consumption" / "consumes"); a rare
word that is present (its presence is evidence even where its absence would say nothing); and a name
that two papers share is not a comparison that asks nothing (retrieval/terms.Key.covered,
retrieval/spelling.read_against, retrieval/answerability.question_features).
Fixture: tests/fixtures/families/typed_shorthand/notes (papers written for the test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_answered, notes_of

from papernotes.retrieval.answerability import names_a_paper
from papernotes.retrieval.entities import PaperMention
from papernotes.retrieval.evidence import split_sentences
from papernotes.retrieval.question import Question
from papernotes.retrieval.spelling import read_against, shorthand_of
from papernotes.retrieval.terms import Key, lexical_terms, relatives

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "typed_shorthand" / "notes"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("typed-shorthand-index"), models_cache)


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("reduction", "reduces"),
        ("reduce", "reduction"),
        ("consumption", "consumes"),
        ("introduction", "introduces"),
    ],
)
def test_a_derivational_relative_covers_the_asked_word(asked, written):
    (t,) = lexical_terms(asked)
    assert Key(asked, ((t,),)).covered(set(lexical_terms(written)))


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("plan", "plant"),
        ("state", "statement"),
        ("transfer", "transformer"),
        # a name has no derivational relatives: TensorRT is no tensor, MegatronLM no Megatron
        ("tensorrt", "tensor"),
        ("megatronlm", "megatron"),
    ],
)
def test_short_or_merely_similar_stems_are_not_relatives(asked, written):
    (t,) = lexical_terms(asked)
    assert not Key(asked, ((t,),)).covered(set(lexical_terms(written)))
    assert all(len(r) >= 5 for r in relatives("reduct"))


@pytest.mark.parametrize(
    ("short", "term", "expected"),
    [
        ("tput", "throughput", True),
        ("hw", "hardwar", True),
        ("avg", "averag", True),
        ("mem", "memori", True),
        ("tput", "input", False),  # another first letter
        ("avg", "avgs", False),  # not two letters longer
        ("hw", "shadow", False),
    ],
)
def test_shorthand_of(short, term, expected):
    assert shorthand_of(short, term) is expected


def test_shorthand_is_read_only_against_the_passage_and_only_when_the_notes_lack_it():
    have = set(lexical_terms("Ferry raises throughput by 2.7x on the hardware queues"))
    keys = [Key("tput", (("tput",),)), Key("hw", (("hw",),)), Key("gpu", (("gpu",),))]
    read = read_against(keys, have, in_notes=lambda t: t == "gpu")
    assert read[0].covered(have) and read[1].covered(have)
    assert read[2] == keys[2]  # a word the notes use keeps its one reading
    unread = read_against(keys, set(lexical_terms("Tally stores residuals in host memory")), lambda t: False)
    assert not unread[0].covered(set(lexical_terms("Tally stores residuals in host memory")))


@pytest.mark.parametrize(
    ("question", "figure"),
    [
        ("ferry tput gain?", "2.7x"),
        ("ferry avg tail latency cut", "38%"),
        ("wisp cold start reduction numbers", "3.2x"),
        ("how much did wisp's snapshot dedup reduce storage", "45%"),
        ("ferry nic power consumption", "11 W"),
        ("where does tally keep the residuals", "host memory"),
    ],
)
def test_questions_typed_with_shorthand_or_other_word_forms_are_answered(notes, question, figure):
    assert_answered(notes, question, figure)


@pytest.mark.parametrize(
    "question",
    [
        "how many tpus did ferry use",
        "wisp license?",
        "kite 2.5 pro context window size",  # a name two papers share, asked what neither note says
        "tally training cost in dollars",
    ],
)
def test_what_the_named_papers_notes_lack_is_refused(notes, question):
    assert notes.ask(question, use_llm=False).refused


@pytest.mark.parametrize(
    ("sentence", "amount"),
    [
        ("mask掉大量的patch（如75%）才有可能", True),  # Chinese text right before the number
        ("随机出25%：把序列random shuffle", True),
        ("They train for 50 million frames", True),
        ("a 448×448 tile and a 4K context", True),
        ("4.Reconstruction Target", False),  # a numbered heading
        ("GPT4 is the judge", False),  # a digit inside a name
        ("Runs GPT-3 on A100 GPUs.", False),  # a name's number, as in "GPT4"
        ("Against a ResNet-50 baseline.", False),
        ("The ViT-B/16 model.", False),
        ("Llama-70B is the largest.", True),  # a size, with its unit
        ("Llama-3.1-8B is the base model.", True),
        ("A 24-layer encoder.", True),
        ("Published in 2019.", False),  # a year alone
        ("Recovery takes a few seconds per GPU", True),  # a span of time without a number
        ("tens of milliseconds of added latency", True),
        ("a few papers discuss it", False),
    ],
)
def test_a_sentence_states_an_amount(sentence, amount):
    from papernotes.retrieval.evidence import has_number

    assert has_number(sentence) is amount


@pytest.mark.parametrize(
    ("chunk", "kept", "dropped"),
    [
        (  # cut inside a code block: its code, then the closing fence, then prose (a chunk's body, as
            # every reader gives it: its first line is the code)
            "θ_t = θ_{t-1} - α · m̂_t / (√v̂_t + ε)\n```\nDefault hyper-parameters: β2 = 0.999.\n- Bias correction.",
            ["Default hyper-parameters: β2 = 0.999.", "Bias correction."],
            ["θ_t"],
        ),
        (  # the same, several lines of code
            "m_t = b1 * m_{t-1}\nv_t = b2 * v_{t-1}\n```\nDefaults from the paper: b2 = 0.999.",
            ["Defaults from the paper: b2 = 0.999."],
            ["m_t", "v_t"],
        ),
        (  # cut inside a code block at its end: prose, then an opening fence and code
            "The update keeps two moving averages.\n```\nm_t = b1 * m_{t-1} + (1 - b1) * g_t",
            ["The update keeps two moving averages."],
            ["m_t"],
        ),
        (  # a whole block between prose
            "Before the code.\n```python\nx = f(y)\n```\nAfter the code.",
            ["Before the code.", "After the code."],
            ["x = f(y)"],
        ),
    ],
)
def test_code_is_no_sentence_wherever_the_chunk_cut_its_block(chunk, kept, dropped):
    out = split_sentences(chunk)
    assert all(k in out for k in kept), out
    assert not any(d in s for s in out for d in dropped), out


@pytest.mark.parametrize(
    ("name", "passage", "names"),
    [
        ("Gemma 2", "Gemma 2 distills from a larger teacher.", True),
        ("Gemma 2", "Stage 2 searches over optimization choices.", False),  # a "2" is no name
        ("Sarathi-Serve", "SarathiServe chunks prefills.", True),  # the name written as one word
        ("Sarathi-Serve", "Sarathi-Serve chunks prefills.", True),
        ("Sarathi-Serve", "The serve path is slow.", False),
        ("KernelBench", "KernelBench has 250 tasks.", True),
        ("KernelBench", "A benchmark of 250 tasks.", False),  # a one-word name is in the passage or not
    ],
)
def test_a_passage_names_a_paper_by_all_of_its_name(name, passage, names):
    q = Question(text=f"{name} optimizer?", terms=[], papers=[PaperMention(records=[0], name=name, words=(0, 1))])
    assert names_a_paper(q, set(lexical_terms(passage))) is names
