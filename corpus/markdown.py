"""Markdown → structured blocks with their heading path, using markdown-it-py's token stream.

A block is a paragraph/code/quote/HTML run (``text``), a list with its item tree (``list``) or a table
(``table``). Code fences (``` and ~~~) are kept whole, so ``#`` lines inside them are never headings.
GitBook template tags (``{% hint %}``, ``{% endhint %}``, ``{% embed %}`` …) are dropped and their text
kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from html.parser import HTMLParser
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from papernotes.corpus.paper_links import unwrap_redirect

#: GitBook/Liquid template tags, e.g. ``{% hint style="info" %}`` (GitBook's Markdown extensions).
TEMPLATE_TAG_RE = re.compile(r"\{%-?\s*[a-zA-Z_]+[^%]*?-?%\}")


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    """The shared CommonMark parser with GFM tables and strikethrough enabled; an HTML element that
    sets text apart after a heading's words reads as a bracketed aside (:func:`heading_asides`); a
    badge after them is no part of the heading (:func:`heading_badges`)."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    md.core.ruler.push("heading_asides", heading_asides)
    md.core.ruler.push("heading_badges", heading_badges)
    return md


@lru_cache(maxsize=256)
def _parsed(markdown: str) -> tuple[Token, ...]:
    return tuple(markdown_parser().parse(markdown))


def parse_tokens(markdown: str) -> list[Token]:
    """The markdown-it tokens of ``markdown`` (:func:`markdown_parser`), parsed once per text: a note is
    read by several readers in turn (its title heading, its opening, its blocks, its sections), each of
    which used to parse it again. The tokens are shared between callers and must not be modified."""
    return list(_parsed(markdown))


#: Inline HTML elements that set their text apart in small, raised or styled type: after a heading's
#: words ("# DistServe <small>OSDI 2024</small>", "<sup>", "<span class=…>") they hold an aside.
_ASIDE_TAG_RE = re.compile(r"^<(/?)(small|sup|sub|span|font|mark|kbd)\b[^>]*>$", re.IGNORECASE)


def heading_asides(state: StateCore) -> None:
    """markdown-it core rule: in a heading, the text of an aside element (:data:`_ASIDE_TAG_RE`) after
    the heading's own words becomes a bracketed aside — ``# DistServe <small>OSDI 2024</small>`` reads
    "DistServe (OSDI 2024)", as a title with its venue in brackets is written; elsewhere (``x<sup>2</sup>``
    in a paragraph, an element that starts the heading) the tags are dropped as before."""
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "inline" or not i or tokens[i - 1].type != "heading_open" or not tok.children:
            continue
        depth, seen = 0, False
        for c in tok.children:
            m = _ASIDE_TAG_RE.match(c.content.strip()) if c.type == "html_inline" else None
            if m and not m.group(1) and (depth or seen):
                depth += 1
                if depth == 1:
                    c.type, c.content = "text", " ("
            elif m and m.group(1) and depth:
                depth -= 1
                if depth == 0:
                    c.type, c.content = "text", ")"
            elif c.type == "text" and c.content.strip():
                seen = True


def heading_badges(state: StateCore) -> None:
    """markdown-it core rule: in a heading, a link whose only content is an image (a badge,
    ``# Awesome Systems [![Awesome](https://awesome.re/badge.svg)](https://awesome.re)``) after the
    heading's own words is dropped: its alt text is no part of the title (in a paragraph a badge's alt
    text labels its link, :func:`render_inline`)."""
    tokens = state.tokens
    for i, tok in enumerate(tokens):
        if tok.type != "inline" or not i or tokens[i - 1].type != "heading_open" or not tok.children:
            continue
        ch, kept, seen, j = tok.children, [], False, 0
        while j < len(ch):
            badge = (
                seen
                and ch[j].type == "link_open"
                and j + 2 < len(ch)
                and ch[j + 1].type == "image"
                and ch[j + 2].type == "link_close"
            )
            if badge:
                j += 3
                continue
            seen = seen or (ch[j].type == "text" and bool(ch[j].content.strip()))
            kept.append(ch[j])
            j += 1
        tok.children = kept


@dataclass
class Inline:
    """Rendered inline content: plain ``text`` (links → their label, images and HTML dropped), the
    ``links`` as (label, href) pairs in order, and the ``strong`` (bold) spans."""

    text: str
    links: list[tuple[str, str]] = field(default_factory=list)
    strong: list[str] = field(default_factory=list)


