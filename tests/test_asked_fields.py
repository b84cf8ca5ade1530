"""Questions that ask for a field of a named paper however they frame it, a lab wiki's per-paper
sections below its table of papers, and question words typed carelessly.

- A field of the record asked beside words that only frame it ("which venue did X *end up* at", "what
  conf did X *land* at"), the code link ("X github?", "link to X code"), the full title: the lookup
  answer, never a refusal; a word the paper's own notes use beside the field ("venue + *award*?") is
  answered from those notes.
- "## FlashAttention" below a table row of FlashAttention is that paper's notes: its chunks are the
  paper's and its opening byline gives the authors the table lacks.
- "wat is X", "hw does X work": the opening interrogative the word misspells.
"""

from __future__ import annotations

import pytest
from conftest import notes_of
from test_note_styles import catalog_of

from papernotes.corpus.chunking import analyze_page
from papernotes.corpus.papers import title_key
from papernotes.corpus.readers import read_path
from papernotes.retrieval.question import opening_interrogative, understand

QUILL = """# Quillserve: Iteration-Level Scheduling for Marsupial Model Serving

- **Paper:** [arXiv](https://arxiv.org/abs/3107.01234)
- **Code:** [github](https://github.com/quill-lab/quillserve)
- **Venue:** OSDI 2031
- **Authors:** Ana Lind, Bo Ek

Quillserve schedules requests again after every decoding iteration, so a finished request leaves at once.
It won the Best Paper Award at OSDI 2031. The end-to-end latency drops by 3.1x against batch-level scheduling.
"""

PLAIN = """# Wombatcache: Tiered KV Storage for Long Contexts

Link: https://arxiv.org/abs/3108.04567

Wombatcache keeps cold KV blocks on SSD and prefetches them one layer ahead.
"""


