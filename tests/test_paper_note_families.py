"""Families of paper notes that one site's conventions misread (tests/fixtures/families/, each folder a
few members of one family with its records listed by hand in expected_records.json):

* reading_lists — task-list and reading-list bullets: a bullet is a paper only when it looks like one
  (a title plus a paper link or venue), and one that points to the reader's note is no second record;
* labelled_lines — the paper named only in a labelled line of the opening ("**Paper:** [Title](link)",
  "Paper: <link>", "arXiv: …", "PDF: …", "Link: …", "Title: …") under a framed post title;
* missing_links — an empty link ("[Title]()", "(#)") or none, with a citekey, byline or TL;DR: a record,
  never a bogus link;
* venue_statements — venues stated in bylines and prose, one parser deciding, conflicts left empty;
* mkdocs_tables — MkDocs-Material notes: admonitions and content tabs (``=== "Summary"``) as sections, a
  key/value metadata table or a definition list (``Venue`` / ``:   SOSP 2019``) in the opening read as
  labelled lines (tests/test_note_openings.py has the unit tests of the families below);
* framed_titles — blog posts whose title is framed ("Paper review – X") or in another script, the full
  title in the body (the paper link's text, a quoted, bold or italic line);
* reading_todos — unchecked task items and to-do leads ("TODO read: X") are papers not read yet: no records;
  so are the bullets of a list introduced as not read yet ("⏳ to read next month:", "## Reading queue",
  "## Backlog"), also at the end of a log's last paper section, whose venue they do not give;
* templates — notes-tool templates (``{{title}}``, ``<% tp.file.title %>``) are no notes;
* paper_tables — "awesome" lists whose papers are Markdown table rows (tests/test_table_entries.py);
* journal_workshop_venues — journals by name or abbreviation with a year, workshops that are not their
  host conference, series the built-in list lacks after "Published in", ACL Anthology identities;
* paper_copies — one paper linked several times on one line (a metadata table's ``[arXiv](…) ·
  [USENIX](…)``, a byline's ``[ACM DL](…) · [arXiv](…)``, ``Paper: <…> · Code: <…>``): one paper, its
  first link; links to two papers on one line (two arXiv ids, two named systems) are none;
* title_lines — the full title under a label ("Full title: **X**.", "Paper title: X (JMLR 2022)",
  "原文标题：X（NVIDIA）", a "## Full title" heading over a bold line), also in a note with a "Published
  in:" line; a post titled only by the system name joins the record of the same paper's full title;
* title_marks — a title marked with an emoji or its venue ("[OSDI'22] Title", "Title | NeurIPS 2022",
  "Title ⭐🔥", "【ICML 2023】Title 解读"),
  paper links on sites that show papers by their arXiv id or DOI (Hugging Face papers, a publisher's
  ``/doi/`` path), an "Authors:" line with the paper's one link anywhere, or the one link in a "## Links"
  section at the end (a meeting note linking one paper in passing is none);
* cited_beside — the note's own link presented as a kind of link ("[arXiv](…)", "[the Orca paper](…)")
  beside papers cited by name, reference-manager keys (``publicationTitle``, ``pdf_url``); a page
  linking papers only by name (a trip report) is none, and so is a link on a line that marks its paper
  as not read yet ("Related: [X: …](…) (not read yet)") under a framed title; front matter that titles
  and places the paper makes a record whose opening links cite other papers ("Related: [ST-MoE](…)");
* file_named_notes — notes titled by their file name (Obsidian, a Notion export without its page id)
  whose first heading names a section ("## Summary") or whose first line is a property ("Authors: …");
* reading_logs — one file, one section per paper ("## Title", then its link or byline): one record per
  section; a list of paper links is no paper, and a one-paper note's sections citing others stay its own;
* sectioned_logs — several papers in one file at any heading level (week files, a running log of
  ``### Title (Venue Year)`` entries under year headings): tests/test_note_sections.py;
* awesome_lists — an awesome list's README: table rows whose title cell carries emoji shortcodes
  (``:star:``), a notes link and a short name in parentheses, bullets ``[Title](arXiv) — Venue 'YY``
  (or a title alone before the dash), tools tables and blog bullets (no papers), and deep notes
  opening with an emphasised citation line or a bold full title over a bare link;
* outliner_vaults — a Logseq graph (``key:: value`` page properties, ``[[paper]]`` tags, ``venue::
  arXiv``, a venue among the tags, a to-read page) and a Dendron vault (short front-matter titles
  beside "Full title:" and "Preprint title:" lines, a hierarchy root, a note in Chinese with qualified
  title labels);
* bibtex_entries — a note's one BibTeX entry (fenced or pasted as a paragraph) names its paper: title,
  authors, venue and year, ``url``/``doi``/``eprint``; a note holding several entries is none;
* author_year_titles — an author-year citation after the title ("(Vaswani et al., 2017)", "- Goodfellow
  et al. 2014", "(Srivastava et al., JMLR 2014)") is no part of it, its venue and year are the paper's;
* written_addresses — a paper's address on a line of its own, without its scheme, after "论文见", as a
  badge, behind a redirecting link (``link.zhihu.com/?target=…``) or on a lab's publication page; a
  to-do line ending in an address is none;
* venue_folders — a note filed in a folder named for a venue ("ICLR2019/", "neurips-2020/") takes
  that venue unless it states its own;
* org_notes — Org-mode notes (org-roam ``ROAM_REFS``, heading property drawers, ``#+TITLE``);
* site_front_matter — keys nested under a static-site table (Zola ``[extra]``, Hugo ``params:``,
  ``paper: {url: …}``) and the Obsidian Web Clipper's ``source:``;
* digests — papers grouped under topic headings, bold lines standing for headings, a page titled as
  a collection ("My Reading Notes") with one paper, numbered sections ("论文一：X"), Chinese link labels;
* chinese_notes — Chinese labels (论文名称, 标题, 链接, 原文), framing (论文笔记, 详解, 一文读懂) and
  venue statements (发表于, 被 … 接收);
* metadata_lines — the paper's address set off in a metadata line under the title ("CVPR 2016 · https://…
  · code: …", "📄 https://… 💻 https://github.com/…" in a quote, a bullet of the opening's list, "… |
  github", a bracketed aside after it, MkDocs-Material icons in link texts); an address inside a
  sentence, or two written side by side, names none; a heading's attributes (``{ #wrn }``) are no title;
* short_full_titles — a short name beside the full title (a front-matter title under a full heading, a
  heading over a quoted title line and its author list, "T5 — “Full title”", an acronym of the title, an
  admonition titled with the full title): the full title is the record's, the short name its alias;
  so are names the byline or first lines give ("University of Toronto. "AlexNet"", "a Deep Q-Network
  (DQN)"), never the authors or affiliations;
* bold_led_logs — a monthly log whose entries are led by bold or italic titles (a linked one too;
  paragraphs, numbered or bulleted
  items, after a status mark or a checked box) with a venue, an author-year citation or a bare year
  after them, under week headings or as dated headings ("2023-10-20 · Title"); to-read lists, unchecked
  and queued items are none; dated bullets ("2024-01-20: [Title](arXiv link) (TMLR 2022)") are the
  listing's entries without their date; a paragraph whose first line is a plain title with its link
  after a dash or on the next line is an entry too, a paragraph of prose none;
* arxiv_named_notes — notes named by their paper's arXiv id (the file ``2106.09685v2.md``, a heading
  ``[1406.2661] Title``, ``Title (arXiv:1706.03762)``, ``2104.09864 — Title``): the id is the paper's link,
  never part of its title; the index page naming ids is none;
* chinese_roundups — a Chinese roundup whose sections ("论文一：DETR") open with the linked full title and
  its venue in full-width brackets, and labels such as 论文题目 / 论文地址 / 发表会议; a title in title
  marks after a label ("论文：《Title》", "Paper: 《Title》"), an English title heading under a Chinese
  post title, a post title naming the paper by its Latin name beside Chinese words;
* prose_venues — a venue stated in prose as the note's paper's: glued to Chinese text ("发表在NeurIPS 2023上"),
  between "this"/"这篇" and a paper noun ("This SOSP 2023 paper", "这篇 OSDI 2022 的论文"; not "相比 OSDI 2022
  的论文 Orca"), or between dashes in the middle of a line ("Title — NeurIPS 2017 — re-read in May");
* html_headings — a title heading with its venue in an HTML aside ("<small>OSDI 2024</small>", "<sup>",
  "<span class=…>"): a paper note with that venue, not a venue page;
* mkdocs_nav — MkDocs pages without a heading, titled by the site's ``mkdocs.yml`` nav;
* acronym_aliases — an acronym is an alias only when it names the paper, not a component of it;
* reference_lines — a formatted reference (MLA, IEEE, ACM; "Reference:" label) under the title names the
  note's paper: its DOI (also on the next line) or arXiv id is the link, the acronym in brackets or
  before "Proceedings" with the reference's year the venue ("(MICRO ’52)" is an edition: MICRO 2019);
  a note whose first line cites another paper is none (tests/test_reference_lines.py);
* dated_author_titles — "# Title (2018)" over its author list (one author too) is a paper note; a page
  titled "To Read" holds papers not read yet, and a dated heading over prose is none;
* listing_link_labels — an index whose bullets carry ``[[notes](…)] [[link](…)]``: a generic "link" label
  is the paper's link when it points at one (a lab's ``pubs/pub46351.html`` page too), the title ends
  at the first boxed label, and a bullet that only points to a note that is no paper note (a book
  chapter's, a talk's) is none;
* title_sections — a note whose first heading is a section ("## Part1.标题&作者") is titled by the Latin
  title opening that section ("Title: 中文释义"); a roundup's numbered sections ("## 10.BYOL") lose
  their numbers; a title heading over sections named for the paper's own parts ("## 摘要", "## Abstract",
  "## 题目&作者") is a paper note without a link, a plan with a "## Summary" none;
* field_headings — fields laid out as headings with their colon ("### Paper:", "### Author:", "## Conference:")
  over their values, and a "Year: NeurIPS 2019" line naming the venue; a meeting note's "### Paper:" over a
  sentence is none;
* dated_file_names — a title heading over generic sections ("## Claim", "## Method") or an empty stub, in a
  file named for the paper's year and title ("2021 Perceiver General ….md", "graph-attention-networks-2018-
  200715.md"), a title after its translation ("光场渲染 Light Field Rendering"), a system name in brackets
  after the title; course chapters, topic notes and a dated blog post are none;
* title_over_authors — a title heading over its authors' names; a title over prose naming people is none
  (unit tests of these three: tests/test_note_layouts.py).
"""

