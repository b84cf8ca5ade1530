"""List answers chosen from the catalog (retrieval/lists.py), on a small self-written collection: two
years of one workshop's page, whose papers sit under headings ("Networking › RDMA") that their titles
do not repeat, each with an affiliation line, and a second venue's page of the later year."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from conftest import notes_of

#: (heading path under "Papers", title, affiliation, one-line description)
HOTOS_2031 = [
    ("Networking › RDMA", "Quokka: Lossless Fabrics at Scale", "Tasman University", "Retransmits on lossy links."),
    ("Networking › RDMA", "Echidna: Live Migration of Queue Pairs", "Wombat Labs", "Moves connections between hosts."),
    ("Networking › RDMA", "Bandicoot: Isolation for Shared NICs", "Tasman University", "Shares one NIC fairly."),
    ("Networking › Congestion Control", "Platypus: Delay-Based Pacing", "Wombat Labs", "Paces senders by delay."),
    ("Networking › Congestion Control", "Wallaroo: Receiver-Driven Credits", "Emu Institute", "Grants credits."),
    ("Storage › Tiered Storage", "Bilby: Hot and Cold Pages", "Emu Institute", "Moves cold pages to flash."),
    ("Storage › Tiered Storage", "Numbat: Learned Promotion", "Tasman University", "Predicts which pages to promote."),
    (
        "Storage › Crash Consistency",
        "Dingo: Ordered Persistence",
        "Wombat Labs",
        "Logs writes so a crash loses nothing; a 2032 follow-up is planned.",
    ),
]
HOTOS_2032 = [
    ("Systems", "Potoroo: Serverless Cold Starts", "Emu Institute", "Keeps warm sandboxes for functions."),
    ("Systems", "Quoll: Kernel Bypass for Storage", "Wombat Labs", "Bypasses the kernel for flash reads."),
    ("Networks", "Cassowary: Reconfigurable Racks", "Emu Institute", "Rewires racks with OCS in milliseconds."),
    ("Networks", "Lyrebird: Photonic Spines", "Wombat Labs", "Builds spines from optical circuit switching."),
    ("Networks", "Kiwi: Transceiver Power", "Tasman University", "Cuts the power of optical transceivers."),
    ("Systems", "Jabiru: Actors Everywhere", "Emu Institute", "Runs actor workloads built on Tinkerbus."),
    ("Systems", "Brolga: Schedulers from Spares", "Wombat Labs", "Reuses parts of existing schedulers."),
]
#: a researcher's page: two of the papers above, and one of an earlier year
ADA_QUILL = [
    ("Publications", "Quokka: Lossless Fabrics at Scale", "Tasman University", "Retransmits on lossy links."),
    ("Publications", "Potoroo: Serverless Cold Starts", "Emu Institute", "Keeps warm sandboxes for functions."),
    ("Publications", "Galah: Learned Readahead", "Tasman University", "Prefetches file blocks (HotOS 2029)."),
]
OTHER_2032 = [
    ("Papers", "Kookaburra: Fast Checkpoints", "Emu Institute", "Checkpoints training jobs in seconds."),
    # a group whose name is also a common English word the notes use nowhere else
    ("Papers", "Currawong: Tiered Logs", "Orchard", "Keeps old log segments on cheap disks."),
    ("Papers", "Pardalote: Sparse Indexes", "Orchard", "Indexes only the hot keys."),
]


Bullet = tuple[str, ...]


def _page(title: str, bullets: Sequence[Bullet]) -> str:
    out: list[str] = [f"# {title}", ""]
    last: str | None = None
    for i, (path, name, affiliation, description) in enumerate(bullets):
        if path != last:
            parts = path.split(" › ")
            old: list[str] = last.split(" › ") if last else []
            out += [f"\n{'#' * (j + 2)} {p}\n" for j, p in enumerate(parts) if old[: j + 1] != parts[: j + 1]]
            out.append("")
            last = path
        out += [
            f"* {name} \\[[Paper](https://example.org/{title.replace(' ', '-').lower()}/{i})]",
            f"  * {affiliation}",
            f"  * {description}",
        ]
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    root = tmp_path_factory.mktemp("lists-notes")
    (root / "hotos-2031.md").write_text(
        _page("HotOS 2031", [(f"Papers › {p}", *r) for p, *r in HOTOS_2031]), encoding="utf-8"
    )
    (root / "hotos-2032.md").write_text(
        _page("HotOS 2032", [(f"Papers › {p}", *r) for p, *r in HOTOS_2032]), encoding="utf-8"
    )
    (root / "ada-quill.md").write_text(_page("Ada Quill", ADA_QUILL), encoding="utf-8")
    (root / "wombatconf-2032.md").write_text(_page("WombatConf 2032", OTHER_2032), encoding="utf-8")
    return notes_of(root, tmp_path_factory.mktemp("lists-index"), models_cache)


def one_page_notes(tmp_path_factory, models_cache, title: str, bullets: Sequence[Bullet]):
    """Notes of one conference page ``title`` listing ``bullets``, ingested into a fresh index."""
    root = tmp_path_factory.mktemp("one-page-notes")
    (root / f"{title.lower().replace(' ', '-')}.md").write_text(_page(title, bullets), encoding="utf-8")
    return notes_of(root, tmp_path_factory.mktemp("one-page-index"), models_cache)


def listed(notes, q: str) -> set[str]:
    a = notes.ask(q, use_llm=False)
    assert a.kind == "list", (q, a.kind, a.answer)
    return {(c.paper_title or "").split(":")[0] for c in a.citations}


def names(bullets, keep=lambda path, affiliation: True) -> set[str]:
    return {t.split(":")[0] for path, t, affiliation, _ in bullets if keep(path, affiliation)}


def group_papers(group: str) -> set[str]:
    return names(HOTOS_2031 + HOTOS_2032 + OTHER_2032, lambda _, a: a == group)


@pytest.mark.parametrize(
    ("q", "heading"),
    [
        ("Which HotOS 2031 papers are grouped under the RDMA heading in the notes?", "Networking › RDMA"),
        ("list the hotos 2031 papers the notes put under tiered storage", "Storage › Tiered Storage"),
        ("hotos'31 congestion control papers?", "Networking › Congestion Control"),
    ],
)
def test_a_heading_the_question_names_decides_the_venue_list(notes, q, heading):
    """The words that only frame the question ("grouped", "heading", "put under") are not part of the
    topic the venue page's headings are matched against: the papers under the named heading are the list."""
    assert listed(notes, q) == names(HOTOS_2031, lambda path, _: path == heading)


