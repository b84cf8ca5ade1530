"""Questions about a conference itself ("where was SOSP 2031 held", "nsdi 2032 dates?") are answered from
what the notes say of the venue (retrieval/answerability.is_venue_lookup, Notes.venue_answer): the row of
the notes' conference calendar (a Markdown table or GitBook's HTML one), the venue page's homepage and
acceptance rate, each cited; questions about the venue's papers, or about what the notes do not state,
are not. The notes are written here: a calendar page in HTML, an older one in Markdown, two venue pages."""

from __future__ import annotations

import pytest
from conftest import notes_of

from papernotes.retrieval.evidence import split_sentences
from papernotes.retrieval.prompts import REFUSAL

CALENDAR_HTML = """# Conference

## 2031

<table><thead><tr><th>Conference</th><th>When</th><th>Where</th><th>Remarks</th></tr></thead><tbody>
<tr><td><a href="sosp-2031.md">SOSP 2031</a></td><td>Oct 20-23, 2031</td><td>Tromsø, Norway</td><td></td></tr>
<tr><td><a href="nsdi-2031.md">NSDI 2031</a></td><td>Apr 7-9, 2031</td><td>Lisbon, Portugal</td><td></td></tr>
</tbody></table>
"""

CALENDAR_MD = """# Older conferences

## 2030

| Conference | When | Where | Remarks |
| --- | --- | --- | --- |
| EuroSys 2030 | Mar 25-28, 2030 | Ghent, Belgium | |
| OSDI 2030 | Jul 8-10, 2030 | Santa Clara, CA, USA | co-located |
"""

SOSP_2031 = """# SOSP 2031

## Meta Info

Homepage: https://sosp2031.example.org/

## Acceptance Rate

16.1% (= 50 / 310)

## Papers

### Storage

* Fjord: Crash-Consistent Log Structured Merge Trees \\[[Paper](https://doi.org/10.1145/1111.2222)]
  * UiT & NTNU
  * Orders compaction writes so that a crash never loses an acknowledged key. **Best Paper Award**
* Skerry: Tiered Flash for Object Stores \\[[Paper](https://doi.org/10.1145/1111.3333)]
  * Aalto
  * Moves cold objects to QLC flash in the background.
"""

EUROSYS_2030 = """# EuroSys 2030

## Meta Info

Homepage: https://2030.eurosys.example.org/

## Papers

* Tarn: Sharing GPUs between Notebooks \\[[Paper](https://doi.org/10.1145/1111.4444)]
  * KU Leuven
  * Time-slices one GPU among interactive notebooks and accepts new ones at a 99% rate of deadlines met.
"""


OSDI_2031 = """# OSDI 2031

## Meta Info

Homepage: https://osdi2031.example.org/

Acceptance rate: 21.3% (= 40 / 188)

## Papers

* Weir: Batching Small Writes for Log Stores \\[[Paper](https://doi.org/10.1145/1111.5555)]
  * ETH
  * Groups small appends into one flash page write.
"""


ATC_2032 = """# ATC 2032

## Meta Info

Homepage: https://atc2032.example.org/

### Acceptance Rate

* Total: 17.4% (= 80 / 460)
* Spring: 15.0% (= 30 / 200)
* Fall: 19.2% (= 50 / 260)

## Papers

* Sluice: Admission Control for Log Stores \\[[Paper](https://doi.org/10.1145/1111.6666)]
  * EPFL
  * Throttles writers before the log's flash fills.
"""


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    folder = tmp_path_factory.mktemp("venue-notes")
    (folder / "conference").mkdir()
    (folder / "conference" / "README.md").write_text(CALENDAR_HTML, encoding="utf-8")
    (folder / "conference" / "older.md").write_text(CALENDAR_MD, encoding="utf-8")
    (folder / "conference" / "sosp-2031.md").write_text(SOSP_2031, encoding="utf-8")
    (folder / "conference" / "eurosys-2030.md").write_text(EUROSYS_2030, encoding="utf-8")
    (folder / "conference" / "osdi-2031.md").write_text(OSDI_2031, encoding="utf-8")
    (folder / "conference" / "atc-2032.md").write_text(ATC_2032, encoding="utf-8")
    return notes_of(folder, tmp_path_factory.mktemp("venue-index"), models_cache)


def ask(notes, q: str):
    return notes.ask(q, use_llm=False)