from __future__ import annotations

import json

import pytest
from conftest import TESTS
from test_note_styles import catalog_of, precision_recall

from papernotes.corpus.markdown import is_section_heading, parse_blocks
from papernotes.corpus.note_opening import frame_stripped, read_opening
from papernotes.corpus.papers import is_to_read_title, points_to_note, title_key
from papernotes.corpus.site_nav import mkdocs_nav_titles
from papernotes.corpus.venues import decide_venue, stated_venues

FAMILIES = TESTS / "fixtures" / "families"


# a folder without records listed (short_names: read by test_title_abbreviations) is no catalog family
@pytest.mark.parametrize(
    "family", sorted(p.name for p in FAMILIES.iterdir() if (p / "expected_records.json").is_file())
)
def test_family_catalog_is_exactly_its_papers(family):
    expected = json.loads((FAMILIES / family / "expected_records.json").read_text())
    records, _ = catalog_of(FAMILIES / family / "notes")
    precision, recall = precision_recall(records, expected)
    assert (precision, recall) == (1.0, 1.0), (family, [(r.title, r.url) for r in records])
    want = {title_key(e["title"]): e for e in expected}
    for r in records:
        e = want[title_key(r.title)]
        assert r.venue == e["venue"], (r.title, r.venue)
        if e["link"] is None:  # an empty or missing link gives no link at all
            assert not any(k in r.links for k in ("paper", "arxiv", "doi", "pdf")), r.links


