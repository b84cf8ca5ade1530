"""Structure-aware chunking: one chunk per paper entry, heading-path sections split by a token budget,
tables by rows with the header repeated, publication records one each.

Chunk IDs are stable: a hash of origin + source + heading path + a discriminator (the paper's title
key for a paper entry, else the chunk kind) + the chunk's ordinal under that discriminator + the chunk's
text. So the same notes always give the same IDs, identical text in two places never collides, and
editing one section changes only that section's chunk IDs.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from papernotes.corpus.markdown import Block, Item, parse_blocks
from papernotes.corpus.models import Chunk, Page, PaperEntry
from papernotes.corpus.note_links import page_paper_links
from papernotes.corpus.note_opening import author_list
from papernotes.corpus.note_sections import logged_sections
from papernotes.corpus.paper_notes import complete_entry, paper_note_entry
from papernotes.corpus.papers import (
    deep_note_entry,
    is_deep_note,
    is_to_read_list,
    listing_page,
    page_venue,
    pointer_name,
    publication_entry,
    split_authors,
    title_key,
    walk_list,
    without_to_read,
)
from papernotes.corpus.table_entries import table_entries
from papernotes.corpus.venues import split_venue

TokenCounter = Callable[[str], int]
SEP = " › "

#: Default chunk budget in tokens of the embedding model's tokenizer. all-MiniLM-L6-v2 truncates input
#: at 256 word pieces (sentence-transformers' max_seq_length for that model); 16 are left for
#: [CLS]/[SEP] and rounding.
DEFAULT_MAX_TOKENS = 240
DEFAULT_OVERLAP_TOKENS = 32


#: CJK scripts (kana, CJK ideographs, Hangul): BERT-style tokenizers give each such character its own
#: token, and these scripts put no spaces between words.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_ESTIMATE_RE = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """Rough word-piece count when no tokenizer is given: 1 per punctuation mark and CJK character,
    1 per word plus 1 per 6 further letters, plus 1 for the text (on the real notes this totals within
    2% of all-MiniLM-L6-v2's count with [CLS]/[SEP]).

    Additive over whitespace (the count of a text is the sum of its space-separated parts' counts
    minus the constant 1), which :func:`split_text` relies on to pack pieces."""
    return 1 + sum(1 + len(t) // 6 for t in _ESTIMATE_RE.findall(text))


@dataclass
class PageAnalysis:
    """A page with its parsed blocks, its chunks and the paper entries it yields."""

    page: Page
    #: a list, or (from an ingest's cache) a sequence read on first use
    chunks: Sequence[Chunk] = field(default_factory=list)
    entries: list[PaperEntry] = field(default_factory=list)
    is_deep_note: bool = False


def _chunk_id(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]


#: Metadata keys every chunk carries, even when empty (``section`` is ``""`` before the first heading).
REQUIRED_META = ("source", "page_title", "section", "kind")


def clean_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """Chroma-valid metadata (values str, int, float or bool only): None, empty lists, nested dicts
    and empty strings are dropped (except the :data:`REQUIRED_META` keys, kept as ``""``); lists and
    tuples become ``", "``-joined strings; any other value becomes its ``str()``."""
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if v is None or isinstance(v, dict):
            continue
        if isinstance(v, (list, tuple, set)):
            v = ", ".join(str(x) for x in v if x is not None and str(x) and not isinstance(x, dict))
        elif not isinstance(v, (str, int, float, bool)):
            v = str(v)
        if v == "" and k not in REQUIRED_META:
            continue
        out[str(k)] = v
    for k in REQUIRED_META:
        out.setdefault(k, "")
    return out


#: Split points tried in order by :func:`split_text` (regexes): paragraphs, lines, sentence ends
#: (Latin punctuation followed by space; CJK full-width punctuation, which has no space after it),
#: then spaces, then characters (for unbroken runs such as long URLs or CJK text).
TEXT_SEPARATORS = ["\n\n", "\n", r"(?<=[.!?;])\s+", r"(?<=[。！？；])", r"\s+", ""]
#: For an oversized paper entry: before a top-level nested bullet, then before a second-level one.
ENTRY_SEPARATORS = [r"\n(?=- )", r"\n(?=  - )", *TEXT_SEPARATORS[1:]]


def split_text(
    text: str, budget: int, overlap: int, count: TokenCounter, separators: list[str] | None = None
) -> list[str]:
    """Split ``text`` into pieces of at most ``budget`` tokens (as measured by ``count``).

    The split points are tried in the order of ``separators`` (default :data:`TEXT_SEPARATORS`:
    paragraphs, lines, sentences, words, characters) by LangChain's
    ``RecursiveCharacterTextSplitter``. Each piece after the first then starts with the last words
    (characters, for text without spaces) of the text before it, up to ``overlap`` tokens, so
    consecutive pieces share text; the pieces are cut ``overlap`` tokens short to leave room for it
    (the overlap is capped at a third of the budget).

    Returns
    -------
    list of str: ``[]`` for blank text, ``[text]`` when it fits; no piece is blank.
    """
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    text = text.strip()
    if not text:
        return []
    if count(text) <= budget:
        return [text]
    fixed = count("")  # per-text constant of the counter ([CLS]/[SEP] of a tokenizer)

    def size(t: str) -> int:
        return max(0, count(t) - fixed)

    room = max(1, budget - fixed)
    ov = max(0, min(overlap, room // 3))
    splitter = RecursiveCharacterTextSplitter(
        separators=separators or TEXT_SEPARATORS,
        is_separator_regex=True,
        keep_separator="start",
        chunk_size=max(1, room - ov),
        chunk_overlap=0,
        length_function=size,
        add_start_index=True,
        strip_whitespace=True,
    )
    spans = []
    for d in splitter.create_documents([text]):
        start = d.metadata.get("start_index", -1)
        if start < 0:  # not found back in the text (cannot happen with exact substrings); no overlap
            spans.append((None, d.page_content))
        else:
            spans.append((start, d.page_content))
    pieces: list[str] = []
    prev_start = 0
    for i, (start, piece) in enumerate(spans):
        if i and ov and start is not None:
            # (a line the overlap opens with keeps its indentation: "  - Trained on …" is a nested item)
            with_tail = (
                text[_overlap_start(text, prev_start, start, ov, size) : start + len(piece)].strip("\n").rstrip()
            )
            if count(with_tail) <= budget:
                piece = with_tail
        if start is not None:
            prev_start = start
        pieces += _hard_split(piece.strip("\n").rstrip(), budget, count)
    return [p for p in pieces if p]


def _overlap_start(text: str, lo: int, start: int, overlap: int, size: TokenCounter) -> int:
    """Earliest offset ``p`` in ``[lo, start]`` with ``size(text[p:start]) <= overlap``, moved forward
    to the first line or sentence that begins in the span, else to a word start when the span holds a
    space (so the overlap does not begin mid-sentence, or at least not mid-word)."""
    lo_, hi = lo, start
    while lo_ < hi:  # size() grows as p moves left: binary search the leftmost fitting p
        mid = (lo_ + hi) // 2
        if size(text[mid:start]) <= overlap:
            hi = mid
        else:
            lo_ = mid + 1
    p = lo_
    if p > 0 and text[p - 1] != "\n":
        # a line or sentence begun inside the span starts the overlap: a piece that opens mid-sentence
        # ("530B on many tasks.") reads as a fragment of its own
        m = _OVERLAP_START_RE.search(text, p, start)
        if m and m.end() < start:
            return m.end()
        m = re.search(r"\s", text[p:start])
        if m and not text[p - 1].isspace():
            p += m.end()
    return p


#: Where an overlap may begin: after a line break or after a sentence's end.
_OVERLAP_START_RE = re.compile(r"\n+|(?<=[.!?;。！？；])\s+")


def _hard_split(piece: str, budget: int, count: TokenCounter) -> list[str]:
    """Last resort for a piece a tokenizer counts over ``budget`` although its parts fit (tokens are
    not quite additive): halve it at a space (else anywhere) until every part fits."""
    if not piece or count(piece) <= budget or len(piece) < 2:
        return [piece]
    mid = len(piece) // 2
    cut = piece.rfind(" ", 0, mid)
    cut = cut if cut > 0 else mid
    return _hard_split(piece[:cut].strip(), budget, count) + _hard_split(piece[cut:].strip(), budget, count)


class _Builder:
    def __init__(self, page: Page, count: TokenCounter, max_tokens: int, overlap: int, base_meta: dict[str, Any]):
        self.page = page
        # headers and header+body strings are counted several times per chunk; counting is pure
        self.count = functools.lru_cache(maxsize=4096)(count)
        self.max_tokens = max_tokens
        self.overlap = overlap
        self.base = base_meta
        self.chunks: list[Chunk] = []
        self.ordinals: dict[tuple[str, str], int] = {}

    def header(self, section: str) -> str:
        """The chunk's first line: page title › heading path, with middle headings dropped (then the
        line cut) while it takes more than half the budget."""
        parts = [self.page.title] + (section.split(SEP) if section else [])
        head = SEP.join(parts)
        while len(parts) > 2 and self.count(head) > self.max_tokens // 2:
            parts = parts[:1] + parts[2:]
            head = SEP.join(parts)
        while self.count(head) > self.max_tokens // 2 and " " in head:
            head = head.rsplit(" ", 1)[0]
        return head

    def budget(self, *lines: str) -> int:
        """Tokens left for a body below ``lines`` (header and any repeated line) within max_tokens."""
        fixed = self.count("")
        used = sum(self.count(x) - fixed for x in lines if x)
        return max(fixed + 1, self.max_tokens - used)

    def add(self, kind: str, section: str, body: str, meta: dict[str, Any], disc: str | None = None) -> None:
        """Split ``body`` by the budget (with overlap) and add the pieces as chunks."""
        head = self.header(section)
        self.add_pieces(kind, section, split_text(body, self.budget(head), self.overlap, self.count), meta, disc)

    def add_pieces(
        self, kind: str, section: str, pieces: list[str], meta: dict[str, Any], disc: str | None = None
    ) -> None:
        """Add already-sized pieces as chunks (header line prepended); blank pieces are skipped."""
        head = self.header(section)
        fitted: list[str] = []
        for piece in pieces:  # a counter that is not quite additive may put header + piece just over
            fitted += self._fit(head, piece.strip("\n").rstrip())  # an overlap's nested item keeps its indentation
        for piece in fitted:
            if not piece:
                continue
            key = (section, disc or kind)
            n = self.ordinals.get(key, 0)
            self.ordinals[key] = n + 1
            text = f"{head}\n{piece}"
            cid = _chunk_id(self.page.origin, self.page.source, section, disc or kind, str(n), text)
            md = clean_meta({**self.base, **meta, "section": section, "kind": kind, "chunk_id": cid})
            self.chunks.append(Chunk(id=cid, text=text, metadata=md))

    def _fit(self, head: str, piece: str) -> list[str]:
        if not piece or len(piece) < 2 or self.count(f"{head}\n{piece}") <= self.max_tokens:
            return [piece]
        mid = len(piece) // 2
        cut = piece.rfind(" ", 0, mid)
        cut = cut if cut > 0 else mid
        return self._fit(head, piece[:cut].strip()) + self._fit(head, piece[cut:].strip())

    def add_entry(self, section: str, body: str, meta: dict[str, Any], disc: str) -> None:
        """A paper entry: one chunk when it fits; else split before its nested bullets, every piece
        starting with the entry's first (title) line."""
        head = self.header(section)
        body = body.strip()
        if self.count(f"{head}\n{body}") <= self.max_tokens or "\n" not in body:
            pieces = (
                [body]
                if self.count(f"{head}\n{body}") <= self.max_tokens
                else split_text(body, self.budget(head), 0, self.count)
            )
            self.add_pieces("paper_entry", section, pieces, meta, disc)
            return
        first, rest = body.split("\n", 1)
        parts = split_text(rest, self.budget(head, first), 0, self.count, ENTRY_SEPARATORS)
        self.add_pieces("paper_entry", section, [f"{first}\n{x}" for x in parts], meta, disc)


