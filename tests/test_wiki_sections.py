"""A lab wiki's topic pages (eval/collections/lab-wiki is one, written by someone who saw no code): a
section headed by a paper's short name ("### vLLM / PagedAttention (SOSP '23)") whose labelled lines
give the full title, authors and affiliations; a table whose first column is the method's name and a
later one the venue; a "Deep dive: QLoRA" section beside the table row of that paper. Each is one
record with the full title, the stated venue and affiliations."""

from __future__ import annotations

from test_note_styles import catalog_of

from papernotes.corpus.papers import title_key

SERVING = """This page collects what we've read on serving.

### Quillserve / PagedQuill (SOSP '31)

- **Paper:** [Efficient Memory Paging for Model Serving with PagedQuill](https://arxiv.org/abs/3109.06180)
- **Authors:** Ana Lind, Bo Ek
- **Affiliation:** Northfield University, Eastbay Labs
- **Reader:** minji (2031-10-02)

The KV cache is split into fixed-size blocks.

### Draftwise decoding (ICML '31)

- **Paper:** [Fast Inference from Big Models via Draftwise Decoding](https://arxiv.org/abs/3111.17192)
- **Affiliation:** Harbor Research

A small draft model proposes tokens that the large one verifies.
"""

QUANT = """Quantization papers we read.

| Method | Paper | Venue | Bits | Take |
|---|---|---|---|---|
| GLQ | [GLQ: Grouped Low-bit Quantization for Transformers](https://arxiv.org/abs/3210.17323) | ICLR 2032 | W4 | layer-wise |
| NQLoRA | [NQLoRA: Efficient Finetuning of Quantized Models](https://arxiv.org/abs/3205.14314) | NeurIPS 2032 | 4-bit | paged optimizers |

## Deep dive: NQLoRA

**NF5** (5-bit NormalFloat) is the data type; double quantization saves 0.4 bits per parameter.
"""


def _catalog(tmp_path):
    (tmp_path / "LLM-Serving.md").write_text(SERVING, encoding="utf-8")
    (tmp_path / "Quantization.md").write_text(QUANT, encoding="utf-8")
    records, _ = catalog_of(tmp_path)
    return {title_key(r.title): r for r in records}, records


def test_a_short_heading_takes_the_full_title_its_paper_line_gives(tmp_path):
    recs, _ = _catalog(tmp_path)
    quill = recs[title_key("Efficient Memory Paging for Model Serving with PagedQuill")]
    assert quill.venue == "SOSP 2031"
    assert quill.affiliations == ["Northfield University", "Eastbay Labs"]  # the "Affiliation:" line
    draft = recs[title_key("Fast Inference from Big Models via Draftwise Decoding")]
    assert draft.affiliations == ["Harbor Research"]
    assert title_key("Quillserve / PagedQuill") not in recs


def test_a_table_venue_column_wins_over_a_method_name(tmp_path):
    recs, _ = _catalog(tmp_path)
    assert recs[title_key("GLQ: Grouped Low-bit Quantization for Transformers")].venue == "ICLR 2032"  # not "GLQ 2032"


def test_a_deep_dive_on_a_named_paper_joins_its_row(tmp_path):
    recs, records = _catalog(tmp_path)
    assert len(records) == 4  # Quill, Draftwise, GLQ, NQLoRA: no "Deep dive" record
    nq = recs[title_key("NQLoRA: Efficient Finetuning of Quantized Models")]
    assert nq.system == "NQLoRA" and nq.venue == "NeurIPS 2032"
    assert not any("deep dive" in r.title.lower() for r in records)


ORCA = """Serving papers we read.

### Quillserve (OSDI '31)

- **Paper:** [Quillserve: A Distributed Serving System for Marsupial Models](https://www.usenix.org/conference/osdi31/presentation/quill)
- **Authors:** Ana Lind, Bo Ek, Cai Moe, Dag Ny, Eva Pol, Finn Ras, Gro Sol, Hal Tor
- **Reader:** minji (2031-05-11)

Key idea is iteration-level scheduling: the scheduler picks requests again after every decoding iteration,
so a finished request leaves at once and a new one can join.
"""


def test_a_lookup_describes_the_paper_with_its_prose_not_its_field_lines(tmp_path, models_cache):
    """ "quillserve paper?" is answered with what the note says the paper does, not with its field lines
    ("Paper: …", "Reader: minji"); all eight authors are named, the lead line naming the first six."""
    from conftest import notes_of

    folder = tmp_path / "wiki"
    folder.mkdir()
    (folder / "Serving.md").write_text(ORCA, encoding="utf-8")
    notes = notes_of(folder, tmp_path / "data", models_cache)
    a = notes.ask("quillserve paper?", use_llm=False)
    assert not a.refused and "iteration-level scheduling" in a.answer, a.answer
    assert "Reader:" not in a.answer and "Paper:" not in a.answer, a.answer
    assert "Hal Tor" in a.answer  # the eighth author, beyond the lead line's "et al."