def test_a_bullet_pointing_to_a_paper_note_joins_its_record():
    records, _ = catalog_of(FAMILIES / "reading_lists" / "notes")
    (flash,) = [r for r in records if r.title.startswith("FlashAttention-2")]
    assert flash.title.startswith("FlashAttention-2: Faster Attention") and flash.aliases == ["FlashAttention-2"]
    assert flash.links["notes"] == "../flash-attention-2/"  # the reading list's bullet, merged into the note's record


def _items(markdown: str):
    return [it for b in parse_blocks(markdown) if b.kind == "list" for it in b.items]


def test_bullets_that_point_to_a_note_are_pointers():
    items = _items(
        "- [x] DistServe → [notes](distserve.md)\n"
        "- [x] [Orca](../orca/) (OSDI 2022)\n"
        "- Mixtral [notes](https://github.com/x/notes/blob/main/mixtral.md)\n"
        "- Orca: A Serving System (OSDI 2022) [Paper](https://example.org/orca.pdf) [Personal Notes](orca.md)\n"
        "- Bamboo: Preemptible Training ([NSDI 2023](../nsdi-2023/))\n"
        "- [Attention Is All You Need](papers/attention.pdf)\n"
    )
    from papernotes.corpus.note_syntax import normalize_note_syntax

    wiki = _items(normalize_note_syntax("- [x] [[vllm|vLLM]]\n")[0])
    assert [points_to_note(i) for i in items[:2] + wiki + items[2:]] == [True, True, True, True, False, False, False]