ROO = """# Kangaroute: Hop-Aware Routing for Marsupial Clusters

- **Paper:** [USENIX](https://www.usenix.org/conference/nsdi31/presentation/roo)
- **arXiv:** [3101.00001](https://arxiv.org/abs/3101.00001)
- **Venue:** NSDI 2031

Kangaroute routes each request along the fewest hops between racks.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    root = tmp_path_factory.mktemp("fields")
    folder = root / "notes"
    folder.mkdir()
    (folder / "quillserve.md").write_text(QUILL, encoding="utf-8")
    (folder / "wombatcache.md").write_text(PLAIN, encoding="utf-8")
    (folder / "kangaroute.md").write_text(ROO, encoding="utf-8")
    return notes_of(folder, root / "data", models_cache)


@pytest.mark.parametrize(
    "question",
    [
        "which venue did the quillserve paper end up at",
        "what conf did quillserve land at",
        "quillserve - which conf?",
        "where did quillserve end up getting published",
    ],
)
def test_a_venue_asked_in_any_framing_is_the_lookup(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and a.kind == "lookup" and "OSDI 2031" in a.answer, a.answer


@pytest.mark.parametrize(
    "question", ["quillserve github?", "link to quillserve code pls", "where's the repo for quillserve"]
)
def test_the_code_link_is_a_field_of_the_lookup(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and "https://github.com/quill-lab/quillserve" in a.answer, a.answer


def test_labelled_lines_keep_each_link_and_the_asked_one_is_given(notes):
    """A note's "Paper:", "arXiv:" and "Code:" lines each keep their link in the record; a question
    naming the arXiv link gets it beside the paper link."""
    roo = next(r for r in notes.catalog if r.system == "Kangaroute")
    assert roo.links == {
        "paper": "https://www.usenix.org/conference/nsdi31/presentation/roo",
        "arxiv": "https://arxiv.org/abs/3101.00001",
    }
    quill = next(r for r in notes.catalog if r.system == "Quillserve")
    assert quill.code == "https://github.com/quill-lab/quillserve"
    for question in ("kangaroute arxiv?", "arxiv link for kangaroute"):
        a = notes.ask(question, use_llm=False)
        assert "https://arxiv.org/abs/3101.00001" in a.answer, a.answer
    assert "arxiv.org" not in notes.ask("kangaroute paper?", use_llm=False).answer  # not asked: the paper link


def test_a_paper_without_a_code_link_is_not_given_one(notes):
    a = notes.ask("wombatcache github?", use_llm=False)
    assert "github.com" not in a.answer, a.answer


@pytest.mark.parametrize(
    "question",
    [
        "quillserve authors from which uni",
        "which lab built quillserve",
        "quillserve's authors - which orgs?",
        "which organization built quillserve",
    ],
)
def test_the_kinds_of_affiliation_ask_for_the_people(notes, question):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and a.kind == "lookup" and "Ana Lind" in a.answer, a.answer


def test_the_full_title_is_a_field(notes):
    a = notes.ask("quillserve paper? what's the full title", use_llm=False)
    assert "Iteration-Level Scheduling for Marsupial Model Serving" in a.answer, a.answer


@pytest.mark.parametrize(
    "question",
    [
        "what gpus did the quillserve authors run their evaluation on",
        "which dataset did the quillserve authors use",
    ],
)
def test_a_field_word_beside_another_focus_asks_that_focus(notes, question):
    """ "authors" qualifies what is asked; the question's focus (the GPUs, a dataset) is no field of the
    record, and the notes do not give it."""
    a = notes.ask(question, use_llm=False)
    assert a.kind != "lookup" and a.refused, a.answer


def test_a_contracted_what_with_another_focus_is_no_lookup_of_the_field(notes):
    """ "what's the *license* of X's code": the license is asked, not the code link."""
    assert notes.ask("what's the license of quillserve's code", use_llm=False).kind != "lookup"


def test_a_word_the_notes_use_beside_the_field_is_answered_from_them(notes):
    a = notes.ask("quillserve paper? venue + award?", use_llm=False)
    assert "OSDI 2031" in a.answer and "Best Paper Award" in a.answer, a.answer


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("wat is dpo", "what is dpo"),
        ("hw does orca batch requests", "how does orca batch requests"),
        ("wen was orca published", "when was orca published"),
        ("hoe does orca batch", "how does orca batch"),
        ("wy is it fast", "why is it fast"),
    ],
)
def test_a_misspelt_opening_interrogative_is_read_as_meant(typed, meant):
    assert opening_interrogative(typed, lambda term: False) == meant


@pytest.mark.parametrize(
    "typed",
    [
        "wht is dpo",  # one edit from "what" and from "who": left as typed
        "orca paper?",  # a name
        "wan 2.1 paper?",  # a name two edits from any interrogative
        "the wat paper",  # not the opening word
        "Wat is dpo",  # capitalized: a name
    ],
)
def test_other_opening_words_stay_as_typed(typed):
    assert opening_interrogative(typed, lambda term: False) == typed


def test_a_word_the_notes_use_is_never_corrected():
    assert opening_interrogative("wat temples in thailand", lambda term: term == "wat") == "wat temples in thailand"


def test_a_lookup_with_a_misspelt_interrogative_is_answered(notes):
    a = notes.ask("wat is wombatcache", use_llm=False)
    assert not a.refused and "prefetches" in a.answer, a.answer


@pytest.mark.parametrize(
    "question",
    [
        "rollpacker what batch size / lr did they train with",
        "what batch size and learning rate did they use",
        "what batch size or lr did rollpacker use",
    ],
)
def test_the_focus_ends_at_a_slash_or_conjunction(question):
    q = understand(question)
    assert [k.word for k in q.focus] == ["batch"], q.focus  # "size", a measure noun, asks for a number


@pytest.mark.parametrize(
    ("question", "focus"),
    [
        ("what's the license of quillserve", ["license"]),
        ("what's a good batch size for lora", ["good", "batch"]),
    ],
)
def test_what_is_contracted_keeps_its_focus(question, focus):
    """ "what's the X" is "what the X" once the clitic is dropped: the article does not hide the focus."""
    assert [k.word for k in understand(question).focus] == focus


WIKI = """Attention kernels we read.

