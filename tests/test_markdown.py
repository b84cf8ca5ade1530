"""Tests for corpus.markdown: Markdown → blocks with heading paths (markdown-it-py token stream)."""

from __future__ import annotations

from papernotes.corpus.markdown import heading_sections, html_text, parse_blocks, unclosed_fence_line


def _texts(blocks):
    return [b.text for b in blocks if b.kind == "text"]


def test_heading_paths_follow_nesting_and_pop_on_siblings():
    md = (
        "# Page\n\nunder page\n\n## Alpha\n\nunder alpha\n\n### Alpha One\n\nunder alpha one\n\n"
        "#### Deep\n\nunder deep\n\n## Beta\n\nunder beta\n\n# Second Top\n\nunder second\n"
    )
    paths = {b.text: b.headings for b in parse_blocks(md)}
    assert paths == {
        "under page": ["Page"],
        "under alpha": ["Page", "Alpha"],
        "under alpha one": ["Page", "Alpha", "Alpha One"],
        "under deep": ["Page", "Alpha", "Alpha One", "Deep"],
        "under beta": ["Page", "Beta"],  # ### Alpha One and #### Deep are closed by ## Beta
        "under second": ["Second Top"],
    }


def test_skipped_levels_and_inline_markup_in_headings():
    md = "# T\n\n### Skipped **Bold** `code` [link](http://x.org)\n\nbody\n\n## Back\n\nb2\n"
    blocks = parse_blocks(md)
    assert blocks[0].headings == ["T", "Skipped Bold code link"]
    assert blocks[1].headings == ["T", "Back"]


def test_hash_lines_inside_backtick_and_tilde_fences_are_not_headings():
    md = (
        "# Real\n\n```python\n# comment one\n## comment two\n```\n\n"
        "~~~\n# tilde comment\n~~~\n\n"
        "````\n```\n# inside a longer fence\n```\n````\n\n"
        "after the fences\n"
    )
    blocks = parse_blocks(md)
    assert [h for _, h in heading_sections(md, 1)] == ["Real"]
    assert heading_sections(md, 2) == []
    # every block stays under the one real heading, and the fenced lines are kept as code text
    assert all(b.headings == ["Real"] for b in blocks)
    joined = "\n".join(_texts(blocks))
    for line in ("# comment one", "## comment two", "# tilde comment", "# inside a longer fence"):
        assert line in joined
    assert blocks[0].text.startswith("```python")
    assert _texts(blocks)[-1] == "after the fences"


def test_table_header_and_rows_with_link_labels():
    md = (
        "# T\n\n## Calendar\n\n| Conference | When | Where |\n| :-- | :-: | --: |\n"
        "| [OSDI 2026](https://osdi.example.org) | Jul 13 | Seattle |\n"
        "| SOSP 2025 | Oct 13 | Seoul |\n| **MLSys** 2026 | | Bellevue |\n"
    )
    (t,) = [b for b in parse_blocks(md) if b.kind == "table"]
    assert t.headings == ["T", "Calendar"]
    assert t.header == ["Conference", "When", "Where"]
    assert t.rows == [
        ["OSDI 2026", "Jul 13", "Seattle"],
        ["SOSP 2025", "Oct 13", "Seoul"],
        ["MLSys 2026", "", "Bellevue"],
    ]
    assert ("OSDI 2026", "https://osdi.example.org") in t.links


def test_nested_lists_keep_their_tree():
    md = (
        "# T\n\n* Topic A\n  * Paper One [Paper](https://p/1)\n    * Affil\n    * Detail with **Bold**\n"
        "  * Paper Two\n* Topic B\n\n1. first\n2. second\n   - sub\n"
    )
    lists = [b for b in parse_blocks(md) if b.kind == "list"]
    assert len(lists) == 2
    a, b = lists[0].items
    assert (a.text, b.text) == ("Topic A", "Topic B")
    assert [c.text for c in a.children] == ["Paper One Paper", "Paper Two"]
    one = a.children[0]
    assert one.inline.links == [("Paper", "https://p/1")]
    assert [c.text for c in one.children] == ["Affil", "Detail with Bold"]
    assert one.children[1].inline.strong == ["Bold"]
    assert b.children == []
    assert a.render() == ("- Topic A\n  - Paper One Paper\n    - Affil\n    - Detail with Bold\n  - Paper Two")
    first, second = lists[1].items
    assert first.text == "first" and [c.text for c in second.children] == ["sub"]


def test_html_blocks_keep_text_and_drop_tags():
    md = (
        '# T\n\n<div align="center">\n<p>Figure: <b>throughput</b> vs batch</p>\n'
        '<img src="x.png" alt="x">\n</div>\n\n'
        "<details>\n<summary>Click me</summary>\n\nHidden **markdown** body\n\n</details>\n\n"
        'Inline <span style="color:red">red words</span> stay.\n'
    )
    texts = _texts(parse_blocks(md))
    joined = " ".join(texts)
    assert "<" not in joined and ">" not in joined
    assert "Figure: throughput vs batch" in texts
    assert "Click me" in joined and "Hidden markdown body" in texts
    assert "Inline red words stay." in texts
    assert html_text("<p>a<br/>b &amp; c</p>") == "a b & c"
    # a table's rows stay rows (GitBook writes its tables as HTML)
    table = (
        "<table><thead><tr><th>Conference</th><th>Where</th></tr></thead><tbody>"
        "<tr><td><a href='x.md'>SOSP 2023</a></td><td>Koblenz,\n Germany</td></tr>"
        "<tr><td>NSDI 2023</td><td></td></tr></tbody></table>"
    )
    assert html_text(table) == "| Conference | Where |\n| SOSP 2023 | Koblenz, Germany |\n| NSDI 2023 | |"


