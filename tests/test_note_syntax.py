"""Notes-tool syntax (Obsidian, Jekyll/Liquid, Hugo) and front matter (YAML, TOML, invalid YAML) as the
readers see them, and which notes are paper notes."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest

from papernotes.corpus.chunking import analyze_page
from papernotes.corpus.front_matter import recover_keys, split_front_matter
from papernotes.corpus.markdown import parse_blocks
from papernotes.corpus.note_syntax import normalize_note_syntax
from papernotes.corpus.paper_links import is_paper_link, paper_id
from papernotes.corpus.readers import pages_from_text, read_path


def one_page(text: str, name: str = "note.md"):
    pages, problems = pages_from_text(text, name, "/origin", 0)
    assert len(pages) == 1, [p.title for p in pages]
    return pages[0], problems


def test_toml_front_matter_names_the_page():
    page, problems = one_page(
        '+++\ntitle = "Hugo Post"\ndate = 2021-04-02\ntags = ["ICML 2021"]\n+++\n\nBody text here.\n'
    )
    assert page.title == "Hugo Post" and page.front_matter["date"] == "2021-04-02" and problems == []
    assert page.tags == ["ICML 2021"] and "+++" not in page.markdown


@pytest.mark.parametrize(
    "fm, key, value",
    [
        ("title: X++: Fast Sparse Kernels\nyear: 2023", "title", "X++: Fast Sparse Kernels"),
        ("title: A: B: C\ntags:\n  - one\n  - two", "tags", ["one", "two"]),
        ('title: "unclosed\nvenue: OSDI 2024', "venue", "OSDI 2024"),
    ],
)
def test_invalid_yaml_front_matter_is_recovered_key_by_key(fm, key, value):
    meta, body, problem = split_front_matter(f"---\n{fm}\n---\n\n# Heading\n\nText.\n")
    assert meta[key] == value and body.startswith("# Heading")
    assert problem is not None and "key by key" in problem
    assert recover_keys("no keys at all\n  just text") == {}


def test_liquid_highlight_comments_are_code_not_pages():
    text = (
        "# Post\n\nIntro.\n\n{% highlight python %}\n# first comment\nx = 1\n# second comment\n"
        "{% endhighlight %}\n\nAfter.\n\n{% raw %}\n{{ not liquid }}\n{% endraw %}\n"
    )
    page, _ = one_page(text)  # one page: the '#' lines are code, not level-1 headings
    codes = [b.text for b in parse_blocks(page.markdown) if b.text.startswith("```")]
    assert codes[0].startswith("```python") and "# second comment" in codes[0]
    assert "{{ not liquid }}" in codes[1]


def test_hugo_shortcodes_are_stripped_and_highlight_is_code():
    md, _ = normalize_note_syntax(
        'See {{< figure src="a.png" caption="Fig" >}} here.\n{{< highlight go >}}\n# not a heading\n'
        "{{< /highlight >}}\n{{% notice tip %}}Keep this text.{{% /notice %}}\n"
    )
    assert "{{" not in md and "Keep this text." in md and "```go\n# not a heading\n```" in md


def test_obsidian_links_embeds_and_callouts(tmp_path):
    vault = tmp_path / "vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "sub" / "Target Note.md").write_text("---\ntitle: The Target\n---\n\nBody.\n")
    (vault / "main.md").write_text(
        "# Main\n\nSee [[Target Note|the target]] and [[Target Note#Part]].\n\n![[diagram.png]]\n\n"
        "![[Target Note]]\n\n![[Nowhere]]\n\n> [!tip] Short version\n> It works.\n\nAfter.\n"
    )
    res = read_path(vault)
    main = next(p for p in res.pages if p.source.endswith("main.md"))
    blocks = parse_blocks(main.markdown)
    first = blocks[0]
    assert first.text == "See the target and Target Note › Part."
    assert [(label, unquote(href)) for label, href in first.links][0] == ("the target", "Target Note")  # kept
    texts = [b.text for b in blocks]
    assert "The Target" in texts and not any("diagram" in t or "[[" in t for t in texts)
    tip = next(b for b in blocks if b.text == "It works.")
    assert tip.headings == ["Main", "Short version"]  # the callout is a section
    assert any("'Nowhere' not found" in str(w) for w in res.warnings)


def test_fences_protect_note_syntax():
    md, problems = normalize_note_syntax("```\n[[kept]] {{< kept >}}\n> [!note] kept\n```\n")
    assert md == "```\n[[kept]] {{< kept >}}\n> [!note] kept\n```\n" and problems == []


@pytest.mark.parametrize(
    "url, ok",
    [
        ("https://arxiv.org/abs/2312.12456v2", True),
        ("https://dl.acm.org/doi/10.1145/3694715.3695964", True),
        ("https://aclanthology.org/2023.acl-long.1.pdf", True),
        ("https://openreview.net/forum?id=abc", True),
        ("https://www.usenix.org/conference/osdi24/presentation/x", True),
        ("https://ieeexplore.ieee.org/document/123", True),
        ("https://dl.acm.org/doi/proceedings/10.1145/3190508", False),
        ("https://arxiv.org/", False),
        ("https://github.com/org/repo", False),
        ("https://www.usenix.org/conference/osdi24", False),
    ],
)
def test_paper_links(url, ok):
    assert is_paper_link(url) is ok


def test_one_paper_many_links_one_identity():
    assert paper_id("https://arxiv.org/pdf/2312.12456v1") == paper_id("http://arxiv.org/abs/2312.12456")
    assert paper_id("https://doi.org/10.1145/3731569.3764834") == paper_id(
        "https://dl.acm.org/doi/abs/10.1145/3731569.3764834"
    )


def _entries(text: str, name: str = "note.md"):
    page, _ = one_page(text, name)
    return analyze_page(page).entries


@pytest.mark.parametrize(
    "text",
    [
        # a reading list: several papers linked in the opening
        "# To read\n\nStart with [the survey](https://arxiv.org/abs/2303.18223) and "
        "[this one](https://arxiv.org/abs/2310.06825).\n",
        # a paper cited in passing, not presented as the note's own
        "# Weekly log\n\nRead [a survey on caching](https://arxiv.org/abs/2303.18223) today, long.\n",
        # ordinary bullets of a plain note
        "# Sync\n\n* Code\n* The plan considers the following 3 problems:\n  * Disk Quotas\n  * Backups\n"
        "* Storage Team\n  * Primary On-Call\n",
        # a proceedings link on a venue index page
        "# EuroSys 2018\n\nPaper list: [https://dl.acm.org/doi/proceedings/10.1145/3190508]"
        "(https://dl.acm.org/doi/proceedings/10.1145/3190508)\n",
    ],
)
def test_notes_that_are_not_about_one_paper(text):
    # such a note is only marked as there (kind "note", for an index that may title it), never a paper
    assert [e.kind for e in _entries(text)] == ["note"]


def test_jekyll_post_with_a_bare_series_tag_and_a_file_date():
    (e,) = _entries(
        "---\ntitle: Deep Sets\ntags: [ICML, sets]\n---\n\n[Paper](https://arxiv.org/abs/1703.06114)\n\n"
        "## Idea\n\nPermutation-invariant functions of sets are sums of per-element embeddings.\n",
        "_posts/2018-02-01-deep-sets.md",
    )
    assert (e.title, e.venue, e.year, e.url) == ("Deep Sets", "ICML 2018", 2018, "https://arxiv.org/abs/1703.06114")


def test_conflicting_venues_leave_the_field_empty():
    (e,) = _entries(
        "---\ntitle: Some Paper Title\ntags: ['ICLR 2019', 'NeurIPS 2018']\n---\n\n"
        "[arXiv](https://arxiv.org/abs/1811.00001)\n\n## Notes\n\nText about the paper, long enough.\n"
    )
    assert e.venue is None and e.title == "Some Paper Title"


def test_heading_link_title_and_venue_in_parentheses(tmp_path: Path):
    (e,) = _entries(
        "# [Graph Attention Networks](https://arxiv.org/abs/1710.10903) (ICLR 2018)\n\nTL;DR: attention over graph neighbours.\n"
    )
    assert (e.title, e.venue, e.summary) == (
        "Graph Attention Networks",
        "ICLR 2018",
        "attention over graph neighbours.",
    )


@pytest.mark.parametrize(
    ("text", "meta", "body_start"),
    [
        (
            "title:: Some Paper: A Study\nalias:: SP, Study\ntags:: [[paper]], [[nlp]]\n\n- first block",
            {"title": "Some Paper: A Study", "alias": ["SP", "Study"], "tags": ["paper", "nlp"]},
            "- first block",
        ),
        ("venue:: arXiv\nurl:: https://arxiv.org/abs/2301.00001\n- a block", None, "- a block"),
        ("- a block that says key:: value\n", {}, "- a block"),  # properties of a block, not the page
        ("Plain text: with a colon\n", {}, "Plain text"),
    ],
)
def test_logseq_page_properties_are_front_matter(text, meta, body_start):
    got, body, problem = split_front_matter(text)
    if meta is not None:
        assert got == meta
    else:
        assert got == {"venue": "arXiv", "url": "https://arxiv.org/abs/2301.00001"}
    assert body.startswith(body_start) and problem is None