@pytest.mark.parametrize(
    ("text", "byline", "venues"),
    [
        ("Gyeong-In Yu, Byung-Gon Chun. OSDI '22.", True, ["OSDI 2022"]),
        ("In Proceedings of SOSP 2023", False, ["SOSP 2023"]),
        ("Published at NeurIPS 2021", False, ["NeurIPS 2021"]),
        ("Journal version in JMLR 2022", False, ["JMLR 2022"]),
        ("Dettmers et al. (ICML'23)", False, ["ICML 2023"]),
        ("EuroSys 2024 (best paper)", True, ["EuroSys 2024"]),
        ("arXiv preprint, 2023", True, ["arXiv 2023"]),
        ("arXiv preprint arXiv:2305.14314", True, ["arXiv 2023"]),
        ("The paper was published in 2021 at ICLR 2021.", False, ["ICLR 2021"]),
        # named in passing: another paper's venue, not this note's
        ("We compare with Orca, OSDI '22, on latency and throughput.", True, []),
        ("Rafailov, Ermon, Finn (Stanford); NeurIPS 2023 oral; 1,200 citations", True, ["NeurIPS 2023"]),
        ("Hu, Shen et al. (Microsoft); cited by everyone; ICLR 2022", True, ["ICLR 2022"]),
        ("By Edward J. Hu, Yelong Shen et al. — Microsoft, ICLR 2022, 12 pages", True, ["ICLR 2022"]),
        ("Jane Doe, John Roe, OSDI 2022, 14 pages", True, ["OSDI 2022"]),
        ("Google, Meta, OSDI 2022, compared to the baseline of Orca", True, []),
        ("Unlike Triton (SC 2019) on large models, it batches per step.", False, []),
        ("EuroSys 2024 (best paper)", False, []),  # outside the opening a bare venue is no statement
        # stated in Chinese prose, glued to the text or with the verb after the venue
        ("这篇论文发表在NeurIPS 2023上，提出了双重量化。", False, ["NeurIPS 2023"]),
        ("这篇 OSDI 2022 的论文提出了迭代级调度。", False, ["OSDI 2022"]),
        ("该论文在OSDI 2022上发表。", False, ["OSDI 2022"]),
        ("被 NeurIPS 2023 录用。", False, ["NeurIPS 2023"]),
        ("This SOSP 2023 paper pages the KV cache.", False, ["SOSP 2023"]),
        ("相比 OSDI 2022 的论文 Orca，它把 prefill 切块。", False, []),
        ("Compared with the OSDI 2022 paper Orca, it chunks prefills.", False, []),
        ("它和 OSDI 2022 上的 Orca 相比更快。", False, []),
    ],
)
def test_stated_venues(text, byline, venues):
    assert stated_venues(text, byline=byline) == venues


