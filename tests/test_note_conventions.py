"""Conventions of notes tools and of the ways people write paper notes, read by one mechanism each
(tests/fixtures/families/{bibtex_entries, author_year_titles, written_addresses, venue_folders,
org_notes, site_front_matter, digests, chinese_notes} hold whole notes; these are the units)."""

from __future__ import annotations

import pytest

from papernotes.corpus.author_year import author_year_citation
from papernotes.corpus.bibtex_notes import note_bibtex
from papernotes.corpus.front_matter import split_front_matter
from papernotes.corpus.markdown import markdown_parser, render_inline
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.note_opening import frame_stripped, is_collection_title
from papernotes.corpus.note_titles import venue_decoration
from papernotes.corpus.org_notes import org_to_markdown
from papernotes.corpus.paper_links import is_paper_link, unwrap_redirect, written_urls
from papernotes.corpus.readers import read_path


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Attention Is All You Need (Vaswani et al., 2017)", ("Attention Is All You Need", None, 2017)),
        ("Generative Adversarial Nets - Goodfellow et al. 2014", ("Generative Adversarial Nets", None, 2014)),
        ("Dropout: A Simple Way (Srivastava et al., JMLR 2014)", ("Dropout: A Simple Way", "JMLR 2014", 2014)),
        (
            "The Lottery Ticket Hypothesis, Frankle & Carbin (ICLR 2019)",
            ("The Lottery Ticket Hypothesis", "ICLR 2019", 2019),
        ),
        ("Deep Residual Learning [He et al. 2016]", ("Deep Residual Learning", None, 2016)),
        ("Scaling Laws (Kaplan, McCandlish and Henighan, 2020)", ("Scaling Laws", None, 2020)),
        # no citation: a venue in brackets, a year alone, no bracket at all
        ("Orca (OSDI 2022)", ("Orca (OSDI 2022)", None, None)),
        ("Mixtral of Experts (2024)", ("Mixtral of Experts (2024)", None, None)),
        ("Llama 2: Open Foundation Models", ("Llama 2: Open Foundation Models", None, None)),
    ],
)
def test_author_year_citation_after_a_title(title, expected):
    assert author_year_citation(title) == expected


BERT_BIB = """# BERT

```bibtex
@inproceedings{devlin2019bert,
  title={{BERT}: Pre-training of Deep Bidirectional Transformers},
  author={Devlin, Jacob and Chang, Ming-Wei},
  booktitle={Proceedings of NAACL-HLT},
  year={2019}
}
```
"""


def test_a_notes_bibtex_entry():
    bib = note_bibtex(BERT_BIB)
    assert bib is not None
    assert bib.title == "BERT: Pre-training of Deep Bidirectional Transformers"
    assert bib.authors == ["Jacob Devlin", "Ming-Wei Chang"]
    assert (bib.venue, bib.year, bib.link) == ("NAACL 2019", 2019, None)
    arxiv = note_bibtex("@article{k, title={Adam}, journal={arXiv preprint arXiv:1412.6980}, year={2014}}")
    assert arxiv is not None and (arxiv.venue, arxiv.link) == ("arXiv 2014", "https://arxiv.org/abs/1412.6980")


def test_several_or_broken_bibtex_entries_are_none():
    two = "```bib\n@misc{a, title={One}, year={2020}}\n@misc{b, title={Two}, year={2021}}\n```\n"
    assert note_bibtex(two) is None
    assert note_bibtex("```bibtex\n@inproceedings{broken, title={No end\n```\n") is None
    assert note_bibtex("Email me @home{ later.") is None


@pytest.mark.parametrize(
    ("url", "dest"),
    [
        ("https://link.zhihu.com/?target=https%3A//arxiv.org/abs/1706.03762", "https://arxiv.org/abs/1706.03762"),
        ("https://www.google.com/url?q=https://arxiv.org/abs/1706.03762&sa=D", "https://arxiv.org/abs/1706.03762"),
        (
            "https://l.facebook.com/l.php?u=https%3A%2F%2Fopenreview.net%2Fforum%3Fid%3Dabc",
            "https://openreview.net/forum?id=abc",
        ),
        ("https://example.com/search?q=attention", "https://example.com/search?q=attention"),
        ("https://arxiv.org/abs/1706.03762", "https://arxiv.org/abs/1706.03762"),
    ],
)
def test_redirecting_links_are_their_destination(url, dest):
    assert unwrap_redirect(url) == dest


def test_written_addresses_with_or_without_scheme():
    assert written_urls("论文地址：arxiv.org/abs/2305.14314。") == ["https://arxiv.org/abs/2305.14314"]
    assert written_urls("see www.usenix.org/conference/osdi22/presentation/yu, then") == [
        "https://www.usenix.org/conference/osdi22/presentation/yu"
    ]
    assert written_urls("mail me at bob@arxiv.org/abs or read example.com/x") == []