@dataclass
class Item:
    """A list item: its own first-paragraph inline content, any further text, and nested items."""

    inline: Inline
    extra: list[str] = field(default_factory=list)
    children: list[Item] = field(default_factory=list)

    @property
    def text(self) -> str:
        return self.inline.text

    def render(self, depth: int = 0) -> str:
        """The item and its descendants as indented ``- `` lines (2 spaces per level)."""
        pad = "  " * depth
        lines = [f"{pad}- {self.inline.text}".rstrip()]
        lines += [f"{pad}  {x}" for x in self.extra]
        lines += [c.render(depth + 1) for c in self.children]
        return "\n".join(lines)


@dataclass
class Block:
    """One top-level block under a heading path (list of heading texts, outermost first)."""

    kind: Literal["text", "list", "table"]
    headings: list[str]
    text: str = ""
    items: list[Item] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    #: A table's links by body row, then by cell: ``cell_links[row][cell]`` is that cell's (label, href) pairs.
    cell_links: list[list[list[tuple[str, str]]]] = field(default_factory=list)
    strong: list[str] = field(default_factory=list)
    line: int = 0
    #: 0-based line of the innermost heading in force (-1 before the first heading): tells apart two
    #: sections that happen to have the same heading path.
    heading_line: int = -1


#: Elements whose content is not shown: a script's code, a style sheet, a template.
_HIDDEN_TAGS = frozenset({"script", "style", "template", "noscript"})


class _TextExtractor(HTMLParser):
    """The visible text of HTML, each table row (``<tr>``) kept as one pipe-table line of its cells; the
    content of :data:`_HIDDEN_TAGS` is no text."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.row: list[str] | None = None  # the cells of the open table row
        self.hidden = 0  # depth inside elements whose content is not shown

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN_TAGS:
            self.hidden += 1
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.row.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN_TAGS:
            self.hidden = max(0, self.hidden - 1)
        elif tag == "tr" and self.row is not None:
            cells = [re.sub(r"\s+", " ", c).strip() for c in self.row]
            if any(cells):
                self.parts.append("\n| " + " | ".join(cells) + " |\n")
            self.row = None

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        if self.row is None:
            self.parts.append(data)
        elif self.row:
            self.row[-1] += data


def html_text(html: str) -> str:
    """Visible text of an HTML fragment (tags dropped, whitespace folded), via the stdlib parser; a
    table's rows become pipe-table lines (``| SOSP 2023 | Oct 23-26, 2023 | Koblenz, Germany |``), one
    per line, as a Markdown table's read."""
    p = _TextExtractor()
    p.feed(html)
    p.close()
    lines = (re.sub(r"\s+", " ", ln).strip() for ln in " ".join(p.parts).split("\n"))
    return "\n".join(ln for ln in lines if ln)


def render_inline(token: Token) -> Inline:
    """Render an ``inline`` token to :class:`Inline`. A link whose text is only an image (a badge,
    ``[![arXiv](https://img.shields.io/…)](https://arxiv.org/abs/…)``) is labelled by the image's alt
    text, which is the text it adds; other images add no text."""
    out: list[str] = []
    links: list[tuple[str, str]] = []
    strong: list[str] = []
    link_stack: list[tuple[str, int]] = []
    strong_start: int | None = None
    alts: list[str] = []  # the alt texts of images inside the open link (a badge: [![arXiv](…svg)](…))
    for c in token.children or []:
        t = c.type
        if t in ("text", "code_inline"):
            out.append(c.content)
        elif t in ("softbreak", "hardbreak"):
            out.append(_BREAK)
        elif t == "link_open":
            link_stack.append((unwrap_redirect(str(c.attrs.get("href", ""))), len("".join(out))))
        elif t == "link_close" and link_stack:
            href, start = link_stack.pop()
            label = "".join(out)[start:].strip()
            if not label and alts:  # a badge: its alt text is the link's text
                label = " ".join(a for a in alts if a).strip()
                out.append(f" {label} ")
            alts = []
            links.append((label, href))
        elif t == "strong_open":
            strong_start = len("".join(out))
        elif t == "strong_close" and strong_start is not None:
            strong.append("".join(out)[strong_start:].strip())
            strong_start = None
        elif t == "image" and link_stack:
            alts.append(c.content.strip())
        elif t == "html_inline" or t == "image":
            continue
    lines = "".join(out).split(_BREAK)
    fields = [bool(FIELD_LINE_RE.match(ln.strip())) for ln in lines]
    joined = lines[0]
    for before, field_line, line in zip(fields, fields[1:], lines[1:], strict=False):
        # a block of fields keeps one per line, also when prose follows it without a blank line
        joined += ("\n" if sum(fields) > 1 and (before or field_line) else " ") + line
    text = TEMPLATE_TAG_RE.sub(" ", joined)
    text = re.sub(r"[ \t]+", " ", text).strip()
    return Inline(text=text, links=links, strong=[s for s in strong if s])