def test_decide_venue_prefers_the_reviewed_one_and_leaves_conflicts_empty():
    assert decide_venue(["arXiv 2021", "JMLR 2022"]) == ("JMLR 2022", False)
    assert decide_venue(["OSDI 2022", "osdi '22"]) == ("OSDI 2022", False)
    assert decide_venue(["MLSys 2023", "NSDI 2023"]) == (None, True)
    assert decide_venue([]) == (None, False)


@pytest.mark.parametrize(
    ("title", "stripped"),
    [
        ("Paper notes: QLoRA", ("QLoRA", True)),
        ("Reading: Orca", ("Orca", True)),
        ("Notes on FlashAttention", ("FlashAttention", True)),
        ("[Paper] Switch Transformers", ("Switch Transformers", True)),
        ("ZeRO — paper notes", ("ZeRO", True)),
        ("Attention Is All You Need", ("Attention Is All You Need", False)),
        ("Orca: A Distributed Serving System", ("Orca: A Distributed Serving System", False)),
    ],
)
def test_frame_stripped(title, stripped):
    assert frame_stripped(title) == stripped


def test_opening_labelled_lines():
    op = read_opening(
        "**Paper:** [QLoRA: Efficient Finetuning](https://arxiv.org/abs/2305.14314)\nPDF: https://x.org/q.pdf\n"
    )
    assert (op.link, op.title) == ("https://arxiv.org/abs/2305.14314", "QLoRA: Efficient Finetuning")
    assert read_opening("- arXiv: 2401.12345v2\n").link == "https://arxiv.org/abs/2401.12345"
    assert read_opening("DOI: 10.1145/3600006.3613165\n").link == "https://doi.org/10.1145/3600006.3613165"
    two = read_opening("Paper: [A](https://arxiv.org/abs/2401.00001)\nPaper: [B](https://arxiv.org/abs/2401.00002)\n")
    assert two.ambiguous and two.link is None
    assert read_opening("Link: https://github.com/vllm-project/vllm\n").link is None  # not a paper
    empty = read_opening("Paper: [Scaling Laws for Neural Language Models]()\n")
    assert (empty.link, empty.title, empty.placeholder) == (None, "Scaling Laws for Neural Language Models", True)


def _git_repo(path, note: str, when: str) -> str:
    """A one-commit git repository holding ``note`` as paper.md, committed at ``when`` (ISO date);
    its file:// URL."""
    import subprocess

    path.mkdir()
    (path / "paper.md").write_text(note, encoding="utf-8")
    env = {
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_AUTHOR_NAME": "n",
        "GIT_AUTHOR_EMAIL": "n@example.org",
        "GIT_COMMITTER_NAME": "n",
        "GIT_COMMITTER_EMAIL": "n@example.org",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "notes"]):
        subprocess.run(["git", "-C", str(path), *cmd], check=True, env=env, capture_output=True)
    return f"file://{path}"


