"""The paper catalog: one :class:`~papernotes.corpus.models.PaperRecord` per paper, merged over every place the
notes mention it (topic lists, conference pages, deep notes, publication pages)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from pathlib import Path

import orjson

from papernotes.corpus.lexicon import readings
from papernotes.corpus.models import PaperEntry, PaperRecord
from papernotes.corpus.normalize import compact
from papernotes.corpus.paper_links import is_paper_link, paper_id
from papernotes.corpus.papers import NOTE_LABELS, note_slug, title_key
from papernotes.corpus.venues import is_preprint, normalize_venue

#: Which entry kind's title/venue wins when places disagree (a listing's title keeps its casing).
_KIND_RANK = {"paper_entry": 0, "deep_note": 1, "publication": 2}


def _add_unique(dst: list[str], items: Iterable[str]) -> None:
    for x in items:
        if x and x not in dst:
            dst.append(x)


def names_only(summary: str, r: PaperRecord) -> bool:
    """True for a one-liner that only names the paper ("Sarathi-Serve", "Tensor Language Model (TLM)", as a
    listing's bold name over its notes reads): each of its words is a word of the record's title, system
    name or aliases."""
    words = set(re.findall(r"[^\W_]+", summary.casefold()))
    names = set(re.findall(r"[^\W_]+", " ".join([r.title, r.system or "", *r.aliases]).casefold()))
    return bool(words) and words <= names


def _add_authors(dst: list[str], names: Iterable[str]) -> None:
    """Add author ``names`` to ``dst`` once each: a surname alone ("Sutskever", as a reading log writes it)
    is the author whose full name ends in it ("Ilya Sutskever"), and a full name replaces the surname
    written before it."""
    for name in names:
        last = name.split()[-1].casefold() if name.split() else ""
        same = [i for i, d in enumerate(dst) if d == name or (d.split() and d.split()[-1].casefold() == last)]
        if not name or (same and (len(name.split()) == 1 or any(d == name for d in dst))):
            continue
        short = next((i for i in same if len(dst[i].split()) == 1), None)
        if short is not None:
            dst[short] = name
        else:
            dst.append(name)


def _notes_path(href: str) -> str:
    """Site path a "Personal Notes" link points to (``/reading-notes/x/y``, a GitHub blob URL of
    ``reading-notes/x/y.md``), without leading slash or ``.md``; "" if none."""
    m = re.search(r"(reading-notes/[^?#]+?)(?:\.md)?/?(?:[?#].*)?$", href or "")
    return m.group(1) if m else ""


def _prefix(title: str) -> str:
    return title.split(":", 1)[0].strip().casefold() if ":" in title else ""


def _deep_note_aliases(entries: list[PaperEntry]) -> dict[int, str]:
    """Deep notes whose title differs a little from the listing's (case, plural, subtitle wording):
    ``id(entry) → the listing's title key``, found by the listing's "Personal Notes" link to the
    note's site path, else by the same system prefix ("EVStore:") at the same venue, else — for a note
    without a paper link of its own — by a title that is one listing's system prefix alone ("QLoRA")."""
    by_link: dict[str, str] = {}
    by_prefix: dict[tuple[str, str], str] = {}
    by_name: dict[str, list[tuple[str, str | None]]] = {}
    keys = set()
    for e in entries:
        if e.kind == "deep_note":
            continue
        k = title_key(e.title)
        keys.add(k)
        for label, href in e.links.items():
            if "notes" in label and _notes_path(href):
                by_link.setdefault(_notes_path(href), k)
        if _prefix(e.title) and e.venue:
            by_prefix.setdefault((_prefix(e.title), normalize_venue(e.venue) or e.venue), k)
        if _prefix(e.title):
            by_name.setdefault(_prefix(e.title), []).append((k, normalize_venue(e.venue) if e.venue else None))
    out: dict[int, str] = {}
    for e in entries:
        if e.kind != "deep_note" or title_key(e.title) in keys:
            continue
        key = by_link.get(e.site_path) if e.site_path else None
        if not key and _prefix(e.title) and e.venue:
            key = by_prefix.get((_prefix(e.title), normalize_venue(e.venue) or e.venue))
        if not key and not any(k in _IDENTITY_LABELS for k in e.links):
            # a note titled by the name alone, without a paper link of its own ("## Deep dive: QLoRA" beside
            # the table row "QLoRA: Efficient Finetuning …"): the one listing of that name, at its venue
            venue = normalize_venue(e.venue) if e.venue else None
            named = {k for k, v in by_name.get(e.title.strip().casefold(), []) if venue is None or v in (None, venue)}
            key = next(iter(named)) if len(named) == 1 else None
        if key:
            out[id(e)] = key
    return out


def _pointers(entries: list[PaperEntry]) -> dict[int, str]:
    """Listing bullets whose notes link (``[notes](distserve.md)``, ``[Personal Notes](../orca/)``)
    names a paper note of ``entries`` by its file or folder name (the caller leaves out notes that
    join a listing by :func:`_deep_note_aliases`): ``id(bullet) → the note's title key``. Such a bullet is a
    pointer to that note, so it joins the note's record under the note's title."""
    notes: dict[str, list[PaperEntry]] = {}
    for e in entries:
        if e.kind == "deep_note":
            notes.setdefault(note_slug(e.source.split("#", 1)[0]), []).append(e)
    out: dict[int, str] = {}
    for e in entries:
        if e.kind != "paper_entry":
            continue
        for label, href in e.links.items():
            if label in NOTE_LABELS and not _notes_path(href):
                found = notes.get(note_slug(href), [])
                if len(found) == 1 and title_key(found[0].title) != title_key(e.title):
                    out[id(e)] = title_key(found[0].title)
    return out


def _without_dangling_pointers(entries: list[PaperEntry]) -> list[PaperEntry]:
    """``entries`` without the listing bullets that only point to a note of the reader's (``Title
    [[notes](x.md)]``, no paper link, no venue) when that note is no paper note: such a bullet stands for
    its note (a book chapter's, a talk's), so it is a paper only through it."""
    notes = {note_slug(e.source.split("#", 1)[0]) for e in entries if e.kind == "deep_note"}

    def dangling(e: PaperEntry) -> bool:
        if e.kind != "paper_entry" or e.venue:
            return False
        pointers = [h for label, h in e.links.items() if label in NOTE_LABELS and not _notes_path(h)]
        others = [h for label, h in e.links.items() if label not in NOTE_LABELS]
        local = [h for h in pointers if not re.match(r"^[a-z][a-z0-9+.-]*:", h, re.I)]
        return (
            bool(local)
            and len(local) == len(pointers)
            and not any(map(is_paper_link, others))
            and not any(note_slug(h) in notes for h in local)
        )

    return [e for e in entries if not dangling(e)]


#: Link labels that identify the paper itself (not its code, slides or project page).
_IDENTITY_LABELS = ("paper", "arxiv", "pdf", "doi", "openreview")
#: Two titles whose letters after the system name agree this closely (difflib ratio) name one paper.
SAME_TITLE_RATIO = 0.9


def build_catalog(entries: Iterable[PaperEntry], warnings: list[str] | None = None) -> list[PaperRecord]:
    """Merge paper entries (in ingest order) into one record per paper.

    Entries are keyed by :func:`~papernotes.corpus.papers.title_key` (a deep note whose title differs
    a little from its listing's joins the listing's record; a bullet whose notes link names a paper
    note by file name joins that note's record, its title kept as an alias: :func:`_pointers`). Records that then share a paper's identity
    (the same arXiv id, DOI or paper link, :func:`~papernotes.corpus.paper_links.paper_id`) and whose
    titles agree apart from the system name ("PrefillOnly: X" / "LMPrefill: X"; "FlashAttention" /
    "FlashAttention: Fast and …") are one paper: the title of the later place in ingest order is kept
    (a full title over one that is only its system name) and the others become ``aliases``. Records with
    clearly different titles sharing a link stay apart, and a message naming both is appended to
    ``warnings``.

    "Later" is ingest order, except that between entries of git sources the newer commit of the note's
    file is later (:func:`precedence`). The venue is the last peer-reviewed venue, else the last
    preprint venue; when the places give different venues, ``history`` lists them all as a timeline
    (by year, a preprint before the venue of its year). The year is the venue's, else the first year a place states without one.
    Affiliations, authors, links, topics, tags, aliases and sources are unions in order of appearance;
    the summary is the first listing's one-liner (else the deep note's TL;DR, else the abstract).
    Records keep first-seen order.
    """
    entries = list(entries)
    records = [r for _, r in sorted(merge_group(entries, precedence(entries), warnings), key=lambda x: x[0])]
    finish_catalog(records)
    return records


def merge_group(
    entries: list[PaperEntry], order: dict[int, int], warnings: list[str] | None = None
) -> list[tuple[tuple[float, int], PaperRecord]]:
    """The records of ``entries`` (in ingest order; ``order``: ``id(entry) → precedence``, only compared)
    before the catalog-wide passes (:func:`finish_catalog`), each with its place in the catalog's order:
    ``(kind rank, index in entries)`` of the entry that started it. Entries that share no
    :func:`link_keys` never affect each other's records here, so the records of a group of entries
    closed under shared keys are those :func:`build_catalog` makes of them."""
    position = {id(e): i for i, e in enumerate(entries)}
    index_names = [e for e in entries if e.kind == "pointer"]
    plain_notes = [e for e in entries if e.kind == "note"]
    entries = _without_dangling_pointers([e for e in entries if e.kind not in ("pointer", "note")])
    entries = sorted(entries, key=lambda e: _KIND_RANK.get(e.kind, 3))
    joined = _deep_note_aliases(entries)
    pointers = _pointers([e for e in entries if id(e) not in joined])
    # a pointer bullet comes after the note it points to, so the record has the note's title
    rank = {id(e): _KIND_RANK.get(e.kind, 3) + (1.5 if id(e) in pointers else 0) for e in entries}
    entries = sorted(entries, key=lambda e: rank[id(e)])
    alias = {**joined, **pointers}
    records: dict[str, PaperRecord] = {}
    started: dict[int, tuple[float, int]] = {}  # id(record) → (kind rank, index) of its first entry
    venues: dict[int, list[tuple[int, str, int | None]]] = {}  # id(record) → (order, venue, year)
    last: dict[int, int] = {}  # id(record) → latest ingest position of its entries
    for e in entries:
        key = alias.get(id(e)) or title_key(e.title)
        if not key:
            continue
        r = records.get(key)
        if r is None:
            r = records[key] = PaperRecord(title=e.title)
            started[id(r)] = (rank[id(e)], position[id(e)])
        if e.system and not r.system:
            r.system = e.system
        elif e.system and e.system != r.system:
            _add_unique(r.aliases, [e.system])  # named otherwise in another place ("TLT" / "Taming the Long-Tail")
        if id(e) in pointers or (id(e) in joined and title_key(e.title) != title_key(r.title)):
            _add_unique(r.aliases, [e.title])  # its chunks are written under that title
        venue = normalize_venue(e.venue) if e.venue else None
        venue = venue or e.venue
        if venue:
            venues.setdefault(id(r), []).append((order[id(e)], venue, e.year))
        r.year = r.year or e.year  # a year stated without a venue; a venue's year replaces it below
        last[id(r)] = max(last.get(id(r), -1), order[id(e)])
        _add_unique(r.affiliations, e.affiliations)
        _add_authors(r.authors, e.authors)
        _add_unique(r.aliases, e.aliases)
        for k, v in e.links.items():
            if v and k not in r.links:
                r.links[k] = v
        if e.summary and (not r.summary or (names_only(r.summary, r) and not names_only(e.summary, r))):
            r.summary = e.summary  # (a one-liner that only names the paper gives way to one that says something)
        if e.kind != "deep_note":
            _add_unique(r.topics, [f"{e.page_title} › {e.topic}" if e.topic else e.page_title])
        _add_unique(r.tags, e.tags)
        _add_unique(r.sources, [e.source])
        if e.kind == "deep_note" and not r.deep_note:
            r.deep_note = e.source
    for r, p in _titled_notes(_add_index_names(index_names, entries, alias, records), plain_notes, records):
        started[id(r)] = (_KIND_RANK["paper_entry"], position[id(p)])
    merged = _merge_by_identity(list(records.values()), venues, last, warnings)
    for r in merged:
        _choose_venue(r, venues.get(id(r), []))
    return [(started[id(r)], r) for r in merged]


def _add_index_names(
    index_names: list[PaperEntry], entries: list[PaperEntry], alias: dict[int, str], records: dict[str, PaperRecord]
) -> list[PaperEntry]:
    """Add to the record of each paper note the short names an index of the notes gives it (``kind``
    ``pointer`` entries: ``- [x] [SDXL](./notes/027_sdxl.md)``), as aliases; a name pointing at no paper
    note, or at a file name several notes share, names nothing. Returns the pointers that found no
    paper note."""
    by_slug: dict[str, list[PaperRecord]] = {}
    unresolved: list[PaperEntry] = []
    for e in entries:
        if e.kind == "deep_note":
            r = records.get(alias.get(id(e)) or title_key(e.title))
            if r is not None:
                by_slug.setdefault(note_slug(e.source.split("#", 1)[0]), []).append(r)
    for p in index_names:
        targets = {id(r): r for href in p.links.values() for r in by_slug.get(note_slug(href), [])}
        if len(targets) == 1:
            (r,) = targets.values()
            if title_key(p.title) not in {title_key(n) for n in [r.title, r.system or "", *r.aliases]}:
                r.aliases.append(p.title)
            elif title_key(p.title) == title_key(r.title) and " " in p.title and " " not in r.title:
                r.title = p.title  # the index spells out the title the note only has as its file name
        elif not targets:
            unresolved.append(p)
    return unresolved


def _titled_notes(
    pointers: list[PaperEntry], notes: list[PaperEntry], records: dict[str, PaperRecord]
) -> list[tuple[PaperRecord, PaperEntry]]:
    """New records for the index bullets that title one of the reader's ``notes`` (``kind`` ``note``:
    a note that names no paper itself) named after them: ``1. [Dissecting the Graphcore IPU
    Architecture](papers/Dissecting-the-Graphcore-IPU-Architecture)`` for
    ``papers/Dissecting-the-Graphcore-IPU-Architecture/README.md``, which opens with "## Notes" (see
    :func:`~papernotes.corpus.papers.pointer_name`): the index says which paper the note is about, and the
    note is the record's deep note. A bullet naming a note that is not there, or under a title another
    record already has, makes none. Returns ``(record, bullet)`` pairs."""
    by_slug: dict[str, list[PaperEntry]] = {}
    for n in notes:
        by_slug.setdefault(note_slug(n.source.split("#", 1)[0]), []).append(n)
    out = []
    for p in pointers:
        key = title_key(p.title)
        found = [n for h in p.links.values() for n in by_slug.get(note_slug(h), []) if title_key(note_slug(h)) == key]
        if key in records or len(found) != 1:
            continue
        note = found[0]
        r = records[key] = PaperRecord(title=p.title, topics=[p.page_title], sources=[note.source, p.source])
        r.deep_note = note.source
        out.append((r, p))
    return out


def finish_catalog(records: list[PaperRecord]) -> None:
    """The catalog-wide passes over the merged records, in catalog order (mutated): one spelling per
    venue, system names that are shared labels cleared, system names that end a title."""
    _one_spelling_per_venue(records)
    _drop_shared_labels(records)
    _tail_names(records)
    _repository_names(records)


#: A code repository's name in its URL: ``https://github.com/OrderLab/TrainCheck`` → "TrainCheck" (the
#: hosts whose second path part is the repository, GitHub's layout).
_REPOSITORY_RE = re.compile(
    r"^https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|gitee\.com)/[^/?#]+/([^/?#]+)"
)


def _repository_names(records: list[PaperRecord]) -> None:
    """Give a record the name of its code repository as an alias, in the notes' spelling, when its title
    or one-line summary writes that name as a word — with a capital or a digit in it, or one that is no
    English word ("**TrainCheck** targets …" beside ``github.com/OrderLab/TrainCheck``; "BytePS" for
    ``bytedance/byteps``) — and the record has no coined name of its own: no system name, or one of
    several plain words, a title's opening phrase ("Training with Confidence"). A paper is asked about by
    its system's name, and a repository is named for the system; a coined system name stays the only one
    (``tile-ai/tilelang`` beside PipeThreader names the language it is built in), and a name that would
    fall to two records, or is another record's, is given to none. Mutates the records."""
    taken = {title_key(n) for r in records for n in [r.title, r.system or "", *r.aliases] if n}
    found: dict[str, list[tuple[PaperRecord, str]]] = {}
    for r in records:
        m = _REPOSITORY_RE.match(r.code or "")
        if not m or (r.system and _coined(r.system)):
            continue
        repo = m.group(1).removesuffix(".git")
        if len(repo) < 3:
            continue
        pattern = re.compile(rf"(?<![\w-]){re.escape(repo)}(?![\w-])", re.IGNORECASE)
        written = [w.group(0) for text in (r.title, r.summary) for w in pattern.finditer(text)]
        named = [w for w in written if not w.islower() or not readings(w)]
        if named:
            found.setdefault(title_key(named[0]), []).append((r, named[0]))
    for key, holders in found.items():
        if len(holders) == 1 and key not in taken:
            holders[0][0].aliases.append(holders[0][1])


def _coined(name: str) -> bool:
    """A coined name: one word, or a word with a capital after its first letter or a digit ("PipeThreader",
    "SYSSPEC", "Llama 2"); several plain words ("Training with Confidence") are a phrase of a title."""
    words = name.split()
    return len(words) == 1 or any(re.search(r"\d|.[A-Z]", w) for w in words)


#: A title that ends by naming what it presents: "Accelerating Distributed MoE Training and Inference
#: with Lina", "Efficiently Programming Large Language Models using SGLang", "… via Faro".
_TAIL_NAME_RE = re.compile(r"\s(?:with|using|via)\s+([A-Z][\w+-]*[\w+])\s*$")


def _tail_names(records: list[PaperRecord]) -> None:
    """Give a record without a system name the one word its title ends with after "with", "using" or
    "via", capitalized, when no other title holds that word, in the singular or plural ("with RDMA",
    "with NPUs" name a technology several titles share, not a system)."""

    def words(text: str) -> set[str]:
        return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", text.lower())}

    titles: dict[str, int] = {}
    for r in records:
        for w in words(r.title):
            titles[w] = titles.get(w, 0) + 1
    for r in records:
        m = _TAIL_NAME_RE.search(r.title)
        if not r.system and m and all(titles.get(w, 0) <= 1 for w in words(m.group(1))):
            r.system = m.group(1)


def link_keys(e: PaperEntry) -> set[str]:
    """Every key through which :func:`merge_group` can relate ``e`` to another entry: its title key, the
    notes path, the system-name-at-venue and the system name a listing offers and a deep note looks up
    (:func:`_deep_note_aliases`), a deep note's file name and a bullet's notes link (:func:`_pointers`),
    and its paper identities (:func:`_merge_by_identity`), each with a one-letter prefix. Entries whose
    keys are disjoint (transitively) are merged independently."""
    if e.kind == "pointer":  # an index bullet naming a note: related to that note only
        return {"s" + note_slug(href) for href in e.links.values()}
    if e.kind == "note":  # a note naming no paper: related to the bullets naming it only
        return {"s" + note_slug(e.source.split("#", 1)[0])}
    keys = {"t" + title_key(e.title)}
    if _prefix(e.title) and e.venue:
        keys.add(f"p{_prefix(e.title)}\x1f{normalize_venue(e.venue) or e.venue}")
    if e.kind != "deep_note" and _prefix(e.title):
        keys.add("m" + _prefix(e.title))  # the name a link-less deep note may be titled by alone
    elif e.kind == "deep_note" and not any(k in _IDENTITY_LABELS for k in e.links):
        keys.add("m" + e.title.strip().casefold())
    if e.kind == "deep_note":
        keys.add("s" + note_slug(e.source.split("#", 1)[0]))
        if e.site_path:
            keys.add("n" + e.site_path)
    for label, href in e.links.items():
        if e.kind != "deep_note" and "notes" in label and _notes_path(href):
            keys.add("n" + _notes_path(href))
        if e.kind == "paper_entry" and label in NOTE_LABELS and not _notes_path(href):
            keys.add("s" + note_slug(href))
        if label in _IDENTITY_LABELS and href and is_paper_link(href):
            keys.add("i" + paper_id(href))
    return keys


def _drop_shared_labels(records: list[PaperRecord]) -> None:
    """Clear a ``system`` name or alias that several records share while none of their titles holds it:
    a bold label repeated under papers ("**Operational Systems**", a track), not a system's name. (Two papers
    that share a real name, "FlexPipe: …" twice, carry it in their titles.)"""
    by_name: dict[str, list[PaperRecord]] = {}
    for r in records:
        for n in {title_key(n) for n in [r.system, *r.aliases] if n}:
            by_name.setdefault(n, []).append(r)
    for name, rs in by_name.items():
        if len(rs) >= 2 and not any(name in title_key(r.title) for r in rs):
            for r in rs:
                if r.system and title_key(r.system) == name:
                    r.system = None
                r.aliases = [a for a in r.aliases if title_key(a) != name]


def precedence(entries: list[PaperEntry]) -> dict[int, int]:
    """``id(entry) → rank``, later places ranking higher: ingest order, with the entries of git sources
    (those with a ``committed`` time) re-ordered among the positions they hold by commit time (ties
    keep ingest order), so a newer commit wins over an older one and local sources keep their places."""
    dated = [i for i, e in enumerate(entries) if e.committed is not None]
    by_time = sorted(dated, key=lambda i: (entries[i].committed or 0, i))
    rank = {id(e): i for i, e in enumerate(entries)}
    for slot, i in zip(dated, by_time, strict=True):
        rank[id(entries[i])] = slot
    return rank


def _choose_venue(r: PaperRecord, said: list[tuple[int, str, int | None]]) -> None:
    """Set ``r.venue``/``r.year``/``r.history`` from the venues its places give (see build_catalog)."""
    if not said:
        return
    said = sorted(said)
    reviewed = [x for x in said if not is_preprint(x[1])]
    _, r.venue, r.year = (reviewed or said)[-1]
    # the history is a timeline, oldest first ("arXiv 2023 → SOSP 2024", "MICRO 2021 → NVMW 2022" for a
    # paper presented again at a workshop): by year, a preprint before a venue of its year, undated first
    year_of = {v: y for _, v, y in said}
    order = list(dict.fromkeys(v for _, v, _ in [x for x in said if is_preprint(x[1])] + reviewed))
    if len(order) < 2:
        r.history = []
        return
    r.history = sorted(order, key=lambda v: (year_of[v] or 0, not is_preprint(v)))


def _identities(r: PaperRecord) -> set[str]:
    return {paper_id(u) for k, u in r.links.items() if k in _IDENTITY_LABELS and u and is_paper_link(u)}


def _rest_key(title: str) -> str:
    """Title key without a leading system name ("PrefillOnly: An Inference Engine…" → the rest)."""
    head, sep, rest = title.partition(":")
    return title_key(rest) if sep and len(head.split()) <= 4 and title_key(rest) else title_key(title)


def _name_key(title: str) -> str:
    """Title key of the system name a title opens with ("FlashAttention: Fast and …" → "flashattention");
    "" when it has none."""
    head, sep, rest = title.partition(":")
    return title_key(head) if sep and len(head.split()) <= 4 and title_key(rest) else ""


def name_only(title: str, other: str) -> bool:
    """True when ``title`` is only the system name ``other`` opens with ("FlashAttention" beside
    "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness")."""
    return bool(_name_key(other)) and title_key(title) == _name_key(other)


def same_paper_titles(a: str, b: str) -> bool:
    """True when two titles agree apart from the system name: the same words after ``"Name:"`` (or
    one is the other's rest), or nearly the same letters (:data:`SAME_TITLE_RATIO`), or one is only the
    system name the other opens with (:func:`name_only`)."""
    ra, rb = _rest_key(a), _rest_key(b)
    if ra == rb or ra == title_key(b) or rb == title_key(a) or name_only(a, b) or name_only(b, a):
        return True
    return difflib.SequenceMatcher(None, ra, rb).ratio() >= SAME_TITLE_RATIO


def _named_as(short: PaperRecord, full: PaperRecord) -> bool:
    """True when ``short``'s title is one of ``full``'s other names (a note titled "vLLM" beside the
    listing "Efficient Memory Management … with PagedAttention (vLLM)")."""
    return title_key(short.title) in {title_key(a) for a in full.aliases} | {title_key(full.system or "")}


def _merge_by_identity(
    records: list[PaperRecord],
    venues: dict[int, list[tuple[int, str, int | None]]],
    last: dict[int, int],
    warnings: list[str] | None,
) -> list[PaperRecord]:
    """Merge records that share a paper identity and agree on the title (see :func:`build_catalog`)."""
    by_id: dict[str, list[PaperRecord]] = {}
    for r in records:
        for pid in _identities(r):
            by_id.setdefault(pid, []).append(r)
    gone: set[int] = set()
    warned: set[tuple[str, str]] = set()
    for pid, group in by_id.items():
        group = [r for r in group if id(r) not in gone]
        if len(group) < 2:
            continue
        # the later place's title, unless it is only the system name another place's full title opens with
        keep = max(
            group,
            key=lambda r: (
                not any(name_only(r.title, o.title) or _named_as(r, o) for o in group),
                last.get(id(r), -1),
            ),
        )
        for other in group:
            if other is keep:
                continue
            if not (same_paper_titles(keep.title, other.title) or _named_as(other, keep) or _named_as(keep, other)):
                pair = tuple(sorted((keep.title, other.title)))
                if warnings is not None and pair not in warned:
                    warned.add(pair)  # type: ignore[arg-type]
                    link = next(u for u in keep.links.values() if u and paper_id(u) == pid)
                    warnings.append(f"'{other.title}' and '{keep.title}' share the link {link}; kept as two papers")
                continue
            _absorb(keep, other)
            venues.setdefault(id(keep), []).extend(venues.get(id(other), []))
            gone.add(id(other))
    return [r for r in records if id(r) not in gone]


def _absorb(keep: PaperRecord, other: PaperRecord) -> None:
    """Fold ``other`` (the same paper under another name) into ``keep``."""
    _add_unique(keep.aliases, [other.title, *other.aliases])
    keep.aliases = [a for a in keep.aliases if title_key(a) != title_key(keep.title)]
    keep.system = keep.system or other.system
    keep.year = keep.year or other.year
    _add_unique(keep.affiliations, other.affiliations)
    _add_authors(keep.authors, other.authors)
    for k, v in other.links.items():
        keep.links.setdefault(k, v)
    if not keep.summary or (names_only(keep.summary, keep) and other.summary and not names_only(other.summary, keep)):
        keep.summary = other.summary
    _add_unique(keep.topics, other.topics)
    _add_unique(keep.tags, other.tags)
    _add_unique(keep.sources, other.sources)
    keep.deep_note = keep.deep_note or other.deep_note


def _one_spelling_per_venue(records: list[PaperRecord]) -> None:
    """Venues of series unknown to :mod:`~papernotes.corpus.venues` keep the casing they were written in
    (``"ToySys 2026"``, ``"toysys 2026"``); give every record of one venue the same spelling — the
    first with a capital letter, else the first seen."""
    best: dict[str, str] = {}
    for r in records:
        if not r.venue:
            continue
        k = r.venue.casefold()
        if k not in best or (best[k] == best[k].lower() and r.venue != r.venue.lower()):
            best[k] = r.venue
    for r in records:
        if r.venue:
            r.venue = best[r.venue.casefold()]


def save_catalog(records: list[PaperRecord], path: Path) -> None:
    """Write the catalog as a JSON list of records (atomically: temp file + rename; compact UTF-8 JSON
    by orjson)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(orjson.dumps([r.to_dict() for r in records]))
    tmp.replace(path)


def load_catalog(path: Path) -> list[PaperRecord]:
    """Read a catalog written by :func:`save_catalog`; a missing file is an empty catalog."""
    if not path.is_file():
        return []
    return [PaperRecord(**d) for d in orjson.loads(path.read_bytes())]


def filter_records(
    records: list[PaperRecord],
    venue: str | None = None,
    year: int | None = None,
    topic: str | None = None,
    search: str | None = None,
) -> list[PaperRecord]:
    """Records matching every given filter: venue (any spelling; the paper's venue or one of its
    history, :attr:`~papernotes.corpus.models.PaperRecord.venues`), year, topic (case-insensitive
    substring of a topic path or tag), search (its letters and digits, :func:`~papernotes.corpus.normalize.compact`, in
    those of the title, system, summary, affiliations or aliases)."""
    v = normalize_venue(venue) if venue else None
    wanted = compact(search) if search else ""
    out = []
    for r in records:
        if venue and (v or venue).lower() not in {x.lower() for x in r.venues}:
            continue
        if year and r.year != year:
            continue
        if topic and not any(topic.lower() in t.lower() for t in r.topics + r.tags):
            continue
        if search:  # compared by letters and digits of the one normalization: "Sarathi serve", "deepseekv3"
            hay = " ".join([r.title, r.system or "", r.summary, " ".join(r.affiliations), " ".join(r.aliases)])
            if not wanted or wanted not in compact(hay):
                continue
        out.append(r)
    return out