def test_a_table_row_is_a_sentence_of_labelled_cells():
    body = "| Conference | When | Where |\n| --- | --- | --- |\n| SOSP 2031 | Oct 20-23, 2031 | Tromsø, Norway |"
    assert split_sentences(body) == ["Conference: SOSP 2031; When: Oct 20-23, 2031; Where: Tromsø, Norway"]


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("where was sosp 2031 held?", ["Tromsø, Norway", "Oct 20-23, 2031"]),  # the HTML calendar
        ("SOSP'31 dates?", ["Oct 20-23, 2031"]),
        ("which city hosted sosp31", ["Tromsø"]),
        ("eurosys 2030 location", ["Ghent, Belgium"]),  # the Markdown calendar
        ("When did EuroSys 2030 take place?", ["Mar 25-28, 2030"]),
        ("sosp 2031?", ["Tromsø", "https://sosp2031.example.org/", "16.1%"]),  # nothing asked: every fact
    ],
)
def test_a_question_about_the_venue_itself_is_answered_from_its_facts(notes, q, want):
    a = ask(notes, q)
    assert not a.refused, q
    for w in want:
        assert w in a.answer, (q, w, a.answer)
    assert a.citations
    # the place is cited to the calendar, whose other rows (other venues) are not quoted
    assert "Lisbon" not in a.answer and "Santa Clara" not in a.answer


def test_the_calendar_row_names_only_the_asked_venue_in_the_citation(notes):
    a = ask(notes, "where was nsdi 2031 held")
    # NSDI 2031 has a calendar row but no page and no papers: the row still answers
    assert "Lisbon, Portugal" in a.answer and "0 papers" in a.answer


@pytest.mark.parametrize(
    "q",
    [
        "who chaired sosp 2031",  # not a fact the notes state
        "how many attendees did eurosys 2030 have",
        "sosp 2031 keynote speakers?",
        "eurosys 2030 acceptance rate?",  # a part of the venue answer its notes do not give
        # … also when a paper of the venue writes a word of it ("a 99% rate of deadlines met")
        "what was the acceptance rate of eurosys 2030",
        "eurosys'30 accept rate",
        "eurosys 2030 accept rate?",  # Tarn's record holds both words: still no list of its papers
    ],
)
def test_what_the_notes_do_not_state_about_a_venue_is_refused(notes, q):
    a = ask(notes, q)
    assert a.answer == REFUSAL and not a.citations, a.answer


def test_a_question_about_the_venues_papers_is_not_a_venue_lookup(notes):
    a = ask(notes, "sosp 2031 best paper")
    assert "Fjord" in a.answer and "Tromsø" not in a.answer
    # the acceptance rate is a part of the venue answer, stated in the notes' own section
    assert "16.1%" in ask(notes, "sosp 2031 acceptance rate").answer


@pytest.mark.parametrize("q", ["was skerry a best paper?", "did skerry win best paper", "skerry - best paper or not?"])
def test_an_award_the_papers_notes_do_not_give_is_refused_not_described(notes, q):
    """Skerry's notes state no award (Fjord's, beside it, do): the question asks for one, which its
    lookup answer does not give — "paper" in the question makes it no lookup."""
    assert ask(notes, q).answer == REFUSAL


def test_an_award_the_papers_notes_give_is_quoted(notes):
    assert "Best Paper Award" in ask(notes, "was fjord a best paper?").answer


def test_a_venue_question_asking_for_stated_and_unstated_parts_gives_the_stated_ones(notes):
    """EuroSys 2030's place is in the calendar, its acceptance rate nowhere: the venue's facts answer."""
    a = ask(notes, "eurosys 2030 location and acceptance rate")
    assert "Ghent, Belgium" in a.answer and a.kind == "lookup", a.answer


@pytest.mark.parametrize("q", ["osdi 2031 acceptance rate", "whats the osdi'31 accept rate"])
def test_an_acceptance_rate_on_a_labelled_line_of_the_venue_page_is_its_rate(notes, q):
    """ "Acceptance rate: 21.3% (= 40 / 188)" under "Meta Info", not a section of its own."""
    a = ask(notes, q)
    assert not a.refused and "21.3% (= 40 / 188)" in a.answer, a.answer


@pytest.mark.parametrize("q", ["atc32 acceptance rate", "usenix atc 2032 acceptance rate?"])
def test_a_venue_page_titled_by_another_spelling_of_the_venue_gives_its_facts(notes, q):
    """A page titled "ATC 2032" is the page of USENIX ATC 2032, the venue's one spelling."""
    a = ask(notes, q)
    assert not a.refused and "17.4% (= 80 / 460)" in a.answer, a.answer
    # a rate per submission cycle: every line of the section
    assert "Spring: 15.0% (= 30 / 200)" in a.answer and "Fall: 19.2% (= 50 / 260)" in a.answer, a.answer
