"""A nested list item is read under the short item just above it — its label ("**Inference Server**",
"Baselines") — so the line that answers "what does the inference server run on" is found although it
never says "inference server" itself (retrieval/evidence.item_labels)."""

from __future__ import annotations

from conftest import notes_of

from papernotes.retrieval.evidence import item_labels

BODY = """An overview
- **Inference Server**
  - Deployed on a dedicated on-demand CPU instance
  - Three components
    - Request Manager
      - Receiving input requests
- This top-level statement of what the whole system does runs on for more than eight words
  - a detail of that statement
Closing paragraph at the margin.
- Loose item
"""


def test_each_nested_item_has_the_short_item_above_it_as_its_label():
    labels = item_labels(BODY)
    assert labels["Deployed on a dedicated on-demand CPU in"] == "Inference Server"
    assert labels["Three components"] == "Inference Server"
    assert labels["Request Manager"] == "Three components"  # the nearest label only
    assert labels["Receiving input requests"] == "Request Manager"
    assert "a detail of that statement" not in labels  # under a long statement: no label
    assert "Loose item" not in labels  # a paragraph at the margin ended the list above


def test_the_line_under_a_label_matches_a_question_in_the_labels_words(tmp_path, models_cache):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "skiff.md").write_text(
        "# Skiff: Serving Models on Spot Instances\n\nSkiff serves large models on preemptible GPUs.\n\n"
        "## Design\n\n- **Inference Server**\n  - Deployed on a dedicated on-demand CPU instance\n"
        "  - Three components\n- **Instance Manager**\n  - Keeps a pool of spot GPU instances warm\n\n"
        "## Evaluation\n\n- 2.1x lower tail latency than rerouting baselines\n",
        encoding="utf-8",
    )
    notes = notes_of(tmp_path / "notes", tmp_path / "data", models_cache)
    for q in ("skiff's inference server runs on what kind of instance", "where does the skiff inference server run?"):
        sentences = notes.analyze(q).sentences
        child = next(x for x in sentences if "on-demand CPU instance" in x.text)
        sibling = next(x for x in sentences if "spot GPU instances warm" in x.text)
        assert child.asked > sibling.asked, [(x.text, x.asked) for x in sentences]
        assert child.text.startswith("Inference Server — ")  # quoted with the label it matched through