def test_newer_commit_wins_between_git_sources(tmp_path):
    """Two git sources note one paper under two names and venues: the note of the newer commit gives
    the title and venue though it is ingested first; the other name and venue stay as alias and
    history. The same notes as plain folders follow ingest order."""
    from papernotes.corpus.catalog import build_catalog
    from papernotes.corpus.chunking import analyze_page
    from papernotes.corpus.readers import read_path, read_source

    link = "https://arxiv.org/abs/2312.12456"
    new = f"# [PowerInfer: Fast LLM Serving with a Consumer-grade GPU]({link})\n\nPublished at SOSP 2024.\n"
    old = f"# [LMInfer: Fast LLM Serving with a Consumer-grade GPU]({link})\n\nPublished at OSDI 2024.\n"
    urls = [
        _git_repo(tmp_path / "new", new, "2024-12-01T00:00:00+00:00"),
        _git_repo(tmp_path / "old", old, "2024-01-01T00:00:00+00:00"),
    ]
    results = [read_source(u, tmp_path / "repos") for u in urls]  # the newer commit first in ingest order
    assert [p.committed for r in results for p in r.pages] == [1733011200, 1704067200]
    (rec,) = build_catalog(e for r in results for p in r.pages for e in analyze_page(p).entries)
    assert rec.title.startswith("PowerInfer:") and rec.aliases[0].startswith("LMInfer:")
    assert (rec.venue, rec.history) == ("SOSP 2024", ["OSDI 2024", "SOSP 2024"])
    local = [read_path(tmp_path / "new"), read_path(tmp_path / "old")]
    (rec,) = build_catalog(e for r in local for p in r.pages for e in analyze_page(p).entries)
    assert rec.title.startswith("LMInfer:") and rec.venue == "OSDI 2024"


def test_a_name_only_post_joins_the_full_titles_record():
    records, _ = catalog_of(FAMILIES / "title_lines" / "notes")
    (gshard,) = [r for r in records if "GShard" in r.title]
    assert gshard.title.startswith("GShard: Scaling Giant Models") and gshard.aliases == ["GShard"]
    assert len(gshard.sources) == 2


@pytest.mark.parametrize(
    ("links", "one"),
    [
        (
            [
                ("arXiv", "https://arxiv.org/abs/2406.03243"),
                ("USENIX", "https://www.usenix.org/conference/osdi24/presentation/sun-biao"),
            ],
            0,
        ),
        (
            [
                ("ACM DL", "https://dl.acm.org/doi/10.1145/3341301.3359646"),
                ("arXiv", "https://arxiv.org/abs/1806.03377"),
            ],
            0,
        ),
        ([("PDF", "https://arxiv.org/pdf/2205.14135"), ("arXiv", "https://arxiv.org/abs/2205.14135v2")], 0),  # one id
        ([("arXiv", "https://arxiv.org/abs/2402.02750"), ("arXiv", "https://arxiv.org/abs/2401.18079")], None),
        (
            [
                ("Orca", "https://www.usenix.org/conference/osdi22/presentation/yu"),
                ("vLLM", "https://arxiv.org/abs/2309.06180"),
            ],
            None,
        ),
        ([], None),
    ],
)
def test_copies_of_one_paper_on_one_line(links, one):
    from papernotes.corpus.paper_links import one_paper

    assert one_paper(links) == (links[one][1] if one is not None else None)


@pytest.mark.parametrize(
    ("markdown", "title"),
    [
        (
            "Full title: **Megatron-LM: Training Multi-Billion Parameter Models**.\n",
            "Megatron-LM: Training Multi-Billion Parameter Models",
        ),
        (
            "> 原文标题：Reducing Activation Recomputation in Large Transformer Models（NVIDIA）\n",
            "Reducing Activation Recomputation in Large Transformer Models",
        ),
        (
            "Paper title: Switch Transformers: Scaling to Trillion Parameter Models (JMLR 2022)\n",
            "Switch Transformers: Scaling to Trillion Parameter Models",
        ),
        (
            "Intro line.\n\n## Full title\n\n**Training Compute-Optimal Large Language Models**\n",
            "Training Compute-Optimal Large Language Models",
        ),
        ("## Results\n\n**Training Compute-Optimal Large Language Models**\n", None),  # not under a title label
    ],
)
def test_title_lines(markdown, title):
    assert read_opening(markdown).title == title


