"""Tests for corpus.publications: plain-text publication pages → Publication records."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from papernotes.corpus.models import Publication
from papernotes.corpus.publications import PublicationPage, looks_like_publication_page, parse_publication_page

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "seeds"

HOMEPAGE = """\
Ada Q. Lovelace

Ada Q. Lovelace, Ph.D. Research Scientist, Example Labs, 1 Main St, Springfield Email: ada [AT] example [DOT] org

Bio

I build storage systems. Before that I studied at Example University.

Research Interests

• Storage Systems

• Distributed Training

Publications

• Kelp: Fast Recovery for Sharded Stores
  Ada Q. Lovelace, Bob Smith, and Carol Jones
  In Proceedings of the 30th ACM Symposium on Operating Systems Principles (SOSP 2024)
  [paper | slides | code]

• Wave: Scaling Graph Analytics
  Bob Smith and Ada Q. Lovelace
  In Proceedings of the 2024 IEEE International Conference on Big Data (IEEE BigData 2024)


• Kelp: Fast Recovery for Sharded Stores
  Ada Q. Lovelace, Bob Smith, and Carol Jones
  In Proceedings of the 30th ACM Symposium on Operating Systems Principles (SOSP 2024)
  [paper | slides | code]

• Kelp: Fast Recovery for Sharded Stores
  Ada Q. Lovelace, Bob Smith, and Carol Jones
  In Proceedings of the 14th Annual Non-Volatile Memories Workshop (NVMW 2023)
  [paper]

• Pebble: A Tiny Key-Value Store
  Ada Q. Lovelace
  In Proceedings of the Workshop on Tiny Things (FooConf 2021)
  [paper | video]

Services

• Program Committee, USENIX Annual Technical Conference (ATC). 2023, 2024

• Reviewer, ACM Transactions on Storage. 2022
"""

AGGREGATOR = """\
arXiv subjects

Grace B. Hopper

Publications and source records attributed to Grace B. Hopper.

3 recordsLinked to original sources

arXiv2025

Compass: Routing Queries: A Survey of Learned Indexes

We survey learned index structures. They replace B-trees with models.

A second paragraph of the abstract.

cs.DB↗

NeurIPS 2024

Tidal: Sparse Updates for Federated Fine-Tuning

Federated fine-tuning sends full weights each round; we send sparse deltas instead.

cs.LG↗ cs.DC↗

arXiv2025

Compass: Routing Queries: A Survey of Learned Indexes

We survey learned index structures. They replace B-trees with models.

cs.DB↗
"""

MARKDOWN_NOTE = """\
# Reading notes

## Publications

* Kelp: Fast Recovery for Sharded Stores (SOSP 2024)
* Wave: Scaling Graph Analytics (BigData 2024)