def _section_of(page: Page, headings: list[str]) -> list[str]:
    hs = list(headings)
    if hs and hs[0].strip().lower() == page.title.strip().lower():
        hs = hs[1:]
    return hs


def _table_chunks(b: _Builder, block: Block, section: str, meta: dict[str, Any]) -> None:
    """Rows packed into chunks within the budget, each chunk starting with the header row; a row too
    long on its own is split like text, each part again under the header row."""
    header = "| " + " | ".join(block.header) + " |" if any(block.header) else ""
    head = b.header(section)
    budget = b.budget(head, header)
    group: list[str] = []
    pieces: list[str] = []

    def flush() -> None:
        if group:
            pieces.append("\n".join([header, *group] if header else group))
            group.clear()

    for row in block.rows:
        line = "| " + " | ".join(row) + " |"
        if b.count("\n".join(group + [line])) <= budget:
            group.append(line)
            continue
        flush()
        if b.count(line) <= budget:
            group.append(line)
        else:
            pieces += [f"{header}\n{x}" if header else x for x in split_text(line, budget, 0, b.count)]
    flush()
    if not block.rows and header:
        pieces.append(header)
    b.add_pieces("table", section, pieces, meta)


def _entry_meta(e: PaperEntry) -> dict[str, Any]:
    return {
        "paper_title": e.title,
        "venue": e.venue,
        "year": e.year,
        "url": e.url,
        "topic": e.topic,
        "affiliations": e.affiliations,
        "system": e.system,
    }