def test_logseq_page_properties_read_as_labelled_lines(tmp_path):
    (tmp_path / "deep-sets.md").write_text(
        "title:: Deep Sets\nurl:: https://arxiv.org/abs/1703.06114\nauthors:: Manzil Zaheer, Satwik Kottur\n"
        "venue:: NeurIPS 2017\n\n- Permutation-invariant functions are sums of per-element embeddings.\n",
        encoding="utf-8",
    )
    (rec,) = catalog_of(tmp_path)[0]
    assert (rec.title, rec.url, rec.venue) == ("Deep Sets", "https://arxiv.org/abs/1703.06114", "NeurIPS 2017")
    assert rec.authors == ["Manzil Zaheer", "Satwik Kottur"]


def test_the_year_line_dates_a_note_without_a_venue():
    records, _ = catalog_of(FAMILIES / "title_marks" / "notes")
    (gpipe,) = [r for r in records if r.title.startswith("GPipe")]
    assert (gpipe.venue, gpipe.year, gpipe.authors) == (None, 2019, ["Yanping Huang", "Youlong Cheng"])


def test_notes_titled_by_their_file_name():
    from papernotes.corpus.readers import read_path

    titles = sorted(p.title for p in read_path(FAMILIES / "file_named_notes" / "notes").pages)
    assert titles == ["Attention Is All You Need", "Deep Residual Learning for Image Recognition", "Weekly sync"]


@pytest.mark.parametrize(
    ("heading", "section"),
    [("Summary", True), ("🧠 Key ideas", True), ("1. Background", True), ("TL;DR", True), ("摘要", True)]
    + [("Attention Is All You Need", False), ("Summary of Results in Deep Learning", False), ("Orca", False)],
)
def test_section_headings(heading, section):
    from papernotes.corpus.markdown import is_section_heading

    assert is_section_heading(heading) is section


def test_a_reading_log_section_is_its_papers_note():
    records, _ = catalog_of(FAMILIES / "reading_logs" / "notes")
    (attention,) = [r for r in records if r.title == "Attention Is All You Need"]
    assert attention.sources == ["notes/reading-log.md"] and attention.summary.startswith("Self-attention only")


def test_an_awesome_list_row_keeps_its_short_name_and_its_deep_note():
    records, _ = catalog_of(FAMILIES / "awesome_lists" / "notes")
    by_title = {r.title: r for r in records}
    assert by_title["Dense Passage Retrieval for Open-Domain Question Answering"].aliases == ["DPR"]
    # a deep note named by the system, its bold full title and a bare link on the venue line, joins the bullet
    realm = by_title["REALM: Retrieval-Augmented Language Model Pre-Training"]
    assert realm.sources == ["notes/README.md", "notes/notes/realm.md"] and realm.deep_note == "notes/notes/realm.md"
    colbert = next(r for r in records if r.title.startswith("ColBERT:"))
    assert colbert.sources == ["notes/README.md", "notes/notes/colbert.md"] and "ColBERT" in colbert.aliases
    assert not any(title_key(r.title) in {"faiss", "llamaindex", "theillustratedretrievaltransformer"} for r in records)


def test_outliner_page_properties_and_labelled_titles():
    records, _ = catalog_of(FAMILIES / "outliner_vaults" / "notes")
    by_title = {r.title: r for r in records}
    toolformer = by_title["Toolformer: Language Models Can Teach Themselves to Use Tools"]
    assert toolformer.aliases == ["Toolformer"] and toolformer.tags == ["paper", "agents"]
    assert toolformer.authors[:2] == ["Timo Schick", "Jane Dwivedi-Yu"]
    # the short front-matter title and the preprint's title are other names of the paper
    assert by_title["Sequence to Sequence Learning with Neural Networks"].aliases == [
        "Seq2Seq",
        "Sequence Learning with Deep LSTMs",
    ]
    eagle = by_title["EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty"]
    assert "EAGLE: Lossless Acceleration of LLM Decoding by Feature Extrapolation" in eagle.aliases


