"""The BibTeX entry a note gives for its paper: a fenced block (```` ```bibtex ````, ```` ```bib ````, or
unlabelled) or a paragraph holding one ``@inproceedings{…}`` / ``@article{…}`` / ``@misc{…}`` entry, as
reading notes paste the citation from Google Scholar, DBLP or arXiv. Read with bibtexparser (LaTeX
accents and braces decoded); a note whose blocks hold several entries (its references) gives none."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

import bibtexparser
from bibtexparser.middlewares import LatexDecodingMiddleware
from bibtexparser.model import DuplicateBlockKeyBlock

from papernotes.corpus.markdown import parse_tokens
from papernotes.corpus.note_fields import fm_value
from papernotes.corpus.paper_links import arxiv_url, doi_url
from papernotes.corpus.venue_names import journal_abbreviated
from papernotes.corpus.venues import find_venues, is_preprint

#: An entry's opening: ``@inproceedings{key,`` (any entry type; ``@string``/``@comment`` are no papers).
_ENTRY_RE = re.compile(r"^\s*@(?!string\b|comment\b|preamble\b)[A-Za-z]+\s*[{(]", re.IGNORECASE)
#: Fields that hold where the paper appeared (BibTeX, BibLaTeX).
_VENUE_FIELDS = ("booktitle", "journal", "journaltitle", "venue", "series", "howpublished", "publisher")


@dataclass
class BibEntry:
    """One paper as a note's BibTeX entry gives it: ``title`` (braces and LaTeX decoded), ``authors``
    ("First Last"), ``venue`` (canonical "SERIES YEAR" when the venue field names a known series or a
    preprint server, else None), ``year``, ``link`` (``url``, else ``doi``, else an arXiv ``eprint``)."""

    title: str
    authors: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    link: str | None = None


def _sources(markdown: str) -> list[str]:
    """The texts of the note's code blocks and paragraphs that open with a BibTeX entry."""
    out = []
    for t in parse_tokens(markdown):
        if (
            t.type in ("fence", "code_block")
            and _ENTRY_RE.match(t.content)
            or t.type == "inline"
            and _ENTRY_RE.match(t.content)
        ):
            out.append(t.content)
    return out


def _author(name: str) -> str:
    """``"Devlin, Jacob"`` → ``"Jacob Devlin"``; a name written "First Last" stays."""
    name = " ".join(name.split())
    if "," in name:
        last, first = (p.strip() for p in name.split(",", 1))
        return f"{first} {last}".strip()
    return name


def note_bibtex(markdown: str) -> BibEntry | None:
    """The one BibTeX entry of a note (see the module docstring), or None when it has none, several
    different ones, or one without a title. Unparsable text is no entry (never an error)."""
    entries = []
    for text in _sources(markdown):
        try:
            library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
        except Exception:  # noqa: BLE001 - a malformed paste is text, not an entry
            continue
        entries += library.entries
    keys = {e.key for e in entries}
    if len(keys) != 1:
        return None
    return _entry(entries[0])


def bibliography(text: str) -> tuple[dict[str, BibEntry], list[str]]:
    """The entries of a BibTeX file (a reference manager's export beside the notes: Zotero/Better
    BibTeX, org-ref, citar, JabRef) by citation key, entries without a title left out, and the problems
    met (entries that could not be parsed, a key given twice: its first entry is kept).

    Raises
    ------
    ValueError
        when the text holds no entry at all (not a BibTeX file, or one that cannot be parsed).
    """
    quiet = logging.getLogger("bibtexparser")
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # its warnings are reported here, once per file
    try:
        library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    except Exception as e:  # noqa: BLE001 - bibtexparser raises several kinds on malformed input
        raise ValueError(f"not a BibTeX file ({type(e).__name__})") from None
    finally:
        quiet.setLevel(level)
    if not library.entries:
        raise ValueError("no BibTeX entry in it")
    problems: list[str] = []
    failed = library.failed_blocks
    twice = [b for b in failed if isinstance(b, DuplicateBlockKeyBlock)]
    if len(failed) > len(twice):
        lines = ", ".join(str((b.start_line or 0) + 1) for b in failed if b not in twice)
        n = len(failed) - len(twice)
        problems.append(f"{n} {'entry' if n == 1 else 'entries'} cannot be parsed (line {lines}); not used")
    if twice:
        keys = ", ".join(sorted({b.key for b in twice}))
        problems.append(f"key given twice ({keys}): the first entry is used")
    return {e.key: b for e in library.entries if (b := _entry(e)) is not None}, problems


def _entry(entry: bibtexparser.model.Entry) -> BibEntry | None:
    """One parsed entry as a :class:`BibEntry`, or None without a title."""
    fields = {k.lower(): str(v).strip() for k, v in entry.fields_dict.items() for v in [v.value]}
    title = re.sub(r"[{}]", "", " ".join(fields.get("title", "").split())).strip()
    if not title:
        return None
    y = re.search(r"\b(?:19|20)\d\d\b", fields.get("year", "") or fields.get("date", ""))
    year = int(y.group(0)) if y else None
    said = next((fields[k] for k in _VENUE_FIELDS if fields.get(k)), "")
    said = re.sub(r"[{}]", "", said)
    venue = None
    if said:
        found = find_venues(f"{journal_abbreviated(said)} {year or ''}".strip())
        preprint = re.search(r"\b(arxiv|biorxiv|medrxiv)\b", said, re.IGNORECASE)
        if len(found) == 1 and (not year or found[0].endswith(str(year))):
            venue = found[0]
        elif preprint and year:
            venue = f"{'arXiv' if preprint.group(1).lower() == 'arxiv' else preprint.group(1)} {year}"
        if venue and is_preprint(venue) and not preprint:
            venue = None
    eprint = fields.get("eprint", "")
    arxiv_in_journal = re.search(r"arxiv:\s*(\d{4}\.\d{4,5})", said, re.IGNORECASE)
    link = (
        (fields["url"] if re.match(r"https?://", fields.get("url", "")) else None)
        or (doi_url(fields["doi"]) if fields.get("doi") else None)
        or (arxiv_url(eprint) if eprint else None)
        or (arxiv_url(arxiv_in_journal.group(1)) if arxiv_in_journal else None)
    )
    authors = [_author(a) for a in re.split(r"\s+and\s+", fields.get("author", "")) if a.strip()]
    authors = [a for a in authors if a.lower() not in ("others", "et al.")]
    return BibEntry(title=title, authors=authors, venue=venue, year=year, link=link)


#: Front-matter keys (lower case) that hold a note's citation key: Zotero/Obsidian literature notes,
#: org-roam's ``ROAM_REFS`` (read into ``citekey`` by :mod:`~papernotes.corpus.org_notes`), pandoc.
CITEKEY_KEYS = ("citekey", "citationkey", "citation_key", "citation-key", "bibkey")


def citation_key(meta: dict[str, Any]) -> str:
    """The citation key front matter ``meta`` names (:data:`CITEKEY_KEYS`, a leading ``@`` dropped), or
    ``""``."""
    v = fm_value(meta, CITEKEY_KEYS)
    return str(v).strip().removeprefix("@") if isinstance(v, (str, int)) else ""
