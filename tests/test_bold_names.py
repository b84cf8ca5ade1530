"""Bold text names a paper only where a note gives a name (corpus/papers.defining): opening a line
("**Hotline**: a runtime …"), after a verb of presenting or "named", before an appositive, in brackets
after the words it abbreviates, or as a paragraph's subject. Bold that emphasizes a fact inside a
reading log's bullets ("**FID 3.17**", "pretrained on **JFT-300M**", "**RoIAlign** fixes …") is no
system name; a log's section about no paper gives its chunks to no paper; a byline's last part after
the authors' bracketed affiliation is the paper's short name, shown in the paper's lead line."""

from __future__ import annotations

import pytest
from conftest import notes_of

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.papers import defining
from papernotes.retrieval.extractive import paper_line

LOG = """# papers i've read

### Quietflow Diffusion Samplers (NeurIPS 2031)
- Ina Brask, Tove Lund — Fjordlab
- https://arxiv.org/abs/3101.00001
- sampler in **latent space**, 40 steps
- CIFAR10 unconditional: **FID 3.17**, Inception score **9.46**

### Patchformer: Images as Token Grids (ICLR 2032)
- Ola Dahl, Siri Berg (Northwind) — PGT
- https://arxiv.org/abs/3201.00002
- wins when pretrained big (ImageNet-21k, **JFT-300M**)
- **RoIAlign** fixes the misalignment of the pooling
- clip ratio ε = **0.2**

---

## not papers

### tools
- **Stable-Baselines3** — reliable policy-gradient implementations; the optimizer is Adam
- **Gymnasium** — maintained fork of the old gym
"""


@pytest.fixture(scope="module")
def log_notes(tmp_path_factory, models_cache):
    folder = tmp_path_factory.mktemp("bold-log")
    (folder / "papers.md").write_text(LOG, encoding="utf-8")
    return notes_of(folder, tmp_path_factory.mktemp("bold-log-index"), models_cache)


def test_emphasis_in_a_logs_bullets_names_no_paper(log_notes):
    systems = {r.title: r.system for r in log_notes.catalog}
    assert systems["Quietflow Diffusion Samplers"] is None  # not "FID 3.17", nor "latent space"
    assert systems["Patchformer: Images as Token Grids"] == "Patchformer"  # its title's, not "JFT-300M"


def test_a_byline_after_a_bracketed_affiliation_gives_the_short_name(log_notes):
    rec = next(r for r in log_notes.catalog if r.title.startswith("Patchformer"))
    assert "PGT" in rec.aliases
    quiet = next(r for r in log_notes.catalog if r.title.startswith("Quietflow"))
    assert "Fjordlab" not in quiet.aliases  # an affiliation after a dash is no name


def test_a_section_about_no_paper_is_about_no_paper(log_notes):
    index = log_notes.retriever.papers
    for pos, text in enumerate(log_notes.retriever.bm25.texts):
        if "Gymnasium" in text:
            assert index.chunk_record[pos] is None, text  # not the log's last paper
    # so a question about a tool line is not credited to a paper
    a = log_notes.ask("what optimizer did the patchformer paper use", use_llm=False)
    assert "Stable-Baselines3" not in a.answer


@pytest.mark.parametrize(
    ("bold", "line", "named"),
    [
        ("Hotline", "Hotline: a runtime framework.", True),
        ("Krypton", "Krypton", True),
        ("Quark", "Present Quark, applying serverless-style allocation.", True),
        ("REEF", "This paper presents a GPU inference system named REEF, which preempts kernels.", True),
        ("Falcon", "This paper presents Falcon, a configuration recommender.", True),
        ("CAD", "Present core attention disaggregation (CAD), scheduling attention apart.", True),
        ("Raft", "Summary. Raft — consensus for a replicated log.", False),  # "Summary." is no bold label here
        ("EcoRec:", "EcoRec: a cache for embedding rows.", True),
        ("FID 3.17", "CIFAR10 unconditional: FID 3.17, Inception score 9.46", False),
        ("JFT-300M", "ViT-H/14 (JFT-300M): 88.55% top-1", False),
        ("RoIAlign", "RoIAlign fixes the misalignment of RoIPool", False),
        ("cross-attention", "conditioning via cross-attention in the UNet", False),
        ("Presenter:", "Presenter: Priya", False),
        ("Summary.", "Summary. Raft — consensus for a replicated log.", False),
    ],
)
def test_defining_positions(bold, line, named):
    assert bool(defining([bold], [line])) is named


def test_a_bold_label_may_open_the_line():
    line = "Summary. Raft — consensus for a replicated log."
    assert defining(["Summary.", "Raft"], [line]) == ["Raft"]
    assert defining(["FID 3.17"], ["CIFAR10 unconditional: FID 3.17, Inception score 9.46"]) == []


def test_prose_heading_and_subject():
    # in prose, a bold line alone is a heading; a bold subject opening a paragraph is a name
    assert defining(["Discussion"], ["Discussion"], paragraphs=True) == []
    assert defining(["SYSSPEC"], ["SYSSPEC makes the specification the source of truth."], paragraphs=True)
    assert not defining(["SYSSPEC"], ["The spec: SYSSPEC makes it so."], paragraphs=True)


def test_the_lead_line_shows_the_short_name_the_notes_use():
    rec = PaperRecord(title="Learning Transferable Visual Models From Natural Language Supervision", aliases=["CLIP"])
    assert paper_line(rec).startswith(rec.title + " (CLIP")
    titled = PaperRecord(title="NeRF: Representing Scenes", aliases=["NeRF"])
    assert "(NeRF" not in paper_line(titled)  # the title holds it already


def test_the_lead_line_prefers_a_name_in_the_titles_script_to_a_translation():
    # a note in Chinese gives the title's translation and the short name it calls the paper by
    rec = PaperRecord(
        title="In Search of an Understandable Wombat Algorithm", aliases=["寻找一种易于理解的袋熊算法", "Woft"]
    )
    assert paper_line(rec).startswith(rec.title + " (Woft")
    alone = PaperRecord(title="In Search of an Understandable Wombat Algorithm", aliases=["寻找一种易于理解的袋熊算法"])
    assert paper_line(alone).startswith(alone.title + " (寻找一种易于理解的袋熊算法")  # no short name: the translation
    chinese = PaperRecord(title="寻找一种易于理解的袋熊算法", aliases=["袋熊论文", "Woft"])
    assert paper_line(chinese).startswith(chinese.title + " (Woft")  # the name people type, whatever the title's script