def test_gitbook_template_tags_are_dropped_text_kept():
    md = (
        '# T\n\n{% hint style="info" %}\nI keep this list current.\n{% endhint %}\n\n'
        '{% hint style="warning" %}\n\nSpaced **warning** body.\n\n{% endhint %}\n\n'
        '{% tabs %}\n{% tab title="Python" %}\nTab body text.\n{% endtab %}\n{% endtabs %}\n\n'
        '{% embed url="https://www.youtube.com/watch?v=x" %}\n'
    )
    texts = _texts(parse_blocks(md))
    assert "I keep this list current." in texts
    assert "Spaced warning body." in texts
    assert "Tab body text." in texts
    assert not any("{%" in t or "%}" in t or "endhint" in t for t in texts)


def test_text_before_the_first_heading_is_kept_with_an_empty_path():
    blocks = parse_blocks("Preamble line.\n\n- a bullet\n\n# First\n\nbody\n")
    assert (blocks[0].kind, blocks[0].text, blocks[0].headings) == ("text", "Preamble line.", [])
    assert blocks[1].kind == "list" and blocks[1].headings == []
    assert blocks[2].headings == ["First"]


def test_unclosed_code_fence_keeps_the_text_after_it():
    md = "# T\n\nbefore\n\n```bash\nmake all\n\n# Not A Heading Now\n\ntext after the fence\n"
    blocks = parse_blocks(md)
    joined = "\n".join(_texts(blocks))
    assert "before" in joined
    assert "make all" in joined and "text after the fence" in joined and "# Not A Heading Now" in joined
    assert unclosed_fence_line(md) == 4
    assert unclosed_fence_line("# T\n\n```\nx\n```\n") is None
    assert unclosed_fence_line("~~~~\nx\n~~~\n") == 0  # a shorter closing run does not close it


def test_empty_and_heading_only_documents_give_no_blocks():
    assert parse_blocks("") == []
    assert parse_blocks("   \n\n") == []
    assert parse_blocks("# Only\n\n## Headings\n") == []
    assert parse_blocks("```\n```\n") == []  # an empty fence is not a block


def test_block_line_numbers_point_into_the_source():
    md = "# T\n\nfirst\n\n## S\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    lines = md.splitlines()
    for b in parse_blocks(md):
        assert lines[b.line].startswith("first" if b.kind == "text" else "| a")


def test_a_quote_keeps_its_links_and_bold_spans():
    (b,) = parse_blocks(
        "> *A Paper Title* — **Doe et al.**, 2022. [arXiv:2201.00001](https://arxiv.org/abs/2201.00001)\n"
    )
    assert b.text.startswith("> A Paper Title")
    assert b.links == [("arXiv:2201.00001", "https://arxiv.org/abs/2201.00001")] and b.strong == ["Doe et al."]


def test_a_paragraph_of_field_lines_keeps_one_field_per_line():
    """A Notion page's exported properties ("Authors: …", "Status: Read", …) are one field per line,
    not one run-on sentence; a paragraph of prose with one colon line stays one paragraph."""
    md = (
        "# Paper\n\nAuthors: A. Author, B. Author\nDate read: March 14, 2024\nStatus: Read\n"
        "Tags: systems, llm serving\n\nIt batches requests\nat the iteration level: new ones join.\n"
    )
    texts = _texts(parse_blocks(md))
    assert texts[0].split("\n") == [
        "Authors: A. Author, B. Author",
        "Date read: March 14, 2024",
        "Status: Read",
        "Tags: systems, llm serving",
    ]
    assert texts[1] == "It batches requests at the iteration level: new ones join."
    # prose right after the fields, without a blank line, is a line of its own too
    glued = _texts(parse_blocks("# P\n\nAuthors: A\nVenue: SOSP 2023\nThe vLLM paper.\nIt pages memory.\n"))
    assert glued[0].split("\n") == ["Authors: A", "Venue: SOSP 2023", "The vLLM paper. It pages memory."]


def test_a_badge_after_a_heading_is_no_part_of_it():
    md = (
        "# Awesome Systems Classics [![Awesome](https://awesome.re/badge.svg)](https://awesome.re)\n\n"
        "body [![arXiv](https://img.shields.io/a.svg)](https://arxiv.org/abs/1)\n"
    )
    blocks = parse_blocks(md)
    assert blocks[0].headings == ["Awesome Systems Classics"]
    assert blocks[0].text == "body arXiv"  # in a paragraph the badge labels its link