@pytest.mark.parametrize("q", ["which 2032 papers did i read", "list my 2032 papers"])
def test_a_year_without_a_venue_lists_every_paper_of_that_year(notes, q):
    """A year and no venue selects the papers of that year, on every venue's page; a paper of another
    year whose note merely mentions the year is not one of them."""
    assert listed(notes, q) == names(HOTOS_2032) | names(OTHER_2032)


def test_a_year_with_a_topic_lists_that_years_papers_on_the_topic(notes):
    got = listed(notes, "any 2032 papers on flash storage?")
    assert "Quoll" in got and not got & names(HOTOS_2031), got


@pytest.mark.parametrize(
    ("q", "who"),
    [
        ("tasman university stuff at hotos 31?", "Tasman University"),
        ("what did emu institute show at hotos 2031?", "Emu Institute"),
        ("wombat labs at hotos 2031 - what did they have", "Wombat Labs"),
        ("Which HotOS 2031 papers have Wombat Labs among their affiliations?", "Wombat Labs"),
    ],
)
def test_a_group_at_a_venue_asks_for_its_papers(notes, q, who):
    """A question naming a venue and words of its papers' own records (an affiliation) asks for those
    papers, though it says no list word; the papers from that group are the list."""
    assert listed(notes, q) == names(HOTOS_2031, lambda _, affiliation: affiliation == who)


def test_an_attribute_of_the_venue_is_not_a_list(notes):
    assert notes.ask("hotos 2031 acceptance rate?", use_llm=False).kind != "list"


