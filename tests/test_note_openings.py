"""Unit tests of the conventions behind the families mkdocs_tables, framed_titles, reading_todos,
templates and journal_workshop_venues (tests/fixtures/families/; their catalogs are checked against
the records listed by hand in tests/test_paper_note_families.py)."""

from __future__ import annotations

import json

import pytest
from conftest import TESTS
from test_note_styles import catalog_of

from papernotes.corpus.listing_marks import short_name_tail
from papernotes.corpus.markdown import parse_blocks
from papernotes.corpus.note_opening import frame_stripped, read_opening
from papernotes.corpus.note_syntax import normalize_note_syntax, template_placeholder
from papernotes.corpus.paper_links import paper_id
from papernotes.corpus.papers import _is_paper_item, parse_title, title_key, todo_stripped
from papernotes.corpus.readers import read_path
from papernotes.corpus.venue_names import journal_abbreviated
from papernotes.corpus.venues import find_venues, stated_venues, workshop_venues

FAMILIES = TESTS / "fixtures" / "families"


def test_admonitions_are_sections_with_their_body_dedented():
    md, _ = normalize_note_syntax(
        '# T\n\n!!! abstract "TL;DR"\n    First line.\n\n    Second paragraph.\n\nAfter.\n\n??? note\n    Folded.\n'
    )
    blocks = parse_blocks(md)
    assert [(b.headings, b.text) for b in blocks] == [
        (["T", "TL;DR"], "First line."),
        (["T", "TL;DR"], "Second paragraph."),
        (["T", "TL;DR"], "After."),
        (["T", "Note"], "Folded."),  # each admonition a section of the heading in force
    ]
    assert not any(b.text.startswith("```") for b in blocks)  # indented, it would have been code


def test_a_metadata_table_reads_as_labelled_lines():
    op = read_opening(
        "| Venue | OSDI '22 |\n|---|---|\n| Authors | A. Author, B. Author |\n"
        "| Link | [arXiv](https://arxiv.org/abs/2201.12023) |\n| Year | 2022 |\n"
    )
    assert (op.link, op.venues, op.authors, op.year) == (
        "https://arxiv.org/abs/2201.12023",
        ["OSDI '22"],
        "A. Author, B. Author",
        2022,
    )
    # a table of results or of several papers names no paper
    assert (
        read_opening(
            "| Paper | Venue | Link |\n|---|---|---|\n| A | OSDI 2022 | [x](https://arxiv.org/abs/2201.1) |\n"
        ).link
        is None
    )
    assert read_opening("| Model | Accuracy |\n|---|---|\n| GPT-3 | 71.2 |\n").venues == []


def test_mkdocs_notes_take_the_tldr_admonition_as_summary():
    records, _ = catalog_of(FAMILIES / "mkdocs_tables" / "notes")
    alpa = next(r for r in records if r.title.startswith("Alpa"))
    assert alpa.summary.startswith("Alpa compiles a model into a two-level plan")
    assert alpa.authors[:2] == ["Lianmin Zheng", "Zhuohan Li"]


@pytest.mark.parametrize(
    ("title", "stripped"),
    [
        ("Paper review – FlexGen", ("FlexGen", True)),
        ("Paper review - FlexGen", ("FlexGen", True)),
        ("Paper review — FlexGen", ("FlexGen", True)),
        ("Reading notes: FlashAttention", ("FlashAttention", True)),
        ("Review: Medusa", ("Medusa", True)),
        ("[Paper Review] vLLM", ("vLLM", True)),
        ("FlexGen (paper review)", ("FlexGen", True)),
        ("论文笔记：选择性状态空间模型", ("选择性状态空间模型", True)),
        ("【论文笔记】环形注意力", ("环形注意力", True)),
        ("Review of distributed training systems in 2023", ("distributed training systems in 2023", True)),
    ],
)
def test_frame_stripped_dashes_brackets_and_chinese(title, stripped):
    assert frame_stripped(title) == stripped


def test_framed_posts_take_the_full_title_and_keep_the_name_as_alias():
    expected = json.loads((FAMILIES / "framed_titles" / "expected_records.json").read_text())
    records, _ = catalog_of(FAMILIES / "framed_titles" / "notes")
    aliases = {title_key(r.title): r.aliases for r in records}
    for e in expected:
        assert aliases[title_key(e["title"])] == [e["alias"]], e["title"]


