"""Which links of a note are its paper's: front-matter link keys, the links of a paragraph that are
copies of one paper, and the link texts that present a note's own paper ("[arXiv](…)", "[the paper](…)",
the paper's title) rather than cite another by name."""

from __future__ import annotations

import re
from typing import Any

from papernotes.corpus.markdown import Block, Item
from papernotes.corpus.note_opening import frame_stripped
from papernotes.corpus.paper_links import (
    arxiv_url,
    doi_url,
    is_paper_link,
    one_paper,
    paper_id,
    unwrap_redirect,
    written_url_spans,
    written_urls,
)
from papernotes.corpus.papers import PAPER_LINK_LABELS, is_todo, title_key

#: Front-matter keys (case-insensitive) that hold the paper's link.
LINK_KEYS = (
    "paper",
    "url",
    "link",
    "pdf",
    "paper_url",
    "paperurl",
    "paper_link",
    "arxiv_url",
    "arxiv_link",
    "doi_url",
    "pdf_url",
    "paper_pdf",
    "source",  # the Obsidian Web Clipper's page address (a paper's only when it links one)
)
#: A web address written out in the text (not a link's target).
BARE_URL_RE = re.compile(r"(?<![(<\[])https?://[^\s)>\]]+")


#: Link labels of Chinese notes that present the paper: "paper", "the original", "paper link", "link".
_CJK_LINK_LABELS = ("论文", "原文", "论文链接", "论文地址", "原文链接", "链接")


def primary_label(label: str, title: str) -> bool:
    """A link label that presents the note's own paper: a link kind ("Paper", "arXiv", "PDF", "Link"),
    the URL itself, or the paper's title — the page title, or a full title the page title (without a
    post's framing) begins ("Paper review – FlexGen" and "[FlexGen: High-Throughput …](…)"); "this
    survey" or "the ResNet paper" cite another; under a framed title ("Paper review – X") any label that
    reads as a title of three or more words; the name before the title's colon ("[GShard](…)" under
    "GShard: Scaling Giant Models …")."""
    low = label.strip().lower()
    (name, framed), key = frame_stripped(title), title_key(label)
    name = title_key(name)
    # "the paper", "full paper here", "the Orca paper" under the title "Orca"
    named = re.sub(r"^(?:(?:the|this|our|original|full)\s+)+|(?:\s+(?:paper|pdf|here|link))+$", "", low).strip()
    return (
        low in PAPER_LINK_LABELS
        or (named != low and (named in ("", "paper") or title_key(named) == name))
        or low in ("link", "url", "pdf link", "paper link", "full paper", "preprint", *_CJK_LINK_LABELS)
        or (framed and len(label.split()) >= 3 and label[:1].isupper() and not label.rstrip().endswith("."))
        or low.startswith("http")
        or (bool(key) and key == title_key(title))
        or (len(name) >= 3 and len(label.split()) >= 3 and key.startswith(name))
        or (":" in title and bool(key) and key == title_key(frame_stripped(title)[0].split(":")[0]))
    )


#: Most paper links an opening may hold beside the one it presents as its own (the rest cited by name).
MAX_CITED_BESIDE = 3


#: A link text that is a paper's identifier: an arXiv id ("2302.13971", "arXiv:2302.13971v2") or a DOI.
_IDENTIFIER_RE = re.compile(r"(?:arxiv:\s*)?\d{4}\.\d{4,5}(?:v\d+)?|(?:doi:\s*)?10\.\d{4,9}/\S+")


def title_like_label(label: str) -> bool:
    """A link text that names a paper or system ("FlashAttention", "Orca: A …"), not a link kind."""
    low = label.strip().lower()
    if _IDENTIFIER_RE.fullmatch(low):
        return False  # "[2302.13971](https://arxiv.org/abs/2302.13971)": the paper's identifier, a kind of link
    generic = re.sub(r"\b(?:the|this|our|original|full|paper|pdf|here|link|arxiv|preprint|version)\b", "", low)
    return bool(title_key(generic)) and low not in PAPER_LINK_LABELS and not low.startswith("http")


