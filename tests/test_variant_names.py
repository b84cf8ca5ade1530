"""How a question's words name papers and what it asks: a model variant written as one word
("ViT-H/14", "BERT-Large") names the paper whose notes write it, while a version that is a paper of its
own ("Llama-2") names that paper and one no note writes names none; a misspelt word of a paper's title
still names it, and so does "cant" for "can't"; "hardware-wise" asks about hardware; an acronym the
named paper's notes spell out ("cfg") is their phrase; of the question's focus, an adjective the notes
never write ("bad gpus") is not held against the answer, a noun ("license") is."""

from __future__ import annotations

import pytest
from conftest import assert_answered, named_titles, notes_from_texts

from papernotes.corpus.normalize import normalize
from papernotes.retrieval.entities import without_links
from papernotes.retrieval.question import match_keys
from papernotes.retrieval.spelling import spelled_out
from papernotes.retrieval.terms import names_a_thing

KANGAROO_TITLE = "Kangaroo: Image Recognition with Pouch Transformers"
KANGAROO = """# Kangaroo: Image Recognition with Pouch Transformers

- Venue: ICLR 2031
- Link: https://arxiv.org/abs/3110.11929

Kangaroo splits an image into pouches and feeds them to a plain transformer.
Kangaroo-H/14 reaches 88.5% top-1 accuracy on ImageNet after pretraining on JFT.
Kangaroo-Base has 86M parameters and 12 layers.
Sampling uses a very high classifier-free guidance weight (100), with a mixture of experts head.
"""

KANGAROO2 = """# Kangaroo-2: Pouch Transformers at Scale

- Venue: CVPR 2033
- Link: https://arxiv.org/abs/3306.01234

Kangaroo-2 trains pouch transformers with 22B parameters on 4B images.
"""

DINGO = """# Dingo Everything Quickly

- Venue: ICCV 2032
- Link: https://arxiv.org/abs/3204.02643

A promptable model that herds any set of sheep from a point, a box or a text prompt.
The Dingo dataset has 1.1B herding masks on 11M fields.
"""

DINGO_PACKS = """# Dingo Pack Hunting at Scale

- Venue: NSDI 2033
- Link: https://arxiv.org/abs/3305.05555

Packs of dingoes split a field into sectors and herd each one in parallel.
The pack planner is 2K LoC of Python.
"""

DEADLINES = """# Can't Be Slow: Herding Sheep under Deadlines

- Venue: NSDI 2034
- Link: https://arxiv.org/abs/3401.00001

Herds on cheap preemptible dogs and switches to reserved dogs only when the deadline is near.
"""

KOALA3 = """# Koala3 Technical Report

- Venue: arXiv 2035
- Link: https://arxiv.org/abs/3501.00003

Koala3 pretrains on 36T tokens and distills its small models on-policy.
"""

EMU3 = """# Emu 3: Herding in Three Passes

- Venue: NSDI 2035
- Link: https://arxiv.org/abs/3502.00003

Three herding passes over the field, each pass tuned to the flock's size.
"""

