"""Conference summaries: completeness against the raw notes (expected titles are extracted here from
the page text, not from the tool), grouping and order, header facts, bad input, the CLI contract, and
the map-reduce path against a real loopback OpenAI-compatible server."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, REAL_CORPUS, make_settings

from papernotes.corpus.errors import BadInputError

BIN = Path(sys.executable).parent
TOY_README = FIXTURE_NOTES / "site" / "reading-notes" / "conference" / "toysys-2026" / "README.md"


def run_cli(*args: str, data_dir: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "papernotes"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PAPERNOTES_DATA_DIR": str(data_dir)},
    )


def model_settings(data_dir: Path, server, **kw):
    """Settings of ``data_dir`` with ``server`` (an OpenAICompatServer) as the model endpoint."""
    return make_settings(data_dir, openai_base_url=server.base_url, openai_api_key="test", llm_model="test-model", **kw)


def key(title: str) -> str:
    return re.sub(r"[^a-z0-9]", "", title.lower())


# --- an independent reading of the raw notes ----------------------------------------------------------


def dump_pages() -> dict[str, list[str]]:
    """The seeds/003 one-file dump split at lines starting with "# " → {page title: lines}."""
    text = next((REAL_CORPUS / "seeds").glob("003_*.txt")).read_text(encoding="utf-8")
    pages: dict[str, list[str]] = {}
    title = None
    for line in text.splitlines():
        if line.startswith("# "):
            title = line[2:].strip()
            pages.setdefault(title, [])
        elif title is not None:
            pages[title].append(line)
    return pages


LLM_HEADING = re.compile(r"^### (?:Large Language Models \(LLMs\)|LLMs?)\s*$")
BULLET = re.compile(r"^(\s*)[*-] (.+)$")


def section_lines(lines: list[str], heading: re.Pattern[str]) -> list[str]:
    """Lines under a "### " heading matching ``heading`` until the next "## "/"### " heading."""
    out, on = [], False
    for ln in lines:
        if ln.startswith("## ") or ln.startswith("### "):
            on = bool(heading.match(ln))
        elif on:
            out.append(ln)
    return out


def acceptance_rate(page: str) -> str:
    """The first line under a page's "### Acceptance Rate" heading."""
    m = re.search(r"### Acceptance Rate\s+(\S.*)", page)
    assert m, "no Acceptance Rate section"
    return m.group(1).strip()


def paper_bullets(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Paper bullets: a bullet whose next bullet is deeper and a leaf (its affiliation line).
    Returns ``[(title, [enclosing topic bullets])]`` in page order."""
    bl = [(len(m.group(1)), m.group(2).strip()) for ln in lines if (m := BULLET.match(ln))]
    out: list[tuple[str, list[str]]] = []
    stack: list[tuple[int, str]] = []  # (depth, topic bullet text)
    for i, (d, text) in enumerate(bl):
        while stack and stack[-1][0] >= d:
            stack.pop()
        nxt = bl[i + 1] if i + 1 < len(bl) else None
        if nxt and nxt[0] > d and (i + 2 >= len(bl) or bl[i + 2][0] <= nxt[0]):
            title = re.sub(r"\s*\\?\[\[.*$", "", text).replace("\\", "").replace("*", "").strip()
            if not title.endswith(":"):
                out.append((title, [t for _, t in stack]))
        elif nxt and nxt[0] > d:
            stack.append((d, text))
    return out


# --- fixture notes: fast unit tests -------------------------------------------------------------------


def test_fixture_llm_section_complete_grouped_in_order(fixture_index):
    from papernotes.retrieval.summarize import summarize

    lines = TOY_README.read_text(encoding="utf-8").splitlines()
    expected = paper_bullets(section_lines(lines, re.compile(r"^### Large Language Models")))
    assert len(expected) == 3
    s = summarize(fixture_index, "toysys-2026")
    assert s.venue == "ToySys 2026" and s.topic == "llm" and s.mode == "extractive"
    assert [key(p.title) for p in s.papers] == [key(t) for t, _ in expected]  # all, in page order
    assert [p.n for p in s.papers] == list(range(1, len(expected) + 1))
    # groups are the notes' own bullets under the LLM heading
    assert [g.name for g in s.groups] == list(dict.fromkeys(" › ".join(path) for _, path in expected))
    # the Storage paper of the same page is not on the topic; the venue total counts it
    storage = paper_bullets(section_lines(lines, re.compile(r"^### Storage")))
    assert storage and key(storage[0][0]) not in {key(p.title) for p in s.papers}
    assert s.total_papers == len(expected) + len(storage)
    rate = acceptance_rate(TOY_README.read_text(encoding="utf-8"))
    assert s.acceptance_rate == rate
    assert s.homepage == "https://toysys.example.org/2026"
    row = next(
        ln
        for ln in (FIXTURE_NOTES / "site" / "README.md").read_text(encoding="utf-8").splitlines()
        if ln.startswith("| [ToySys 2026]")
    )
    assert [s.when, s.where] == [c.strip() for c in row.strip().strip("|").split("|")][1:3]
    assert "without a model" in s.overview


def test_fixture_json_contract_and_markdown(fixture_index):
    from papernotes.bot.summary_render import summary_markdown
    from papernotes.retrieval.summarize import summarize

    s = summarize(fixture_index, "ToySys '26", topic="LLMs")
    d = s.as_dict()
    assert {"venue", "topic", "paper_count", "groups", "overview", "mode"} <= set(d)
    assert d["paper_count"] == sum(len(g["papers"]) for g in d["groups"]) == 3
    for g in d["groups"]:
        assert set(g) >= {"name", "papers"}
        for p in g["papers"]:
            assert set(p) >= {"title", "system", "affiliations", "summary", "url", "sources"}
    quokka = next(p for g in d["groups"] for p in g["papers"] if p["title"].startswith("Quokka"))
    assert quokka["affiliations"] == ["Tasmania Uni", "Wombat Labs"]
    assert quokka["url"] == "https://example.org/quokka"
    assert any(src.endswith("toysys-2026/README.md") for src in quokka["sources"])
    md = summary_markdown(s)
    for p in s.papers:
        assert f"[{p.n}] " in md and p.title in md
    assert "<https://example.org/quokka>" in md and "### Sources" in md
    json.dumps(d)  # serializable


def test_rich_rendering_has_papers_markers_sources(fixture_index):
    from rich.console import Console

    from papernotes.bot.summary_render import render_summary
    from papernotes.retrieval.summarize import summarize

    s = summarize(fixture_index, "toysys26")
    buf = io.StringIO()
    render_summary(Console(file=buf, width=200, color_system=None), s)
    text = buf.getvalue()
    for p in s.papers:
        assert f"[{p.n}]" in text and p.title in text
    assert "Sources" in text and "https://example.org/echidna" in text and "Tasmania Uni" in text
    assert "Overview" in text and "12.5%" in text


@pytest.mark.parametrize("venue, close", [("ToySys 2025", "ToySys 2026"), ("mlsys24", "MLSys 2025")])
def test_unknown_venue_suggests_the_series_other_years(fixture_index, venue, close):
    from papernotes.retrieval.summarize import summarize

    with pytest.raises(BadInputError) as e:
        summarize(fixture_index, venue)
    msg = str(e.value)
    assert "\n" not in msg and "unknown venue" in msg and close in msg


def test_not_a_venue_is_bad_input(fixture_index):
    from papernotes.retrieval.summarize import summarize

    with pytest.raises(BadInputError, match="not a venue"):
        summarize(fixture_index, "wombat burrows")


def test_venue_without_topic_papers_reports_total(fixture_index):
    from papernotes.corpus.catalog import load_catalog
    from papernotes.retrieval.summarize import summarize

    total = sum(1 for r in load_catalog(fixture_index.catalog_path) if r.venue == "MLSys 2025")
    assert total >= 1
    s = summarize(fixture_index, "MLSys 2025")  # Numbat: a KV-storage paper, not on LLMs
    assert s.paper_count == 0 and s.groups == [] and s.total_papers == total
    assert s.message and "\n" not in s.message and f"{total} paper" in s.message and "MLSys 2025" in s.message


def test_venue_without_listing_page_works_from_catalog(fixture_index):
    """MLSys 2025 has no conference page in the fixture: its paper is known from a topic list only."""
    from papernotes.retrieval.summarize import summarize

    s = summarize(fixture_index, "mlsys-2025", topic="kv cache")
    assert s.topic == "kv-cache"
    assert [p.title.split(":")[0] for p in s.papers] == ["Numbat"]
    assert s.groups[0].name == "KV Cache"  # the topic page's own heading
    assert s.acceptance_rate is None and s.homepage is None  # no venue page
    assert s.when == "May 12-15, 2025"  # but the calendar has a row for it


def test_topic_table_and_free_text_topics():
    from papernotes.retrieval.summarize.topics import TOPICS, resolve_topic

    assert resolve_topic("Mixture of Experts").key == "moe"
    assert resolve_topic("large_language_models").key == "llm"
    assert resolve_topic("RLHF").key == "rl"
    for k in ("llm", "diffusion", "moe", "rl"):
        assert k in TOPICS and TOPICS[k].headings.pattern and TOPICS[k].text.pattern
    llm = TOPICS["llm"]
    for heading in ("Large Language Models (LLMs)", "LLM Inference", "LLM", "Large Language Model (LLM)"):
        assert llm.headings.search(heading), heading
    assert not llm.headings.search("Resource Management")
    assert not TOPICS["rl"].text.search("a controller for the URL shortener")  # "RL" only as an acronym
    free = resolve_topic("wombat")
    assert not free.known and free.text.search("Wombat Labs") and not free.text.search("wombatting")
    # singular and plural alike: "--topic databases" finds the heading "Database"
    assert free.text.search("wombats") and resolve_topic("databases").headings.search("Distributed Database")
    assert resolve_topic("gpus").text.search("GPU sharing") and not resolve_topic("class").text.search("cla")
    with pytest.raises(BadInputError):
        resolve_topic("  ")


def test_no_index_is_index_missing(tmp_path):
    from papernotes.retrieval.errors import IndexMissingError
    from papernotes.retrieval.summarize import summarize

    with pytest.raises(IndexMissingError, match="papernotes ingest"):
        summarize(make_settings(tmp_path / "empty"), "ToySys 2026")


def test_cli_exit_codes(fixture_index):
    r = run_cli("summarize", "ToySys 2025", data_dir=fixture_index.data_dir)
    assert r.returncode == 2
    assert (
        r.stderr.strip().count("\n") == 0 and r.stderr.startswith("error: unknown venue") and "ToySys 2026" in r.stderr
    )
    r = run_cli("summarize", "MLSys 2025", data_dir=fixture_index.data_dir)
    assert r.returncode == 0, r.stderr
    assert "No papers on LLMs at MLSys 2025" in r.stdout and "1 paper" in r.stdout


def test_model_failure_falls_back_with_note(fixture_index):
    from openai_server import OpenAICompatServer, ServerError

    from papernotes.retrieval.summarize import summarize

    with OpenAICompatServer() as server:
        server.default = ServerError(500)
        s = model_settings(fixture_index.data_dir, server, llm_max_retries=0, llm_timeout=10)
        out = summarize(s, "toysys26")
        assert len(server.chat_requests()) >= 1
    assert out.mode == "extractive" and out.note and "model not used" in out.note and "500" in out.note
    assert "without a model" in out.overview and out.paper_count == 3
    assert all(g.summary is None for g in out.groups)


# --- the real corpus ------------------------------------------------------------------------------------

REAL_VENUES = ["MLSys 2026", "OSDI 2026", "HPCA 2026", "SOSP 2026", "NSDI 2026", "EuroSys 2026"]


def test_real_llm_sections_are_listed_completely_and_in_order(real_index):
    from papernotes.retrieval.summarize import summarize

    pages = dump_pages()
    for venue in REAL_VENUES:
        expected = [t for t, _ in paper_bullets(section_lines(pages[venue], LLM_HEADING))]
        assert len(expected) >= 8, venue
        s = summarize(real_index, venue)
        got = [key(p.title) for p in s.papers]
        missing = [t for t in expected if key(t) not in got]
        assert not missing, f"{venue}: {missing}"
        # the notes' order: expected papers appear in the summary in page order
        positions = [got.index(key(t)) for t in expected]
        assert positions == sorted(positions), venue
        assert s.paper_count == len(got) == len(set(got))  # each paper once


def test_real_groups_follow_the_conference_page(real_index):
    from papernotes.retrieval.summarize import summarize

    pages = dump_pages()
    expected = paper_bullets(section_lines(pages["MLSys 2026"], LLM_HEADING))
    s = summarize(real_index, "mlsys26")
    by_title = {key(p.title): g.name for g in s.groups for p in g.papers}
    for title, path in expected:
        assert by_title[key(title)] == " › ".join(path), title
    assert s.groups[0].name == " › ".join(expected[0][1])  # page order, not catalog (topic-page) order


def test_real_header_facts_from_calendar_and_venue_page(real_index):
    from papernotes.retrieval.summarize import summarize

    pages = dump_pages()
    row = next(ln for ln in pages["Conference"] if re.match(r"^\|\s*\[MLSys 2026\]", ln))
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    rate = acceptance_rate("\n".join(pages["MLSys 2026"]))
    s = summarize(real_index, "MLSys 2026")
    assert (s.when, s.where) == (cells[1], cells[2])
    assert s.acceptance_rate == rate


def test_real_other_topics(real_index):
    from papernotes.retrieval.summarize import summarize

    pages = dump_pages()
    rl = [t for t, path in paper_bullets(section_lines(pages["OSDI 2026"], LLM_HEADING)) if "RL Post-Training" in path]
    s = summarize(real_index, "osdi26", topic="rl")
    got = {key(p.title) for p in s.papers}
    assert rl and {key(t) for t in rl} <= got
    moe = summarize(real_index, "sosp25", topic="moe")
    assert moe.paper_count >= 1
    assert all(re.search(r"moe|mixture|expert", f"{p.title} {p.summary} {p.section}", re.I) for p in moe.papers)


def test_real_markdown_lines_fit_discord(real_index):
    from papernotes.bot.summary_render import summary_markdown
    from papernotes.retrieval.summarize import summarize

    md = summary_markdown(summarize(real_index, "MLSys 2026"))
    assert max(len(ln) for ln in md.splitlines()) <= 2000


def test_cli_json_shape(real_index):
    r = run_cli("summarize", "mlsys26", "--json", data_dir=real_index.data_dir)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert {"venue", "topic", "paper_count", "groups", "overview", "mode"} <= set(d)
    assert d["venue"] == "MLSys 2026" and d["topic"] == "llm" and d["mode"] == "extractive"
    assert d["paper_count"] == sum(len(g["papers"]) for g in d["groups"]) > 0
    for g in d["groups"]:
        assert isinstance(g["name"], str) and g["name"]
        for p in g["papers"]:
            assert set(p) >= {"title", "system", "affiliations", "summary", "url", "sources"}
            assert isinstance(p["affiliations"], list) and isinstance(p["sources"], list) and p["sources"]


def test_map_reduce_against_openai_compatible_server(real_index):
    """Real HTTP, the real openai client through ChatOpenAI: a small context forces several map calls
    per big group; every request fits the budget; invalid markers in the replies are dropped."""
    from langchain_core.messages import HumanMessage, SystemMessage
    from openai_server import OpenAICompatServer, Reply

    from papernotes.bot.summary_render import summary_markdown
    from papernotes.retrieval.prompt_builder import messages_tokens, prompt_budget
    from papernotes.retrieval.prompts import MAP_SYSTEM, REDUCE_SYSTEM
    from papernotes.retrieval.summarize import summarize

    def markers(text: str) -> list[int]:
        return [int(x) for x in re.findall(r"\[(\d+)\]", text)]

    def respond(messages: list[dict]) -> str:
        system, user = messages[0]["content"], messages[-1]["content"]
        ns = markers(user)
        if system == MAP_SYSTEM:
            return f"These papers share a theme [{ns[0]}][{ns[-1]}], unlike [9999] and [0]."
        return f"Across groups the notes cover many systems [{ns[0]}] and [{max(ns)}], but not [123456]."

    with OpenAICompatServer() as server:
        server.default = Reply(responder=respond)
        s = model_settings(real_index.data_dir, server, llm_context_tokens=512, llm_answer_tokens=128)
        out = summarize(s, "MLSys 2026")
        reqs = server.chat_requests()
    bodies = [r["body"] for r in reqs]
    maps = [b for b in bodies if b["messages"][0]["content"] == MAP_SYSTEM]
    reduces = [b for b in bodies if b["messages"][0]["content"] == REDUCE_SYSTEM]
    assert out.mode == "llm" and out.note is None
    assert len(maps) + len(reduces) == len(bodies) == out.model_calls
    assert len(maps) > len(out.groups) and len(reduces) >= 1
    assert bodies[-1]["messages"][0]["content"] == REDUCE_SYSTEM
    budget = prompt_budget(s)
    for b in bodies:
        msgs = [SystemMessage(b["messages"][0]["content"]), HumanMessage(b["messages"][-1]["content"])]
        assert messages_tokens(msgs) <= budget
    # every paper goes to exactly one map request; a big group was split over several
    seen = [n for b in maps for n in markers(b["messages"][-1]["content"])]
    n_papers = out.paper_count
    assert sorted(seen) == list(range(1, n_papers + 1))
    biggest = max(out.groups, key=lambda g: len(g.papers))
    holders = [b for b in maps if {p.n for p in biggest.papers} & set(markers(b["messages"][-1]["content"]))]
    assert len(holders) >= 2
    # invalid markers dropped; what remains points to papers (map summaries: to the group's own papers)
    assert out.dropped_citations >= 2 * len(maps)
    for g in out.groups:
        assert g.summary and set(markers(g.summary)) <= {p.n for p in g.papers}
    assert markers(out.overview) and set(markers(out.overview)) <= set(range(1, n_papers + 1))
    assert "[9999]" not in summary_markdown(out) and "[123456]" not in out.overview


def test_real_one_liners_say_more_than_the_papers_name(real_index):
    # a listing's bold name over its notes ("**Sarathi-Serve**") is no one-liner: another listing's notes
    # give it, and a paper the notes only name shows no one-liner at all ("…: Tensor Language Model (TLM)")
    from papernotes.corpus.catalog import names_only
    from papernotes.corpus.models import PaperRecord
    from papernotes.retrieval.summarize import summarize

    for venue in ("OSDI 2024", *REAL_VENUES):
        for p in summarize(real_index, venue).papers:
            words = set(re.findall(r"[^\W_]+", p.summary.casefold()))
            names = set(re.findall(r"[^\W_]+", f"{p.title} {p.system or ''}".casefold()))
            assert not (words and words <= names), (venue, p.title, p.summary)
    sarathi = next(p for p in summarize(real_index, "OSDI 2024").papers if "Sarathi-Serve" in p.title)
    assert "chunk" in sarathi.summary.casefold()
    assert names_only(
        "Tensor Language Model (TLM)", PaperRecord(title="Enabling Tensor Language Model …", system="TLM")
    )
    assert not names_only("Pages the KV cache", PaperRecord(title="Efficient Memory Management", system="vLLM"))