def test_a_short_name_beside_the_full_title_is_its_alias():
    expected = json.loads((FAMILIES / "short_full_titles" / "expected_records.json").read_text())
    records, _ = catalog_of(FAMILIES / "short_full_titles" / "notes")
    aliases = {title_key(r.title): r.aliases for r in records}
    for e in expected:
        got = aliases[title_key(e["title"])]
        assert got == ([e["alias"]] if e["alias"] else []), e["title"]


def test_a_logs_entries_keep_their_quoted_names_and_its_month_is_no_venue():
    records, _ = catalog_of(FAMILIES / "bold_led_logs" / "notes")
    by_title = {r.title: r for r in records}
    faster = by_title["Faster R-CNN: Towards Real-Time Object Detection with Region Proposal Networks"]
    assert faster.aliases == ["Faster R-CNN"]
    assert all(r.venue is None or "2023" not in r.venue for r in records)  # "June 2023" is the log's month
    yolo = by_title["You Only Look Once: Unified, Real-Time Object Detection"]
    mae = by_title["Masked Autoencoders Are Scalable Vision Learners"]
    assert (yolo.year, mae.year) == (2016, 2021)  # an author-year citation and a bare year date the paper


def test_mkdocs_nav_titles(tmp_path):
    """A page's title from the MkDocs nav: a titled entry, nested in sections; none for a section, an
    untitled entry, an external link, or a config that cannot be read."""
    (tmp_path / "site" / "docs" / "a").mkdir(parents=True)
    (tmp_path / "site" / "mkdocs.yml").write_text(
        "docs_dir: docs\nnav:\n  - Part:\n      - 'X: Full Title': a/x.md\n      - a/y.md\n  - Web: https://example.com\n"
        "extra: !ENV [SITE, none]\n"
    )
    titles = mkdocs_nav_titles(tmp_path / "site")
    assert titles == {(tmp_path / "site" / "docs" / "a" / "x.md").resolve(): "X: Full Title"}
    (tmp_path / "site" / "mkdocs.yml").write_text("nav: [unclosed\n")
    assert mkdocs_nav_titles(tmp_path / "site") == {}
    assert mkdocs_nav_titles(tmp_path) == {}


def test_an_mkdocs_site_inside_the_notes_titles_its_pages(tmp_path):
    import shutil

    shutil.copytree(FAMILIES / "mkdocs_nav" / "notes", tmp_path / "sites" / "papers")
    (tmp_path / "README.md").write_text("# My notes\n\nSeveral sites.\n")
    records, _ = catalog_of(tmp_path)
    expected = json.loads((FAMILIES / "mkdocs_nav" / "expected_records.json").read_text())
    assert precision_recall(records, expected) == (1.0, 1.0), [r.title for r in records]


@pytest.mark.parametrize(
    ("heading", "section"),
    [("Part1.标题&作者", True), ("1 题目&作者", True), ("Title & Authors", True), ("Title of the talk", False)],
)
def test_title_and_author_sections(heading, section):
    assert is_section_heading(heading) is section


def test_a_to_read_title():
    assert is_to_read_title("To Read") and is_to_read_title("待读论文") and not is_to_read_title("Thread pools")


def test_a_quoted_sentence_is_no_full_title():
    """A quoted passage whose line a sentence continues ("VR was developed …, at about the same time as
    Paxos,") is no title set apart: the heading stays the note's title."""
    md = (
        "### [Viewstamped Replication Revisited](vr-revisited.pdf)\n\n> MIT technical report, July 2012\n>\n"
        "> https://pmg.csail.mit.edu/papers/vr-revisited.pdf\n\nNotes.\n\n"
        "> VR was originally developed in the 1980s, at about the same time as Paxos,\n> but without knowledge of it.\n"
    )
    assert read_opening(md).named == []