#: A line break inside a paragraph while it is rendered (one character, as the space it becomes).
_BREAK = "\x00"
#: A line of ``Label: value`` (a label of one to three words): two or more such lines in a paragraph
#: are a block of fields (a Notion page's exported properties, "Authors: …" / "Venue: …" / "Status:
#: Read"), kept one field per line rather than run together into one sentence with the prose after it.
FIELD_LINE_RE = re.compile(r"^[^\W\d_][\w'/&.()-]*(?:[ ][\w'/&.()-]+){0,2}\s?[:：]\s*\S")


def _find_close(tokens: list[Token], i: int) -> int:
    """Index of the token closing the one opened at ``i`` (same nesting level)."""
    level = tokens[i].level
    close = tokens[i].type.replace("_open", "_close")
    j = i + 1
    while j < len(tokens) and not (tokens[j].type == close and tokens[j].level == level):
        j += 1
    return j


def _parse_list(tokens: list[Token], i: int, end: int) -> list[Item]:
    """Items of the list whose open token is at ``i`` and close at ``end``."""
    items: list[Item] = []
    j = i + 1
    while j < end:
        if tokens[j].type == "list_item_open":
            k = _find_close(tokens, j)
            items.append(_parse_item(tokens, j + 1, k))
            j = k + 1
        else:
            j += 1
    return items


def _parse_item(tokens: list[Token], j: int, end: int) -> Item:
    item: Item | None = None
    extra: list[str] = []
    children: list[Item] = []
    while j < end:
        t = tokens[j]
        if t.type == "inline":
            rendered = render_inline(t)
            if item is None:
                item = Item(inline=rendered)
            elif rendered.text:
                extra.append(rendered.text)
                item.inline.links.extend(rendered.links)
                item.inline.strong.extend(rendered.strong)
            j += 1
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            k = _find_close(tokens, j)
            children.extend(_parse_list(tokens, j, k))
            j = k + 1
        elif t.type in ("fence", "code_block"):
            extra.append(t.content.rstrip("\n"))
            j += 1
        elif t.type == "html_block":
            txt = html_text(t.content)
            if txt:
                extra.append(txt)
            j += 1
        else:
            j += 1
    if item is None:
        item = Item(inline=Inline(text=""))
    item.extra = [e for e in extra if e.strip()]
    item.children = children
    return item


def _table(
    tokens: list[Token], i: int, end: int
) -> tuple[list[str], list[list[str]], list[tuple[str, str]], list[list[list[tuple[str, str]]]]]:
    """``(header, body rows, all links, each body row's links by cell)`` of the table at ``i``..``end``."""
    header: list[str] = []
    rows: list[list[str]] = []
    links: list[tuple[str, str]] = []
    cell_links: list[list[list[tuple[str, str]]]] = []
    row: list[str] = []
    row_links: list[list[tuple[str, str]]] = []
    in_head = False
    for t in tokens[i:end]:
        if t.type == "thead_open":
            in_head = True
        elif t.type == "thead_close":
            in_head = False
        elif t.type == "tr_open":
            row, row_links = [], []
        elif t.type == "inline":
            r = render_inline(t)
            row.append(r.text)
            row_links.append(r.links)
            links.extend(r.links)
        elif t.type == "tr_close":
            if in_head:
                header = row
            else:
                rows.append(row)
                cell_links.append(row_links)
    return header, rows, links, cell_links


def heading_sections(markdown: str, level: int = 1, tokens: list[Token] | None = None) -> list[tuple[int, str]]:
    """Line numbers (0-based) and texts of headings of exactly ``level`` outside code fences
    (``tokens``: the text's markdown-it tokens when already parsed)."""
    tokens = parse_tokens(markdown) if tokens is None else tokens
    out = []
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and t.tag == f"h{level}" and t.map:
            out.append((t.map[0], render_inline(tokens[i + 1]).text))
    return out


def unclosed_fence_line(markdown: str, tokens: list[Token] | None = None) -> int | None:
    """0-based line of a code fence (``` or ~~~) that is never closed, or None.

    CommonMark lets such a fence run to the end of the document, so everything after it (headings
    included) is code; its text is still indexed, but the author should know."""
    lines = markdown.splitlines()
    for t in parse_tokens(markdown) if tokens is None else tokens:
        if t.type != "fence" or not t.map or t.map[1] < len(lines):
            continue
        last = lines[t.map[1] - 1].strip() if t.map[1] - 1 > t.map[0] else ""
        closed = len(last) >= len(t.markup) and set(last) == {t.markup[0]}
        if not closed:
            return t.map[0]
    return None


