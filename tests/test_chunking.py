"""Tests for corpus.chunking: paper entries whole, lists split between papers, tables by rows with the
header repeated, long sections by the token budget with overlap, stable unique IDs, Chroma-valid
metadata."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import FIXTURE_NOTES

from papernotes.corpus.chunking import analyze_page, estimate_tokens, split_text
from papernotes.corpus.models import Page
from papernotes.corpus.readers import read_path

KINDS = {"paper_entry", "deep_note", "page_section", "table", "publication"}
WORDS = (
    "kernel latency memory bandwidth scheduler replica tensor pipeline quorum cache straggler gradient shard prefetch"
).split()


def page(md: str, title: str = "Notes", source: str = "notes/page.md", **kw) -> Page:
    return Page(title=title, source=source, origin="/origin", markdown=md, **kw)


def prose(n_sentences: int, seed: int = 0, words_per: int = 12) -> str:
    """Deterministic sentences of distinct-ish words (each sentence numbered so texts differ)."""
    out = []
    for i in range(n_sentences):
        ws = [WORDS[(seed + i * 7 + j * 3) % len(WORDS)] for j in range(words_per)]
        out.append(f"Sentence {seed}-{i} {' '.join(ws)}.")
    return " ".join(out)


def paper_list(n: int, nested: int = 3) -> str:
    lines = []
    for i in range(n):
        lines.append(f"* System{i}: A Study of Topic {i} (OSDI 2026) \\[[Paper](https://p.example/{i})]")
        lines.append(f"  * Univ{i} & Lab{i}")
        for j in range(nested):
            lines.append(f"  * Detail {j} of paper {i}: {prose(1, i + j)}")
            lines.append(f"    * Sub-detail {j} of paper {i}")
    return "\n".join(lines)


def check_meta(meta: dict) -> None:
    for k, v in meta.items():
        assert isinstance(k, str)
        assert v is not None and not isinstance(v, (dict, list, tuple, set)), (k, v)
        assert isinstance(v, (str, int, float, bool)), (k, v)
    for k in ("source", "page_title", "section", "kind"):
        assert k in meta, k
    assert meta["kind"] in KINDS
    if meta["kind"] in ("paper_entry", "deep_note", "publication"):
        assert meta.get("paper_title"), meta
        assert ("venue" in meta) == ("year" in meta), meta  # both or neither (when the notes name none)
        if "year" in meta:
            assert isinstance(meta["year"], int) and meta["venue"].endswith(str(meta["year"]))


# --- paper entries ---------------------------------------------------------------------------------


def test_paper_bullet_with_nested_bullets_is_one_chunk():
    a = analyze_page(page("# Notes\n\n## Topic\n\n" + paper_list(1, nested=2)))
    (c,) = a.chunks
    assert c.metadata["kind"] == "paper_entry"
    assert c.text.startswith("Notes › Topic\nSystem0: A Study of Topic 0")
    for j in range(2):
        assert f"Detail {j} of paper 0" in c.text and f"Sub-detail {j} of paper 0" in c.text
    assert c.metadata["paper_title"] == "System0: A Study of Topic 0"
    assert (c.metadata["venue"], c.metadata["year"]) == ("OSDI 2026", 2026)
    assert c.metadata["url"] == "https://p.example/0"
    assert c.metadata["system"] == "System0"
    assert c.metadata["affiliations"] == "Univ0, Lab0"


def test_long_paper_list_splits_between_papers_never_inside_one():
    n = 12
    md = "# Notes\n\n## Topic\n\n" + paper_list(n, nested=2)
    a = analyze_page(page(md), max_tokens=150)
    entries = [c for c in a.chunks if c.metadata["kind"] == "paper_entry"]
    assert len(entries) == n
    for i, c in enumerate(entries):
        # each chunk holds exactly one paper, with all of its nested bullets
        assert re.findall(r"System(\d+):", c.text) == [str(i)]
        assert all(f"Detail {j} of paper {i}" in c.text for j in range(2))
        assert estimate_tokens(c.text) <= 150
    assert [e.title for e in a.entries] == [f"System{i}: A Study of Topic {i}" for i in range(n)]


def test_oversized_paper_entry_is_split_before_nested_bullets_with_its_title_repeated():
    md = "# Notes\n\n## Topic\n\n" + paper_list(1, nested=12)
    a = analyze_page(page(md), max_tokens=120)
    assert len(a.chunks) > 1
    for c in a.chunks:
        body = c.text.split("\n", 1)[1]
        assert body.startswith("System0: A Study of Topic 0 (OSDI 2026) [Paper]\n")
        assert estimate_tokens(c.text) <= 120
        assert c.metadata["paper_title"] == "System0: A Study of Topic 0"
    text = "\n".join(c.text for c in a.chunks)
    assert all(f"Sub-detail {j} of paper 0" in text for j in range(12))
    assert len({c.id for c in a.chunks}) == len(a.chunks)


def test_topic_bullets_without_papers_are_kept_as_text():
    md = "# Notes\n\n## Ideas\n\n* Open question one\n  * Why is it slow?\n* Open question two\n"
    (c,) = analyze_page(page(md)).chunks
    assert c.metadata["kind"] == "page_section" and "Why is it slow?" in c.text


# --- tables ----------------------------------------------------------------------------------------


def test_long_table_chunked_by_rows_with_header_repeated():
    rows = [f"| Conf{i} 2026 | City {i} | {prose(1, i, words_per=4)} |" for i in range(40)]
    md = "# Calendar\n\n## Dates\n\n| Conference | Where | Notes |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    a = analyze_page(page(md, title="Calendar"), max_tokens=90)
    tables = [c for c in a.chunks if c.metadata["kind"] == "table"]
    assert len(tables) > 3
    seen_rows = []
    for c in tables:
        lines = c.text.split("\n")
        assert lines[0] == "Calendar › Dates"
        assert lines[1] == "| Conference | Where | Notes |"
        body = lines[2:]
        assert body and all(ln.startswith("| Conf") for ln in body)  # whole rows only
        seen_rows += [m.group(1) for ln in body if (m := re.match(r"\| (Conf\d+)", ln))]
        assert estimate_tokens(c.text) <= 90
    assert seen_rows == [f"Conf{i}" for i in range(40)]  # every row once, in order


def test_table_row_longer_than_the_budget_keeps_the_header():
    md = "# T\n\n| Name | Description |\n|---|---|\n| short | ok |\n| long | " + prose(30) + " |\n"
    a = analyze_page(page(md, title="T"), max_tokens=80)
    tables = [c for c in a.chunks if c.metadata["kind"] == "table"]
    assert len(tables) >= 3
    assert all(c.text.split("\n")[1] == "| Name | Description |" for c in tables)
    assert all(estimate_tokens(c.text) <= 80 for c in tables)


# --- budget and overlap ----------------------------------------------------------------------------


def _assert_pieces(pieces, budget, count, text):
    assert pieces and all(p.strip() for p in pieces)
    assert all(count(p) <= budget for p in pieces), [count(p) for p in pieces]
    for a, b in itertools.pairwise(pieces):  # consecutive pieces share text: b starts with a's tail
        head = b.split()[:2]
        assert " ".join(head) in a, (a[-80:], b[:80])
    words = set(text.split())
    assert words == set(" ".join(pieces).split())  # nothing lost


@pytest.mark.parametrize("count", [estimate_tokens, lambda t: len(t) // 4 + 1], ids=["estimate", "chars"])
def test_oversized_section_split_by_budget_with_overlap(count):
    text = prose(60)
    pieces = split_text(text, 60, 12, count)
    assert len(pieces) > 3
    _assert_pieces(pieces, 60, count, text)


@pytest.mark.parametrize("kind", ["bullets", "sentences", "nested"])
def test_an_overlap_opens_at_a_line_or_sentence_not_mid_sentence(kind):
    # each piece after the first starts with the previous piece's tail; that tail begins where a line
    # or a sentence does ("530B on many tasks." alone reads as a fragment of its own)
    # rows shorter than the overlap, so every overlap holds the start of one
    rows = [f"Entry {i} outperforms baseline {i}" + " on MT-NLG 530B" * (i % 2) + "." for i in range(60)]
    text = {
        "bullets": "\n".join(f"- {r}" for r in rows),
        "sentences": " ".join(rows),
        "nested": "- Paper 0\n" + "\n".join(f"  - {r}" for r in rows),
    }[kind]
    count = lambda t: len(t.split()) + 2  # noqa: E731 — a counter of words (and [CLS]/[SEP])
    pieces = split_text(text, 40, 12, count)
    assert len(pieces) > 3
    _assert_pieces(pieces, 40, count, text)
    starts = {r[:12] for r in rows} | {"- Entry", "- Paper"}
    for p in pieces[1:]:
        first = p.lstrip(" -")
        assert any(first.startswith(s.lstrip(" -")) for s in starts), p[:60]
    if kind == "nested":  # a nested item the overlap opens with keeps its indentation
        assert any(p.startswith("  - Entry") for p in pieces[1:]), [p[:20] for p in pieces]


def test_split_text_handles_unbroken_runs_and_cjk():
    url = "https://example.org/" + "segment" * 80
    cjk = "大模型推理需要高效的键值缓存管理。" * 40
    text = f"see {url} end\n{cjk}"
    count = lambda t: len(t) // 3 + 1  # noqa: E731 — a counter where long words cost many tokens
    pieces = split_text(text, 50, 8, count)
    assert all(count(p) <= 50 for p in pieces)
    assert "".join(pieces).count("大模型推理") >= 40


def test_section_chunks_fit_the_budget_with_the_real_tokenizer(models_cache):
    from papernotes.retrieval.embeddings import MiniLMEmbeddings

    count = MiniLMEmbeddings(models_cache).count_tokens
    md = "# Deep Note\n\n## Evaluation\n\n" + "\n\n".join(prose(8, s) for s in range(12))
    a = analyze_page(page(md, title="Deep Note"), count=count, max_tokens=96, overlap=16)
    assert len(a.chunks) > 4
    assert all(count(c.text) <= 96 for c in a.chunks)
    bodies = [c.text.split("\n", 1)[1] for c in a.chunks]
    for x, y in itertools.pairwise(bodies):
        assert " ".join(y.split()[:2]) in x  # overlap


def test_no_empty_chunks_and_short_text_is_one_piece():
    assert split_text("   \n ", 50, 10, estimate_tokens) == []
    assert split_text("short text", 50, 10, estimate_tokens) == ["short text"]
    md = "# T\n\n## Empty\n\n## Also Empty\n\n```\n```\n\n## Full\n\nsomething\n"
    a = analyze_page(page(md, title="T"))
    assert [c.text for c in a.chunks] == ["T › Full\nsomething"]


# --- ids ---------------------------------------------------------------------------------------------


def test_chunk_ids_are_stable_and_unique():
    md = (
        "# Notes\n\n## A\n\nSame words here.\n\n## B\n\nSame words here.\n\n## C\n\n"
        + paper_list(3)
        + "\n\n## D\n\n"
        + prose(40)
    )
    p = page(md)
    one = [c.id for c in analyze_page(p, max_tokens=80).chunks]
    two = [c.id for c in analyze_page(page(md), max_tokens=80).chunks]
    assert one == two
    assert len(set(one)) == len(one)
    # identical text in two places: different ids
    same = [c for c in analyze_page(p).chunks if c.text.endswith("Same words here.")]
    assert len(same) == 2 and same[0].id != same[1].id
    # the same page under another source (or origin) gets other ids
    other = analyze_page(page(md, source="notes/other.md"), max_tokens=80).chunks
    assert not set(one) & {c.id for c in other}


def test_editing_one_section_changes_only_its_chunk_ids():
    sections = {s: prose(6, seed=i) for i, s in enumerate("ABCD")}
    md = "# Notes\n\n" + "".join(f"## {s}\n\n{t}\n\n" for s, t in sections.items())
    before = {c.id: c.metadata["section"] for c in analyze_page(page(md), max_tokens=70).chunks}
    edited = md.replace(sections["B"], sections["B"].replace("Sentence 1-2", "Sentence edited"))
    after = {c.id: c.metadata["section"] for c in analyze_page(page(edited), max_tokens=70).chunks}
    gone = set(before) - set(after)
    new = set(after) - set(before)
    assert gone and new
    assert {before[i] for i in gone} == {"B"} and {after[i] for i in new} == {"B"}
    assert {i for i, s in before.items() if s != "B"} == {i for i, s in after.items() if s != "B"}


def test_duplicate_paper_on_one_page_gets_distinct_ids():
    md = "# Notes\n\n## X\n\n" + paper_list(1) + "\n\n## Y\n\n" + paper_list(1)
    a = analyze_page(page(md))
    ids = [c.id for c in a.chunks if c.metadata["kind"] == "paper_entry"]
    assert len(ids) == 2 and ids[0] != ids[1]


# --- metadata -----------------------------------------------------------------------------------------


def test_every_fixture_chunk_has_chroma_valid_metadata():
    r = read_path(FIXTURE_NOTES)
    chunks = [c for p in r.pages for c in analyze_page(p, site_url="https://n.example").chunks]
    kinds = {c.metadata["kind"] for c in chunks}
    assert kinds == {"paper_entry", "deep_note", "page_section", "table", "publication"}
    for c in chunks:
        check_meta(c.metadata)
        assert c.text.strip()
        assert c.text.startswith(c.metadata["page_title"])
    assert len({c.id for c in chunks}) == len(chunks)
    # paper entries whose bullet names a venue or sits on a conference page, and has a link
    papers = [c.metadata for c in chunks if c.metadata["kind"] == "paper_entry" and "site/" in c.metadata["source"]]
    assert len(papers) == 7
    for m in papers:
        assert m["paper_title"] and m["url"].startswith("https://")
        assert (m["venue"], m["year"]) in {("ToySys 2026", 2026), ("MLSys 2025", 2025)}


def test_metadata_from_odd_front_matter_and_pages_stays_valid():
    p = page(
        "Text before any heading.\n\n## Sub\n\nMore.\n",
        title="Odd",
        front_matter={"nested": {"a": {"b": 1}}, "empty": None, "list": []},
        tags=[],
        site_path="",
    )
    chunks = analyze_page(p, site_url="https://x").chunks
    assert [c.metadata["section"] for c in chunks] == ["", "Sub"]
    for c in chunks:
        check_meta(c.metadata)
        assert "page_url" not in c.metadata and "tags" not in c.metadata


def test_deep_note_chunks_carry_the_paper():
    (p,) = read_path(FIXTURE_NOTES / "site" / "reading-notes" / "conference" / "toysys-2026" / "quokka.md").pages
    a = analyze_page(p)
    assert a.is_deep_note
    assert {c.metadata["kind"] for c in a.chunks} == {"deep_note"}
    for c in a.chunks:
        check_meta(c.metadata)
        assert c.metadata["paper_title"] == p.title
        assert c.metadata["venue"] == "ToySys 2026" and c.metadata["year"] == 2026
    text = "\n".join(c.text for c in a.chunks)
    assert "# this is a comment, not a heading" in text  # fenced code kept