def test_a_byline_is_not_a_title():
    op = read_opening("*Dao et al., NeurIPS '22* — [paper](https://arxiv.org/abs/2205.14135)\n")
    assert op.named == []
    op = read_opening("> **Ring Attention with Blockwise Transformers** Hao Liu, Matei Zaharia\n")
    assert op.named == [("Ring Attention with Blockwise Transformers", None)]
    assert read_opening("> Lots of serving papers this week.\n").named == []
    bold_then_venue = read_opening("**FlashAttention: Fast and Exact Attention** (NeurIPS 2022)\n")
    assert bold_then_venue.named == [("FlashAttention: Fast and Exact Attention", None)]
    for lead_in in ("**Motivation**: the KV cache is big.\n", "**Key idea** — do X quickly.\n", "**Key idea**\n"):
        assert read_opening(lead_in).named == [], lead_in


def _item(md: str):
    return next(b for b in parse_blocks(md) if b.kind == "list").items[0]


@pytest.mark.parametrize(
    ("bullet", "paper"),
    [
        ("- [ ] TODO read: Sarathi-Serve [arXiv](https://arxiv.org/abs/2403.02310)", False),
        ("- [ ] to read: Medusa", False),
        ("- [ ] Sarathi-Serve [arXiv](https://arxiv.org/abs/2403.02310)", False),
        ("- [ ] Read the Llumnix paper [PDF](https://arxiv.org/abs/2406.03243)", False),
        ("- TODO: DistServe [paper](https://arxiv.org/abs/2401.09670)", False),
        # a full title with its venue or link is still a paper not read yet
        ("- [ ] to read: Orca: A Distributed Serving System for Transformers (OSDI 2022)", False),
        ("- [ ] SGLang: Efficient Execution of Structured Programs [Paper](https://arxiv.org/abs/2312.07104)", False),
        ("- TODO read: Dynamo: Amazon's Highly Available Key-value Store (SOSP '07)", False),
        ("- [x] FlashAttention [arXiv](https://arxiv.org/abs/2205.14135)", True),  # read: as before
        ("- [x] Orca: A Distributed Serving System for Transformers (OSDI 2022)", True),
    ],
)
def test_todo_bullets_are_no_papers(bullet, paper):
    assert _is_paper_item(_item(bullet)) is paper


def test_todo_leads_are_not_part_of_the_title():
    assert todo_stripped("[ ] TODO read: Sarathi-Serve") == ("Sarathi-Serve", True)
    assert todo_stripped("[x] Orca (OSDI 2022)") == ("Orca (OSDI 2022)", False)
    assert parse_title("[ ] to read: Orca: A Serving System (OSDI 2022)") == ("Orca: A Serving System", "OSDI 2022")
    assert parse_title("Megatron-LM: Training (arXiv 1909.08053)") == ("Megatron-LM: Training", "arXiv 2019")


@pytest.mark.parametrize(
    ("front_matter", "body", "found"),
    [
        ({"title": "{{title}}"}, "text", "{{title}}"),
        ({"created": '<% tp.date.now("YYYY-MM-DD") %>'}, "text", '<% tp.date.now("YYYY-MM-DD") %>'),
        ({}, "# {{title}}\n\nDate: {{date:YYYY-MM-DD}}", "{{title}}"),
        ({}, "# X\n\n<% tp.file.cursor() %>", "<% tp.file.cursor() %>"),
        ({"title": "Deep Sets"}, "The header shows {{ site.title }}.", None),  # Liquid its site renders
        ({}, "# X\n\n```\n<% tp.file.title %>\n```\n", None),  # quoted as code
        ({}, "# X\n\n{{< figure src=x.png >}}", None),  # a Hugo shortcode
        ({}, "# Note\n\nTitle: {{title}}\nAuthors: {{ authors }}", "{{title}}"),  # two plain placeholders
        ({}, "# Note\n\nSee {{ site.url }} and {{ page.date }}.", None),
        ({"date": "{{ .Date }}"}, "text", "{{ .Date }}"),  # a Hugo archetype's Go-template actions
        (
            {"title": '{{ replace .File.ContentBaseName "-" " " | title }}'},
            "",
            '{{ replace .File.ContentBaseName "-" " " | title }}',
        ),
    ],
)
def test_template_placeholders(front_matter, body, found):
    assert template_placeholder(front_matter, body) == found