@pytest.mark.parametrize(
    ("url", "paper"),
    [
        ("https://www.microsoft.com/en-us/research/publication/heuristics-for-vector-bin-packing/", True),
        ("https://research.google/pubs/pub62/", True),
        ("https://ai.meta.com/research/publications/llama-2-open-foundation-and-fine-tuned-chat-models/", True),
        ("https://research.google/pubs/", False),
        ("https://www.sigcomm.org/publications/computer-communication-review", False),  # a journal's page
        ("https://github.com/someone/publications/attention-is-all-you-need", False),
    ],
)
def test_a_labs_publication_page_is_a_paper(url, paper):
    assert is_paper_link(url) is paper


def test_a_badge_link_reads_as_its_alt_text():
    md = "[![arXiv](https://img.shields.io/badge/arXiv-2106.09685-red.svg)](https://arxiv.org/abs/2106.09685)\n"
    inline = render_inline(next(t for t in markdown_parser().parse(md) if t.type == "inline"))
    assert inline.links == [("arXiv", "https://arxiv.org/abs/2106.09685")]
    figure = render_inline(next(t for t in markdown_parser().parse("![a figure](fig.png)\n") if t.type == "inline"))
    assert figure.text == "" and figure.links == []


def test_nested_front_matter_keys_read_at_the_top():
    zola = '+++\ntitle = "X"\n[extra]\npaper = "https://arxiv.org/abs/1707.06347"\ntitle = "ignored"\n+++\nBody\n'
    meta, _, problem = split_front_matter(zola)
    assert problem is None and meta["paper"] == "https://arxiv.org/abs/1707.06347" and meta["title"] == "X"
    assert meta["extra"]["title"] == "ignored"  # the nested map itself stays


ORG = """:PROPERTIES:
:ID: 1234
:ROAM_REFS: https://arxiv.org/abs/1706.03762
:ROAM_ALIASES: Transformer
:END:
#+title: Attention Is All You Need
#+filetags: :paper:nlp:

* TODO Summary :draft:
The /Transformer/ uses *self-attention*; see [[id:abc][Positional encoding]] and [[https://jalammar.github.io][a blog]].
# a comment line
#+begin_src python
# not a heading
x = 1
#+end_src
** Paper
:PROPERTIES:
:AUTHOR: Ashish Vaswani and Noam Shazeer
:YEAR: 2017
:END:
"""


def test_org_notes_read_as_markdown_with_front_matter():
    meta, body, problem = split_front_matter(org_to_markdown(ORG))
    assert problem is None
    assert meta["title"] == "Attention Is All You Need" and meta["url"] == "https://arxiv.org/abs/1706.03762"
    assert meta["tags"] == ["paper", "nlp"] and meta["aliases"] == ["Transformer"]
    assert "## Summary\n" in body and "TODO" not in body and ":draft:" not in body
    assert "*Transformer*" in body and "**self-attention**" in body
    assert "Positional encoding and [a blog](https://jalammar.github.io)" in body
    assert "a comment line" not in body and "```python\n# not a heading\nx = 1\n```" in body
    assert "### Paper" in body and "- Authors: Ashish Vaswani and Noam Shazeer" in body and "- Year: 2017" in body


@pytest.mark.parametrize(
    ("title", "collection"),
    [
        ("My Reading Notes", True),
        ("Paper Notes 2023", True),
        ("Weekly paper log", True),
        ("Notes", False),
        ("Orca notes", False),
        ("Reading: Orca", False),
        ("2023-05-01", True),
        ("2023年5月", True),
        ("Week 12", True),
        ("2023", False),
    ],
)
def test_a_title_that_only_names_a_collection(title, collection):
    assert is_collection_title(title) is collection
    if collection:
        assert frame_stripped(title) == (title, False)  # not framing around a paper's name


def test_titles_in_title_marks_or_quotes_name_the_paper():
    from papernotes.corpus.note_opening import read_opening

    op = read_opening("# LoRA 详解\n\n今天读的是论文《LoRA: Low-Rank Adaptation of Large Language Models》。\n")
    assert op.named == [("LoRA: Low-Rank Adaptation of Large Language Models", None)]
    op = read_opening("# Chinchilla\n\nIn “Training Compute-Optimal Large Language Models”, they scale.\n")
    assert op.named == [("Training Compute-Optimal Large Language Models", None)]
    assert read_opening("# X\n\nWe call it “the model” and 《指南》 here.\n").named == []


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("1. FlashAttention: Fast Attention", "FlashAttention: Fast Attention"),
        ("论文一：Scaling Laws for Neural Language Models", "Scaling Laws for Neural Language Models"),
        ("二、Chinchilla", "Chinchilla"),
        ("(3) Orca", "Orca"),
        ("3D Gaussian Splatting", "3D Gaussian Splatting"),
        ("2.5D Visual Sound", "2.5D Visual Sound"),
    ],
)
def test_a_section_number_is_no_part_of_a_title(title, expected):
    assert venue_decoration(title)[0] == expected