def parse_blocks(markdown: str) -> list[Block]:
    """Parse Markdown into top-level blocks in document order.

    Returns
    -------
    list of Block, each with the heading path in force where it starts. Headings themselves produce
    no block; text before the first heading has an empty path. Empty blocks are dropped.
    """
    tokens = parse_tokens(markdown)
    stack: list[tuple[int, str]] = []
    blocks: list[Block] = []
    i = 0
    n = len(tokens)
    heading_line = -1

    def path() -> list[str]:
        return [h for _, h in stack]

    while i < n:
        t = tokens[i]
        line = t.map[0] if t.map else 0
        if t.type == "heading_open":
            lvl = int(t.tag[1:])
            text = render_inline(tokens[i + 1]).text
            while stack and stack[-1][0] >= lvl:
                stack.pop()
            stack.append((lvl, text))
            heading_line = line
            i = _find_close(tokens, i) + 1
        elif t.type in ("bullet_list_open", "ordered_list_open"):
            k = _find_close(tokens, i)
            items = _parse_list(tokens, i, k)
            if any(it.text or it.children or it.extra for it in items):
                blocks.append(Block("list", path(), items=items, line=line, heading_line=heading_line))
            i = k + 1
        elif t.type == "table_open":
            k = _find_close(tokens, i)
            header, rows, links, cell_links = _table(tokens, i, k)
            if rows or any(header):
                blocks.append(
                    Block(
                        "table",
                        path(),
                        header=header,
                        rows=rows,
                        links=links,
                        cell_links=cell_links,
                        line=line,
                        heading_line=heading_line,
                    )
                )
            i = k + 1
        elif t.type == "paragraph_open":
            r = render_inline(tokens[i + 1])
            if r.text:
                blocks.append(
                    Block(
                        "text",
                        path(),
                        text=r.text,
                        links=r.links,
                        strong=r.strong,
                        line=line,
                        heading_line=heading_line,
                    )
                )
            i = _find_close(tokens, i) + 1
        elif t.type in ("fence", "code_block"):
            body = t.content.rstrip("\n")
            if body.strip():
                blocks.append(
                    Block(
                        "text", path(), text=f"```{t.info.strip()}\n{body}\n```", line=line, heading_line=heading_line
                    )
                )
            i += 1
        elif t.type == "html_block":
            txt = html_text(t.content)
            if txt:
                blocks.append(Block("text", path(), text=txt, line=line, heading_line=heading_line))
            i += 1
        elif t.type == "blockquote_open":
            k = _find_close(tokens, i)
            parts = [render_inline(x) for x in tokens[i:k] if x.type == "inline"]
            txt = " ".join(p.text for p in parts if p.text)
            if txt:  # a quote's links and bold spans are the paragraph's, as in any other paragraph
                links = [lk for p in parts for lk in p.links]
                strong = [st for p in parts for st in p.strong]
                blocks.append(
                    Block(
                        "text",
                        path(),
                        text="> " + txt,
                        links=links,
                        strong=strong,
                        line=line,
                        heading_line=heading_line,
                    )
                )
            i = k + 1
        else:
            i += 1
    return blocks


#: A heading that names a section of a note, not the note: "## Summary", "### TL;DR", "## 🧠 Key ideas",
#: "## 1. Background", "## 摘要", "## Part1. 标题&作者" (title and authors) — a note (an Obsidian note named by its file) that opens with one is
#: titled by its file name.
_SECTION_HEADING_RE = re.compile(
    r"^[^\w]*(?:(?:part\s*)?\d+(?:[.)]\s*|\s+))?(?:summary|tl;?\s?dr|abstract|overview|notes?|my notes|key (?:ideas?|points|takeaways|insights)"
    r"|takeaways?|contributions?|introduction|background|motivation|problem(?: statement)?|methods?|methodology"
    r"|approach|results?|evaluation|experiments?|thoughts|review|metadata|meta info|info|details|links?|references"
    r"|questions|discussion|conclusions?|highlights|摘要|总结|简介|背景|动机|方法|实验|结论|笔记"
    r"|(?:title|标题|题目)(?:\s*(?:&|and|与|和)\s*(?:authors?|作者))?|authors?|作者)\W*$",
    re.IGNORECASE,
)


def is_section_heading(text: str) -> bool:
    """True for a heading that names a section of a note ("Summary", "TL;DR", "🧠 Key ideas", "1.
    Background", "摘要"), not the note itself."""
    return bool(_SECTION_HEADING_RE.match(text.strip()))