def paragraph_paper_links(b: Block) -> list[str]:
    """The paper links of a paragraph (linked or bare), or only the first when they are copies of one
    paper side by side (a byline's ``[USENIX](…) · [arXiv](…)``,
    :func:`~papernotes.corpus.paper_links.one_paper`)."""
    links = [(label, h) for label, h in b.links if is_paper_link(h)]
    labelled = {h for _, h in b.links}
    links += [(u, u) for u in written_urls(b.text) if is_paper_link(u) and u not in labelled]
    one = one_paper(links)
    return [one] if one else [h for _, h in links]


def page_paper_links(blocks: list[Block]) -> list[str]:
    """Every paper link of a page's paragraphs and bullets, in order (copies of one paper on one line
    counted once, :func:`paragraph_paper_links`)."""

    def of_items(items: list[Item]) -> list[str]:
        out: list[str] = []
        for it in items:
            links = [(label, h) for label, h in it.inline.links if is_paper_link(h)]
            links += [(u, u) for u in BARE_URL_RE.findall(it.text) if is_paper_link(u)]  # "- https://…"
            one = one_paper(links)
            out += [one] if one else [h for _, h in links]
            out += of_items(it.children)
        return out

    return [u for b in blocks for u in (paragraph_paper_links(b) if b.kind == "text" else of_items(b.items))]


def distinct_papers(links: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for u in links:
        seen.setdefault(paper_id(u), u)
    return list(seen.values())


def front_matter_links(meta: dict[str, Any]) -> dict[str, str]:
    """Paper links the front matter gives: ``{"paper"|"arxiv"|"doi": url}``."""
    out: dict[str, str] = {}
    low = {str(k).lower(): v for k, v in meta.items()}
    if low.get("doi"):
        u = doi_url(str(low["doi"]))
        if u:
            out["doi"] = u
    for k in ("arxiv", "arxiv_id"):
        if low.get(k):
            u = arxiv_url(str(low[k]))
            if u:
                out["arxiv"] = u
    for k in LINK_KEYS:
        v = unwrap_redirect(low[k].strip()) if isinstance(low.get(k), str) else None
        if v and is_paper_link(v):
            out.setdefault("paper", v)
    return out


def presented_urls(text: str) -> list[str]:
    """Web addresses a paragraph presents as the note's own: written out alone in a segment of a line
    (a line of its own, a ``<…>`` aside, or a part of a metadata line set off by ``·``, ``|``, a dash or
    a pictograph: ``ICLR 2022 · https://arxiv.org/abs/… · code: https://github.com/…``,
    ``📄 https://… 💻 https://github.com/…``), or just after words that present them as the paper
    ("Paper at …", "arXiv: …", "论文见 …"). An address inside a sentence ("as https://… shows") is cited,
    not presented."""
    out = []
    for start, end, url in written_url_spans(text):
        line = text[text.rfind("\n", 0, start) + 1 : start]
        if is_todo(line.strip()):
            continue  # "TODO: read this. https://…": a paper to read, not the note's
        before = _SEGMENT_END_RE.split(text[:start])[-1].strip().strip("<>").strip()
        after = _SEGMENT_START_RE.split(text[end:], maxsplit=1)[0].strip().strip("<>").strip()
        after = re.sub(r"^[(（][^()（）]*[)）]", "", after)  # an aside: "(arXiv: 2310.01889)", "(PDF)"
        if after.rstrip(".,;。 ") or not (not before or _PAPER_AT_RE.search(before)):
            continue
        out.append(url)
    return out


#: Where a segment of a metadata line ends, looking back from an address: a line break, a separator
#: (``·``, ``|``, ``•``, a spaced dash), a sentence's stop, another address or a pictograph (``📄``).
_SEGMENT_END_RE = re.compile(
    r"\n|\s[·|•—–-]\s|[·|•]|(?<=[.;。])\s|https?://\S+|[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF]"
)
#: Where a segment begins again after an address: as :data:`_SEGMENT_END_RE`.
_SEGMENT_START_RE = re.compile(r"\n|\s[·|•—–-]\s|[·|•]|\s{2,}|[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF]")
#: Words that present an address as the paper's, just before it: "Paper at …", "论文见 …", "原文：…".
_PAPER_AT_RE = re.compile(
    r"(?:\b(?:paper|pdf|arxiv|preprint|link|url|doi)\b|论文|原文)\s*(?:见|在|地址|链接|is at|at|here|:|：)?$",
    re.IGNORECASE,
)