- arXiv2025
- another bullet
"""


# --------------------------------------------------------------------------------------------- detection


def test_looks_like_publication_page_true_for_both_kinds():
    assert looks_like_publication_page(HOMEPAGE)
    assert looks_like_publication_page(AGGREGATOR)


@pytest.mark.parametrize(
    "text",
    [
        MARKDOWN_NOTE,
        "# Title\n\nSome prose.\n\nPublications\n\n• A Paper\n  A. Author and B. Author\n  In Proc. (OSDI 2022)\n",
        "Notes\n\n* one\n* two\n- three\n",
        "Just a paragraph of text about OSDI 2022 and nothing else.\n",
        "",
        "   \n\n",
    ],
)
def test_looks_like_publication_page_false_for_markdown_and_prose(text):
    assert not looks_like_publication_page(text)


def test_parse_raises_value_error_without_records():
    with pytest.raises(ValueError, match="no publication record"):
        parse_publication_page("Jane Doe\n\nBio\n\nI like systems.\n\nServices\n\n• Reviewer, OSDI 2022\n")
    with pytest.raises(ValueError):
        parse_publication_page("")


# --------------------------------------------------------------------------------------------- homepage kind


def test_homepage_person_sections_and_records():
    page = parse_publication_page(HOMEPAGE)
    assert isinstance(page, PublicationPage)
    assert page.person == "Ada Q. Lovelace"
    headings = [h for h, _ in page.sections]
    assert headings == ["", "Bio", "Research Interests", "Services"]
    body = dict(page.sections)
    assert body[""].startswith("Ada Q. Lovelace, Ph.D. Research Scientist")
    assert "I build storage systems." in body["Bio"]
    assert "• Storage Systems" in body["Research Interests"]
    assert "Transactions on Storage" in body["Services"]
    assert all(isinstance(p, Publication) for p in page.publications)


def test_homepage_record_fields():
    pubs = parse_publication_page(HOMEPAGE).publications
    kelp = pubs[0]
    assert kelp.title == "Kelp: Fast Recovery for Sharded Stores"  # a title containing a colon
    assert kelp.venue == "SOSP 2024" and kelp.year == 2024
    assert kelp.authors == ["Ada Q. Lovelace", "Bob Smith", "Carol Jones"]
    assert kelp.links == {"paper": "", "slides": "", "code": ""}
    assert kelp.abstract == "" and kelp.subjects == []


def test_homepage_record_without_links_and_ieee_bigdata_venue():
    wave = next(p for p in parse_publication_page(HOMEPAGE).publications if p.title.startswith("Wave"))
    assert wave.venue == "BigData 2024"
    # the venue as the page writes it is kept beside its normal form
    assert wave.venue_text.startswith("In Proceedings of") and wave.venue_text.endswith("(IEEE BigData 2024)")
    assert wave.year == 2024
    assert wave.links == {}
    assert wave.authors == ["Bob Smith", "Ada Q. Lovelace"]


def test_homepage_duplicates_kept_once_but_other_venue_kept():
    pubs = parse_publication_page(HOMEPAGE).publications
    kelps = [p for p in pubs if p.title.startswith("Kelp")]
    assert [p.venue for p in kelps] == ["SOSP 2024", "NVMW 2023"]
    assert len(pubs) == 4


def test_homepage_unknown_series_is_upper_cased():
    pebble = next(p for p in parse_publication_page(HOMEPAGE).publications if p.title.startswith("Pebble"))
    assert pebble.venue == "FOOCONF 2021" and pebble.year == 2021
    assert pebble.authors == ["Ada Q. Lovelace"]
    assert pebble.links == {"paper": "", "video": ""}


def test_homepage_wrapped_title_and_unindented_lines():
    text = (
        "Jane Doe\n\nPublications\n\n"
        "• A Very Long Title That Wraps:\n"
        "  onto a second line\n"
        "  Jane Doe, John Roe\n"
        "  In Proceedings of OSDI (OSDI '22)\n\n"
        "• Flat Record\n"
        "Jane Doe and John Roe\n"
        "NSDI 2021\n"
    )
    assert looks_like_publication_page(text)
    pubs = parse_publication_page(text).publications
    assert pubs[0].title == "A Very Long Title That Wraps: onto a second line"
    assert pubs[0].authors == ["Jane Doe", "John Roe"]
    assert pubs[0].year == 2022
    assert (pubs[1].title, pubs[1].venue, pubs[1].authors) == ("Flat Record", "NSDI 2021", ["Jane Doe", "John Roe"])


def test_homepage_publications_subheadings_and_leftover_text_kept():
    text = (
        "Jane Doe\n\nSelected Publications\n\n(* equal contribution)\n\n"
        "Conference Papers\n\n"
        "• Alpha: A System\n  Jane Doe*, John Roe*\n  In Proc. of EuroSys (EuroSys 2025)\n\n"
        "Awards\n\n• Best Paper Award, 2025\n"
    )
    page = parse_publication_page(text)
    assert [p.title for p in page.publications] == ["Alpha: A System"]
    assert page.publications[0].authors == ["Jane Doe", "John Roe"]
    assert page.publications[0].venue == "EuroSys 2025"
    body = dict(page.sections)
    assert body["Selected Publications"] == "(* equal contribution)"
    assert "Best Paper Award" in body["Awards"]


# --------------------------------------------------------------------------------------------- aggregator kind


def test_aggregator_person_header_and_records():
    page = parse_publication_page(AGGREGATOR)
    assert page.person == "Grace B. Hopper"
    assert page.sections[0][0] == ""
    header = page.sections[0][1]
    assert "arXiv subjects" in header and "3 recordsLinked to original sources" in header
    assert "\nGrace B. Hopper\n" not in f"\n{header}\n"  # the name line is carried by ``person``
    pubs = page.publications
    assert len(pubs) == 2  # the repeated record is kept once
    compass, tidal = pubs
    assert compass.venue == "arXiv 2025" and compass.year == 2025  # "arXiv2025" glued
    assert compass.venue_text == "arXiv2025"
    assert compass.title == "Compass: Routing Queries: A Survey of Learned Indexes"
    assert compass.abstract.startswith("We survey learned index structures.")
    assert "A second paragraph" in compass.abstract
    assert compass.subjects == ["cs.DB"]
    assert tidal.venue == "NeurIPS 2024" and tidal.year == 2024
    assert tidal.subjects == ["cs.LG", "cs.DC"]
    assert tidal.links == {} and tidal.authors == []


def test_aggregator_same_title_other_venue_is_separate_and_footer_kept():
    text = AGGREGATOR.replace("arXiv2025\n\nCompass", "ICML2025\n\nCompass", 1) + "\nPowered by Example\n"
    page = parse_publication_page(text)
    assert [p.venue for p in page.publications] == ["ICML 2025", "NeurIPS 2024", "arXiv 2025"]
    assert ("", "Powered by Example") in page.sections


def test_aggregator_name_without_attribution_line():
    text = "arXiv subjects\n\nLin Chen\n\n" + AGGREGATOR.split("3 recordsLinked to original sources\n", 1)[1]
    page = parse_publication_page(text)
    assert page.person == "Lin Chen"
    assert page.sections == [("", "arXiv subjects")]


# --------------------------------------------------------------------------------------------- real pages


@pytest.mark.skipif(not SEEDS.is_dir(), reason="shared/corpus/seeds not available")
def test_real_pages():
    pages = {p.name: p.read_text(encoding="utf-8") for p in SEEDS.glob("*.txt")}
    home_name = next((n for n, t in pages.items() if re.search(r"^Publications$", t, re.M) and "• " in t), None)
    agg_name = next((n for n, t in pages.items() if re.search(r"^arXiv\d{4}$", t, re.M)), None)
    assert home_name and agg_name

    # homepage: one record per distinct (title, venue) bullet between "Publications" and "Services"
    home = pages[home_name]
    pub_section = re.search(r"^Publications$(.*?)^Services$", home, re.S | re.M)
    assert pub_section
    pub_part = pub_section.group(1)
    bullets = re.findall(r"^• (.+)\n.*\n.*\((.+?)\)\s*$", pub_part, re.M)
    assert bullets and len(bullets) == len(re.findall(r"^• ", pub_part, re.M))
    first_line = next(ln.strip() for ln in home.splitlines() if ln.strip())
    assert looks_like_publication_page(home)
    page = parse_publication_page(home)
    assert page.person == first_line
    assert len(page.publications) == len(set(bullets))
    assert all(isinstance(p.year, int) for p in page.publications)
    assert all(p.venue and p.authors for p in page.publications)
    socc = [p for p in page.publications if p.venue == "SoCC 2024"]
    assert socc and "Xinwei Fu" in socc[0].authors
    headings = [h for h, _ in page.sections]
    assert {"Bio", "Research Interests", "Services"} <= set(headings) and headings[0] == ""
    n_links = len(re.findall(r"^\s+\[[^\]]+\]\s*$", pub_part, re.M))
    assert sum(1 for p in page.publications if p.links) <= n_links
    assert any(p.links == {"paper": "", "slides": "", "code": ""} for p in page.publications)

    # aggregator: one record per "arXivYYYY" line (titles here are distinct)
    agg = pages[agg_name]
    n_records = len(re.findall(r"^arXiv\d{4}$", agg, re.M))
    attributed = re.search(r"attributed to (.+?)\.$", agg, re.M)
    assert attributed
    name = attributed.group(1)
    assert looks_like_publication_page(agg)
    page = parse_publication_page(agg)
    assert page.person == name and page.person != "arXiv subjects"
    assert len(page.publications) == n_records
    assert all(p.venue and p.venue.startswith("arXiv ") and isinstance(p.year, int) for p in page.publications)
    assert all(p.abstract and p.subjects and "↗" not in "".join(p.subjects) for p in page.publications)
    assert any("cs.DC" in p.subjects for p in page.publications)

    # Markdown pages among the seeds are not publication pages
    for n, t in pages.items():
        if re.search(r"^#{1,6} \S", t, re.M):
            assert not looks_like_publication_page(t), n
