"""A list of papers not read yet — under a heading or on a page titled as one ("Backlog", "Reading
queue", "Someday", "Maybe later", "To read"), or after a short lead-in line that says so ("to read next
month:") — names its papers and states nothing about them, as does a line ending in such a mark ("See
also: X — TODO.", "Y (haven't read)"): it answers no question about them, with or
without to-do marks on its lines (:func:`~papernotes.retrieval.evidence.stated`,
:func:`~papernotes.retrieval.evidence.unread_list`). A note's own "## Later" section (later work on the
paper) is no such list."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

from papernotes.corpus.papers import is_to_read_title
from papernotes.retrieval.evidence import stated
from papernotes.retrieval.prompts import REFUSAL

GROUP = """# systems reading group

Weekly paper reading for the lab.

## Schedule

| Week | Theme | Papers |
|---|---|---|
| 1 | Serving | Quillserve |

## Backlog / suggestions (not scheduled yet)
- a compiler paper (Tarnvm? Ximlo?) — Priya volunteered
- Kestrelnet vs Borgle follow-up? maybe skip
"""

QUEUE = """# Reading list 2025

## Someday
- Pangolith / Omegaly / Kubelix trilogy
- Chordrel DHT

## Maybe later
- Pathwell (MLSys 2022)
- Zephyra? (probably too old for the group now)
"""

QUILLSERVE = """# Quillserve: Serving Language Models with Paged Batching

Quillserve pages the KV cache in fixed blocks, so waste is limited to the last block of each sequence.
It reaches 2.2x the throughput of the best baseline at the same latency.

See also: Dovetailr, Grebeserve — TODO.
Follow-up reading: Marmotix (haven't read)
Related: [Stoatmoe](https://arxiv.org/abs/3202.08906) (not read yet)

## Later

- Later work, Mirrorserve, disagrees: it keeps contiguous caches and reports the paging overhead as 20%.

to read next month:
- Vortexa (NSDI 2025)
- Brambleflow (OSDI 2024)
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"README.md": GROUP, "reading-list.md": QUEUE, "quillserve.md": QUILLSERVE}
    return notes_from_texts(tmp_path_factory.mktemp("unread-lists"), files, models_cache)


@pytest.mark.parametrize(
    ("title", "unread"),
    [
        ("Backlog / suggestions (not scheduled yet)", True),
        ("Someday", True),
        ("Someday/Maybe", True),
        ("Maybe later", True),
        ("Things to read someday", True),
        ("Read later", True),
        ("Reading queue", True),
        ("Unread", True),
        ("TBR", True),
        ("To be read (2025)", True),
        # later work, and a paper's title about reading
        ("Later", False),
        ("Later work", False),
        ("How to Read a Paper", False),
        ("Related work", False),
    ],
)
def test_titles_of_lists_not_read_yet(title, unread):
    assert is_to_read_title(title) is unread


def test_a_lead_in_line_makes_its_list_unread():
    body = "Some prose about it.\nto read next month:\n- Vortexa (NSDI 2025)\n- Brambleflow\n\nMore prose."
    assert stated(body) == "Some prose about it.\nto read next month:\n\nMore prose."
    # a to-do line, listed or not, states nothing either
    assert stated("Prose.\nTODO: read the thesis chapter on log compaction.\n- [ ] skim the appendix") == "Prose."
    # so does a line that ends by saying what it names is not read yet
    marked = (
        "Prose.\nSee also: Dovetailr — TODO.\nMarmotix (haven't read)\nRelated: [S](https://x.org) (not read yet)\n"
        "saw a talk on Wombat of Experts, added to Reading Queue\n- Quokkaformer — moved to my backlog.\n"
        "Follow-up reading: Marmotmix (haven't read, not noting it yet).\n"
        "random: someone asked if anyone has read the Wombamba paper — nobody has\n"
        "asked whether anyone read Hyenwomb; no one in the group has read it yet."
    )
    assert stated(marked) == "Prose."
    # words about reading inside a statement are no such mark
    kept = (
        "Paged attention — unread pages are skipped.\nOrca (OSDI 2022) — re-read in May\nIt reads the todo list.\n"
        "New requests are added to the queue of the least-loaded worker.\nStragglers are moved to the backlog.\n"
        "Todo-style checklists help me track experiments.\nResults (to read the table, see below)\n"
        "Orca batches per iteration; nobody has done that before."
    )
    assert stated(kept) == kept
    # a list after an ordinary line stays
    plain = "Baselines:\n- Vortexa (NSDI 2025)\n- Brambleflow"
    assert stated(plain) == plain


@pytest.mark.parametrize(
    "question",
    [
        "pathwell paper tldr",
        "tell me about the pangolith paper",
        "what did we conclude about the tarnvm compiler paper",
        "whats the chordrel paper about",
        "zephyra summary?",
        "what did vortexa find?",
        "brambleflow key idea",
        # a line ending in a mark that what it names is not read yet
        "what is dovetailr?",
        "grebeserve — what does it do",
        "what does marmotix do",
        "stoatmoe tldr?",
    ],
)
def test_a_paper_only_listed_as_not_read_yet_is_refused(notes, question):
    a = notes.ask(question, use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a note's own "## Later" section is later work, not a list of papers to read
        ("what does mirrorserve report about paging overhead", "20%"),
        ("quillserve throughput vs the best baseline?", "2.2x"),
        # the note beside the lead-in list still answers
        ("how does quillserve limit kv cache waste", "last block"),
    ],
)
def test_read_notes_beside_such_lists_still_answer(notes, question, expected):
    a = notes.ask(question, use_llm=False)
    assert not a.refused and expected in a.answer, a.answer
