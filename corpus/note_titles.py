"""A paper note's title: the front-matter title or the title heading (its paper link's text), without a
post's framing or the marks around it (a leading emoji, the venue before or after it), replaced by the
paper's full title when the note states it."""

from __future__ import annotations

import re

from papernotes.corpus.markdown import Inline, is_section_heading
from papernotes.corpus.models import Page
from papernotes.corpus.note_opening import Opening, frame_stripped, is_collection_title
from papernotes.corpus.paper_links import is_paper_link, paper_id
from papernotes.corpus.papers import title_key
from papernotes.corpus.venues import SERIES, normalize_venue, split_venue


def note_title(page: Page, head: tuple[int, Inline] | None, op: Opening, link: str | None) -> tuple[str, str | None]:
    """``(title, alias)``: the front-matter title, else the title heading's paper-link label (the heading
    is that link), else the heading's text, else the page title (the file name as a last resort) —
    without a post's framing ("Paper notes: QLoRA" → "QLoRA"). A full title the note states wins when
    the title was framed, was the file name, or is a shorter name the full title contains, or is
    written in another script (a Chinese post on an English paper): a labelled line's link text
    ("**Paper:** [Title](…)"), else the one title the opening sets apart (the text of the note's paper
    ``link``, a quoted or bold line: :attr:`Opening.named`). The shorter name is then the ``alias``."""
    fm_title = page.front_matter.get("title")
    base, fallback = page.title.strip(), True
    if isinstance(fm_title, str) and fm_title.strip():
        base, fallback = fm_title.strip(), False
        named = _heading_name(head, fm_title) if not op.title and not frame_stripped(base)[1] else None
        if named:  # "title: Training Compute-Optimal …" over "# Chinchilla paper": the paper's short name
            return base, named
    elif head and not is_section_heading(head[1].text):
        inline = head[1]
        label = next(
            (
                lbl.strip()
                for lbl, href in inline.links
                if is_paper_link(href) and len(lbl) >= 0.6 * len(inline.text) and len(lbl.split()) >= 2
            ),
            None,
        )
        if label or inline.text.strip():
            base, fallback = label or inline.text.strip(), False
    stripped, framed = frame_stripped(base)
    full = op.title
    if not full:
        own = [t for t, href in op.named if href is None or (link is not None and paper_id(href) == paper_id(link))]
        keys = {title_key(t): t for t in own}
        full = next(iter(keys.values())) if len(keys) == 1 else None
    key = title_key(stripped)
    other_script = bool(key) and not re.search(r"[a-z]", key) and full is not None and re.search(r"[A-Za-z]", full)
    if full and (framed or fallback or other_script or (key and key in title_key(full)) or _short_name(stripped, full)):
        full = full.strip()
        return full, (stripped if stripped and not fallback and title_key(stripped) != title_key(full) else None)
    return stripped, None


#: Most words of a note's title that is a short name for its paper ("vLLM", "CachedAttention (AttentionStore)").
SHORT_NAME_WORDS = 3


def _heading_name(head: tuple[int, Inline] | None, title: str) -> str | None:
    """The short name a note's level-1 title heading gives the paper its front matter titles in full ("#
    Chinchilla paper", "# RAG"): the heading without framing, of at most :data:`SHORT_NAME_WORDS` words,
    when it is not the title itself, a section heading ("Summary") or a collection's title."""
    if head is None or head[0] != 1:
        return None  # a level-2 heading under a titled note is a section ("## The one-sentence version")
    text = head[1].text.strip()
    name = frame_stripped(text)[0].strip(" :")
    if not name or len(name.split()) > SHORT_NAME_WORDS or is_section_heading(text) or is_collection_title(text):
        return None
    if title_key(name) in title_key(title):  # "# Attention" over "Attention Is All You Need"
        return None
    return name


def _short_name(title: str, full: str) -> bool:
    """True when ``title`` is a short name beside a full title of a few more words: a Dendron or wiki
    note titled "Transformer" whose body says "**Full title:** Attention Is All You Need"."""
    n = len(title.split())
    return 0 < n <= SHORT_NAME_WORDS and ":" not in title and len(full.split()) >= n + 3


_LEAD_MARK_RE = re.compile(r"^[^\w\[(（【\"'“‘«]+")
_LEAD_VENUE_RE = re.compile(
    r"^[\[(（【]([^\[\]()（）【】]{2,24})[\])）】]\s*[:：|–—-]?\s*|^([A-Za-z][\w-]{1,11}\s*['’]?\s*\d{2,4})\s*[:：|–—-]\s+"
)
_TAIL_VENUE_RE = re.compile(r"\s+[|–—-]\s+([^|–—]{2,30})$|\s*[\[【]([^\[\]【】]{2,24})[\]】]$")


def _marked_venue(said: str) -> str | None:
    """The venue a title's mark names: a few words that are a venue of a known series or of one written
    in capitals ("OSDI'22", "FOOCON 2024"; not "ResNet 2016")."""
    v = normalize_venue(said) if len(said.split()) <= 3 else None
    return v if v and (split_venue(v)[0].lower() in SERIES or split_venue(v)[0].isupper()) else None


#: A section's number before a title in a numbered list of papers: "1. Title", "2) Title", "Paper 3: Title",
#: "一、Title", "（二）Title" (not "3D Gaussian …" or "2.5D …": a number then a stop and a space).
_NUMBERING_RE = re.compile(
    r"^(?:(?:paper|论文|no\.?)\s*)?(?:\d{1,3}|[一二三四五六七八九十]{1,3})\s*(?:[.)）]\s+|[:：]\s*|、\s*)"
    r"|^[(（](?:\d{1,3}|[一二三四五六七八九十]{1,3})[)）]\s*",
    re.IGNORECASE,
)


def venue_decoration(title: str) -> tuple[str, str | None]:
    """``(title, venue)``: a title without the marks a note puts around it — a leading emoji or symbol
    ("📄 Title"), a section number ("1. Title", "一、Title"), a venue before it ("[OSDI'22] Title", "【SOSP 2023】Title", "OSDI '22: Title") or after
    it ("Title | NeurIPS 2022", "Title - OSDI 2012", "Title [ICML'23]") — and the venue such a mark
    names (None when there is none: "[Draft] Title" keeps its bracket)."""
    t = _LEAD_MARK_RE.sub("", title).strip() or title.strip()
    t = _NUMBERING_RE.sub("", t).strip() or t
    venue = None

    m = _LEAD_VENUE_RE.match(t)
    if m:
        said = (m.group(1) or m.group(2)).strip()
        v = _marked_venue(said)
        if v and len(t) > m.end():
            t, venue = t[m.end() :].strip(), v
    m = _TAIL_VENUE_RE.search(t)
    if m and venue is None:
        said = (m.group(1) or m.group(2)).strip()
        v = _marked_venue(said)
        if v and m.start() > 0:
            t, venue = t[: m.start()].strip(), v
    return t, venue