def analyze_page(
    page: Page,
    count: TokenCounter = estimate_tokens,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    overlap: int = DEFAULT_OVERLAP_TOKENS,
    site_url: str = "",
) -> PageAnalysis:
    """Parse one page into chunks and paper entries.

    Parameters
    ----------
    count : tokens of a text, for the budget (the embedding model's tokenizer; an estimate otherwise).
    max_tokens, overlap : chunk budget and overlap in tokens, header line included.
    site_url : published site base URL; with the page's site path it gives ``page_url``.
    """
    blocks = parse_blocks(page.markdown)
    venue = page_venue(page)
    base: dict[str, Any] = {
        "source": page.source,
        "origin": page.origin,
        "page_title": page.title,
        "tags": page.tags,
        "site_path": page.site_path,
        "page_url": f"{site_url.rstrip('/')}/{page.site_path}" if site_url and page.site_path else None,
    }
    if venue:
        base["venue"] = venue
        base["year"] = split_venue(venue)[1]
    b = _Builder(page, count, max_tokens, overlap, base)
    out = PageAnalysis(page=page)

    if page.publications:
        for pub in page.publications:
            e = publication_entry(page, pub)
            out.entries.append(e)
            # the venue as the page writes it ("… (IEEE BigData 2024)"), which says more than its normal form
            venue_text = pub.venue_text or pub.venue or ""
            lines = [pub.title, " · ".join(x for x in [venue_text, ", ".join(pub.authors)] if x)]
            if pub.subjects:
                lines.append("Subjects: " + ", ".join(pub.subjects))
            body = "\n".join(x for x in lines if x) + ("\n" + pub.abstract if pub.abstract else "")
            # publication records are split like text (abstracts can exceed the budget), title kept
            meta = {**_entry_meta(e), "venue": pub.venue, "year": pub.year}
            head = b.header("Publications")
            pieces = split_text(body, b.budget(head), overlap, count)
            if len(pieces) > 1:  # every piece of a long record starts with the record's title
                pieces = [
                    f"{pub.title}\n{x}" if i else x
                    for i, x in enumerate(split_text(body, b.budget(head, pub.title), overlap, count))
                ]
            b.add_pieces("publication", "Publications", pieces, meta, disc=title_key(pub.title))

    deep = is_deep_note(page, blocks)
    listing = listing_page(blocks, venue)
    note: PaperEntry | None = None
    logged = [] if page.publications or venue else logged_sections(page)
    out.entries += [s.entry for s in logged]  # a reading log: one paper note per section
    if not page.publications and not venue and not logged:  # a conference page is no paper note
        bullets = 0
        if not deep:
            bullets = sum(
                what == "paper"
                for blk in without_to_read(blocks)
                if blk.kind == "list"
                for what, *_ in walk_list(blk.items, page, [], venue, listing)
            )
        note = paper_note_entry(page, blocks, bullets)
    if deep and not logged:  # the notes' own "Presented in" convention; evidence read generally fills what it lacks
        note = complete_entry(deep_note_entry(page, blocks), note)
    deep = note is not None
    out.is_deep_note = deep
    deep_meta: dict[str, Any] = {}
    if note is not None:
        e = note
        out.entries.append(e)
        deep_meta = {**_entry_meta(e), "authors": e.authors}
        if e.venue:
            deep_meta["year"] = e.year

    # group consecutive blocks by section; text and non-paper bullets accumulate, papers/tables flush
    sections: list[tuple[str, int, list[Block]]] = []
    for blk in blocks:
        sec = SEP.join(_section_of(page, blk.headings))
        if sections and sections[-1][:2] == (sec, blk.heading_line):
            sections[-1][2].append(blk)
        else:
            sections.append((sec, blk.heading_line, [blk]))
    seen_titles: dict[str, int] = {}
    to_read = {id(blk) for k, blk in enumerate(blocks) if is_to_read_list(blocks, k)}
    listed: dict[str, PaperEntry] = {}  # the page's table rows and list entries so far, by their names
    for sec, line, blks in sections:
        # a reading log's section: its chunks are its paper's (its heading's line range)
        own = next((s.entry for s in logged if s.start <= line < s.end), None)
        if own is None and not deep:  # "## FlashAttention" below a table row of it: that paper's notes
            own = listed_section(blks, listed)
            if own is not None:
                _byline_authors(own, blks)
        as_note = deep or own is not None  # its bullets and tables are the paper's notes, not entries
        text_kind = "deep_note" if as_note else "page_section"
        meta = {**_entry_meta(own), "authors": own.authors} if own else dict(deep_meta) if deep else {}
        buf: list[str] = []

        def flush(section: str = sec, buf: list[str] = buf, text_kind: str = text_kind, meta: dict = meta) -> None:
            if buf:
                b.add(text_kind, section, "\n".join(buf), meta)
                buf.clear()

        for blk in blks:
            if blk.kind == "text":
                buf.append(blk.text)
            elif blk.kind == "table":
                flush()
                rows = [] if as_note else table_entries(blk, page, sec, venue)
                papers = {n for n, _ in rows}
                if len(papers) < len(blk.rows) or not blk.rows:
                    _table_chunks(
                        b, replace(blk, rows=[r for n, r in enumerate(blk.rows) if n not in papers]), sec, meta
                    )
                for n, entry in rows:  # each paper row its own chunk, under the table's header row
                    out.entries.append(entry)
                    _remember(listed, entry)
                    disc = _entry_disc(entry, seen_titles)
                    header = "| " + " | ".join(blk.header) + " |\n" if any(blk.header) else ""
                    body = header + "| " + " | ".join(blk.rows[n]) + " |"
                    b.add_entry(sec, body, _entry_meta(entry), disc=disc)
            elif as_note or id(blk) in to_read:  # a paper's notes, or papers not read yet: text
                buf.append("\n".join(it.render() for it in blk.items))
            else:
                for what, item, path, entry in walk_list(
                    blk.items, page, _section_of(page, blk.headings), venue, listing
                ):
                    if what == "other":
                        buf.append(item.render())
                        pointer = pointer_name(item)
                        if pointer:  # an index's name for a note's paper: an alias, no chunk of its own
                            out.entries.append(
                                PaperEntry(
                                    title=pointer[0],
                                    kind="pointer",
                                    source=page.source,
                                    page_title=page.title,
                                    links={"notes": pointer[1]},
                                )
                            )
                        continue
                    assert entry is not None
                    flush()
                    out.entries.append(entry)
                    _remember(listed, entry)
                    disc = _entry_disc(entry, seen_titles)
                    b.add_entry(SEP.join(path), _render_entry(item), _entry_meta(entry), disc=disc)
        flush()
    if not out.entries and b.chunks:
        # a note that names no paper itself: an index bullet titling it may (:func:`~papernotes.corpus.
        # catalog.merge_group`), which needs to know the note is there
        out.entries.append(PaperEntry(title=page.title, kind="note", source=page.source, page_title=page.title))
    for e in out.entries:
        e.committed = page.committed
    out.chunks = b.chunks
    return out