def test_templates_are_skipped_with_a_warning():
    r = read_path(FAMILIES / "templates" / "notes")
    assert [p.title for p in r.pages] == ["Deep Sets"]
    skipped = {w.source.rsplit("/", 1)[-1] for w in r.warnings if "template" in w.message}
    assert skipped == {
        "body-only.md",
        "hugo-archetype.md",
        "literature-note.md",
        "obsidian-core.md",
        "paper-template.md",
        "templater.md",
    }


@pytest.mark.parametrize(
    ("text", "byline", "venues"),
    [
        ("Srivastava et al. Journal of Machine Learning Research, 15(56), 2014.", True, ["JMLR 2014"]),
        ("Srivastava et al. JMLR, 15(1):1929–1958, 2014.", True, ["JMLR 2014"]),
        # a digital library's copied reference: glued words, a month before the year
        ("Proceedings of the VLDB EndowmentVolume 8Issue 12August 2015 pp 1792–1803", True, ["VLDB 2015"]),
        ("Proceedings of the VLDB Endowment, September 2013", True, ["VLDB 2013"]),
        ("Corbett et al., ACM TOCS 2013.", True, ["TOCS 2013"]),
        ("ACM Transactions on Computer Systems (TOCS), 31(3), 2013", True, ["TOCS 2013"]),
        ("Published in: COLM 2024", False, ["COLM 2024"]),
        ("Accepted to Interspeech 2023.", False, ["Interspeech 2023"]),
        ("Published in January 2023 on the blog.", False, []),
        ("Hinton, Vinyals and Dean. NIPS 2014 Deep Learning Workshop.", True, []),
        ("Accepted at the ICML 2023 Workshop on Efficient Systems.", False, []),
        ("Presented at the Workshop on Efficient NLP at NeurIPS 2022.", False, []),
        ("Accepted at ICML 2023 and the workshop on X.", False, ["ICML 2023"]),
        # a workshop's name with lower-case words in it
        ("NIPS 2014 Deep Learning and Representation Learning Workshop", True, []),
        ("Presented at the ICLR 2021 Workshop on Science and Engineering of Deep Learning.", False, []),
        # joint conferences read as the series the catalog uses
        ("Proceedings of NAACL-HLT 2019", False, ["NAACL 2019"]),
        ("Published in ACL-IJCNLP 2021.", False, ["ACL 2021"]),
        ("In Proceedings of EMNLP-IJCNLP '19.", False, ["EMNLP 2019"]),
        ("Lewis et al., USENIX ATC '23.", True, ["USENIX ATC 2023"]),
        # another version of the paper is not this note's venue
        ("This is the journal version of the OSDI '12 paper.", True, []),
        ("Journal version in JMLR 2022.", False, ["JMLR 2022"]),
    ],
)
def test_journal_workshop_and_unknown_series_venues(text, byline, venues):
    assert stated_venues(text, byline=byline) == venues


def test_workshops_and_journals_outside_statements():
    assert workshop_venues("NIPS 2014 Deep Learning Workshop") == ["NeurIPS 2014"]
    assert find_venues("NeurIPS 2023 Workshop on Efficient NLP") == []
    assert journal_abbreviated("Journal version in JMLR 2022") == "Journal version in JMLR 2022"
    assert journal_abbreviated("IEEE TPAMI, vol. 40, no. 4, pp. 834-848, 2018") == "TPAMI 2018"


def test_acl_anthology_pages_and_dois_are_one_paper():
    ids = {
        paper_id(u)
        for u in (
            "https://aclanthology.org/N19-1423/",
            "https://aclanthology.org/N19-1423.pdf",
            "https://doi.org/10.18653/v1/N19-1423",
            "https://www.aclweb.org/anthology/N19-1423",
        )
    }
    assert ids == {"acl:n19-1423"}
    assert paper_id("https://doi.org/10.18653/v1/2023.acl-long.1") == paper_id(
        "https://aclanthology.org/2023.acl-long.1/"
    )
    assert paper_id("https://aclanthology.org/N19-1424/") != "acl:n19-1423"


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("Title of a Paper — SC '21", ("Title of a Paper", "SC 2021")),
        ("Another Paper Title – Proc. of OSDI 2022", ("Another Paper Title", "OSDI 2022")),
        ("Yet Another Paper - NeurIPS '19 (the preprint had another name)", ("Yet Another Paper", "NeurIPS 2019")),
        ("A Quantization Paper — MLSys '24 :trophy: Best Paper", ("A Quantization Paper", "MLSys 2024")),
        # a byline or a blog's name after the dash is no venue of the entry
        (
            "Attention Everywhere - Smith et al., NeurIPS 2017",
            ("Attention Everywhere - Smith et al., NeurIPS 2017", None),
        ),
        ("How Batching Works — Some Company blog, 2023", ("How Batching Works — Some Company blog, 2023", None)),
    ],
)
def test_a_venue_after_a_dash_ends_a_bullets_title(text, parsed):
    assert parse_title(text) == parsed