| Paper | Venue | Who |
|---|---|---|
| [Fastkernel: Fast and Exact Attention with IO-Awareness](https://arxiv.org/abs/3205.14135) | NeurIPS 2032 | Northfield |
| [Ring Quill with Blockwise Marsupials for Long Context](https://arxiv.org/abs/3310.01889) | ICLR 2034 | Eastbay |
| [GQL: Grouped Query Layers from Multi-Head Checkpoints](https://arxiv.org/abs/3305.13245) | EMNLP 2033 | Harbor |

## Fastkernel

Ana Lind, Bo Ek, Cai Moe (Northfield University, Eastbay Labs).

Fastkernel tiles Q, K and V into SRAM blocks and recomputes attention in the backward pass.

## Ring Quill

Blocks of the sequence pass around a ring of devices while attention is computed.

## Deep dive: GQL

Grouped query layers share one key/value head per group of query heads.

## Related reading

- [Some Other Paper on Kernels](https://arxiv.org/abs/3301.00001)
"""


def test_a_section_named_for_a_listed_paper_is_that_papers_notes(tmp_path):
    (tmp_path / "Attention.md").write_text(WIKI, encoding="utf-8")
    records, _ = catalog_of(tmp_path)
    by = {title_key(r.title): r for r in records}
    fast = by[title_key("Fastkernel: Fast and Exact Attention with IO-Awareness")]
    assert fast.authors == ["Ana Lind", "Bo Ek", "Cai Moe"]
    assert fast.affiliations == ["Northfield University", "Eastbay Labs"]
    chunks = analyze_page(read_path(tmp_path).pages[0]).chunks
    owner = {c.metadata.get("section", ""): c.metadata.get("paper_title") for c in chunks if "tiles" in c.text}
    assert list(owner.values()) == [fast.title]
    ring = next(c for c in chunks if "pass around a ring" in c.text)  # the title's opening words
    assert ring.metadata.get("paper_title") == "Ring Quill with Blockwise Marsupials for Long Context"
    gql = next(c for c in chunks if "share one key/value head" in c.text)  # a label before the name
    assert gql.metadata.get("paper_title") == "GQL: Grouped Query Layers from Multi-Head Checkpoints"


LISTING = """Kernels.

| Paper | Venue |
|---|---|
| [Fastkernel: Fast and Exact Attention with IO-Awareness](https://arxiv.org/abs/3205.14135) | NeurIPS 2032 |

## Fastkernel

- [Fastkernel-2: Better Parallelism](https://arxiv.org/abs/3307.08691) — the follow-up
- [Fastkernel-3: Asynchrony](https://arxiv.org/abs/3407.08608) — Hopper
"""


def test_a_section_of_paper_links_named_for_a_listed_paper_stays_a_listing(tmp_path):
    (tmp_path / "Kernels.md").write_text(LISTING, encoding="utf-8")
    chunks = analyze_page(read_path(tmp_path).pages[0]).chunks
    follow = [c for c in chunks if "Hopper" in c.text or "the follow-up" in c.text]
    assert follow and not any(
        c.metadata.get("paper_title") == "Fastkernel: Fast and Exact Attention with IO-Awareness" for c in follow
    )


@pytest.mark.parametrize("question", ["quillserve speedup?", "what's the speedup of quillserve", "quillserve speed-up"])
def test_a_speedup_is_the_factor_the_notes_state(notes, question):
    """The notes write a speedup as a factor ("drops by 3.1x"), not as the word: the sentence stating it
    answers, never the paper's description alone."""
    a = notes.ask(question, use_llm=False)
    assert not a.refused and "3.1x" in a.answer, a.answer


def test_a_speedup_of_a_paper_whose_notes_state_no_amount_is_refused(notes):
    assert notes.ask("wombatcache speedup?", use_llm=False).refused


def test_a_venue_asked_of_a_paper_whose_notes_name_none_is_refused(notes):
    """The catalog reads a venue from every place the notes mention the paper: none there, none to quote
    (the paper's description is no answer)."""
    assert notes.ask("what venue was the wombatcache paper in", use_llm=False).refused
    a = notes.ask("what venue was the quillserve paper in", use_llm=False)
    assert not a.refused and "OSDI 2031" in a.answer, a.answer


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("What is the acceptance rate of the Moon Landing conference?", ["Moon Landing"]),
        ("papers from the Deep Ocean Workshop on kv caches", ["Deep Ocean Workshop"]),
        ("which Reinforcement Learning papers do i have", []),  # words the notes use, in any casing
        ("what did the Moon team publish", []),  # one capitalized word: no name by itself
    ],
)
def test_capitalized_common_words_the_notes_never_use_name_something_they_lack(question, unknown):
    notes_words = {"reinforc", "learn", "paper", "kv", "cach", "accept", "rate", "confer", "publish", "team"}
    q = understand(question, in_notes=lambda t: t in notes_words, writes=lambda w: False)
    assert q.unknown_names == unknown


@pytest.mark.parametrize(
    ("question", "unknown"),
    [
        ("EAGLE speculative decoding how does it work", ["EAGLE"]),  # the first word too, in capitals
        ("how does SPIN fine-tune the model", ["SPIN"]),
        ("what is the MARS optimizer", ["MARS"]),
        ("WHAT is the kv cache", []),  # an interrogative in capitals for emphasis
        ("HOW DOES EAGLE WORK", []),  # a question in capitals: no word stands out as a name
        ("what does the KV cache hold", []),  # the notes write "KV" so
        ("what is the BEST kv cache paper", []),  # a word the notes use, in capitals for emphasis
        ("how is GA2M used for packing", []),  # letters and digits: a name, looked up as one
    ],
)
def test_a_common_word_in_capitals_is_a_name_the_notes_may_lack(question, unknown):
    written = {"KV"}
    lacked = {"eagl", "spin", "mar"}  # the notes never use these words, in any casing
    q = understand(question, in_notes=lambda t: t not in lacked, writes=lambda w: w in written)
    assert q.unknown_names == unknown


def test_a_question_naming_something_the_notes_lack_asks_no_clarification(notes):
    """ "EAGLE … how does it work": "it" is EAGLE, named (in capitals) and absent from the notes, so the
    answer is the refusal, not a request to name the paper."""
    a = notes.ask("EAGLE speculative decoding how does it work", use_llm=False)
    assert a.refused and not a.clarify, a.answer


@pytest.mark.parametrize(
    "question", ["quillserve speedup? lol", "what is quillserve lol", "idk what quillserve does, fyi"]
)
def test_chat_fillers_ask_nothing(notes, question):
    q = notes.retriever.understand(question)
    assert not {"lol", "idk", "fyi"} & {k.word for k in q.asked}, [k.word for k in q.asked]
    assert not notes.ask(question, use_llm=False).refused


@pytest.mark.parametrize(
    ("with_venue", "without"),
    [
        ("quillserve (osdi31) - who made it?", "quillserve - who made it?"),
        ("quillserve [OSDI '31] who built it", "quillserve who built it"),
        ("kangaroute (nsdi'31) - from which school?", "kangaroute - from which school?"),
    ],
)
def test_a_venue_in_brackets_leaves_the_framing_as_without_it(notes, with_venue, without):
    """The framing a lookup is judged by (its cosine to the lookup parts) is the question without its
    names and venue, and without the brackets the venue stood in."""
    from papernotes.retrieval.answerability import framing

    def framed(question: str) -> str:
        return " ".join(framing(notes.retriever.understand(question)).split())

    assert framed(with_venue) == framed(without)
    assert notes.ask(with_venue, use_llm=False).kind == notes.ask(without, use_llm=False).kind