def _remember(listed: dict[str, PaperEntry], entry: PaperEntry) -> None:
    """Keep ``entry`` (a page's table row or list entry) under each of its names' keys, the first entry
    of a name kept."""
    for name in (entry.title, entry.system, *entry.aliases):
        if name and len(title_key(name)) >= 3:
            listed.setdefault(title_key(name), entry)


def listed_section(blks: list[Block], listed: dict[str, PaperEntry]) -> PaperEntry | None:
    """The paper whose notes a section of a page holds when one of its headings (the deepest that does)
    is the name of a paper the page listed before it — a lab wiki's table of papers, then a
    "## FlashAttention" section per paper — and the section lists no paper itself (no table, no paper
    link: a section of links is a listing, not one paper's notes); else None."""
    if not listed or not blks or any(b.kind == "table" for b in blks) or page_paper_links(blks):
        return None
    return next((e for h in reversed(blks[0].headings) if (e := _listed_as(h, listed)) is not None), None)


def _byline_authors(entry: PaperEntry, blks: list[Block]) -> None:
    """Give ``entry`` the authors and affiliations of a byline opening its section ("Tri Dao, Daniel Y.
    Fu, … (Stanford University)") when it names none."""
    first = blks[0].text.split("\n", 1)[0] if blks and blks[0].kind == "text" else ""
    if not entry.authors and author_list(first):
        entry.authors, found = split_authors(first)
        entry.affiliations = entry.affiliations or found


