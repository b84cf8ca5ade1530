"""Structure-aware chunking: one chunk per paper entry, heading-path sections split by a token budget,
tables by rows with the header repeated, publication records one each.

Chunk IDs are stable: a hash of source + heading path + a discriminator (the paper's title key for a
paper entry, else the ordinal of the chunk within its section), so identical text in two places never
collides and an unchanged chunk keeps its ID when other sections change.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from corpus.markdown import Block, Item, parse_blocks
from corpus.models import Chunk, Page
from corpus.papers import (
    PaperEntry, deep_note_entry, is_deep_note, page_venue, publication_entry, title_key, walk_list,
)
from corpus.venues import split_venue

TokenCounter = Callable[[str], int]
SEP = " › "

#: Default chunk budget in tokens of the embedding model's tokenizer. all-MiniLM-L6-v2 truncates input
#: at 256 word pieces (sentence-transformers' max_seq_length for that model); 16 are left for
#: [CLS]/[SEP] and rounding.
DEFAULT_MAX_TOKENS = 240
DEFAULT_OVERLAP_TOKENS = 32


def estimate_tokens(text: str) -> int:
    """Rough word-piece count (words and punctuation × 1.3) when no tokenizer is given."""
    return int(len(re.findall(r"\w+|[^\w\s]", text)) * 1.3) + 1


@dataclass
class PageAnalysis:
    """A page with its parsed blocks, its chunks and the paper entries it yields."""

    page: Page
    chunks: list[Chunk] = field(default_factory=list)
    entries: list[PaperEntry] = field(default_factory=list)
    is_deep_note: bool = False


def _chunk_id(*parts: str) -> str:
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:24]


def clean_meta(meta: dict[str, Any]) -> dict[str, Any]:
    """Chroma-valid metadata: drop None, empty strings and empty lists; lists → ``", "``-joined
    strings; nested dicts dropped."""
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if v is None or v == "" or v == [] or isinstance(v, dict):
            continue
        if isinstance(v, (list, tuple)):
            v = ", ".join(str(x) for x in v if str(x))
            if not v:
                continue
        out[k] = v
    return out


def split_text(text: str, budget: int, overlap: int, count: TokenCounter) -> list[str]:
    """Split ``text`` into pieces of at most ``budget`` tokens, at line, then sentence, then word
    boundaries, each piece after the first starting with up to ``overlap`` tokens of the previous one.
    Returns ``[]`` for blank text."""
    text = text.strip()
    if not text:
        return []
    if count(text) <= budget:
        return [text]
    units: list[str] = []
    for line in text.split("\n"):
        if count(line) <= budget:
            units.append(line)
            continue
        for sent in re.split(r"(?<=[.!?;])\s+", line):
            if count(sent) <= budget:
                units.append(sent)
            else:
                words = sent.split(" ")
                step = max(1, len(words) * budget // (count(sent) + 1))
                units += [" ".join(words[i : i + step]) for i in range(0, len(words), step)]
    pieces: list[str] = []
    cur: list[str] = []
    for u in units:
        if cur and count("\n".join(cur + [u])) > budget:
            pieces.append("\n".join(cur))
            tail: list[str] = []
            for prev in reversed(cur):
                if count("\n".join([prev] + tail)) > overlap:
                    break
                tail.insert(0, prev)
            cur = tail if count("\n".join(tail + [u])) <= budget else []
        cur.append(u)
    if cur:
        pieces.append("\n".join(cur))
    return [p for p in (x.strip() for x in pieces) if p]


class _Builder:
    def __init__(self, page: Page, count: TokenCounter, max_tokens: int, overlap: int,
                 base_meta: dict[str, Any]):
        self.page = page
        self.count = count
        self.max_tokens = max_tokens
        self.overlap = overlap
        self.base = base_meta
        self.chunks: list[Chunk] = []
        self.ordinals: dict[tuple[str, str], int] = {}

    def header(self, section: str) -> str:
        return self.page.title + (SEP + section if section else "")

    def add(self, kind: str, section: str, body: str, meta: dict[str, Any], disc: str | None = None) -> None:
        head = self.header(section)
        budget = max(32, self.max_tokens - self.count(head) - 1)
        pieces = [body.strip()] if kind == "paper_entry" else split_text(body, budget, self.overlap, self.count)
        for piece in pieces:
            if not piece:
                continue
            key = (section, disc or kind)
            n = self.ordinals.get(key, 0)
            self.ordinals[key] = n + 1
            cid = _chunk_id(self.page.source, section, disc or kind, str(n))
            md = clean_meta({**self.base, **meta, "section": section, "kind": kind, "chunk_id": cid})
            self.chunks.append(Chunk(id=cid, text=f"{head}\n{piece}", metadata=md))


def _section_of(page: Page, headings: list[str]) -> list[str]:
    hs = list(headings)
    if hs and hs[0].strip().lower() == page.title.strip().lower():
        hs = hs[1:]
    return hs


def _table_chunks(b: _Builder, block: Block, section: str, meta: dict[str, Any]) -> None:
    header = "| " + " | ".join(block.header) + " |" if block.header else ""
    head_cost = b.count(b.header(section)) + b.count(header) + 2
    budget = max(32, b.max_tokens - head_cost)
    group: list[str] = []
    for row in block.rows:
        line = "| " + " | ".join(row) + " |"
        if group and b.count("\n".join(group + [line])) > budget:
            b.add("table", section, "\n".join([header] + group if header else group), meta)
            group = []
        group.append(line)
    if group:
        b.add("table", section, "\n".join([header] + group if header else group), meta)


def _entry_meta(e: PaperEntry) -> dict[str, Any]:
    return {
        "paper_title": e.title, "venue": e.venue, "year": e.year, "url": e.url, "topic": e.topic,
        "affiliations": e.affiliations, "system": e.system,
    }


def analyze_page(page: Page, count: TokenCounter = estimate_tokens, max_tokens: int = DEFAULT_MAX_TOKENS,
                 overlap: int = DEFAULT_OVERLAP_TOKENS, site_url: str = "") -> PageAnalysis:
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
        "source": page.source, "origin": page.origin, "page_title": page.title, "tags": page.tags,
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
            lines = [pub.title, " · ".join(x for x in [pub.venue or "", ", ".join(pub.authors)] if x)]
            if pub.subjects:
                lines.append("Subjects: " + ", ".join(pub.subjects))
            body = "\n".join(x for x in lines if x) + ("\n" + pub.abstract if pub.abstract else "")
            # publication records are split like text (abstracts can exceed the budget), title kept
            meta = {**_entry_meta(e), "venue": pub.venue, "year": pub.year}
            budget = max(32, max_tokens - count(b.header("Publications" + SEP + pub.title)) - 1)
            for piece in split_text(body, budget, overlap, count):
                if not piece.startswith(pub.title):
                    piece = f"{pub.title}\n{piece}"
                b.add("publication", "Publications", piece, meta, disc=title_key(pub.title))

    deep = is_deep_note(page, blocks)
    out.is_deep_note = deep
    deep_meta: dict[str, Any] = {}
    if deep:
        e = deep_note_entry(page, blocks)
        out.entries.append(e)
        deep_meta = {**_entry_meta(e), "authors": e.authors}
        if e.venue:
            deep_meta["year"] = e.year

    # group consecutive blocks by section; text and non-paper bullets accumulate, papers/tables flush
    sections: list[tuple[str, list[Block]]] = []
    for blk in blocks:
        sec = SEP.join(_section_of(page, blk.headings))
        if sections and sections[-1][0] == sec:
            sections[-1][1].append(blk)
        else:
            sections.append((sec, [blk]))
    seen_titles: dict[str, int] = {}
    for sec, blks in sections:
        text_kind = "deep_note" if deep else "page_section"
        meta = dict(deep_meta) if deep else {}
        buf: list[str] = []

        def flush(section: str = sec) -> None:
            if buf:
                b.add(text_kind, section, "\n".join(buf), meta)
                buf.clear()

        for blk in blks:
            if blk.kind == "text":
                buf.append(blk.text)
            elif blk.kind == "table":
                flush()
                _table_chunks(b, blk, sec, meta)
            elif deep:
                buf.append("\n".join(it.render() for it in blk.items))
            else:
                for what, item, path, entry in walk_list(blk.items, page, _section_of(page, blk.headings),
                                                         venue):
                    if what == "other":
                        buf.append(item.render())
                        continue
                    assert entry is not None
                    flush()
                    out.entries.append(entry)
                    k = title_key(entry.title)
                    seen_titles[k] = seen_titles.get(k, 0) + 1
                    disc = k if seen_titles[k] == 1 else f"{k}~{seen_titles[k]}"
                    b.add("paper_entry", SEP.join(path), _render_entry(item), _entry_meta(entry), disc=disc)
        flush()
    out.chunks = b.chunks
    return out


def _render_entry(item: Item) -> str:
    lines = [item.text] + item.extra
    for c in item.children:
        lines.append(c.render(0))
    return "\n".join(lines)
