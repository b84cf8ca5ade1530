"""Reading lists out: ``papers --format bibtex|csv|markdown|json|table`` and summary files.

The real-corpus tests compare each export of ``papers --venue "MLSys 2026"`` with ``papers --json``;
the crafted catalog holds every character LaTeX and spreadsheets treat specially."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import bibtexparser
import pytest
from pylatexenc.latex2text import LatexNodes2Text
from rich.console import Console

from papernotes.bot.bibtex_export import bibtex_keys, latex_text, latex_title, to_bibtex
from papernotes.bot.exports import papers_csv, papers_markdown
from papernotes.bot.render import render_papers
from papernotes.corpus.models import PaperRecord

BIN = Path(sys.executable).parent


def papernotes(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "papernotes"), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env={**os.environ, "PAPERNOTES_DATA_DIR": str(data_dir)},
    )


def rec(title: str, **kw) -> PaperRecord:
    return PaperRecord(title=title, **kw)


#: Titles with LaTeX's specials, accents, case that must stay, and names that collide as keys.
CRAFTED = [
    rec("GANs & LLMs: 100% of $5 budgets_for #1 rank", system="GANs", venue="OSDI 2026", year=2026),
    rec("Zürich's Café – naïve {braces} and back\\slash ~", venue="SOSP 2025", authors=["José Núñez", "Ann Lee"]),
    rec(
        "vLLM on H100: KV-Cache paging", system="vLLM", venue="MLSys 2026", links={"paper": "https://x.org/a?b=1%20#c"}
    ),
    rec("Another vLLM study", system="vLLM", venue="MLSys 2026", summary="Uses 50% less memory & time_to_first."),
    rec("=SUM(A1:A9) attack", venue="arXiv 2024", affiliations=["+Evil Corp"], summary="-1 cells"),
    rec("@import of things", affiliations=["Uni Ωmega"]),
    rec("中文标题 with emoji 🚀", venue="ATC 2025"),
]


def decode(tex: str) -> str:
    """LaTeX back to text (pylatexenc), spaces collapsed."""
    return " ".join(LatexNodes2Text().latex_to_text(tex).split())


def test_crafted_bibtex_parses_back_with_every_title_intact():
    text = to_bibtex(CRAFTED)
    lib = bibtexparser.parse_string(text)
    assert not lib.failed_blocks
    assert len(lib.entries) == len(CRAFTED)
    for r, e in zip(CRAFTED, lib.entries, strict=True):
        assert decode(e["title"]) == " ".join(r.title.split())  # nothing dropped, nothing changed
    keys = [e.key for e in lib.entries]
    assert len(set(keys)) == len(keys)
    assert keys[2:4] == ["vllm2026b", "vllm2026a"]  # a/b in title order: "Another…" < "vLLM on…"


def test_specials_are_escaped_and_protective_braces_are_not():
    lib = bibtexparser.parse_string(to_bibtex(CRAFTED))
    for e in lib.entries:
        for f in e.fields:
            if f.key == "url":
                continue
            # every & % $ # _ is escaped by a backslash; the braces balance
            assert not re.search(r"(?<!\\)[&%$#_]", f.value), (f.key, f.value)
            depth = 0
            for m in re.finditer(r"(?<!\\)[{}]", f.value):
                depth += 1 if m.group() == "{" else -1
                assert depth >= 0, f.value
            assert depth == 0, f.value
    first = lib.entries[0]["title"]
    assert first.startswith("{GANs} \\& {LLMs:} 100\\% of \\$5 budgets\\_for \\#1 rank")
    assert lib.entries[2]["title"] == "{vLLM} on {H100:} {KV-Cache} paging"
    assert latex_title("Efficient Serving") == "Efficient Serving"  # ordinary words are left to the style
    assert latex_text("x^2 ~ y") == "x\\textasciicircum{}2 \\textasciitilde{} y"


def test_accent_policy_latex_commands_and_utf8_kept_when_none():
    lib = bibtexparser.parse_string(to_bibtex(CRAFTED))
    accented = lib.entries[1]
    assert 'Z{\\"u}rich' in accented["title"] and "{\\textendash}" in accented["title"]
    assert accented["author"] == "Jos{\\'e} N{\\'u}{\\~n}ez and Ann Lee"
    assert accented.key == "nunez2025"
    assert all(ord(c) < 128 for c in accented["title"])
    cjk = lib.entries[6]["title"]
    assert "中文标题" in cjk and "🚀" in cjk  # no LaTeX form: kept, not dropped


def test_entry_fields_and_types():
    lib = bibtexparser.parse_string(to_bibtex(CRAFTED))
    osdi, _, vllm, other, arxiv, novenue, _ = lib.entries
    assert osdi.entry_type == "inproceedings" and osdi["booktitle"] == "{OSDI}" and osdi["year"] == "2026"
    assert vllm["url"] == "https://x.org/a?b=1%20#c"  # URLs verbatim
    assert decode(other["note"]) == "Uses 50% less memory & time_to_first."
    assert arxiv.entry_type == "misc" and arxiv["howpublished"] == "arXiv"
    assert novenue.entry_type == "misc" and "year" not in novenue.fields_dict
    assert decode(novenue["note"]) == "Uni Ωmega."


def test_keys_are_stable_whatever_the_order():
    by_title = dict(zip((r.title for r in CRAFTED), bibtex_keys(CRAFTED), strict=True))
    shuffled = CRAFTED[::-1]
    assert dict(zip((r.title for r in shuffled), bibtex_keys(shuffled), strict=True)) == by_title
    many = [rec(f"Paper {n}", system="Same", year=2024) for n in range(30)]
    keys = bibtex_keys(many)
    assert len(set(keys)) == 30 and "same2024aa" in keys


def test_csv_bom_header_and_inert_formulas():
    text = papers_csv(CRAFTED)
    assert text.startswith("\ufeff")
    rows = list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))
    assert len(rows) == len(CRAFTED)
    assert rows[4]["title"] == "'=SUM(A1:A9) attack"
    assert rows[4]["affiliations"] == "'+Evil Corp" and rows[4]["summary"] == "'-1 cells"
    assert rows[5]["title"] == "'@import of things"
    assert rows[1]["title"] == CRAFTED[1].title and rows[1]["authors"] == "José Núñez; Ann Lee"
    for row in rows:
        assert not row["title"].startswith(("=", "+", "-", "@"))


def test_markdown_escapes_markup_and_links():
    md = papers_markdown(CRAFTED, "crafted")
    assert md.startswith("# Papers — crafted")
    assert len(re.findall(r"^\d+\. ", md, re.MULTILINE)) == len(CRAFTED)
    assert "[vLLM on H100: KV-Cache paging](<https://x.org/a?b=1%20#c>)" in md
    assert "budgets\\_for \\#1" in md


def test_table_fits_the_width_and_shows_links():
    recs = [
        rec(
            f"A rather long paper title number {n} about serving",
            venue="OSDI 2026",
            links={"paper": f"https://openreview.net/forum?id=abcdef{n}"},
        )
        for n in range(3)
    ]
    for width in (60, 80, 120, 200):
        buf = io.StringIO()
        render_papers(Console(file=buf, width=width, color_system=None), recs)
        lines = buf.getvalue().splitlines()
        assert max(len(ln) for ln in lines) <= width
        assert any(ln.split("┃")[-2].strip() == "link" for ln in lines if "┃" in ln)
        # the link column, read top to bottom, holds every URL whole (folded, never cut)
        cells = "".join(ln.split("│")[-2].strip() for ln in lines if ln.startswith("│"))
        assert cells == "".join(r.url or "" for r in recs)


def test_real_corpus_exports_match_the_json_list(real_index):
    """``papers --venue "MLSys 2026"``: the BibTeX parses into as many entries as ``--json`` lists, the
    CSV has as many rows, the Markdown as many items, and ``--format json`` equals ``--json``."""
    data = real_index.data_dir
    args = ("papers", "--venue", "MLSys 2026")
    listed = json.loads(papernotes(*args, "--json", data_dir=data).stdout)
    assert len(listed) > 20
    outs = {f: papernotes(*args, "--format", f, data_dir=data) for f in ("bibtex", "csv", "markdown", "json")}
    for f, r in outs.items():
        assert r.returncode == 0 and r.stderr == "", (f, r.stderr)
    lib = bibtexparser.parse_string(outs["bibtex"].stdout)
    assert not lib.failed_blocks and len(lib.entries) == len(listed)
    assert len({e.key for e in lib.entries}) == len(listed)
    # LaTeX prints an ASCII "--" as an en dash: the one change the decoded titles may show
    titles = [" ".join(r["title"].split()).replace("---", "—").replace("--", "–") for r in listed]
    assert [decode(e["title"]) for e in lib.entries] == titles
    assert sum(1 for e in lib.entries if "url" in e.fields_dict) == sum(1 for r in listed if r["links"])
    rows = list(csv.DictReader(io.StringIO(outs["csv"].stdout.removeprefix("\ufeff"))))
    assert len(rows) == len(listed) and [r["key"] for r in rows] == [e.key for e in lib.entries]
    md = outs["markdown"].stdout
    assert len(re.findall(r"^\d+\. ", md, re.MULTILINE)) == len(listed)
    assert json.loads(outs["json"].stdout) == listed
    again = papernotes(*args, "--format", "bibtex", data_dir=data).stdout
    assert again == outs["bibtex"].stdout  # stable between exports


def test_summary_files_round_trip(fixture_index, tmp_path):
    from papernotes.bot.summary_render import summary_markdown
    from papernotes.retrieval.summarize import summarize
    from papernotes.retrieval.summarize.results import ConferenceSummary

    expected = summarize(fixture_index, "toysys26")
    data = fixture_index.data_dir
    r = papernotes("summarize", "toysys26", "--format", "json", "-o", str(tmp_path / "s.json"), data_dir=data)
    assert r.returncode == 0 and r.stdout == "" and "wrote" in r.stderr, r.stderr
    back = ConferenceSummary.from_dict(json.loads((tmp_path / "s.json").read_text(encoding="utf-8")))
    assert back.as_dict() == expected.as_dict()
    assert summary_markdown(back) == summary_markdown(expected)
    r = papernotes("summarize", "toysys26", "-o", str(tmp_path / "s.md"), data_dir=data)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "s.md").read_text(encoding="utf-8") == summary_markdown(expected) + "\n"
    r = papernotes("summarize", "toysys26", "-o", str(tmp_path / "missing" / "s.md"), data_dir=data)
    assert r.returncode != 0 and r.stderr.startswith("error: cannot write") and r.stderr.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "bad"),
    [
        (("papers", "--format"), "yaml"),
        (("papers", "--format"), "pdf"),
        (("summarize", "toysys26", "--format"), "html"),
    ],
)
def test_an_unknown_format_is_one_line_naming_the_choices(fixture_index, args, bad):
    r = papernotes(*args, bad, data_dir=fixture_index.data_dir)
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert f"'{bad}' is not one of" in r.stderr and "--format" in r.stderr and "Value error" not in r.stderr


def test_format_names_are_read_in_any_case(fixture_index):
    data = fixture_index.data_dir
    assert (
        papernotes("papers", "--format", "JSON", data_dir=data).stdout
        == papernotes("papers", "--json", data_dir=data).stdout
    )


@pytest.mark.parametrize("args", [("papers",), ("papers", "--format", "csv"), ("papers", "--format", "bibtex")])
def test_a_reader_closing_the_pipe_early_ends_the_command_quietly(real_index, args):
    """``papernotes papers | head -1`` over the real notes (far more than a pipe's 64 KiB buffer, so the
    command is still writing when the reader leaves): exit 0, nothing on stderr."""
    env = dict(os.environ, PAPERNOTES_DATA_DIR=str(real_index.data_dir), COLUMNS="80")
    proc = subprocess.Popen([str(BIN / "papernotes"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `head -1` does
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and first and stderr == b"", stderr