@pytest.mark.parametrize(
    ("title", "stripped"),
    [("Chain of Thought 论文笔记", "Chain of Thought"), ("一文读懂 Mixtral", "Mixtral"), ("QLoRA 原理详解", "QLoRA")],
)
def test_chinese_framing_of_a_post_title(title, stripped):
    assert frame_stripped(title) == (stripped, True)


def test_a_code_link_is_not_the_papers_url():
    code_only = PaperRecord(title="Triton", links={"code": "https://github.com/triton-lang/triton"})
    assert code_only.url is None and code_only.links["code"]
    both = PaperRecord(title="X", links={"code": "https://github.com/x/x", "paper": "https://arxiv.org/abs/1"})
    assert both.url == "https://arxiv.org/abs/1"


BIB = """@inproceedings{kingma2015adam,
  title = {Adam: A Method for Stochastic Optimization},
  author = {Kingma, Diederik P. and Ba, Jimmy},
  booktitle = {International Conference on Learning Representations (ICLR)},
  year = {2015},
  url = {https://arxiv.org/abs/1412.6980}
}
"""


@pytest.mark.parametrize(
    ("name", "note"),
    [
        ("adam.md", "---\ntitle: Adam\ncitekey: kingma2015adam\n---\n\nMomentum plus RMSProp, bias-corrected.\n"),
        (
            "adam.md",
            "---\ntitle: Adam\ncitation-key: '@kingma2015adam'\n---\n\nMomentum plus RMSProp, bias-corrected.\n",
        ),
        (
            "adam.org",
            ":PROPERTIES:\n:ROAM_REFS: cite:&kingma2015adam\n:END:\n#+title: Adam\n\nMomentum plus RMSProp.\n",
        ),
        ("adam.org", "#+title: Adam\n#+ROAM_REFS: [cite:@kingma2015adam]\n\nMomentum plus RMSProp, bias-corrected.\n"),
    ],
)
def test_a_citation_key_takes_the_papers_fields_from_a_bib_file_beside_the_notes(tmp_path, name, note):
    """Zotero/Obsidian ``citekey``, org-roam ``ROAM_REFS`` (``cite:key``, ``cite:&key``, ``[cite:@key]``): the
    entry of that key in a .bib file under the notes gives the record's link, venue and authors; a
    .bib file that cannot be read is reported by name and the notes are still read."""
    from test_note_styles import catalog_of

    from papernotes.corpus.readers import read_path

    (tmp_path / name).write_text(note, encoding="utf-8")
    (tmp_path / "library.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "broken.bib").write_text("this is {{ no bibtex at all\n", encoding="utf-8")
    records, _ = catalog_of(tmp_path)
    (adam,) = records
    assert adam.url == "https://arxiv.org/abs/1412.6980" and adam.venue == "ICLR 2015"
    assert adam.authors == ["Diederik P. Kingma", "Jimmy Ba"]
    assert adam.title == "Adam: A Method for Stochastic Optimization"  # the entry's full title, as a pasted one's
    warnings = [str(w) for w in read_path(tmp_path).warnings]
    assert any("broken.bib" in w for w in warnings), warnings


def test_a_bibliography_that_cannot_be_used_in_full_is_reported(tmp_path):
    """Entries that cannot be parsed, a key given twice, a folder named like a .bib, and a note citing a
    key no .bib holds: each one line naming the file; the rest is still read."""
    (tmp_path / "a.md").write_text("---\ntitle: Adam\ncitekey: kingma2015adam\n---\n\nMomentum plus RMSProp.\n")
    (tmp_path / "b.md").write_text("---\ntitle: Gone\ncitekey: nobody2020\n---\n\nA note on a lost paper.\n")
    (tmp_path / "lib.bib").write_text(BIB + "@article{half,\n title = {Unbalanced {brace,\n year = 2020\n}\n\n" + BIB)
    (tmp_path / "old.bib").mkdir()
    result = read_path(tmp_path)
    said = "\n".join(str(w) for w in result.warnings)
    assert "cannot be parsed" in said and "kingma2015adam" in said and "old.bib" in said and "nobody2020" in said
    assert next(p for p in result.pages if p.title == "Adam").cited.venue == "ICLR 2015"