@pytest.mark.parametrize("q", ["what did ada quill put out in 2032?", "ada quill 2032 papers"])
def test_a_person_and_a_year_list_that_persons_papers_of_the_year(notes, q):
    """A person whose page lists papers, and a year: the papers of that year on the person's page."""
    assert listed(notes, q) == {"Potoroo"}


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("what did ada quill publish?", names(ADA_QUILL)),  # the person's page, named in full
        # a word made of an English prefix and an English word is no term the notes lack
        ("which papers did ada quill coauthor", names(ADA_QUILL)),
        ("papers ada quill co-wrote", names(ADA_QUILL)),
        ("ada quill's work", names(ADA_QUILL)),
        ("anything from emu institute?", group_papers("Emu Institute")),
    ],
)
def test_a_person_or_group_named_alone_lists_their_papers(notes, q, want):
    """No venue and no year: a person whose page lists papers, or a group the papers' affiliations
    name, named in full, asks for their papers."""
    assert listed(notes, q) == want


@pytest.mark.parametrize(
    "q",
    [
        "how many papers are in my notes",
        "how many papers do i have?",
        "number of papers in my notes",
        "how many papers total",
        "how many papers in the notes overall",
    ],
)
def test_a_count_of_every_paper_is_the_catalogs_size(notes, q):
    """No topic, venue or year: the count is of every paper the catalog holds, not of a retrieved few."""
    a = notes.ask(q, use_llm=False)
    assert a.kind == "list" and a.answer.startswith(f"The notes list {len(notes.catalog)} papers in all"), a.answer


@pytest.mark.parametrize(
    "q", ["what did emu institute build", "recent work from emu institute", "what has wombat labs published?"]
)
def test_a_group_named_with_words_of_publishing_lists_the_groups_papers(notes, q):
    """Words the notes never use that ask for a group's work ("build", "recent work") frame the list:
    every paper of the group is listed, none chosen for those words."""
    assert listed(notes, q) == group_papers("Emu Institute" if "emu" in q else "Wombat Labs")


@pytest.mark.parametrize(
    ("q", "group"),
    [
        ("what did orchard publish", "Orchard"),
        ("anything from orchard?", "Orchard"),
        ("orchard's papers", "Orchard"),
        # words that describe a group's papers are no topic beside the name
        ("emu institute's publications", "Emu Institute"),
        ("wombat labs research papers", "Wombat Labs"),
    ],
)
def test_a_group_named_by_a_common_word_or_beside_words_of_research_lists_its_papers(notes, q, group):
    """A group whose name is also an English word the notes never use otherwise ("Orchard") is named
    all the same; "research", "papers" beside a name ask for the group's papers, not for a topic."""
    assert listed(notes, q) == group_papers(group)


def test_a_group_named_with_a_topic_lists_its_papers_on_the_topic(notes):
    """ "what did emu institute publish on storage": of the group's papers, those on the topic."""
    got = listed(notes, "what did emu institute publish on storage")
    assert got and got <= group_papers("Emu Institute") and "Bilby" in got and "Potoroo" not in got, got


@pytest.mark.parametrize(
    "q",
    [
        "whats emu institute stock price today",
        "is wombat labs hiring interns",
        "can u write me a cover letter for an emu institute internship",
        "orchard revenue 2024",
        "orchard customer support number",
        "emu institute revenue in 2032",  # a year beside it: still no paper of that year asked for
    ],
)
def test_a_group_named_beside_an_off_topic_request_is_no_list_and_is_refused(notes, q):
    """The words the notes never use ask for something else (a share price, jobs, a letter, revenue, a
    place): no list of the group's papers, and nothing in the notes answers it. (The decision is the
    calibrated framing threshold; ``eval/calibration_report.md`` gives its accuracy on held-out
    framings.)"""
    a = notes.ask(q, use_llm=False)
    assert a.kind != "list" and a.refused, a.answer


@pytest.mark.parametrize(
    "q", ["where is emu institute", "how big is wombat labs", "who is ada quill", "when was orchard founded"]
)
def test_a_question_asked_of_a_group_itself_is_no_list_of_its_papers(notes, q):
    """Who / where / when / how-adjective asked of a person or group asks about them, not for their
    papers (what the notes say of them, if anything, answers it)."""
    assert notes.ask(q, use_llm=False).kind != "list"


@pytest.mark.parametrize("q", ["what is tasman?", "who is ada?"])
def test_part_of_a_name_is_no_person_list(notes, q):
    assert notes.ask(q, use_llm=False).kind != "list"


