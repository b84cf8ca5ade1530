"""Researchers' plain-text publication pages → :class:`~papernotes.corpus.models.Publication` records.

Two kinds of page are understood (both are plain text: no Markdown headings or bullet lists):

*Homepage kind* — the owner's name on the first line, contact lines, then short standalone section
headings ("Bio", "Research Interests", "Publications", "Services", ...). Under a publications heading
each record is a bullet with indented continuation lines::

    • Gemini: Fast Failure Recovery in Distributed Training with In-Memory Checkpoints
      Zhuang Wang, Zhen Jia, ..., and Yida Wang
      In Proceedings of the 29th ACM Symposium on Operating Systems Principles (SOSP 2023)
      [paper | slides | code]

*Aggregator kind* — a header (e.g. "arXiv subjects", the person's name, "Publications and source
records attributed to X.", "12 recordsLinked to original sources"), then records separated by blank
lines::

    arXiv2026                      ← venue glued (or not) to the year, alone on its line
    Title of the paper
    Abstract paragraph(s) ...
    cs.DC↗                         ← subject line(s)

Entry points: :func:`looks_like_publication_page` (cheap gate for readers) and
:func:`parse_publication_page` (→ :class:`PublicationPage`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from papernotes.corpus.models import Publication
from papernotes.corpus.venues import VENUE_RE, normalize_venue, split_venue

__all__ = ["PublicationPage", "looks_like_publication_page", "parse_publication_page"]


@dataclass
class PublicationPage:
    """A parsed publication page.

    Attributes
    ----------
    person : the page owner's name (``"Xinwei (Mason) Fu"``, ``"Xinyi Wan"``).
    publications : the records in page order, duplicates (same title and venue) kept once.
    sections : every other part of the page as ``(heading, body)`` pairs in page order, e.g.
        ``[("", "<contact lines>"), ("Bio", "..."), ("Research Interests", "• ..."), ("Services", "...")]``.
        Heading ``""`` marks text outside any section (the header before the first section, or a footer
        after the last aggregator record). Text of a publications section that is not part of a record is
        kept under that section's heading, so no text of the page is lost.
    kind : ``"homepage"`` or ``"aggregator"``.
    """

    person: str
    publications: list[Publication] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)
    kind: str = "homepage"


# --------------------------------------------------------------------------------------------- patterns

_YEAR = r"(?:19|20)\d\d"
_YEAR_RE = re.compile(rf"(?<!\d){_YEAR}(?!\d)")
_BULLET_RE = re.compile(r"^(?P<indent>[ \t]*)[•●▪‣◦](?:[ \t]+(?P<text>\S.*))?$")
_MD_HEADING_RE = re.compile(r"^ {0,3}#{1,6}[ \t]+\S", re.MULTILINE)
_MD_BULLET_RE = re.compile(r"^[ \t]*[-*+][ \t]+\S", re.MULTILINE)
_MD_LINK_RE = re.compile(r"\[[^\]\n]+\]\([^)\s]+\)")
# a standalone aggregator venue line: "arXiv2026", "arXiv 2026", "NeurIPS 2024", "Preprint2023"
_GLUED_VENUE_RE = re.compile(rf"^(?P<series>[A-Za-z][A-Za-z&+\-]*)[ '’\-]?(?P<year>{_YEAR})$")
# an arXiv-style subject token: "cs.DC", "stat.ML", "q-bio.NC", "hep-th", "physics.comp-ph"
_SUBJECT_TOKEN = r"[a-z][a-z\-]*(?:\.[A-Za-z][A-Za-z\-]*)?"
_SUBJECT_LINE_RE = re.compile(rf"^(?:{_SUBJECT_TOKEN}[ \t]*↗?[ \t,;·|]*)+$")
# headings under which bullets are publication records even without a clear author line
_PUB_HEADING_RE = re.compile(
    r"\b(?:publications?|papers?|preprints?|articles?|manuscripts?|theses|thesis|dissertations?)\b",
    re.IGNORECASE,
)
_NAME_PARTICLES = {"van", "von", "de", "der", "den", "da", "di", "del", "la", "le", "du", "dos"}
_MINOR_WORDS = {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with", "&"}
_AUTHOR_SPLIT_RE = re.compile(r"\s*,\s*|\s*;\s*|\s+and\s+|\s+&\s+", re.IGNORECASE)
_ATTRIBUTED_RE = re.compile(r"\battributed to\s+(?P<name>\S.*?)\s*\.?\s*$", re.IGNORECASE)

_NO_RECORD = (
    "no publication record recognized (expected '• Title' bullets with author/venue lines under a "
    "'Publications' heading, or 'Venue2024' / title / abstract records)"
)


# --------------------------------------------------------------------------------------------- public


def looks_like_publication_page(text: str) -> bool:
    """True if ``text`` is a plain-text publication page of either kind that :func:`parse_publication_page`
    can parse; False for Markdown notes (``#`` headings, ``* ``/``- `` bullet lists, front matter,
    ``[label](url)`` links) and for any text without a recognizable record. Never raises."""
    if not text or not text.strip():
        return False
    text = _clean(text)
    if text.lstrip().startswith("---\n") or _MD_HEADING_RE.search(text):
        return False
    if len(_MD_BULLET_RE.findall(text)) >= 2 or _MD_LINK_RE.search(text):
        return False
    try:
        parse_publication_page(text)
    except ValueError:
        return False
    return True


def parse_publication_page(text: str) -> PublicationPage:
    """Parse a plain-text publication page (homepage or aggregator kind, see the module docstring).

    Returns
    -------
    PublicationPage
        ``person`` (str), ``publications`` (list of :class:`Publication` with ``title``, normalized
        ``venue`` such as ``"SOSP 2023"`` or ``None``, ``year`` int or ``None``, ``authors`` list of names,
        ``abstract`` str, ``links`` ``{label: url-or-""}``, ``subjects`` e.g. ``["cs.DC"]``) and
        ``sections`` (list of ``(heading, body)`` for the rest of the page).

    Raises
    ------
    ValueError
        if the text holds no recognizable publication record.
    """
    if not text or not text.strip():
        raise ValueError("empty text: " + _NO_RECORD)
    lines = _clean(text).split("\n")
    homepage = _parse_homepage(lines)
    starts = _aggregator_starts(lines)
    if homepage is not None and homepage.publications and len(homepage.publications) >= len(starts):
        return homepage
    if starts:
        return _parse_aggregator(lines, starts)
    if homepage is not None and homepage.publications:
        return homepage
    raise ValueError(_NO_RECORD)


# --------------------------------------------------------------------------------------------- helpers


def _clean(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u00a0", " ").replace("\ufeff", "")
    return "\n".join(ln.rstrip() for ln in text.split("\n"))


def _join_body(lines: list[str]) -> str:
    """Lines → text with runs of blank lines collapsed to one and no leading/trailing blank lines."""
    out: list[str] = []
    for ln in lines:
        if not ln.strip():
            if out and out[-1] != "":
                out.append("")
        else:
            out.append(ln)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out)


def _venue_and_year(text: str) -> tuple[str | None, int | None]:
    """Venue (normalized; an unknown series is upper-cased) and year found in a venue text."""
    v = normalize_venue(text)
    if v:
        series, year = split_venue(v)
        if not VENUE_RE.search(text):  # a series corpus.venues does not know: upper-cased
            v = f"{series.upper()} {year}" if year else v.upper()
        return v, year
    m = re.search(rf"(?P<series>[A-Za-z][A-Za-z&+\-]*)[ '’\-]*(?P<year>{_YEAR})(?!\d)\s*$", text.strip())
    if m and len(m.group("series")) >= 2 and m.group("series").lower() not in _MINOR_WORDS:
        return f"{m.group('series').upper()} {m.group('year')}", int(m.group("year"))
    years = _YEAR_RE.findall(text)
    return None, int(years[-1]) if years else None


def _split_authors(line: str) -> list[str]:
    """``"A, B, and C"`` / ``"A and B"`` / ``"A & B"`` → ``["A", "B", "C"]``."""
    names = []
    for part in _AUTHOR_SPLIT_RE.split(line.strip().rstrip(".")):
        part = re.sub(r"^and\s+", "", part.strip(), flags=re.IGNORECASE).strip(" *†‡§")
        if part and part.lower() != "and":
            names.append(part)
    return names


def _looks_like_authors(line: str) -> bool:
    """A line that reads as a list of person names (no digits, 1–6 capitalized words per name)."""
    s = line.strip()
    if not s or len(s) > 1500 or re.search(r"\d", s) or s.endswith((":", "?", "!")):
        return False
    names = _split_authors(s)
    if not names:
        return False
    for name in names:
        words = name.split()
        if not 1 <= len(words) <= 6:
            return False
        if not all(w[0].isupper() or w[0] in "(." or w.lower() in _NAME_PARTICLES for w in words):
            return False
    return len(names) >= 2 or 2 <= len(names[0].split()) <= 4


def _parse_links(line: str) -> dict[str, str] | None:
    """``"[paper | slides | code]"`` → ``{"paper": "", "slides": "", "code": ""}``; ``None`` if the line is
    not a bracketed link line. A label written ``"paper: https://..."`` keeps its URL."""
    s = line.strip()
    if not re.fullmatch(r"(?:\[[^\[\]]+\][ \t,|]*)+", s):
        return None
    links: dict[str, str] = {}
    for group in re.findall(r"\[([^\[\]]+)\]", s):
        for piece in group.split("|"):
            piece = piece.strip()
            if not piece:
                continue
            m = re.match(r"^(?P<label>.+?)\s*[:(<]\s*(?P<url>https?://[^\s)>]+)[)>]?$", piece)
            if m:
                links.setdefault(m.group("label").strip(), m.group("url"))
            else:
                links.setdefault(piece, "")
    return links


def _is_subject_line(line: str) -> bool:
    s = line.strip()
    if not s or not _SUBJECT_LINE_RE.match(s):
        return False
    tokens = re.findall(_SUBJECT_TOKEN, s)
    return "↗" in s or all("." in t for t in tokens)


def _subjects(line: str) -> list[str]:
    return list(re.findall(_SUBJECT_TOKEN, line.replace("↗", " ")))


def _dedupe(pubs: list[Publication]) -> list[Publication]:
    """Keep one record per (title, venue); a later duplicate only fills in what the first lacks."""
    seen: dict[tuple[str, str | None], Publication] = {}
    out: list[Publication] = []
    for p in pubs:
        key = (re.sub(r"\s+", " ", p.title).strip().casefold(), p.venue)
        first = seen.get(key)
        if first is None:
            seen[key] = p
            out.append(p)
            continue
        for label, url in p.links.items():
            if not first.links.get(label):
                first.links[label] = url
        first.subjects += [s for s in p.subjects if s not in first.subjects]
        first.authors = first.authors or p.authors
        first.abstract = first.abstract or p.abstract
        first.year = first.year or p.year
    return out


# --------------------------------------------------------------------------------------------- homepage


def _is_heading(lines: list[str], i: int, last: int) -> bool:
    """A short standalone title-case line (≤ 4 words, no trailing period) after a blank line (or at the
    top) and followed by content."""
    raw = lines[i]
    s = raw.strip().rstrip(":").strip()
    if not s or raw != raw.lstrip() or _BULLET_RE.match(raw):
        return False
    if i > 0 and lines[i - 1].strip():
        return False
    if s.endswith((".", "!", "?", ",", ";")) or re.search(r"[,@|\[\]()<>/=]|\d", s):
        return False
    words = s.split()
    if not 1 <= len(words) <= 4 or not words[0][0].isupper():
        return False
    if not all(w[0].isupper() or w.lower() in _MINOR_WORDS for w in words):
        return False
    return i < last  # some content follows (``last`` is the index of the last non-blank line)


def _bullet_block(lines: list[str], i: int) -> int:
    """End (exclusive) of the bullet record starting at line ``i``: the bullet, then its non-bullet
    continuation lines — indented ones (blank lines between them allowed), or unindented ones directly
    below the previous line (pages whose text lost its indentation)."""
    j = i + 1
    end = j
    while j < len(lines):
        ln = lines[j]
        if not ln.strip():
            j += 1
            continue
        if _BULLET_RE.match(ln):  # the next (or a nested) bullet
            break
        if ln == ln.lstrip() and j != end:  # back at the margin after a blank line
            break
        j += 1
        end = j
    return end


def _record_from_bullet(lines: list[str], strict: bool) -> Publication | None:
    """A bullet block → Publication, or None if it is not record-shaped.

    ``strict`` (outside a publications heading) also requires a year and an author line."""
    head = _BULLET_RE.match(lines[0])
    if head is None:
        return None
    title = head.group("text") or ""
    cont = [ln.strip() for ln in lines[1:] if ln.strip()]
    if not title.strip() or not cont:
        return None
    links: dict[str, str] = {}
    venue_idx: int | None = None
    rest: list[str] = []
    for ln in cont:
        parsed = _parse_links(ln)
        if parsed is not None:
            links.update({k: v for k, v in parsed.items() if k not in links})
            continue
        if venue_idx is None and (_YEAR_RE.search(ln) or re.match(r"^(?:In|To appear|Accepted|Under review)\b", ln)):
            venue_idx = len(rest)
        rest.append(ln)
    venue = year = None
    abstract_lines: list[str] = []
    authors: list[str] = []
    if venue_idx is not None:
        vline = rest[venue_idx]
        parens = re.findall(rf"\(([^()]*{_YEAR}[^()]*)\)", vline)
        venue, year = _venue_and_year(parens[-1]) if parens else (None, None)
        if venue is None:
            v2, y2 = _venue_and_year(vline)
            venue, year = v2, year or y2
        before, after = rest[:venue_idx], rest[venue_idx + 1 :]
        # the author line is the last pre-venue line that reads as names; earlier lines continue the title
        a = max((k for k, ln in enumerate(before) if _looks_like_authors(ln)), default=len(before) - 1)
        if a >= 0:
            title = " ".join([title.strip(), *before[:a]])
            authors = _split_authors(before[a])
        abstract_lines = after
    else:
        first = next((k for k, ln in enumerate(rest) if _looks_like_authors(ln)), None)
        if first is not None:
            title = " ".join([title.strip(), *rest[:first]])
            authors = _split_authors(rest[first])
            abstract_lines = rest[first + 1 :]
        else:
            abstract_lines = rest
    if strict and (year is None or not authors):
        return None
    return Publication(
        title=re.sub(r"\s+", " ", title).strip(),
        venue=venue,
        year=year,
        venue_text=rest[venue_idx] if venue_idx is not None and venue else "",
        authors=authors,
        abstract=" ".join(abstract_lines).strip(),
        links=links,
    )


def _parse_homepage(lines: list[str]) -> PublicationPage | None:
    first = next((k for k, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        return None
    person = lines[first].strip()
    last = max(k for k, ln in enumerate(lines) if ln.strip())
    heads = [k for k in range(first + 1, len(lines)) if _is_heading(lines, k, last)]
    sections: list[tuple[str, str]] = []
    pubs: list[Publication] = []
    header = _join_body(lines[first + 1 : heads[0] if heads else len(lines)])
    if header:
        sections.append(("", header))
    for n, h in enumerate(heads):
        heading = lines[h].strip().rstrip(":").strip()
        body = lines[h + 1 : heads[n + 1] if n + 1 < len(heads) else len(lines)]
        strict = not _PUB_HEADING_RE.search(heading)
        kept: list[str] = []
        k = 0
        while k < len(body):
            if _BULLET_RE.match(body[k]):
                end = _bullet_block(body, k)
                rec = _record_from_bullet(body[k:end], strict) if end > k + 1 else None
                if rec is not None:
                    pubs.append(rec)
                    k = end
                    continue
                kept += body[k:end]
                k = end
                continue
            kept.append(body[k])
            k += 1
        text = _join_body(kept)
        if text or strict:
            sections.append((heading, text))
    return PublicationPage(person=person, publications=_dedupe(pubs), sections=sections, kind="homepage")


# --------------------------------------------------------------------------------------------- aggregator


def _is_venue_line(line: str) -> bool:
    s = line.strip()
    if not s or len(s) > 40 or line != line.lstrip():
        return False
    if _GLUED_VENUE_RE.match(s):
        return True
    v = normalize_venue(s)
    if not v:
        return False
    m = re.search(rf"{_YEAR}$", s)
    return bool(m) and len(s.split()) <= 4


def _aggregator_starts(lines: list[str]) -> list[int]:
    """Indices of venue+year lines that open a record (followed by a title and more text); one such line
    only counts if its record also has a subject line."""
    cands = [k for k, ln in enumerate(lines) if _is_venue_line(ln)]
    starts: list[int] = []
    for n, k in enumerate(cands):
        end = cands[n + 1] if n + 1 < len(cands) else len(lines)
        blocks = [ln for ln in lines[k + 1 : end] if ln.strip()]
        if len(blocks) >= 2 and not _is_venue_line(blocks[0]):
            starts.append(k)
    if len(starts) == 1:
        k = starts[0]
        if not any(_is_subject_line(ln) for ln in lines[k + 1 :]):
            return []
    return starts


def _paragraphs(lines: list[str]) -> list[str]:
    paras: list[list[str]] = [[]]
    for ln in lines:
        if ln.strip():
            paras[-1].append(ln.strip())
        elif paras[-1]:
            paras.append([])
    return [" ".join(p) for p in paras if p]


def _parse_aggregator(lines: list[str], starts: list[int]) -> PublicationPage:
    header_lines = lines[: starts[0]]
    header_text = [ln.strip() for ln in header_lines if ln.strip()]
    person = ""
    for ln in header_text:
        m = _ATTRIBUTED_RE.search(ln)
        if m:
            person = m.group("name").strip()
            break
    if not person:
        person = next((ln for ln in header_text if _looks_like_name(ln)), "")
    if not person:
        person = header_text[0] if header_text else ""
    # the person's own name line is carried by ``person``; every other header line is kept
    drop = next((k for k, ln in enumerate(header_lines) if ln.strip() == person), None)
    if drop is not None:
        header_lines = header_lines[:drop] + header_lines[drop + 1 :]
    sections: list[tuple[str, str]] = []
    header = _join_body(header_lines)
    if header:
        sections.append(("", header))
    pubs: list[Publication] = []
    footer: list[str] = []
    for n, k in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        venue, year = _venue_and_year(lines[k].strip())
        paras = _paragraphs(lines[k + 1 : end])
        title, paras = paras[0], paras[1:]
        authors: list[str] = []
        if paras and _looks_like_authors(paras[0]) and len(paras) >= 2:
            authors, paras = _split_authors(paras[0]), paras[1:]
        subj_at = next((i for i, p in enumerate(paras) if _is_subject_line(p)), None)
        subjects: list[str] = []
        if subj_at is None:
            abstract = "\n\n".join(paras)
        else:
            abstract = "\n\n".join(paras[:subj_at])
            i = subj_at
            while i < len(paras) and _is_subject_line(paras[i]):
                subjects += [s for s in _subjects(paras[i]) if s not in subjects]
                i += 1
            footer += paras[i:]
        pubs.append(
            Publication(
                title=title,
                venue=venue,
                year=year,
                venue_text=lines[k].strip() if venue else "",
                authors=authors,
                abstract=abstract,
                subjects=subjects,
            )
        )
    if footer:
        sections.append(("", "\n\n".join(footer)))
    return PublicationPage(person=person, publications=_dedupe(pubs), sections=sections, kind="aggregator")


def _looks_like_name(line: str) -> bool:
    words = line.split()
    return (
        2 <= len(words) <= 5
        and not re.search(r"[\d,:;@]|\.$", line)
        and all(w[0].isupper() or w[0] == "(" for w in words)
    )