WOMBAT = """# Wombat: A Burrow Store for Key-Value Data

- Venue: OSDI 2030
- Link: https://arxiv.org/abs/3007.04321

Hardware: Wombat keeps its log on persistent memory (Optane DIMMs) and its index in DRAM.
Wombat clocks rely on GPS receivers and atomic clocks in every datacenter.
In a year of production Wombat found 23 defective DIMMs across 9 datacenters.
Wombat is implemented in 9,100 lines of Rust code.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(
        tmp_path_factory.mktemp("variant-names"),
        {
            "kangaroo.md": KANGAROO,
            "kangaroo2.md": KANGAROO2,
            "dingo.md": DINGO,
            "packs.md": DINGO_PACKS,
            "deadlines.md": DEADLINES,
            "wombat.md": WOMBAT,
            "koala3.md": KOALA3,
            "emu3.md": EMU3,
        },
        models_cache,
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("is kangaroo 1 published anywhere?", [KANGAROO_TITLE]),  # the first version goes by the bare name
        ("kangaroo-1 venue", [KANGAROO_TITLE]),
        ("kangaroo v1 vs kangaroo-2", [KANGAROO_TITLE, "Kangaroo-2: Pouch Transformers at Scale"]),
        ("kangaroo-11 params", []),  # no first version: a version no note writes
    ],
)
def test_the_first_version_typed_with_its_number_names_the_bare_name(notes, question, expected):
    assert named_titles(notes, question) == expected


@pytest.mark.parametrize(
    "question",
    [
        "kangaroo-h/14 imagenet acc",
        "how many layers does kangaroo-base have",
        "Kangaroo-Base param count?",
    ],
)
def test_a_variant_the_papers_notes_write_names_that_paper(notes, question):
    assert named_titles(notes, question) == [KANGAROO_TITLE]


def test_the_variant_is_still_asked_about(notes):
    """The variant's own part ("h/14") is what the question asks about, not part of the paper's name:
    the answer must be about that variant."""
    q = notes.analyze("how many params does kangaroo-h/14 have").question
    assert any(k.word == "kangaroo-h/14" for k in q.asked)
    a = notes.ask("kangaroo-h/14 imagenet acc", use_llm=False)
    assert not a.refused and "88.5%" in a.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("kangaroo-2 training data size", ["Kangaroo-2: Pouch Transformers at Scale"]),  # a paper of its own
        ("kangaroo-l/16 imagenet acc", []),  # a variant no note writes
        ("kangaroo-9 params", []),  # a version no note writes
    ],
)
def test_a_version_or_an_unwritten_variant_is_not_read_as_the_paper(notes, question, expected):
    assert named_titles(notes, question) == expected


@pytest.mark.parametrize(
    "question",
    ["dingo everthing quickly venue", "dingo everything quikly - what venue", "dnigo everything quickly venue"],
)
def test_a_misspelt_title_word_still_names_the_paper(notes, question):
    """Another title shares "Dingo": only the whole title, read through the misspelling, names it."""
    assert named_titles(notes, question) == ["Dingo Everything Quickly"]
    a = notes.ask(question, use_llm=False)
    assert not a.refused and "ICCV 2032" in a.answer


@pytest.mark.parametrize(("word", "meant"), [("hardware-wise", "hardwar"), ("cost-wise", "cost")])
def test_a_wise_suffix_asks_about_its_word(word, meant):
    (key,) = [k for k in match_keys(f"what does wombat use {word}", None) if k.word == word]
    assert key.alternatives == ((meant,),)


@pytest.mark.parametrize("question", ["what does wombat need hardware-wise", "wombat hardware-wise?"])
def test_a_wise_question_is_answered_from_the_word(notes, question):
    assert_answered(notes, question, "Optane")


def test_initials_are_read_as_the_phrase_they_spell():
    text = "A high classifier-free guidance weight; a mixture of experts head."
    assert spelled_out("cfg", [text]) == [("classifi", "free", "guidanc")]
    assert spelled_out("moe", [text]) == [("mixtur", "expert")]
    assert spelled_out("xyz", [text]) == []


def test_initials_may_pass_over_one_word_inside_the_phrase():
    text = "HiveD is implemented in 7,700+ lines of Go codes."
    assert ("line", "code") in spelled_out("loc", [text])
    assert spelled_out("lcg", [text]) == []  # the letters spell the words in order


@pytest.mark.parametrize(
    "question", ["wombat how many LOC", "how big is the wombat implementation, like loc?", "wombat loc"]
)
def test_an_acronym_other_notes_write_is_the_phrase_the_papers_notes_spell_out(notes, question):
    """ "LoC" is a word of the notes (Dingo Pack's); Wombat's notes write "lines of Rust code"."""
    assert_answered(notes, question, "9,100")


@pytest.mark.parametrize(
    ("question", "expected"), [("what cfg weight does kangaroo use", "100"), ("kangaroo cfg guidance weight?", "100")]
)
def test_an_acronym_the_papers_notes_spell_out_is_their_phrase(notes, question, expected):
    """ "cfg" is no word of the notes; the named paper's notes write "classifier-free guidance"."""
    assert_answered(notes, question, expected)
    assert notes.analyze(question).features["oov"] == 0.0


@pytest.mark.parametrize(
    ("word", "names"),
    [
        ("bad", False),
        ("different", False),
        ("typical", False),
        ("license", True),
        ("batch", True),
        ("cfg", True),
        ("vllm", True),
    ],
)
def test_a_word_names_a_thing_unless_it_has_no_noun_reading(word, names):
    assert names_a_thing(word) is names


@pytest.mark.parametrize("question", ["how many bad dimms did wombat find", "wombat - how many bad dimms in prod?"])
def test_a_focus_adjective_the_notes_never_write_is_not_held_against_the_answer(notes, question):
    """ "bad" says what kind; the notes say "defective"."""
    an = notes.analyze(question)
    assert [k.word for k in an.question.focus][:1] == ["bad"]
    assert an.features["focus_cov"] == 1.0
    assert_answered(notes, question, "23")


@pytest.mark.parametrize("question", ["what license is wombat released under", "which license does wombat use"])
def test_a_focus_noun_the_papers_notes_never_write_counts_against_the_answer(notes, question):
    an = notes.analyze(question)
    assert [k.word for k in an.question.focus] == ["license"]
    assert an.features["focus_cov"] == 0.0


@pytest.mark.parametrize(
    ("typed", "written"),
    [("cant be slow", "Can't Be Slow"), ("why doesnt it scale", "why doesn't it scale"), ("dont", "don't")],
)
def test_a_negative_contraction_typed_without_its_apostrophe_is_the_contraction(typed, written):
    assert normalize(typed) == normalize(written)


@pytest.mark.parametrize("text", ["the client wants 10 percent", "an event point"])
def test_other_words_ending_in_nt_are_left_alone(text):
    assert normalize(text) == text


def test_a_title_with_a_contraction_is_named_without_the_apostrophe(notes):
    assert named_titles(notes, "cant be slow paper - which conf") == ["Can't Be Slow: Herding Sheep under Deadlines"]


@pytest.mark.parametrize(
    "question",
    [
        "what does https://arxiv.org/abs/3110.11929 split an image into",
        "arxiv.org/pdf/3110.11929v2 - what does it split an image into?",
        "what does https://www.arxiv.org/abs/3110.11929v1 split images into",
    ],
)
def test_a_papers_link_in_a_question_names_the_paper(notes, question):
    """Any version or page of the paper's arXiv link is the paper's name."""
    assert named_titles(notes, question) == [KANGAROO_TITLE]
    assert_answered(notes, question, "pouches")


@pytest.mark.parametrize(
    "question",
    [
        "i saw https://news.example.com/item?id=123 - what does wombat keep its log on?",
        "what does wombat keep its log on (via https://example.org/blog/wombat-review)",
    ],
)
def test_another_address_in_a_question_is_no_words(notes, question):
    assert named_titles(notes, question) == ["Wombat: A Burrow Store for Key-Value Data"]
    assert_answered(notes, question, "Optane")


def test_without_links():
    assert without_links("see https://a.example.com/x?y=1 and www.usenix.org/conference/x.") == "see   and  ."


@pytest.mark.parametrize(
    "question", ["kangaroo vs kangaroo-2, how many params does v2 have", "kangaroo-2 vs kangaroo: v2 param count?"]
)
def test_a_version_typed_alone_refers_to_the_named_paper_of_that_version(notes, question):
    """ "v2" is Kangaroo-2 by its number: part of its name, not what is asked, nor a word the notes lack."""
    an = notes.analyze(question)
    assert "v2" not in [k.word for k in an.question.asked]
    assert an.features["oov"] == 0.0
    assert_answered(notes, question, "22B")


def test_a_version_no_named_paper_has_is_still_asked(notes):
    an = notes.analyze("kangaroo vs kangaroo-2, what changed in v3")
    assert "v3" in [k.word for k in an.question.asked]


@pytest.mark.parametrize("question", ["koala3 paper?", "koala3 tech report - how many pretraining tokens"])
def test_a_title_opening_with_a_versioned_name_is_named_by_it(notes, question):
    """ "Koala3 Technical Report": its first word names it, though other titles hold a "3"."""
    assert named_titles(notes, question) == ["Koala3 Technical Report"]