@pytest.mark.parametrize(
    ("q", "want"),
    [
        ("which papers in my notes are from before 2032?", names(HOTOS_2031)),
        ("list the papers since 2032", names(HOTOS_2032) | names(OTHER_2032)),
        ("papers on storage published before 2032?", names(HOTOS_2031, lambda path, _: path.startswith("Storage"))),
        ("any pre-2032 rdma papers?", names(HOTOS_2031, lambda path, _: path == "Networking › RDMA")),
        ("what did ada quill publish after 2030?", {"Quokka", "Potoroo"}),
    ],
)
def test_a_bounded_year_lists_the_papers_before_or_after_it(notes, q, want):
    """ "before 2032", "since 2032", "pre-2032": the papers of the years on that side of it (the bounding
    word is not part of the topic)."""
    assert listed(notes, q) == want


@pytest.mark.parametrize(
    "q", ["papers using optical circuit switching (OCS)?", "any work on optical circuit switches (ocs)?"]
)
def test_an_abbreviation_the_question_defines_matches_either_form(notes, q):
    """ "optical circuit switching (OCS)": a paper that writes only the short form, or only the long
    form, is on the topic; one that shares a word of the long form is not."""
    assert listed(notes, q) == {"Cassowary", "Lyrebird"}


@pytest.mark.parametrize(
    "q", ["which systems are built on tinkerbus or reuse parts of it?", "papers that use Tinkerbus, or build on it"]
)
def test_an_alternative_that_only_frames_the_question_is_no_topic(notes, q):
    """ "built on Tinkerbus or reuse parts of it": the second alternative says nothing of its own, so a
    paper that reuses parts of something else is not listed."""
    assert listed(notes, q) == {"Jabiru"}


@pytest.mark.parametrize(
    ("q", "heading"),
    [
        ("which hotos 2031 papers sit under the congestion heading of the page?", "Congestion Control"),
        ("List the hotos 2031 papers under consistency, one group on the page", "Crash Consistency"),
    ],
)
def test_the_words_after_under_name_the_heading(notes, q, heading):
    """What follows "under" names the notes' grouping: the heading words there decide ("congestion"),
    even when rare in the notes; the words beside them that no heading uses ("heading", "page",
    "group") do not count, so papers whose text says "pages" are not listed."""
    assert listed(notes, q) == names(HOTOS_2031, lambda path, _: path.endswith(heading))


@pytest.mark.parametrize("q", ["hotos 2031 papers on rdma or pacing?", "which hotos'31 papers do rdma / pacing"])
def test_an_alternative_in_plain_words_stays_a_topic(notes, q):
    """Only an alternative that refers back by a pronoun is dropped: "rdma or pacing" lists both."""
    want = names(HOTOS_2031, lambda path, _: path == "Networking › RDMA") | {"Platypus"}
    assert listed(notes, q) == want


@pytest.mark.parametrize(
    "q",
    [
        "which hotos 2031 papers use blockchains?",
        "hotos'31 papers on zkrollups",
        "any kubernetes papers at hotos 2031?",
    ],
)
def test_a_list_on_a_term_no_note_uses_lists_nothing(notes, q):
    """A topic word that is a name or a term of art, not a common English word, and that no note uses in
    any form: no paper of the notes is about it, so the list is refused, not filled with the venue's
    papers that match its other words."""
    from papernotes.retrieval.prompts import REFUSAL

    a = notes.ask(q, use_llm=False)
    assert a.refused and a.answer.startswith(REFUSAL), a.answer


LINKCONF_2033 = [
    ("Papers › Photonic", "Glint: Photonic Interconnects for GPU Pods", "Emu Institute", "Links GPUs with light."),
    ("Papers › Photonic", "Prism: Scheduling over Photonic Interconnects", "Wombat Labs", "Schedules flows."),
    ("Papers › Photonic", "Halo: Photonic Interconnects at Rack Scale", "Tasman University", "Spans a rack."),
    ("Papers › Photonic", "Lumen: Circuit Setup in Nanoseconds", "Emu Institute", "Sets up light paths fast."),
    ("Papers › Storage", "Cairn: Log-Structured Flash Tiers", "Wombat Labs", "Appends to flash."),
    ("Papers › Storage", "Ember: Cold Data on Tape", "Emu Institute", "Archives cold blocks."),
]


