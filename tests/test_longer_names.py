"""A name typed as the end of a longer name the notes write is that longer name: "switch transformer"
where the notes write "Switch Transformer" is not the paper aliased "Transformer", "code wombat" where
they write "Code Wombat" not the Wombat paper (:meth:`~papernotes.retrieval.entities.PaperIndex.within_longer_names`).
A word before the name that the notes never write capitalized with it ("the original transformer
paper") leaves the name as it is."""

from __future__ import annotations

import pytest
from conftest import named_titles, notes_from_texts

from papernotes.retrieval.prompts import REFUSAL

ATTENTION = """---
title: "Attention Is All You Need"
aliases: [Transformer]
authors: [Ada Quill, Ben Sprocket]
url: https://arxiv.org/abs/3706.03762
---

The Transformer drops recurrence and uses only attention: 6 encoder and 6 decoder layers, 8 heads.
Trained on 8 GPUs for 12 hours (base model).
"""

WOMBAT = """---
title: "Wombat: Open Foundation Language Models"
authors: [Cleo Marsh]
url: https://arxiv.org/abs/3302.13971
---

Wombat models from 7B to 65B parameters, trained on public data only; 2,048 GPUs for 21 days.
"""

THOUGHTS = """# Thoughts on sparse models

- routing each token to one expert is the direct ancestor of Switch Transformer and its successors
- Code Wombat (a code model) came later; I have not read it
- the original transformer needed warmup; later models kept it
- Transformer 和 Wombat 都用了 warmup
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    files = {"attention.md": ATTENTION, "wombat.md": WOMBAT, "thoughts.md": THOUGHTS}
    return notes_from_texts(tmp_path_factory.mktemp("longer-names"), files, models_cache)


@pytest.mark.parametrize(
    ("question", "titles"),
    [
        # the end of a longer name the notes write capitalized: another paper
        ("who wrote the switch transformer paper", []),
        ("switch transformer - how many experts per token?", []),
        ("Switch Transformers paper summary", []),
        ("code wombat training gpus?", []),
        # the name alone, or after a word the notes never write capitalized before it
        ("who wrote the transformer paper", ["Attention Is All You Need"]),
        ("the original transformer paper - how many heads", ["Attention Is All You Need"]),
        ("wombat training gpus?", ["Wombat: Open Foundation Language Models"]),
        ("how many gpus did wombat train on", ["Wombat: Open Foundation Language Models"]),
        # a word of a script without capitals before the name starts no longer name (the notes write "和 Wombat")
        ("transformer 和 wombat 的训练对比", ["Attention Is All You Need", "Wombat: Open Foundation Language Models"]),
    ],
)
def test_a_name_ending_a_longer_name_the_notes_write_is_not_it(notes, question, titles):
    assert named_titles(notes, question) == titles


@pytest.mark.parametrize(
    "question",
    ["who wrote the switch transformer paper", "switch transformers paper summary", "switch transformer heads?"],
)
def test_the_longer_name_is_not_answered_from_the_shorter_names_paper(notes, question):
    a = notes.ask(question, use_llm=False)
    cited = {c.paper_title for c in a.citations}
    assert "Attention Is All You Need" not in cited and "Ada Quill" not in a.answer, a.answer


def test_a_longer_name_without_notes_of_its_own_is_refused(notes):
    a = notes.ask("who wrote the switch transformer paper", use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer
