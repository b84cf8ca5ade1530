"""Tests for corpus.catalog (with corpus.papers and corpus.venues): one record per paper merged over a
topic page, a conference page and a deep note; venue spellings; system names; affiliations; links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from papernotes.corpus.catalog import build_catalog, filter_records, load_catalog, save_catalog
from papernotes.corpus.chunking import analyze_page
from papernotes.corpus.note_opening import author_list
from papernotes.corpus.papers import split_authors, system_name, title_key
from papernotes.corpus.readers import read_path
from papernotes.corpus.venues import find_venues, normalize_venue


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def make_notes(root: Path) -> Path:
    """A GitBook with the same paper on a topic page, a conference page and in a deep note, each
    spelling its title and venue differently."""
    write(
        root,
        "SUMMARY.md",
        "# Table of contents\n\n* [Storage Systems](paper-list/storage.md)\n"
        "* [OSDI 2026](reading-notes/conference/osdi-2026/README.md)\n"
        "  * [Kelpie](reading-notes/conference/osdi-2026/kelpie.md)\n",
    )
    write(
        root,
        "paper-list/storage.md",
        "# Storage Systems\n\n## Key-Value Stores\n\n"
        "* **Kelpie**: Crash-Consistent Key-Value Storage on Zoned SSDs (OSDI '26) "
        "\\[[Paper](https://osdi.example/kelpie)] \\[[Code](https://github.com/example/kelpie)]\n"
        "  * Loch University & Selkie Labs\n"
        "  * Log-structured merge tree laid out per zone.\n"
        "* Otter Tiering for Cold Blobs (osdi26) \\[[arXiv](https://arxiv.org/abs/2601.11111)]\n"
        "  * Kelp Corp.\n"
        "* Efficient Sharding with **Shardy** and Friends (OSDI-2026) \\[[Paper](https://osdi.example/shardy)]\n"
        "  * Tide University\n",
    )
    write(
        root,
        "reading-notes/conference/osdi-2026/README.md",
        "# OSDI 2026\n\n## Papers\n\n### Storage\n\n"
        "* KELPIE — crash consistent key value storage on zoned SSDs "
        "\\[[Paper](https://osdi.example/kelpie-alt)] \\[[Personal Notes](/reading-notes/conference/osdi-2026/kelpie)]\n"
        "  * Loch University & Kelp Corp.\n"
        "* Otter Tiering for Cold Blobs \\[[Paper](https://osdi.example/otter)]\n"
        "  * Kelp Corp.\n",
    )
    write(
        root,
        "reading-notes/conference/osdi-2026/kelpie.md",
        "---\ndescription: '#zoned_storage #kv_store'\n---\n\n"
        "# Kelpie: Crash-Consistent Key-Value Storage on Zoned SSDs\n\n## Meta Info\n\n"
        "Presented in [OSDI 2026](https://osdi.example/kelpie-talk).\n\n"
        "Authors: Ann Otter, Ben Seal (_Loch University & Selkie Labs_)\n\n"
        "## Understanding the paper\n\n### TL;DR\n\n**Kelpie** maps LSM levels onto zones.\n",
    )
    return root


def catalog_of(root: Path):
    entries = []
    for p in read_path(root).pages:
        entries += analyze_page(p).entries
    return build_catalog(entries)


def test_one_record_per_paper_merged_over_three_sources(tmp_path):
    recs = catalog_of(make_notes(tmp_path / "notes"))
    kelpie = [r for r in recs if "kelpie" in title_key(r.title)]
    assert len(kelpie) == 1
    (k,) = kelpie
    assert k.title == "Kelpie: Crash-Consistent Key-Value Storage on Zoned SSDs"  # the listing's casing
    assert k.sources == [
        "notes/paper-list/storage.md",
        "notes/reading-notes/conference/osdi-2026/README.md",
        "notes/reading-notes/conference/osdi-2026/kelpie.md",
    ]
    assert k.deep_note == "notes/reading-notes/conference/osdi-2026/kelpie.md"
    assert (k.venue, k.year) == ("OSDI 2026", 2026)
    assert k.system == "Kelpie"
    assert k.affiliations == ["Loch University", "Selkie Labs", "Kelp Corp."]
    assert k.authors == ["Ann Otter", "Ben Seal"]
    # first place that gives a link of a kind wins; other kinds are added
    assert k.links == {
        "paper": "https://osdi.example/kelpie",
        "code": "https://github.com/example/kelpie",
        "personal notes": "/reading-notes/conference/osdi-2026/kelpie",
    }
    assert k.summary == "Log-structured merge tree laid out per zone."
    assert k.topics == ["Storage Systems › Key-Value Stores", "OSDI 2026 › Papers › Storage"]
    assert set(k.tags) == {"zoned_storage", "kv_store"}
    assert len({title_key(r.title) for r in recs}) == len(recs) == 3


def test_venue_spellings_on_entries_merge_into_one_venue(tmp_path):
    recs = catalog_of(make_notes(tmp_path / "notes"))
    assert {r.venue for r in recs} == {"OSDI 2026"}
    assert len(filter_records(recs, venue="osdi26")) == 3
    assert len(filter_records(recs, venue="OSDI '26", year=2026)) == 3
    assert filter_records(recs, venue="SOSP 2026") == []


@pytest.mark.parametrize(
    "spelling",
    ["OSDI '26", "osdi-2026", "OSDI 2026", "osdi26", "OSDI’26", "Osdi_2026", "(OSDI 2026)", "Presented in OSDI 2026."],
)
def test_venue_spellings_normalize_to_one(spelling):
    assert normalize_venue(spelling) == "OSDI 2026"


def test_venue_normalization_details():
    assert (
        normalize_venue("USENIX ATC 2024") == "USENIX ATC 2024" == normalize_venue("atc'24")
    )  # as USENIX and DBLP name it
    assert normalize_venue("eurosys25") == "EuroSys 2025"
    assert normalize_venue("nips 2019") == "NeurIPS 2019"
    assert normalize_venue("no venue here") is None
    assert find_venues("SC 25 nodes, then SC'23 and OSDI 2024") == ["SC 2023", "OSDI 2024"]
    # a series the module does not know: one venue however it is written
    assert len({(normalize_venue(v) or "").casefold() for v in ("ToySys 2026", "toysys-2026", "ToySys '26")}) == 1


def test_unknown_venue_spellings_get_one_spelling_in_the_catalog(tmp_path):
    write(tmp_path / "n", "a.md", "# A\n\n* Zed: A Paper (toysys-2026) \\[[Paper](https://z)]\n  * Zed Lab\n")
    write(tmp_path / "n", "b.md", "# B\n\n* Yak: Another Paper (ToySys 2026) \\[[Paper](https://y)]\n  * Yak Lab\n")
    recs = catalog_of(tmp_path / "n")
    assert sorted(r.venue for r in recs) == ["ToySys 2026", "ToySys 2026"]


def test_titles_match_case_and_punctuation_insensitively():
    assert title_key("Kelpie: Crash-Consistent Key-Value Storage") == title_key(
        "KELPIE — crash consistent key value storage"
    )
    assert title_key("Zürich Paper") == title_key("zurich paper")
    assert title_key("Kelpie A") != title_key("Kelpie B")
    assert title_key("大模型推理") == "大模型推理"  # non-Latin titles still have a key


def test_non_latin_title_paper_is_in_the_catalog(tmp_path):
    write(
        tmp_path / "n",
        "a.md",
        "# 笔记\n\n* 大模型推理系统：键值缓存 (OSDI 2026) \\[[Paper](https://cn.example/1)]\n  * 某大学\n",
    )
    (r,) = catalog_of(tmp_path / "n")
    assert r.title == "大模型推理系统：键值缓存" and r.venue == "OSDI 2026"


def test_system_name_from_prefix_or_bold():
    assert system_name("Kelpie: Crash-Consistent Storage", []) == "Kelpie"
    assert system_name("Efficient Sharding with Shardy and Friends", ["Shardy"]) == "Shardy"
    assert system_name("A Very Long Prefix That Is Not A Name: Subtitle", []) is None
    assert system_name("No Name Here", ["Best Paper Award"]) is None
    assert system_name("BYOL", ["模型坍塌", "BYOL"]) == "BYOL"  # a bold Chinese phrase is no name
    assert system_name("Bootstrap Your Own Latent", ["表征学习"]) is None


@pytest.mark.parametrize(
    ("line", "authors"),
    [
        ("Ashish Vaswani, Noam Shazeer, Niki Parmar 等", ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"]),
        ("Tom Brown, Ben Mann et al.", ["Tom Brown", "Ben Mann"]),
        ("Tom Brown, Ben Mann, et al", ["Tom Brown", "Ben Mann"]),
        ("Alec Radford, Gabriel Goh, et al. (OpenAI).", ["Alec Radford", "Gabriel Goh"]),
        ("张三、李四等人", ["张三", "李四"]),
        ("Ada Lovelace and Alan Turing", ["Ada Lovelace", "Alan Turing"]),
    ],
)
def test_split_authors_leaves_out_et_al(line, authors):
    assert split_authors(line)[0] == authors


@pytest.mark.parametrize(
    ("line", "authors", "affiliations"),
    [
        # the byline's next sentence (an award, a venue, a date, a remark) is no author's
        (
            "Ben Poole, Ajay Jain, Jonathan T. Barron, Ben Mildenhall (Google Research, UC Berkeley). "
            "Outstanding Paper Award at ICLR 2023.",
            ["Ben Poole", "Ajay Jain", "Jonathan T. Barron", "Ben Mildenhall"],
            ["Google Research", "UC Berkeley"],
        ),
        (
            "Elias Frantar, Dan Alistarh (IST Austria). Published at ICLR 2023.",
            ["Elias Frantar", "Dan Alistarh"],
            ["IST Austria"],
        ),
        ("Jared Kaplan, Dario Amodei (OpenAI). OpenAI, January 2020.", ["Jared Kaplan", "Dario Amodei"], ["OpenAI"]),
        (
            "Woosuk Kwon, Ion Stoica (UC Berkeley). Also on arXiv: https://arxiv.org/abs/2309.06180",
            ["Woosuk Kwon", "Ion Stoica"],
            ["UC Berkeley"],
        ),
        ("Gyeong-In Yu, Byung-Gon Chun (SNU). OSDI '22", ["Gyeong-In Yu", "Byung-Gon Chun"], ["SNU"]),
        # a place after a dash, dot or bar is the affiliation; a venue, link or "pdf" is not
        (
            "Jonathan Ho, Ajay Jain, Pieter Abbeel — UC Berkeley",
            ["Jonathan Ho", "Ajay Jain", "Pieter Abbeel"],
            ["UC Berkeley"],
        ),
        (
            "Tim Dettmers, Luke Zettlemoyer — University of Washington. Presented at NeurIPS",
            ["Tim Dettmers", "Luke Zettlemoyer"],
            ["University of Washington"],
        ),
        ("Jane Doe, Bob Lee — ICLR 2031", ["Jane Doe", "Bob Lee"], []),
        (
            "Diego Ongaro & John Ousterhout, Stanford · USENIX ATC 2014 (Best Paper) · [pdf](https://x.org/p) · https://raft.github.io",
            ["Diego Ongaro", "John Ousterhout"],
            ["Stanford"],
        ),
        # full-width brackets; a bracket that counts or dates is no place
        ("Ruoyu Qin 等（月之暗面 Moonshot AI、清华大学）", ["Ruoyu Qin"], ["月之暗面 Moonshot AI", "清华大学"]),
        (
            "Jordan Hoffmann, Aidan Clark, et al. (22 authors, Laurent Sifre last)",
            ["Jordan Hoffmann", "Aidan Clark"],
            [],
        ),
        ("Ann Bee, Cy Dee (NeurIPS 2023)", ["Ann Bee", "Cy Dee"], []),
        # an initial's period, "Jr." and a period inside brackets end nothing
        (
            "Guy L. Steele Jr., Ann St. John (Univ. of Nowhere). NeurIPS 2020",
            ["Guy L. Steele Jr", "Ann St. John"],
            ["Univ. of Nowhere"],
        ),
        ("J. J. Furman, James C. Corbett (Google)", ["J. J. Furman", "James C. Corbett"], ["Google"]),
        # the names end at a part no name is written as; a semicolon after the bracket ends the byline
        (
            "Diederik P. Kingma and Jimmy Ba (University of Amsterdam, OpenAI), published at ICLR 2015, cited 150k+ times",
            ["Diederik P. Kingma", "Jimmy Ba"],
            ["University of Amsterdam", "OpenAI"],
        ),
        (
            "Albert Gu and Tri Dao (Carnegie Mellon University, Princeton University); code: https://x.org/m; December 2023",
            ["Albert Gu", "Tri Dao"],
            ["Carnegie Mellon University", "Princeton University"],
        ),
        (
            "Rafailov, Sharma, Finn (Stanford); NeurIPS 2023 oral; 1,200 citations",
            ["Rafailov", "Sharma", "Finn"],
            ["Stanford"],
        ),
        ("Bob Lee; Ann Bee (Google)", ["Bob Lee", "Ann Bee"], ["Google"]),
        # a bracket already said where they work: what follows a bar is no place
        (
            "Alexey Dosovitskiy, Lucas Beyer (Google Research, Brain Team) | Best paper honorable mention | 2021-05-03",
            ["Alexey Dosovitskiy", "Lucas Beyer"],
            ["Google Research", "Brain Team"],
        ),
        # "By" opens the byline; a name particle is part of the name
        ("By Edward J. Hu, Yelong Shen et al. — Microsoft, ICLR 2022", ["Edward J. Hu", "Yelong Shen"], ["Microsoft"]),
        ("Wil van der Aalst, Jane Doe (TU Eindhoven)", ["Wil van der Aalst", "Jane Doe"], ["TU Eindhoven"]),
    ],
)
def test_split_authors_stops_where_the_byline_says_something_else(line, authors, affiliations):
    assert split_authors(line) == (authors, affiliations)


@pytest.mark.parametrize(
    "line",
    [
        "Jane Doe, John Roe (MIT). Best Paper Award at EuroSys 2023.",
        "By Jane Doe, John Roe",
        "Albert Gu and Tri Dao (CMU, Princeton); code: https://x.org/m",
        "Wil van der Aalst, Jane Doe (TU Eindhoven)",
    ],
)
def test_an_author_list_is_judged_up_to_where_its_byline_says_something_else(line):
    assert author_list(line)


def test_system_names_and_affiliations_from_notes(tmp_path):
    recs = {title_key(r.title): r for r in catalog_of(make_notes(tmp_path / "notes"))}
    shardy = recs[title_key("Efficient Sharding with Shardy and Friends")]
    assert shardy.system == "Shardy"  # the bold name
    assert shardy.affiliations == ["Tide University"]
    otter = recs[title_key("Otter Tiering for Cold Blobs")]
    assert otter.system is None  # no ":" prefix and no bold name
    assert otter.affiliations == ["Kelp Corp."]
    assert otter.links == {"arxiv": "https://arxiv.org/abs/2601.11111", "paper": "https://osdi.example/otter"}
    assert otter.venue == "OSDI 2026"  # a conference page's venue beats no venue


def test_fixture_catalog_quokka(tmp_path):
    from conftest import FIXTURE_NOTES

    recs = catalog_of(FIXTURE_NOTES)
    (q,) = [r for r in recs if r.title.startswith("Quokka")]
    assert len(q.sources) == 3 and q.deep_note and q.deep_note.endswith("quokka.md")
    assert (q.venue, q.year, q.system) == ("ToySys 2026", 2026, "Quokka")
    assert q.affiliations == ["Tasmania Uni", "Wombat Labs"]


def test_save_and_load_round_trip(tmp_path):
    recs = catalog_of(make_notes(tmp_path / "notes"))
    path = tmp_path / "data" / "catalog.json"
    save_catalog(recs, path)
    assert load_catalog(path) == recs
    assert load_catalog(tmp_path / "missing.json") == []


def test_deep_note_with_a_differently_worded_title_joins_its_listing():
    from papernotes.corpus.catalog import build_catalog
    from papernotes.corpus.models import PaperEntry

    listing = PaperEntry(
        title="FlexGen: High-Throughput Generative Inference of LLMs with a Single GPU",
        kind="paper_entry",
        source="topics.md",
        page_title="LLM",
        venue="ICML 2023",
        links={"personal notes": "/reading-notes/misc/2023/flexgen"},
    )
    by_link = PaperEntry(
        title="High-throughput generative inference of large language models with a single GPU",
        kind="deep_note",
        source="flexgen.md",
        page_title="x",
        venue="ICML 2023",
        site_path="reading-notes/misc/2023/flexgen",
    )
    listing2 = PaperEntry(
        title="EVStore: Storage and Caching Capabilities for Embedding Tables Systems",
        kind="paper_entry",
        source="dlrm.md",
        page_title="DLRM",
        venue="ASPLOS 2023",
    )
    by_prefix = PaperEntry(
        title="EVStore: Storage and caching capabilities for embedding tables system",
        kind="deep_note",
        source="evstore.md",
        page_title="y",
        venue="ASPLOS 2023",
    )
    other_venue = PaperEntry(
        title="EVStore: something else entirely", kind="deep_note", source="z.md", page_title="z", venue="OSDI 2020"
    )
    recs = build_catalog([by_link, listing, by_prefix, listing2, other_venue])
    assert len(recs) == 3
    flex = next(r for r in recs if r.title.startswith("FlexGen"))
    assert flex.deep_note == "flexgen.md" and set(flex.sources) == {"topics.md", "flexgen.md"}
    ev = next(r for r in recs if r.venue == "ASPLOS 2023")
    assert ev.deep_note == "evstore.md" and len(ev.sources) == 2


def _entry(title: str, source: str, venue: str | None = None, **links: str):
    from papernotes.corpus.models import PaperEntry
    from papernotes.corpus.venues import split_venue

    return PaperEntry(
        title=title,
        kind="paper_entry",
        source=source,
        page_title=source,
        venue=venue,
        year=split_venue(venue)[1] if venue else None,
        links=dict(links),
    )


def test_one_paper_under_two_system_names_is_one_record_named_by_the_later_place():
    doi = "https://dl.acm.org/doi/10.1145/1234567.7654321"
    early = _entry("OldName: Serving Many Adapters Cheaply", "topic.md", "arXiv 2024", paper=doi)
    late = _entry(
        "NewName: Serving Many Adapters Cheaply",
        "conf.md",
        "OSDI 2025",
        paper="https://doi.org/10.1145/1234567.7654321",
    )
    warnings: list[str] = []
    (r,) = build_catalog([early, late], warnings)
    assert r.title.startswith("NewName") and r.aliases == ["OldName: Serving Many Adapters Cheaply"]
    assert (r.venue, r.history, warnings) == ("OSDI 2025", ["arXiv 2024", "OSDI 2025"], [])
    assert filter_records([r], search="oldname") == [r]


def test_different_titles_sharing_a_link_stay_two_papers_with_a_warning():
    link = "https://arxiv.org/abs/2401.00001"
    warnings: list[str] = []
    recs = build_catalog(
        [
            _entry("Checkpointing GPU Programs Quickly", "a.md", arxiv=link),
            _entry("A GAN Training Framework", "b.md", paper=link),
        ],
        warnings,
    )
    assert len(recs) == 2 and len(warnings) == 1
    assert "Checkpointing GPU Programs Quickly" in warnings[0] and "A GAN Training Framework" in warnings[0]


def test_code_links_shared_by_a_project_do_not_merge_papers():
    code = "https://github.com/org/project"
    recs = build_catalog([_entry("Alpha: One Thing", "a.md", code=code), _entry("Beta: One Thing", "b.md", code=code)])
    assert len(recs) == 2


def test_the_history_is_a_timeline_whichever_venue_is_kept():
    # a workshop presenting a conference paper again a year later: the conference stays the venue
    recs = build_catalog([_entry("Some Cache", "a.md", "NVMW 2022"), _entry("Some Cache", "b.md", "MICRO 2021")])
    assert (recs[0].venue, recs[0].history) == ("MICRO 2021", ["MICRO 2021", "NVMW 2022"])
    recs = build_catalog([_entry("Some Server", "a.md", "SOSP 2024"), _entry("Some Server", "b.md", "arXiv 2023")])
    assert (recs[0].venue, recs[0].history) == ("SOSP 2024", ["arXiv 2023", "SOSP 2024"])


def test_later_peer_reviewed_venue_wins_and_preprints_never_do():
    recs = build_catalog(
        [
            _entry("Some Study", "a.md", "HotOS 2023"),
            _entry("Some Study", "b.md", "OSDI 2024"),
            _entry("Some Study", "c.md", "arXiv 2025"),
        ]
    )
    assert (recs[0].venue, recs[0].history) == ("OSDI 2024", ["HotOS 2023", "OSDI 2024", "arXiv 2025"])


def test_a_bold_label_repeated_under_several_papers_is_not_their_system_name():
    # "**Operational Systems**" (a track) under two papers of one page; two real "FlexPipe"s keep theirs
    entries = [
        _entry("Teaching Old Pipelines New Tricks", "osdi.md", "OSDI 2026"),
        _entry("Stop Pretending to Be Busy", "osdi.md", "OSDI 2026"),
        _entry("Kelpie: Crash-Consistent Storage", "osdi.md", "OSDI 2026"),
        _entry("FlexPipe: Elastic Pipelines for Serving", "atc.md", "ATC 2025"),
        _entry("FlexPipe: Pipelines for Heterogeneous Training", "eurosys.md", "EuroSys 2026"),
    ]
    for e in entries[:2]:
        e.system = "Operational Systems"
    for e in entries[2:]:
        e.system = e.title.split(":")[0]
    systems = {r.title: r.system for r in build_catalog(entries)}
    assert systems["Teaching Old Pipelines New Tricks"] is None and systems["Stop Pretending to Be Busy"] is None
    assert systems["Kelpie: Crash-Consistent Storage"] == "Kelpie"
    assert [s for t, s in systems.items() if t.startswith("FlexPipe")] == ["FlexPipe", "FlexPipe"]


def test_system_name_is_a_bold_name_not_a_bold_phrase_or_initial():
    assert system_name("Safeguarding LLM Training", ["Empirical reliability studies", "AEGIS"]) == "AEGIS"
    assert system_name("Diagnosing Performance Issues", ["gigiprofiler"]) == "gigiprofiler"
    assert system_name("Improving DNN Inference Throughput", ["E", "E", "E"]) is None
    assert system_name("Caching Diffusion Models", ["Block caching"]) is None


def test_a_bold_field_label_is_no_system_name(tmp_path):
    from test_note_styles import catalog_of

    # (named by English words: a file named by the short name the note writes, "elmo.md", names it ELMo)
    (tmp_path / "deep-contextualized.md").write_text(
        "# Deep contextualized word representations\n\n"
        "**Authors:** Matthew E. Peters, Mark Neumann | **Year:** 2018 | [arXiv](https://arxiv.org/abs/1802.05365)\n\n"
        "Published at NAACL 2018. The paper introduces ELMo: word vectors from a deep biLM.\n",
        encoding="utf-8",
    )
    (tmp_path / "ecorec.md").write_text(
        "# Accelerating Embedding Training with Caches\n\n[paper](https://arxiv.org/abs/2401.00099)\n\n"
        "**EcoRec:** a cache for embedding rows.\n",
        encoding="utf-8",
    )
    records, _ = catalog_of(tmp_path)
    systems = {r.title: r.system for r in records}
    assert systems["Deep contextualized word representations"] is None  # "**Authors:**" labels a field
    assert systems["Accelerating Embedding Training with Caches"] == "EcoRec"  # a bold name, colon or not


@pytest.mark.parametrize(
    "typed",
    ["Sarathi serve", "sarathiserve", "SARATHI-SERVE", "sarathi‑serve", "ｓａｒａｔｈｉ", "Sara​thi", "sarathi-serve's"],
)
def test_a_catalog_search_reads_the_text_as_questions_are_read(typed):
    """`papers --search` matches the letters and digits of the one normalization, as the question path
    does: spacing, hyphens (non-breaking ones too), case, full-width letters, zero-width spaces and a
    possessive do not matter."""
    recs = build_catalog(
        [
            _entry("Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve", "a.md", "OSDI 2024"),
            _entry("DistServe: Disaggregating Prefill and Decoding", "b.md", "OSDI 2024"),
        ]
    )
    assert [r.title for r in filter_records(recs, search=typed)] == [recs[0].title]
    assert filter_records(recs, search="!!!") == []


@pytest.mark.parametrize("typed", ["OSDI‑2024", "ＯＳＤＩ 2024", "OSDI\u200b2024", "osdi'24"])
def test_a_venue_flag_reads_the_venue_as_questions_do(typed):
    from papernotes.retrieval.filters import normalize_filters

    assert normalize_filters(venue=typed).venue == "OSDI 2024"


@pytest.mark.parametrize(
    ("title", "system"),
    [
        ("Accelerating Distributed MoE Training and Inference with Lina", "Lina"),
        ("Large-scale cluster management at Google with Borg", "Borg"),
        ("Fast State Restoration in LLM Serving with HCache", "HCache"),
        ("Efficient Inference Clusters via Faro", "Faro"),
        ("Programming Language Models using Quokka-LM", "Quokka-LM"),
        ("Empowering Azure Storage with RDMA", None),  # a technology another title names too
        ("Fast On-device LLM Inference with NPUs", None),  # "NPU" in another title
        ("Serving Models with the Best Latency", None),  # no capitalized name ends it
    ],
)
def test_a_title_ending_with_a_name_after_with_using_or_via_gives_the_system(title, system):
    from papernotes.corpus.models import PaperEntry

    others = ["Revisiting Network Support for RDMA", "Scaling Test-Time Compute with a Mobile NPU"]
    entries = [
        PaperEntry(title=t, kind="paper_entry", source=f"{i}.md", page_title="p")
        for i, t in enumerate([title, *others])
    ]
    record = next(r for r in build_catalog(entries) if r.title == title)
    assert record.system == system


LIST_WITH_BYLINES = """# Quantization papers

- [SmoothWomb: Accurate Post-Training Quantization for Wombat Models](https://arxiv.org/abs/3211.10438) (ICML 2033) — migrate activation outliers into weights — Xiao, Lin, Seznec, Han (MIT, NVIDIA)
- [AWomb: Activation-aware Weight Quantization for Wombats](https://arxiv.org/abs/3306.00978) (MLSys 2034) — Lin et al. (MIT)
- [KVWomb: Caching Keys for Wombats](https://arxiv.org/abs/3307.00001) (OSDI 2034) - pages the KV cache of wombat servers

## Table

| Name | Paper | Venue | Notes |
|---|---|---|---|
| GPTWomb | [GPTWomb: Accurate Post-Training Quantization for Generative Wombats](https://arxiv.org/abs/3210.17323) | ICLR 2033 | second-order layer-wise weight quantization; 3.25x speedup on A100 — Frantar, Ashkboos, Hoefler, Alistarh (IST Austria, ETH Zurich) |
| LoWomb | [LoWomb: Low-Rank Adaptation of Wombat Models](https://arxiv.org/abs/3106.09685) | ICLR 2032 | freeze W, learn BA — Hu et al. (Microsoft) |
| CacheWomb | [CacheWomb: Something About Caches](https://arxiv.org/abs/3401.00001) | OSDI 2034 | a cache for wombats — Google, Meta |
"""


def test_a_bullet_with_its_venue_before_a_dash_is_a_paper_and_its_byline_its_people(tmp_path):
    # "[Title](link) (ICML 2033) — what it does — byline": a paper on any page, not only beside bullets
    # whose venue ends them; the description is its one-liner, the byline its authors and affiliations
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "list.md").write_text(LIST_WITH_BYLINES, encoding="utf-8")
    recs = {r.title.split(":")[0]: r for r in catalog_of(tmp_path / "notes")}
    smooth, awq, kv = recs["SmoothWomb"], recs["AWomb"], recs["KVWomb"]
    assert (smooth.venue, smooth.summary) == ("ICML 2033", "migrate activation outliers into weights")
    assert (smooth.authors, smooth.affiliations) == (["Xiao", "Lin", "Seznec", "Han"], ["MIT", "NVIDIA"])
    assert (awq.venue, awq.authors, awq.affiliations, awq.summary) == ("MLSys 2034", ["Lin"], ["MIT"], "")
    assert (kv.venue, kv.summary, kv.authors) == ("OSDI 2034", "pages the KV cache of wombat servers", [])
    # a table's notes cell ending in a byline gives the people, the rest stays the one-liner
    gptq, lora, cache = recs["GPTWomb"], recs["LoWomb"], recs["CacheWomb"]
    assert gptq.authors == ["Frantar", "Ashkboos", "Hoefler", "Alistarh"]
    assert gptq.affiliations == ["IST Austria", "ETH Zurich"]
    assert gptq.summary == "second-order layer-wise weight quantization; 3.25x speedup on A100"
    assert (lora.authors, lora.affiliations) == (["Hu"], ["Microsoft"])
    # companies after a dash, without brackets, may be anything: no people
    assert (cache.authors, cache.affiliations) == ([], [])
    assert "Google, Meta" in cache.summary


LIST_OF_MANY_STYLES = """# Reading list

## Decoding

- [Fast Wombat Inference via Speculative Burrowing](https://arxiv.org/abs/3211.17192) (ICML'33) — draft then verify the burrows
- [QuWomb: 2-Bit Quantization of Wombat Models With Guarantees](https://arxiv.org/abs/3307.13304) (NeurIPS 2033): incoherence processing of wombat weights — Chee, Cai, Kuleshov (Cornell)
- [OmniWomb: Omnidirectionally Calibrated Quantization for Wombats](https://arxiv.org/abs/3308.13137) — learnable weight clipping for wombats — Shao et al. (Shanghai AI Lab)
- [SpecWomb: Tree-based Speculation for Wombats](https://arxiv.org/abs/3305.09781) (MLSys ’34) – token trees verified at once
- [Mongwomb](https://arxiv.org/abs/3403.11111) (ICML'34) — pipelines wombat recomputation with communication
- [Armawomb](https://arxiv.org/abs/3403.22222): quantizes wombat weights to 3 bits
- [Ternwomb](https://arxiv.org/abs/3310.22222) -- NeurIPS 2033 -- offloads wombat pages to CXL memory.
- [Ibex: Overlapping Wombat Optimizer Steps](https://arxiv.org/abs/3403.33333) -- ASPLOS 2034 -- hides optimizer latency of wombats
- [arXiv](https://arxiv.org/abs/3403.44444) (ICML 2034) — a link alone, no name
- Gibwomb: Paged Attention for Gibbons [[Paper](https://arxiv.org/abs/3403.55555)]
  - **Gibwomb**
  - Ape Institute
- Quolla: Chunked Wombat Prefills [[Paper](https://arxiv.org/abs/3403.66666)]
  - Wombat Lab
  - **Quolla**
    - Chunked prefills split a wombat prompt into equal chunks.

## Links

- [Code](https://github.com/x/y) — our implementation
- [Code](https://github.com/x/z)
- [Video](https://www.youtube.com/watch?v=abc) — talk at NeurIPS 2033
- [Slides from the MLSys 2034 tutorial](https://mlsys.org/virtual/2034/tutorial) (MLSys 2034) — useful background
- [Blog post on wombat serving](https://example.com/blog) (2034) — a friendly walkthrough
- [Dataset Distillation for Wombats](https://arxiv.org/abs/3811.10959) (ICLR 2035) — distil the burrow into a few images
- [Project Womb: Building an Efficient Wombat Training System](https://www.usenix.org/conference/osdi34/presentation/womb) (OSDI 2034)
- [Tutorial slides (ICML 2034)](https://example.com/tutorial.pdf) — three hours on wombat agents
- [Keynote slides](https://example.com/keynote.pdf) (MLSys 2034)
- [Workshop talk (NeurIPS 2033)](https://www.youtube.com/watch?v=xyz)
"""


def test_a_bullets_venue_written_shortly_or_before_a_colon_and_a_description_after_its_linked_title(tmp_path):
    # "(ICML'33) — …", "(MLSys ’34) – …", "(NeurIPS 2033): …" and "[Title](link) — what it does — byline":
    # the venue and the description are read whichever way the bullet separates them
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "list.md").write_text(LIST_OF_MANY_STYLES, encoding="utf-8")
    recs = {r.title.split(":")[0]: r for r in catalog_of(tmp_path / "notes")}
    fast = recs["Fast Wombat Inference via Speculative Burrowing"]
    assert (fast.venue, fast.summary) == ("ICML 2033", "draft then verify the burrows")
    spec = recs["SpecWomb"]
    assert (spec.venue, spec.summary) == ("MLSys 2034", "token trees verified at once")
    quip = recs["QuWomb"]
    assert (quip.venue, quip.summary) == ("NeurIPS 2033", "incoherence processing of wombat weights")
    assert (quip.authors, quip.affiliations) == (["Chee", "Cai", "Kuleshov"], ["Cornell"])
    omni = recs["OmniWomb"]
    assert (omni.venue, omni.summary) == (None, "learnable weight clipping for wombats")
    assert (omni.authors, omni.affiliations) == (["Shao"], ["Shanghai AI Lab"])
    # a one-word name linked to its paper, with its venue or what it does; a double hyphen parts them too
    assert (recs["Mongwomb"].venue, recs["Mongwomb"].summary) == (
        "ICML 2034",
        "pipelines wombat recomputation with communication",
    )
    # without a venue, a one-word name's bullet may only point to notes ("[FlashAttention](…) — see my notes")
    assert "Armawomb" not in recs
    assert recs["Mongwomb"].links["paper"] == "https://arxiv.org/abs/3403.11111"  # the name's link is the paper's
    tern = recs["Ternwomb"]
    assert (tern.venue, tern.summary) == ("NeurIPS 2033", "offloads wombat pages to CXL memory.")
    assert (recs["Ibex"].venue, recs["Ibex"].summary) == ("ASPLOS 2034", "hides optimizer latency of wombats")
    assert "arXiv" not in recs  # a link kind is no name
    # the paper's name in bold over its notes is no affiliation; the line after it is
    assert recs["Gibwomb"].affiliations == ["Ape Institute"]
    assert recs["Gibwomb"].summary == ""  # nor is the name alone a one-liner
    assert recs["Quolla"].summary == "Chunked prefills split a wombat prompt into equal chunks."  # nor part of one


def test_a_resources_link_bullet_is_no_paper_and_a_title_starting_with_such_a_word_is(tmp_path):
    # "[Code](…) — our implementation", "[Video](…) — talk at …", "[Slides from …](…) (MLSys 2034)": links to
    # a paper's resources, no papers; "Dataset Distillation …", "Project Womb: …" are titles
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "list.md").write_text(LIST_OF_MANY_STYLES, encoding="utf-8")
    titles = sorted(r.title for r in catalog_of(tmp_path / "notes"))
    assert not [t for t in titles if re.match(r"(Code|Video|Slides|Blog|Tutorial|Keynote|Workshop)\b", t)], titles
    assert "Dataset Distillation for Wombats" in titles
    assert "Project Womb: Building an Efficient Wombat Training System" in titles
    assert len(titles) == 11, titles


@pytest.mark.parametrize(
    ("line", "authors", "affiliations"),
    [
        ("Ho, Jain, Abbeel — UC Berkeley", ["Ho", "Jain", "Abbeel"], ["UC Berkeley"]),
        ("Rafailov, Sharma, Finn (Stanford); NeurIPS 2023 oral", ["Rafailov", "Sharma", "Finn"], ["Stanford"]),
        (
            "Devlin, Chang, Lee, Toutanova (Google AI Language) · NAACL 2019",
            ["Devlin", "Chang", "Lee", "Toutanova"],
            ["Google AI Language"],
        ),
        ("Kaplan, McCandlish et al. (OpenAI) — 2020 — 30 pages", ["Kaplan", "McCandlish"], ["OpenAI"]),
        ("Brown et al. (OpenAI), 31 authors — NeurIPS 2020 Best Paper", ["Brown"], ["OpenAI"]),
    ],
)
def test_surnames_over_their_places_under_a_notes_title_are_its_authors(tmp_path, line, authors, affiliations):
    # a byline of surnames alone, under the linked title of a one-paper note: the authors and their places,
    # and no one-liner made of it
    (tmp_path / "notes").mkdir()
    note = f"# [Wombat Diffusion Models](https://arxiv.org/abs/3006.11239)\n\n{line}\n\nIt denoises wombats in 1000 steps.\n"
    (tmp_path / "notes" / "w.md").write_text(note, encoding="utf-8")
    (rec,) = catalog_of(tmp_path / "notes")
    assert (rec.authors, rec.affiliations) == (authors, affiliations)
    assert rec.summary == "It denoises wombats in 1000 steps."


@pytest.mark.parametrize(
    "line",
    [
        "PyTorch, JAX (frameworks)",  # products and a lower-case remark
        "Training, Inference (NVIDIA)",  # English words, not surnames
        "Ho, Jain, Abbeel",  # surnames with nothing saying they are people
        "Transformers, Diffusion, Agents — my reading list",
    ],
)
def test_capitalised_words_without_their_places_are_no_author_list(line):
    assert not author_list(line)


def test_an_author_written_by_surname_in_one_note_and_in_full_in_another_is_one_author():
    from papernotes.corpus.models import PaperEntry

    title = "Sequence to Wombat Learning with Neural Networks"
    log = PaperEntry(
        title=title,
        kind="paper_entry",
        source="log.md",
        page_title="log",
        authors=["Sutskever", "Vinyals", "Le"],
        links={"paper": "https://arxiv.org/abs/3409.3215"},
    )
    note = PaperEntry(
        title=title,
        kind="deep_note",
        source="s2s.md",
        page_title=title,
        authors=["Ilya Sutskever", "Oriol Vinyals", "Quoc V. Le", "Jane Wombat"],
        links={"paper": "https://arxiv.org/abs/3409.3215"},
    )
    for entries in ([log, note], [note, log]):
        (rec,) = build_catalog(entries)
        assert rec.authors == ["Ilya Sutskever", "Oriol Vinyals", "Quoc V. Le", "Jane Wombat"], rec.authors


@pytest.mark.parametrize(
    ("path", "text", "name"),
    [
        ("notes/nlp/t5.md", "Largest model: **11B** parameters (T5-11B).", "T5"),  # as the text writes it
        ("wombnet.md", "see github.com/x/wombnet; WombNet stacks burrows", "WombNet"),  # a capital, not a link
        ("sarathi-serve.md", "Sarathi-Serve chunks prefills", "Sarathi-Serve"),
        ("attention.md", "attention everywhere", None),  # an English word
        ("notes.md", "my notes", None),
        ("paper-notes.md", "Paper-Notes of the week", None),
        ("colm.md", "Accepted at COLM 2024", None),  # a venue the notes are filed by
        ("2018-03-18-wombnet.md", "WombNet", None),  # a dated post
        ("zebranet.md", "nothing of it here", None),  # a name the text never writes
        ("deep-contextualized.md", "Deep contextualized word representations", None),  # a title's first words
        ("alphawomb-zero.md", "AlphaWomb Zero learns from self-play", "AlphaWomb Zero"),  # a name's words
    ],
)
def test_a_paper_notes_file_name_is_its_short_name_when_the_note_writes_it(path, text, name):
    from papernotes.corpus.paper_notes import file_name_name

    assert file_name_name(path, text) == name


def test_a_note_filed_by_the_papers_short_name_is_asked_by_it(tmp_path):
    (tmp_path / "notes" / "nlp").mkdir(parents=True)
    (tmp_path / "notes" / "nlp" / "t9.md").write_text(
        "# Exploring the Limits of Wombat Transfer Learning\n\nRaffel et al. — https://arxiv.org/abs/3910.10683\n\n"
        "* Largest model: **11B** parameters (T9-11B).\n",
        encoding="utf-8",
    )
    (rec,) = catalog_of(tmp_path / "notes")
    assert rec.system == "T9" and "T9" in rec.aliases
