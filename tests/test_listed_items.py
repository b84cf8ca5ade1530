"""A list the notes give under a label ("- Baselines" over "- NVIDIA MPS", "- [REEF](…)"; "- Datasets"
over "- C4"): asked for, it is quoted whole, each item with its label, in the notes' order; a short item
(a name, a link's text) is an item, not a label to skip; the bare label line, which says nothing its
items do not, is not quoted; a short sub-label with items of its own ("Setup" over "8 GPUs") stays a
label."""

from __future__ import annotations

import pytest
from conftest import notes_from_texts

WOMBAT = """# Wombatshare: Burrow-Aware GPU Sharing for Marsupial Training Jobs

- **Paper:** [arXiv](https://arxiv.org/abs/3107.04444)
- **Venue:** EuroSys 2031

## Evaluation

- Baselines
  - Temporal sharing — time-slice the GPU by running one job's request at a time
  - NVIDIA MPS
  - CUDA Streams
  - [REEF](https://example.org/reef)
- Datasets
  - C4
  - Pile
  - [RedPajama](https://example.org/redpajama)
- Testbed
  - Setup
    - 8 GPUs per server, 4 servers
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_from_texts(tmp_path_factory.mktemp("listed-items"), {"wombatshare.md": WOMBAT}, models_cache)


@pytest.mark.parametrize(
    ("question", "items"),
    [
        (
            "wombatshare - what baselines did they compare against",
            ["Temporal sharing", "NVIDIA MPS", "CUDA Streams", "REEF"],
        ),
        ("which baselines does wombatshare use?", ["Temporal sharing", "NVIDIA MPS", "CUDA Streams", "REEF"]),
        ("wombatshare datasets?", ["C4", "Pile", "RedPajama"]),
        ("wombatshare baselines list?", ["Temporal sharing", "NVIDIA MPS", "CUDA Streams", "REEF"]),  # not papers
    ],
)
def test_a_list_under_a_label_is_quoted_whole_in_the_notes_order(notes, question, items):
    a = notes.ask(question, use_llm=False)
    assert not a.refused, a.answer
    positions = [a.answer.find(item) for item in items]
    assert all(p >= 0 for p in positions), a.answer
    assert positions == sorted(positions), a.answer


def test_the_bare_label_line_is_not_quoted(notes):
    a = notes.ask("wombatshare - what baselines did they compare against", use_llm=False)
    assert not any(line.split(" [")[0].strip() == "Baselines" for line in a.answer.splitlines()), a.answer


def test_a_short_sub_label_with_items_of_its_own_is_no_item(notes):
    a = notes.ask("wombatshare testbed setup?", use_llm=False)
    assert "8 GPUs per server" in a.answer, a.answer
    assert not any(line.split(" [")[0].strip().endswith("Setup") for line in a.answer.splitlines()), a.answer
