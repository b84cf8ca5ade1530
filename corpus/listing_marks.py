"""What a listing entry's text carries beside the paper's title, as awesome lists write it: GitHub emoji
shortcodes (``:memo:``), a venue after a dash (``- [Title](…) — SC '21``) and the system's short name in
parentheses (``Title (vLLM)``)."""

from __future__ import annotations

import re

from papernotes.corpus.venues import find_venue_mentions, normalize_venue

#: A GitHub emoji shortcode (``:memo:``, ``:trophy:``, ``:+1:``), as awesome lists mark rows with
#: (https://docs.github.com/en/get-started/writing-on-github/getting-started-with-writing-and-formatting-on-github/basic-writing-and-formatting-syntax#using-emojis).
_SHORTCODE_RE = re.compile(r"(?<![\w:/]):[a-z0-9_+-]{2,30}:(?![\w/])")
#: A spaced dash between a listing entry's parts ("Title — SC '21", "Title - Proc. of OSDI 2022").
_DASH_RE = re.compile(r"\s+(?:[—–]|--?)\s+")
#: A dash-separated part that holds a venue, with a remark in parentheses after it ("SOSP '19 (the
#: preprint is titled …)").
_VENUE_PART_RE = re.compile(r"^\s*([^—–()]{2,60}?)\s*(?:\([^()]*\)\s*)?$")
#: Words that may stand before a venue's name after the dash ("— Proc. of OSDI 2022", "— USENIX ATC 2023").
_PROCEEDINGS_WORDS = frozenset({"proc.", "proc", "proceedings", "of", "the", "in", "usenix", "acm", "ieee"})
#: Words of a venue after a dash: a short series and year, maybe a label ("MLSys '24 Best Paper").
DASH_VENUE_WORDS = 6


def without_shortcodes(text: str) -> str:
    """``text`` without GitHub emoji shortcodes (``"Orca :memo:"`` → ``"Orca"``), spaces collapsed."""
    return re.sub(r"\s{2,}", " ", _SHORTCODE_RE.sub(" ", text)).strip() if ":" in text else text


def dash_venue(text: str) -> tuple[str, str] | None:
    """``(title, venue)`` of a bullet or line whose title is followed, after a dash, by a venue
    (awesome lists' ``- [Title](…) — Venue 'YY``): "Reducing Activation Recomputation — MLSys '23" →
    ``("Reducing Activation Recomputation", "MLSys 2023")``. The venue may stand in the middle, with a
    remark after another dash ("Attention Is All You Need — NeurIPS 2017 — re-read in May"); the first
    dashed part that is a short venue counts, and only when no later part names another venue. None
    when no part after a dash is a short venue, or the title before it is a single word."""
    cuts = list(_DASH_RE.finditer(text))
    for k, cut in enumerate(cuts):
        end = cuts[k + 1].start() if k + 1 < len(cuts) else len(text)
        venue = part_venue(text[cut.end() : end])
        if venue is None:
            continue
        if any(m.year for m in find_venue_mentions(text[end:])):
            return None  # "Title — OSDI 2022 — journal version TOCS 2023": two venues, neither is sure
        head = text[: cut.start()].strip()
        return (head, venue) if len(head.split()) >= 2 else None
    return None


def part_venue(part: str) -> str | None:
    """The venue a dashed part of an entry is ("SC '21", "Proc. of OSDI 2022", "MLSys '24 Best Paper"),
    or None when it is something else ("Vaswani et al., NeurIPS 2017": a byline)."""
    m = _VENUE_PART_RE.match(part)
    if not m or len(m.group(1).split()) > DASH_VENUE_WORDS:
        return None
    tail = m.group(1)
    said = next((v for v in find_venue_mentions(tail) if v.year), None)
    lead = tail[: said.span[0]].lower().split() if said else []
    if said is None or any(w not in _PROCEEDINGS_WORDS for w in lead):
        return None
    return normalize_venue(tail)


_SHORT_NAME_TAIL_RE = re.compile(r"\s+\(([A-Za-z][\w.+-]{1,30})\)$")


def short_name_tail(title: str) -> tuple[str, str | None]:
    """``(title, short name)`` of a title that ends in its system's short name in parentheses, as awesome
    lists add it ("Efficient Streaming Language Models with Attention Sinks (StreamingLLM)" →
    ``(…Attention Sinks, "StreamingLLM")``): one word with a capital, digit or hyphen past its first
    letter ("vLLM", "GPT-3"); a plain word ("(Demo)", "(Extended)") or a report number
    ("(MSR-TR-2014-112)") stays part of the title."""
    m = _SHORT_NAME_TAIL_RE.search(title)
    name = m.group(1) if m else ""
    if (
        not m
        or len(title[: m.start()].split()) < 3
        or not re.search(r"[A-Z0-9-]", name[1:])
        or re.search(r"\d{3}", name)
    ):
        return title, None
    return title[: m.start()].strip(), m.group(1)