@pytest.mark.parametrize(
    ("title", "split"),
    [
        ("Efficient Serving of Many Models (ManyServe)", ("Efficient Serving of Many Models", "ManyServe")),
        ("A Benchmark for Retrieval Models (BEIR-2)", ("A Benchmark for Retrieval Models", "BEIR-2")),
        ("A Toolkit for Networks (MSR-TR-2014-112)", ("A Toolkit for Networks (MSR-TR-2014-112)", None)),
        ("Scaling Up Everything (Extended)", ("Scaling Up Everything (Extended)", None)),
        ("Short (SN)", ("Short (SN)", None)),  # a name alone is not a title with its short name
    ],
)
def test_a_short_name_in_parentheses_ends_a_listing_title(title, split):
    assert short_name_tail(title) == split


@pytest.mark.parametrize(
    ("line", "authors", "venues", "year"),
    [
        # fields on one line, set apart by bars, middle dots or (Chinese labels) spaces
        (
            "**Authors:** Dzmitry Bahdanau, Kyunghyun Cho, Yoshua Bengio | **Year:** 2014 | [arXiv](https://arxiv.org/abs/1409.0473)",
            "Dzmitry Bahdanau, Kyunghyun Cho, Yoshua Bengio",
            [],
            2014,
        ),
        ("Authors: Ada Lovelace, Alan Turing · Venue: OSDI 2024", "Ada Lovelace, Alan Turing", ["OSDI 2024"], None),
        (
            "论文链接: https://arxiv.org/abs/1710.09829 作者: Sara Sabour, Geoffrey E. Hinton 发表于: NIPS 2017",
            "Sara Sabour, Geoffrey E. Hinton",
            ["NIPS 2017"],
            None,
        ),
        # fields ending in a stop: "Venue: SIGCOMM 2001. Authors: …"
        (
            "Venue: SIGCOMM 2001. Authors: Ion Stoica, Robert Morris",
            "Ion Stoica, Robert Morris",
            ["SIGCOMM 2001"],
            None,
        ),
        ("Authors: Ada Lovelace, Alan Turing. Year: 2019", "Ada Lovelace, Alan Turing", [], 2019),
        # one field: a bar or semicolon inside its value is no break
        ("Authors: Ada Lovelace; Alan Turing", "Ada Lovelace; Alan Turing", [], None),
        ("Authors: Ada Lovelace | Alan Turing", "Ada Lovelace | Alan Turing", [], None),
    ],
)
def test_a_line_of_several_fields_reads_each_field(line, authors, venues, year):
    op = read_opening(f"# Some Paper Title Here\n\n{line}\n\nBody text.\n")
    assert (op.authors, op.venues, op.year) == (authors, venues, year)


@pytest.mark.parametrize(
    ("byline", "authors", "affiliations"),
    [
        # the authors after the link labels, set apart by a middle dot, a bullet or a bar
        (
            "[Paper](https://arxiv.org/abs/2205.14135) · Tri Dao, Daniel Y. Fu, Stefano Ermon (Stanford)",
            ["Tri Dao", "Daniel Y. Fu", "Stefano Ermon"],
            ["Stanford"],
        ),
        (
            "[PDF](https://arxiv.org/abs/1706.03762) | [Code](https://github.com/x/y) | Ashish Vaswani, Noam Shazeer, Niki Parmar",
            ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"],
            [],
        ),
        ("Tri Dao, Daniel Y. Fu, Stefano Ermon", ["Tri Dao", "Daniel Y. Fu", "Stefano Ermon"], []),
    ],
)
def test_a_byline_part_after_its_links_gives_the_authors(tmp_path, byline, authors, affiliations):
    (tmp_path / "note.md").write_text(f"# Some Paper Title Here\n\n{byline}\n\nBody text about it.\n", encoding="utf-8")
    records, _ = catalog_of(tmp_path)
    assert [(r.authors, r.affiliations) for r in records] == [(authors, affiliations)]
