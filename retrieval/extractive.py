"""Extractive answers (the offline default): whole sentences quoted from the notes, each followed by the
marker of the chunk it comes from.

* A named paper leads with its catalog line — title (venue; affiliations) — then the sentences that
  answer what is asked about it, best first; asked nothing more ("What is X?", "X paper?"), the notes'
  own one-line description or TL;DR. A paper that is only a bullet on a conference page is answered
  from that bullet.
* Two or more named papers (a comparison) get that treatment each, so every side is cited.
* Otherwise the best sentence decides the subject (a paper or a page) and the answer keeps to it: no
  sentences about other papers.
* A question asking for an amount ("how many", "what speedup") is answered from sentences that state a
  number the question does not.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.normalize import CJK_CHARS, compact, normalize
from papernotes.corpus.note_fields import BYLINE_PARTS_RE
from papernotes.corpus.note_opening import author_list, is_labelled_line
from papernotes.corpus.papers import GENERIC_LINK_LABELS, PAPER_LINK_LABELS, looks_like_affiliation, title_key
from papernotes.corpus.short_names import SHORT_NAME_WORDS
from papernotes.corpus.venue_names import journal_abbreviated
from papernotes.corpus.venues import VENUE_RE, normalize_venue, split_venue
from papernotes.retrieval.evidence import LABEL_JOIN, Sentence, split_sentences
from papernotes.retrieval.question import Question, asked_parts
from papernotes.retrieval.search import Hit, SearchResult
from papernotes.retrieval.terms import Key, lexical_terms, stop_words

_URL_RE = re.compile(r"<?https?://\S+?>?(?=[\s)\]]|$)")
#: Sentences quoted per paper at most, and the share of the best sentence's score a further sentence
#: needs (weaker ones would read as part of the answer without answering).
MAX_SENTENCES = 3
#: Most sentences of an answer that quotes the items of a list under one label (:func:`_add_sentences`).
MAX_LISTED_ITEMS = 8
KEEP_SHARE = 0.6
#: A named paper yields to another paper's sentence only when that one covers this much more of what
#: is asked ("Which paper improves the Chinese ability of Llama 3?" names Llama 3 but asks for another).
SUBJECT_SWITCH_MARGIN = 0.34


@dataclass
class Composer:
    """Builds the answer text and the cited chunks in marker order."""

    cited: list[Hit] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def mark(self, h: Hit) -> str:
        if h not in self.cited:
            self.cited.append(h)
        return f"[{self.cited.index(h) + 1}]"

    def add(self, text: str, h: Hit) -> None:
        """Add ``text`` with the marker of ``h``; a line already in the answer is not said again (the
        same notes read for a preprint and its conference version, a sentence under two headings)."""
        if any(line.rsplit(" [", 1)[0] == text for line in self.lines):
            return
        self.lines.append(f"{text} {self.mark(h)}")


#: Authors (or affiliations) a paper's lead line names before "et al." (or "& …"; a lookup adds an
#: "Authors:" line with more).
LEAD_AUTHORS = 6


def paper_line(r: PaperRecord) -> str:
    """A paper's lead line: ``Title (system; venue; affiliations)`` (the venue with its history, "arXiv
    2023 → SOSP 2024", when the notes give several; the affiliations joined by " & " as the notes write
    them, so "Georgia Tech & NVIDIA" reads as quoted; else the authors), the system name only when the
    title does not hold it ("Optimizing Resource Allocation in Hyperscale Datacenters …" is Rebalancer);
    without one, or when the title holds it, the short name the notes call the paper by ("Learning
    Transferable Visual Models …" is CLIP; "Direct Preference Optimization: …", whose system name is the
    title's head, is DPO: :attr:`~papernotes.corpus.models.PaperRecord.aliases`)."""
    short = [a for a in r.aliases if len(a.split()) <= SHORT_NAME_WORDS]
    # beside a system name, a short name in Latin letters only (not a heading's "LoRA 低秩适配")
    names = [r.system, *(a for a in short if not re.search(f"[{CJK_CHARS}]", a))] if r.system else short
    # a name in Latin letters, the one people type, before a translation of the title ("Raft" before
    # "寻找一种易于理解的共识算法")
    names.sort(key=lambda n: bool(re.search(f"[{CJK_CHARS}]", n)))
    system = next((n for n in names if title_key(n) and title_key(n) not in title_key(r.title)), None)
    venue = " → ".join(r.history) if r.history else r.venue
    people = " & ".join(r.affiliations[:LEAD_AUTHORS]) + (" & …" if len(r.affiliations) > LEAD_AUTHORS else "")
    people = people or ", ".join(r.authors[:LEAD_AUTHORS]) + (" et al." if len(r.authors) > LEAD_AUTHORS else "")
    bits = [x for x in (system, venue, people) if x]
    return r.title + (f" ({'; '.join(bits)})" if bits else "")


def _best_chunk(hits: list[Hit], r: PaperRecord) -> Hit | None:
    """The chunk that best stands for the paper: the one holding its one-line summary, else a listing
    bullet, else its best-ranked chunk."""
    if not hits:
        return None
    probe = normalize(r.summary)[:60]
    for h in hits:
        if probe and probe in normalize(h.body):
            return h
    described = [h for h in hits if description_sentences(h, r)]
    entries = [h for h in described if h.get("kind") == "paper_entry"]
    return (entries or described or hits)[0]


def compose(
    result: SearchResult,
    sentences: list[Sentence],
    records: list[PaperRecord],
    paper_hits: dict[int, list[Hit]],
    asked: list[Key],
) -> tuple[str, list[Hit]]:
    """The extractive answer for a non-list question. ``sentences`` are scored candidates;
    ``paper_hits`` maps each named paper (catalog position) to its chunks, best first; ``asked`` is
    what the question asks about them (empty: a lookup, answered with the paper's description).
    Returns ``(text, cited hits in marker order)``."""
    q = result.question
    c = Composer()
    ranked = sorted((s for s in sentences if not s.is_title), key=lambda s: -s.score)
    amounts = bool(q and q.asks_quantity and any(s.number for s in ranked))
    if amounts:
        # an amount is answered by a sentence stating one (a new number, not one the question states)
        # (one whose number stands beside a word of what is asked first: "trained on 2048 A100 GPUs")
        ranked = [s for s in ranked if s.near] + [s for s in ranked if s.number and not s.near]
    named = list(q.records) if q else []
    if named and ranked and asked and q and not q.is_comparison:
        best_named = max((s.asked for s in sentences if s.named), default=0.0)  # titles count here

        # the best sentence of another paper that writes the name itself ("Presents Llama-3-SynE, … for
        # improving Chinese ability … on Llama-3-8B" below the named model's "Llama 3 8B: <link>"), or the
        # best sentence of all when its paper's title writes it ("Mirage Persistent Kernel" for "mirage
        # persistant kernel …", read as Mirage): the name is context only where another paper builds on it
        # or shares it; a paper's sentence that writes it nowhere is no such paper ("distserve in one
        # sentence" is not answered by another paper's "sentence classification", nor "DistServe 发表在哪"
        # by another paper's "发表在 EuroSys 上" in notes that mention DistServe elsewhere)
        def writes_a_name(s: Sentence) -> bool:
            if _says_a_name(s.text, q):
                return True
            return s is ranked[0] and s.hit.record is not None and _says_a_name(records[s.hit.record].title, q)

        rival = next((s for s in ranked if not s.named and writes_a_name(s)), None)
        if rival is not None and rival.asked >= best_named + SUBJECT_SWITCH_MARGIN:
            named = []  # the name is context, the answer is another paper
            ranked = [rival, *(s for s in ranked if s is not rival)]
    if named:
        # one name asked about (however many records share it: a preprint and its renamed conference
        # version) gets each record's authors and link; a comparison of names stays compact
        one_name = q is not None and len(q.papers) == 1
        labels = {k.word for k in q.asked} if q else set()
        compared = named[:3]
        # (papers compared by their names; one name's records, a preprint and its conference version,
        # share their description)
        shared = _shared_lines(compared, records, paper_hits, ranked) if not one_name else frozenset()
        for rec in compared:
            own = [s for s in ranked if s.hit.record == rec and _line_key(s.text) not in shared]
            _paper_answer(
                c,
                records[rec],
                paper_hits.get(rec, []),
                own,
                asked,
                link=one_name,
                labels=labels,
                amounts=amounts,
                shared=shared,
                parts=asked_parts(q.text, asked) if q else (),
            )
        if c.lines:
            return "\n".join(c.lines), c.cited
    if not ranked:
        top = result.hits[0]
        c.add(re.sub(r"\s+", " ", top.body).strip()[:400], top)
        return "\n".join(c.lines), c.cited
    subject = ranked[0].hit.group
    own = [s for s in ranked if s.hit.group == subject]
    subject_rec = ranked[0].hit.record
    if subject_rec is not None:
        chunk = _best_chunk([s.hit for s in own], records[subject_rec]) or ranked[0].hit
        c.add(paper_line(records[subject_rec]), chunk)
    _add_sentences(c, own, asked_parts(q.text, q.asked) if q else ())
    return "\n".join(c.lines), c.cited


def _says_a_name(text: str, q: Question) -> bool:
    """True when ``text`` writes the name of a paper ``q`` names (every term of it)."""
    have = set(lexical_terms(text))
    return any((terms := set(lexical_terms(m.name))) and terms <= have for m in q.papers)


def _line_key(text: str) -> str:
    """A quoted line's identity: its words, case and punctuation aside."""
    return " ".join(re.findall(r"\w+", text.casefold()))


def _own_chunks(r: PaperRecord, hits: list[Hit]) -> list[Hit]:
    """Paper ``r``'s own chunks among ``hits`` (its chunks, best first): the best one for it
    (:func:`_best_chunk`) first, then the others of the same record; ``[]`` when there is none."""
    chunk = _best_chunk(hits, r)
    if chunk is None:
        return []
    return [chunk, *(h for h in hits if h is not chunk and h.record == chunk.record)]


def _description(r: PaperRecord, mine: list[Hit], skip: AbstractSet[str] = frozenset()) -> tuple[Hit, list[str]] | None:
    """The notes' description of paper ``r``: from the first of its own chunks (``mine``,
    :func:`_own_chunks`) that gives one, that chunk and its lines (a note may open with its title and
    links only); lines in ``skip`` (:func:`_line_key`) are none of it."""
    return next(
        (
            (h, d)
            for h in mine[:MAX_SENTENCES]
            if (d := [x for x in description_sentences(h, r) if _line_key(x) not in skip])
        ),
        None,
    )


def _shared_lines(
    recs: list[int], records: list[PaperRecord], paper_hits: dict[int, list[Hit]], ranked: list[Sentence]
) -> frozenset[str]:
    """Lines (:func:`_line_key`) that one of the compared papers ``recs`` would be quoted with and that
    another one's chunks also say — a tag line their entries share ("Axis: Rollout latency and long-tail
    mitigation"): said of both, it tells them no apart, so a comparison quotes it for neither."""
    ids = {rec: {h.id for h in paper_hits.get(rec, [])} for rec in recs}

    def said(other: int, rec: int) -> str:  # the other paper's own chunks, none that ``rec`` also has
        return " ".join(
            _line_key(h.body) for h in paper_hits.get(other, []) if h.record == other and h.id not in ids[rec]
        )

    shared: set[str] = set()
    for rec in recs:
        described = _description(records[rec], _own_chunks(records[rec], paper_hits.get(rec, [])))
        lines = [*(described[1] if described else []), *(s.text for s in ranked if s.hit.record == rec)]
        others = [f" {said(other, rec)} " for other in recs if other != rec]
        for line in lines:
            key = _line_key(line)
            if key and any(f" {key} " in text for text in others):
                shared.add(key)
    return frozenset(shared)


def _paper_answer(
    c: Composer,
    r: PaperRecord,
    hits: list[Hit],
    own: list[Sentence],
    asked: list[Key],
    link: bool = False,
    labels: AbstractSet[str] = frozenset(),
    amounts: bool = False,
    shared: AbstractSet[str] = frozenset(),
    parts: Sequence[Sequence[Key]] = (),
) -> None:
    """Add paper ``r``'s part of an answer to ``c``: its lead line, then the sentences of ``own`` that
    answer what is ``asked`` (in each of its ``parts``, :func:`_add_sentences`; or, asked nothing more,
    the notes' description), its authors and links when ``link``; lines in ``shared``
    (:func:`_shared_lines`) are left out."""
    mine = _own_chunks(r, hits)
    if not mine:
        return
    chunk = mine[0]
    c.add(paper_line(r), chunk)
    # what is asked, or an amount asked of the paper alone ("orca speedup?": ``own`` holds its sentences
    # stating one)
    # (those saying it themselves first: under a heading that says it, every line would do)
    useful = ([s for s in own if s.says > 0] or [s for s in own if s.asked > 0]) if asked else own if amounts else []
    if useful:
        _add_sentences(c, useful, parts)
        if link:  # "doi for the jit checkpointing paper": its sentences on checkpointing, and its link
            _link_lines(c, r, chunk, labels)
        return
    # the paper's own chunks, best first: the description from the first that gives one (a note may open
    # with its title and links only), a byline the catalog lacks (it may open the note while its
    # description is further down)
    # (a paper described only by lines the other shares keeps them: they are all its notes say)
    described = (_description(r, mine, shared) if shared else None) or _description(r, mine)
    if described:
        for line in described[1][:MAX_SENTENCES]:
            c.add(line, described[0])
    if link and r.authors and (r.affiliations or len(r.authors) > LEAD_AUTHORS):
        # the lead line names the affiliations, not the people, or only the first of them
        c.add("Authors: " + ", ".join(r.authors[:12]) + (" et al." if len(r.authors) > 12 else ""), chunk)
    elif link and not r.authors:  # the notes' byline, when the catalog has no names
        byline = next(
            ((b, h) for h in mine for b in map(_unlinked, split_sentences(h.body, tables=False)) if is_byline(b)), None
        )
        if byline:
            c.add("Authors: " + byline[0].strip(" —–-."), byline[1])
    if link and (written := venue_line(r, mine)) is not None:
        c.add(*written)  # the venue as the notes write it ("… (IEEE BigData 2024)" for "BigData 2024")
    if link and not r.affiliations:  # the notes' affiliation line, when the catalog has none
        place = next(
            (
                x
                for x in split_sentences(chunk.body, tables=False)
                if _affiliation_like(x)
                and not is_byline(x)  # people, not places ("Fedus, Zoph, Shazeer.")
                and title_key(r.title) not in title_key(x)  # not its title line
            ),
            None,
        )
        if place:
            c.add("From: " + place.strip().rstrip(".。"), chunk)
    if link:
        _link_lines(c, r, chunk, labels)


#: Longest line, in words, read as a paper's venue line (:func:`venue_line`): a proceedings line, not a
#: sentence that cites the venue in passing.
VENUE_LINE_WORDS = 25
#: A label opening a line ("Venue:", "Published in:").
_LINE_LABEL_RE = re.compile(r"^[^:：]{1,24}[:：]\s*")


def venue_line(r: PaperRecord, hits: list[Hit]) -> tuple[str, Hit] | None:
    """The venue as the notes write it, from the paper's own chunks (``hits``, best first), when that says
    more than the venue the lead line gives: "In Proceedings of the 2024 IEEE International Conference on
    Big Data (IEEE BigData 2024)" for "BigData 2024", not "Venue: OSDI 2031". A line, or a part of one set
    off by " · ", a bar or a dash (a publication record's "venue · authors", a byline's "authors — venue"),
    that states the venue (:func:`_states_venue`)
    in at most :data:`VENUE_LINE_WORDS` words. Returns ``(text, its chunk)`` or None."""
    if not hits or not split_venue(r.venue or "")[1]:
        return None
    for h in hits[:MAX_SENTENCES]:
        if h.record != hits[0].record:
            continue
        for line in split_sentences(h.body, tables=False):
            for part in BYLINE_PARTS_RE.split(_unlinked(line).strip()):
                if len(part.split()) > VENUE_LINE_WORDS or not _states_venue(part, r):
                    continue
                if compact(_LINE_LABEL_RE.sub("", part)) == compact(r.venue or ""):
                    continue  # the venue alone, as the lead line gives it
                return part, h
    return None


def _states_venue(text: str, r: PaperRecord, history: bool = False) -> bool:
    """True when ``text`` states the paper's venue — read as :func:`~papernotes.corpus.venues.normalize_venue`
    reads a venue line ("In Proceedings of USENIX Annual Technical Conference (ATC 2019)" is "USENIX ATC
    2019") — or, with ``history``, one of its earlier or later venues; its title line states none."""
    if not re.search(r"\d{4}", text):
        return False
    title = title_key(r.title)
    if title and title in title_key(text):
        return False
    stated = normalize_venue(journal_abbreviated(text))  # "Journal of Machine Learning Research (JMLR) 2022"
    venues = [r.venue or "", *(r.history if history else [])]
    return bool(stated) and title_key(stated) in {title_key(v) for v in venues if v}


#: How a link label is written in an answer when its capitalized form is not the usual one.
LINK_NAMES = {"arxiv": "arXiv", "pdf": "PDF", "doi": "DOI", "openreview": "OpenReview"}


def _link_lines(c: Composer, r: PaperRecord, chunk: Hit, labels: AbstractSet[str] = frozenset()) -> None:
    """The record's paper link, its code link (when it has one apart) and each other link whose label
    the question names (``labels``: its asked words; "powerinfer arxiv?" beside a USENIX paper link),
    cited to ``chunk``."""
    if r.url:
        c.add(f"Link: {r.url}", chunk)
    if r.code and r.code != r.url:
        c.add(f"Code: {r.code}", chunk)
    for label, url in r.links.items():
        if label in labels and url not in (r.url, r.code):
            c.add(f"{LINK_NAMES.get(label, label.capitalize())}: {url}", chunk)


#: A link's label left at the end of a line once its address is taken out ("… — SIGIR 2020 DOI:").
_LINK_LABEL_END_RE = re.compile(
    r"\s*(?<!\w)(?:"
    + "|".join(sorted(map(re.escape, PAPER_LINK_LABELS | GENERIC_LINK_LABELS | {"doi"}), key=len, reverse=True))
    + r")\s*[:：]?\s*$",
    re.IGNORECASE,
)


def _unlinked(line: str) -> str:
    """``line`` without its addresses and the labels they leave at its end."""
    return _LINK_LABEL_END_RE.sub("", _URL_RE.sub(" ", line).strip())


def paper_lookup(r: PaperRecord, hits: list[Hit]) -> tuple[str, list[Hit]]:
    """The answer to "what is this paper": its catalog line, the notes' description of it (from
    ``hits``, its chunks best first), its authors (when the line names affiliations) and its link. Returns ``(text, cited hits in marker order)``."""
    c = Composer()
    _paper_answer(c, r, hits, [], [], link=True)
    return "\n".join(c.lines), c.cited


def _add_sentences(c: Composer, ranked: list[Sentence], parts: Sequence[Sequence[Key]] = ()) -> None:
    """The best :data:`MAX_SENTENCES` sentences scoring at least :data:`KEEP_SHARE` of the best; for a
    question of several ``parts`` (:func:`~papernotes.retrieval.question.asked_parts`: "how much memory
    do they waste, and what throughput gain?"), then, for each part whose words they do not say half of,
    the other sentence saying most of them (the better score first among equals): a question is answered
    in all its parts; then the other candidate items under a label one of them is quoted with
    ("Baselines — REEF" after "Baselines — NVIDIA MPS"), up to :data:`MAX_LISTED_ITEMS` in all: a list
    the notes give is quoted whole."""
    if not ranked:
        return
    best = ranked[0].score
    kept = [s for s in ranked if s.score >= KEEP_SHARE * best]
    chosen = kept[:MAX_SENTENCES]
    if len(parts) > 1:
        said = {t for s in chosen for t in lexical_terms(s.text)}
        for part in parts:
            if 2 * sum(k.covered(said) for k in part) >= len(part):
                continue
            says = {id(s): sum(k.covered(set(lexical_terms(s.text))) for k in part) for s in ranked if s not in chosen}
            more = max((s for s in ranked if says.get(id(s))), key=lambda s: says[id(s)], default=None)
            if more is not None:
                chosen.append(more)
                said |= set(lexical_terms(more.text))
    labels = {s.text.split(LABEL_JOIN, 1)[0] for s in chosen if LABEL_JOIN in s.text}
    # (whatever their scores: the label they share with a quoted item is what they answer by)
    siblings = [
        s for s in ranked if s not in chosen and LABEL_JOIN in s.text and s.text.split(LABEL_JOIN, 1)[0] in labels
    ]
    final = [*chosen, *siblings][:MAX_LISTED_ITEMS]

    def label_of(s: Sentence) -> str | None:
        head = s.text.split(LABEL_JOIN, 1)[0] if LABEL_JOIN in s.text else None
        return head if head in labels else None

    done: set[str] = set()
    # a label quoted as a sentence of its own is not repeated before each of its items
    alone = {s.text for s in final if label_of(s) is None}
    for s in final:  # the items of a label together, in the notes' order, where the first of them ranks
        label = label_of(s)
        if label is None:
            c.add(s.text, s.hit)
        elif label not in done:
            done.add(label)
            for item in sorted((x for x in final if label_of(x) == label), key=lambda x: x.index):
                c.add(item.text.split(LABEL_JOIN, 1)[1] if label in alone else item.text, item.hit)


def _who_and_where(s: str, r: PaperRecord) -> bool:
    """True for a byline, alone or in parts with the paper's venue ("SOSP 2021 · Xinwei Fu, Wook-Hee Kim,
    …", a publication page's line; "Jane Doe, Bob Lee — ICLR 2031"): who wrote it and where, which the
    lead line gives."""
    venues = {title_key(v) for v in [r.venue or "", *r.history] if v}
    parts = [p.strip(" .") for p in BYLINE_PARTS_RE.split(_URL_RE.sub(" ", s)) if p.strip(" .")]
    authors = title_key(", ".join(r.authors)) if r.authors else None

    def names_people(p: str) -> bool:  # a byline, or the record's own author list ("R.Madhava Krishnan, …")
        return is_byline(p) or title_key(p) == authors or author_list(p)  # "Doe et al. (Lab), 12 authors"

    return is_byline(s) or (  # "Ho, Jain, Abbeel — UC Berkeley": the people and their place
        bool(parts)
        and all(
            names_people(p) or title_key(p) in venues or _states_venue(p, r, history=True) or states_affiliations(p, r)
            for p in parts
        )
        and any(map(names_people, parts))
    )


def description_sentences(chunk: Hit, r: PaperRecord) -> list[str]:
    """The sentences of ``chunk`` that describe the paper: not its title, its venue, a table row, a field
    line ("Paper: …", "Reader: …"), nor the line stating its affiliations (those of the catalog record;
    for a record without any, a line that looks like one)."""
    out = []
    split = split_sentences(chunk.body, tables=False)
    sentences = [_after_lead(s, r) for s in split]
    # a chunk that holds the paper's entry among others (a log's entries, a listing: its title is a line
    # of the chunk, not its heading): the paper's own lines are those of its record's summary (the
    # entry's text), not its neighbours' (nor an overlap from the entry before)
    own = title_key(r.summary)
    if len(own) > 20 and sentences != split:
        sentences = [s for s in sentences if title_key(s) and title_key(s) in own] or sentences
    for s in sentences:
        if s.startswith("|"):
            continue  # a table row (a header, a listing's row): cells, not a description
        if is_labelled_line(s) or _SHORT_FIELD_RE.match(s):
            continue  # a field of the note ("Paper: …", "Authors: …", "Reader: minji (2023-05-11)"), not prose
        if re.fullmatch(r"[^\W\d_]+[:.]?", s) or (s.endswith((":", "：")) and len(s.split()) <= 4):
            continue  # a label over the lines below it ("Techniques", "Three tricks:"), not a description
        if title_key(s) in {title_key(n) for n in [r.title, r.system or "", *r.aliases]} or states_affiliations(s, r):
            continue  # the title, a bare name ("**Sarathi-Serve**", '"AlexNet"'), the affiliations line
        if _names_only(s, r) or _gives_names(s, r):
            continue  # a line of the paper's own names ("vLLM, PagedAttention"): the lead line gives them
        if _who_and_where(s, r) or (not r.affiliations and _affiliation_like(s)):
            continue  # who wrote it is not what it is (a lookup gives it as "Authors: …", "From: …")
        if title_key(s) in {title_key(v) for v in [r.venue or "", *r.history] if v} or _venue_only(s, r):
            continue  # a line that only states the venue ("arXiv 2023"): the lead line gives it
        if title_key(s).startswith(title_key(r.title)[:30]) and len(title_key(r.title)) > 10:
            # a listing bullet's line: the title, its venue, then what the paper does, its one-liner ("Otter:
            # … (ICML'23) — pages the KV cache into fixed blocks"): that part describes it
            if len(r.summary.split()) >= 3 and r.summary in s and not s.endswith(r.title):
                out.append(r.summary)
            continue
        out.append(s)
    return out


def _venue_only(sentence: str, r: PaperRecord) -> bool:
    """``sentence`` is one of the paper's venues as the notes write it and no more ("Journal of Machine
    Learning Research (JMLR) 2022."): at most :data:`VENUE_LINE_WORDS` words read as the venue
    (:func:`_states_venue`) once a label ("Venue:") is set aside; a lookup quotes it as the venue line."""
    text = journal_abbreviated(_LINE_LABEL_RE.sub("", _unlinked(sentence))).strip(" .。")
    if len(text.split()) > VENUE_LINE_WORDS or not _states_venue(text, r, history=True):
        return False
    series = {split_venue(v)[0].lower() for v in [r.venue or "", *r.history] if v}
    rest = re.findall(r"[^\W\d_]+", VENUE_RE.sub(" ", text))
    return all(w.lower() in series or w.lower() in _PROCEEDINGS_WORDS for w in rest)


#: Words a venue line writes around the venue ("In Proceedings of the …").
_PROCEEDINGS_WORDS = frozenset({"in", "proc", "proceedings", "of", "the", "at", "published", "appeared"})


def _names_only(sentence: str, r: PaperRecord) -> bool:
    """``sentence`` only lists the paper's names, separated by commas or slashes: its system name,
    aliases, or a one-word name its title holds ("vLLM, PagedAttention" under "… with PagedAttention")."""
    names = {title_key(n) for n in [r.title, r.system or "", *r.aliases] if n}
    parts = [p for p in re.split(r"\s*[,/;]\s*", sentence.strip().rstrip(".")) if p]
    return len(parts) > 1 and all(
        title_key(p) in names or (" " not in p and re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", r.title))
        for p in parts
    )


#: Words that introduce another name of the paper ("a.k.a. **Chinchilla**").
_AKA_WORDS_RE = re.compile(r"\b(?:a\.k\.a\.?|aka|also known as|also called|dubbed)(?!\w)", re.IGNORECASE)


def _gives_names(sentence: str, r: PaperRecord) -> bool:
    """``sentence`` gives only another name of the paper, perhaps with its people in brackets and a link
    label after a dash ("a.k.a. Chinchilla (DeepMind, Hoffmann et al. 2022) — arxiv"): the lead line
    names the paper already."""
    if not _AKA_WORDS_RE.search(sentence):
        return False
    text = re.sub(r"\([^()]*\)|\[[^\]]*\]", " ", _AKA_WORDS_RE.sub(" ", _URL_RE.sub(" ", sentence)))
    for name in sorted({n for n in [r.system or "", *r.aliases] if n}, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", " ", text, flags=re.IGNORECASE)
    rest = [w for w in re.split(r"[\s—–\-:;,.*_\"“”]+", text) if w]
    return all(w.lower() in PAPER_LINK_LABELS | GENERIC_LINK_LABELS for w in rest)


#: A short field line: a label of one or two words, a colon, and a value of at most three words
#: ("Reader: minji (2023-05-11)", "Status: read") or a comma-separated list of such short items ("Tags:
#: systems, llm serving, kv cache"); a longer value is a sentence ("Key idea: batch …").
_SHORT_FIELD_RE = re.compile(
    r"^[A-Z][\w-]*(?: [\w-]+)?\s*[:：]\s*(?:\S+(?:\s+\S+){0,2}|[^\s,.;]+(?:\s[^\s,.;]+){0,2}(?:,\s*[^\s,.;]+(?:\s[^\s,.;]+){0,2})+)$"
)


def _after_lead(sentence: str, r: PaperRecord) -> str:
    """An entry's lead line run together with its first line of notes ("**Title** (Venue) — A et al.
    https://… Reflection tokens: …") as the notes' part after the link, when that says something (four
    or more words); any other sentence unchanged."""
    if len(title_key(r.title)) > 10 and title_key(sentence).startswith(title_key(r.title)[:30]):
        links = list(_URL_RE.finditer(sentence))
        rest = sentence[links[-1].end() :].strip(" ;,.—–-") if links else ""
        if len(rest.split()) >= 4:
            return rest
    return sentence


_NAME_WORD = r"(?:[A-Z](?:[^\W\d_A-Z]|['’-])+(?:[A-Z][^\W\d_A-Z]+)?\.?|[A-Z]\.)"  # no acronyms
_PERSON_RE = re.compile(rf"{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,3}}")
_PLACE_RE = re.compile(r"[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|of|and|for))*")


def is_byline(line: str) -> bool:
    """True for a line that only lists a paper's people: personal names (one to four capitalised words
    or initials each) separated by commas or "and" — two or more, or one followed by "et al." and
    places ("Radford et al., OpenAI") — with
    affiliations in brackets, a short name after a dash or in quotes ("— SimCLR", '"AlexNet"') and
    a place after a dash aside ("Krizhevsky, Sutskever, Hinton — University of Toronto")."""
    text = re.sub(r"\([^()]*\)|\[[^\]]*\]|[\"“”][^\"“”]{1,40}[\"“”]", " ", line)
    text, *after = re.split(r"\s[—–-]\s|\s[—–]|[—–]\s", text, maxsplit=1)
    if after and len([w for w in after[0].split() if re.search(r"\w", w)]) > 4:
        return False  # what follows the dash says something ("— queue of negatives + …")
    text, *places = re.split(r"\bet\s+al\b\.?", text, maxsplit=1)  # "Radford et al., OpenAI"
    if places and not all(_PLACE_RE.fullmatch(p.strip(" .")) for p in re.split(r"[,;&/]", places[0]) if p.strip(" .")):
        return False
    names = [n.strip(" .") for n in re.split(r"\s*,\s*|\s+and\s+|\s*&\s*", text.strip(" ,.;:")) if n.strip(" .")]
    if not names or not all(_PERSON_RE.fullmatch(n) for n in names):
        return False
    return len(names) >= 2 or bool(places)


def _affiliation_like(line: str) -> bool:
    """:func:`~papernotes.corpus.papers.looks_like_affiliation` for a line that ends its sentence
    ("DeepMind.", "Facebook AI Research + UCL + NYU.")."""
    text = re.sub(r"\s+\+\s+", " & ", line.strip())
    if text.endswith((".", "。")) and len(text.split()) <= 8:
        text = text[:-1]
    if text.lower() in PAPER_LINK_LABELS | GENERIC_LINK_LABELS:
        return False  # a link's label left alone on its line ("[Paper](…)"), no place
    if is_labelled_line(text) or _SHORT_FIELD_RE.match(text):
        return False  # a field of the note ("Venue: CVPR 2016", "Authors: …"), no place
    return looks_like_affiliation(text)


def states_affiliations(line: str, r: PaperRecord) -> bool:
    """True when ``line`` only names the record's affiliations ("UW & Microsoft") or only gives its link,
    so it repeats the lead line or the Link line of a lookup; a short capitalised line that names
    something else ("Best Paper Award") is kept, and so are author lines: a question may name the
    paper by its people ("mason fu's cgo paper?")."""
    text = _URL_RE.sub(" ", line)
    if r.url and _URL_RE.search(line) and not re.search(r"[^\W_]", text):
        return True  # a bare link line: the lookup's Link line gives it
    if not r.affiliations:
        return looks_like_affiliation(line)
    have = set(normalize(" ".join(r.affiliations)).split())
    words = [w for w in re.split(r"[\s&,;/()\-–—:.]+", normalize(text)) if w and w not in stop_words()]
    return bool(words) and sum(w in have for w in words) >= 0.6 * len(words)
