"""Note layouts that name their paper without a link: fields laid out as headings ("### Paper:"), a file
named for the paper's year and title, a title in Latin script after its translation, a system name in
brackets after the title, a title over its authors' names (fixtures: tests/fixtures/families/
field_headings, dated_file_names, title_over_authors); and the parse shared by a note's readers."""

from __future__ import annotations

import pytest
from conftest import TESTS
from test_note_styles import catalog_of

from papernotes.corpus.markdown import parse_tokens
from papernotes.corpus.normalize import normalize
from papernotes.corpus.note_evidence import dated_file_title
from papernotes.corpus.note_opening import heading_label, read_opening
from papernotes.corpus.note_titles import _named_after, _translated_title

FAMILIES = TESTS / "fixtures" / "families"


@pytest.mark.parametrize(
    ("source", "title", "year"),
    [
        (
            "notes/2021 IBRNet Learning Multi-View Image-Based Rendering.md",
            "IBRNet: Learning Multi-View Image-Based Rendering",
            2021,
        ),
        (
            "alignflow-cycle-consistent-learning-via-normalizing-flows-2020-210409.md",
            "AlignFlow: Cycle Consistent Learning via Normalizing Flows",
            2020,
        ),
        ("1996 The Lumigraph.md", "光场 The Lumigraph", 1996),
        ("_posts/2018-03-18-my-trip-to-paris.md", "My Trip to Paris", None),  # a post's date, no year
        ("2023 Reading List.md", "Reading List", None),  # a collection
        ("Smoothed Particle Hydrodynamics.md", "Smoothed Particle Hydrodynamics", None),  # no year
        ("2021 Attention.md", "Attention", None),  # one word
        ("2019 Some Other Paper.md", "A Different Title Entirely", None),
    ],
)
def test_dated_file_title(source, title, year):
    assert dated_file_title(source, title) == year


@pytest.mark.parametrize(
    ("heading", "label"),
    [("Paper:", "Paper"), ("**Author:**", "**Author"), ("Year：", "Year"), ("Full title", "Full title")]
    + [("Paper", None), ("Notes:", None), ("Summary", None), ("Attention Is All You Need", None)],
)
def test_heading_label(heading, label):
    assert heading_label(heading) == label


def test_field_headings_read_as_labelled_lines():
    op = read_opening(
        "### Paper:\n\nLongformer: The Long-Document Transformer\n\n### Author:\n\nIz Beltagy, Arman Cohan\n\n### Year:\n\n2020\n"
    )
    assert (op.title, op.authors, op.year) == (
        "Longformer: The Long-Document Transformer",
        "Iz Beltagy, Arman Cohan",
        2020,
    )


def test_a_year_line_naming_a_venue_gives_the_venue():
    op = read_opening("# X\n\nAuthors: A. B, C. D\n\nYear: AAAI 2020\n")
    assert (op.venues, op.year) == (["AAAI 2020"], 2020)


@pytest.mark.parametrize(
    ("heading", "split"),
    [
        ("光场 The Lumigraph", ("The Lumigraph", "光场")),
        (
            "最先进的神经渲染 State of the Art on Neural Rendering",
            ("State of the Art on Neural Rendering", "最先进的神经渲染"),
        ),
        ("读 OSDI 2022 论文 Orca", None),
        ("KIVI：非对称 2bit 量化", None),
        ("表示 Representation", None),  # one word: a section's bilingual name
        # the title first, its translation after it
        (
            "Deep Residual Learning for Image Recognition（用于图像识别的深度残差学习）",
            ("Deep Residual Learning for Image Recognition", "用于图像识别的深度残差学习"),
        ),
        ("Attention Is All You Need (注意力就是你所需要的)", ("Attention Is All You Need", "注意力就是你所需要的")),
        (
            "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models（ZeRO：面向万亿参数模型训练的显存优化）",
            (
                "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
                "ZeRO：面向万亿参数模型训练的显存优化",
            ),
        ),
        ("Dynamic Routing Between Capsules - 阅读笔记", None),  # after a dash: words about the note
        ("Masked Autoencoders Are Scalable Vision Learners | 掩码自编码器", None),  # or a subtitle
        ("Orca (论文笔记)", None),  # one word
        ("Attention Is All You Need (NeurIPS 2017)", None),  # no translation
    ],
)
def test_translated_title(heading, split):
    assert _translated_title(heading) == split


@pytest.mark.parametrize(
    ("title", "split"),
    [
        (
            "Reconstructing Continuous Distributions of 3D Protein Structure (CryoDRGN)",
            ("Reconstructing Continuous Distributions of 3D Protein Structure", "CryoDRGN"),
        ),
        ("Language Models are Few-Shot Learners (GPT-3)", ("Language Models are Few-Shot Learners", "GPT-3")),
        ("Orca: A Distributed Serving System (OSDI)", None),  # a venue
        ("A Study of Things (abridged)", None),  # no system's name
        ("Big Model (v2)", None),  # too short a title
    ],
)
def test_named_after(title, split):
    assert _named_after(title) == split


def test_dated_file_names_give_the_year():
    records, _ = catalog_of(FAMILIES / "dated_file_names" / "notes")
    years = {r.title: r.year for r in records}
    assert years["Perceiver: General Perception with Iterative Attention"] == 2021
    assert years["Graph Attention Networks"] == 2018
    assert years["Light Field Rendering"] == 1996


def test_a_text_is_parsed_once_and_its_tokens_shared():
    text = "# Title\n\nSome *text* under it.\n"
    first, second = parse_tokens(text), parse_tokens(text)
    assert first is not second and all(a is b for a, b in zip(first, second, strict=True))


@pytest.mark.parametrize(
    "text",
    [
        "置换语言模型：对分解顺序取期望",
        "한국어 문장과 English—dash",
        "Café’s KV‑cache",
        "かな\u3099と漢字",
        "全角\u3000スペース\u200b",
    ],
)
def test_punctuation_of_cjk_text_is_unified_as_when_every_character_was_visited(text):
    import unicodedata

    from papernotes.corpus.normalize import _char_class, unify_punctuation

    t = unicodedata.normalize("NFKC", text)
    assert unify_punctuation(text) == "".join(_char_class(c) if ord(c) > 127 else c for c in t)
    assert normalize(text) == normalize(unify_punctuation(text))


def test_a_heading_link_whose_text_is_one_letter_names_no_paper(tmp_path):
    (tmp_path / "slip.md").write_text("## [g](http://arxiv.org/abs/1604.00289)\n\nTLDR; The authors explore ...\n")
    (tmp_path / "act.md").write_text(
        "## [Adaptive Computation Time for Recurrent Neural Networks](http://arxiv.org/abs/1603.08983)\n\nTLDR; ...\n"
    )
    records, _ = catalog_of(tmp_path)
    assert [r.title for r in records] == ["Adaptive Computation Time for Recurrent Neural Networks"]


@pytest.mark.parametrize(
    ("source", "title"),
    [
        ("papers/Efficient-Memory-Management-for-LLM-Serving/README.md", "Efficient Memory Management for LLM Serving"),
        ("Attention_Is_All_You_Need.md", "Attention Is All You Need"),
        ("2024-01-02-My-Post-Title.md", "My Post Title"),  # a Jekyll date before it
        ("notes/human-level-control-through-drl.md", "human-level-control-through-drl"),  # lower case: a slug
        ("Llama-3-8B.md", "Llama-3-8B"),  # a name with a version, not words
        ("osdi-2024.md", "osdi-2024"),
    ],
)
def test_a_file_name_gives_the_title_last(source, title):
    from papernotes.corpus.readers import file_title

    assert file_title(source) == title