def _listed_as(heading: str, listed: dict[str, PaperEntry]) -> PaperEntry | None:
    """The listed paper a heading names: by one of its names — the heading, its part after a label
    ("Deep dive: QLoRA"), without or within its brackets ("Multi-Query Attention (MQA)") — or as the
    opening words (two or more) of exactly one listed title ("Ring Attention" for "Ring Attention with
    Blockwise Transformers …"); None when it names none."""
    bare = re.sub(r"\s*\([^()]*\)", "", heading).strip()
    names = [heading, bare, *re.findall(r"\(([^()]*)\)", heading)]
    names += [n.split(":", 1)[1] for n in (heading, bare) if ":" in n]
    for n in names:
        if (k := title_key(n)) in listed:
            return listed[k]
    if len(bare.split()) >= 2 and (k := title_key(bare)):
        opened = {id(e): e for e in listed.values() if title_key(e.title).startswith(k)}
        if len(opened) == 1:
            return next(iter(opened.values()))
    return None


def _entry_disc(entry: PaperEntry, seen: dict[str, int]) -> str:
    """Chunk-ID discriminator of a paper entry: its title key, numbered from its second time on a page."""
    k = title_key(entry.title)
    seen[k] = seen.get(k, 0) + 1
    return k if seen[k] == 1 else f"{k}~{seen[k]}"


def _render_entry(item: Item) -> str:
    lines = [item.text] + item.extra
    for c in item.children:
        lines.append(c.render(0))
    return "\n".join(lines)