def test_a_heading_whose_papers_mostly_are_on_the_topic_lists_all_of_its_papers(tmp_path_factory, models_cache):
    """The notes' own grouping completes a list: "Lumen", filed under "Photonic" beside three papers whose
    titles name photonic interconnects, is one of them too; the storage papers are not."""
    root = tmp_path_factory.mktemp("grouped-notes")
    (root / "linkconf-2033.md").write_text(_page("LinkConf 2033", LINKCONF_2033), encoding="utf-8")
    grouped = notes_of(root, tmp_path_factory.mktemp("grouped-index"), models_cache)
    for q in ("which linkconf 2033 papers are on photonic interconnects?", "linkconf'33 photonic interconnect papers"):
        assert listed(grouped, q) == names(LINKCONF_2033, lambda path, _: path.endswith("Photonic")), q


@pytest.mark.parametrize(
    ("q", "n"),
    [
        ("how many papers from hotos 2031 are in my notes", len(HOTOS_2031)),
        ("how many hotos'31 rdma papers do i have", 3),
        # a tally noun asks for the count as "how many" does; it is no topic the papers must be about
        ("number of papers from hotos 2031 in my notes", len(HOTOS_2031)),
        ("count of hotos'31 papers", len(HOTOS_2031)),
        ("total number of hotos 2031 rdma papers", 3),
        ("count the hotos 2031 papers", len(HOTOS_2031)),
        ("how many hotos'31 rdma papers do i have?", 3),
        ("how many hotos 2031 papers in total", len(HOTOS_2031)),
    ],
)
def test_a_list_asked_as_how_many_states_the_count_first(notes, q, n):
    a = notes.ask(q, use_llm=False)
    assert a.kind == "list" and a.answer.startswith(f"The notes list {n} papers"), a.answer
    assert len(a.citations) == n


SHARED_NAME = [
    ("Papers › Serving", "Kestrel: Serving Many Adapters at Once", "Emu Institute", "Batches adapters."),
    ("Papers › Serving", "Harrier: Speculative Decoding on CPUs", "Wombat Labs", "Drafts on the CPU."),
    ("Papers › Storage", "Kestrel: Erasure Codes for Cold Tiers", "Tasman University", "Codes cold blocks."),
    ("Papers › Storage", "Osprey: Log-Structured Object Stores", "Emu Institute", "Appends objects."),
]


@pytest.mark.parametrize("q", ["how many different Kestrel papers are in here? list em", "list the kestrel papers"])
def test_a_list_of_a_name_several_papers_share_is_those_papers(tmp_path_factory, models_cache, q):
    """Two papers are named Kestrel: a list or count of "Kestrel papers" is those two, not the notes'
    other papers (and no count of the whole catalog)."""
    n = one_page_notes(tmp_path_factory, models_cache, "BirdConf 2033", SHARED_NAME)
    assert listed(n, q) == {"Kestrel"}
    assert len(n.ask(q, use_llm=False).citations) == 2


MENTIONS = [
    ("Papers › GPUs", "Glider: Confidential Computing on Emu Institute GPUs", "Wombat Labs", "Audits Emu GPUs."),
    ("Papers › GPUs", "Ferry: Live Migration of GPU Contexts", "Emu Institute", "Moves GPU contexts."),
    ("Papers › GPUs", "Tern: Kernel Fusion for Task Runtimes", "Tasman University & Emu Institute", "Fuses kernels."),
    ("Papers › Storage", "Gannet: Flash Tiers", "Wombat Labs", "Tiers flash; compared with Emu Institute's design."),
]


@pytest.mark.parametrize("q", ["what did emu institute publish", "what did emu institute build"])
def test_a_groups_papers_are_those_it_is_from_not_those_that_mention_it(tmp_path_factory, models_cache, q):
    """A group named alone asks for the papers it is from (authors, affiliations): a paper about its
    hardware or comparing with it, from another group, is none of them."""
    n = one_page_notes(tmp_path_factory, models_cache, "GPUConf 2033", MENTIONS)
    assert listed(n, q) == {"Ferry", "Tern"}
