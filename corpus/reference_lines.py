"""A note's reference line: the formatted citation of its paper written under the title, as reference
managers and publishers' "Cite this" buttons give it —

* MLA / Google Scholar: ``Vaswani, Ashish, et al. "Attention is all you need." Advances in neural
  information processing systems 30 (2017).``
* IEEE: ``A. Basak et al., "Analysis and Optimization …," 2019 IEEE International Symposium on High
  Performance Computer Architecture (HPCA), Washington, DC, USA, 2019, pp. 373-386, doi: 10.1109/….``
* ACM: ``Olyaiy, Ng, and Lis. 2021. Accelerating DNNs inference with predictive layer fusion. In
  Proceedings of the ACM International Conference on Supercomputing (ICS '21). … DOI:https://doi.org/…``

A line is the note's reference when it repeats the note's title (or the note's title holds the line's
quoted title), is longer than the title and gives a year. Its DOI (``doi: 10.…``, also on the next line)
or arXiv identifier (``arXiv preprint arXiv:2103.16063``) is the paper's link; the acronym the style puts
in brackets after a venue's name ("(HPCA)", "(ICS '21)", "(MICRO ’52)" — an edition number, not a year)
or before a proceedings' name ("SC '08: Proceedings of …") with the reference's year is its venue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from papernotes.corpus.papers import title_key
from papernotes.corpus.venues import decide_venue, normalize_venue, stated_venues

#: How many of the opening's first lines may hold the reference.
REFERENCE_LINES = 3
#: A label before the reference ("Reference:", "Citation:", "Cite:").
_LABEL_RE = re.compile(r"^\s*(?:\*\*)?(?:references?|citation|cite(?: as)?|bib)\s*[:：]\s*(?:\*\*)?\s*", re.I)
_QUOTED_RE = re.compile(r"[\"“]([^\"“”]{8,300}?)[,.]?[\"”]")
_DOI_RE = re.compile(r"(?:\bdoi\s*[:：]?\s*(?:https?://(?:dx\.)?doi\.org/)?|(?<![\w/.]))(10\.\d{4,9}/[^\s,;]+)", re.I)
_ARXIV_RE = re.compile(r"\barxiv\s*[:：]\s*(\d{4}\.\d{4,5})(?:v\d+)?", re.I)
_YEAR_RE = re.compile(r"(?<![\d./:-])((?:19|20)\d\d)(?![\d/-]|\.\d)")
#: A venue's acronym in brackets after its name, with an optional edition or year: "(HPCA)", "(ICS '21)".
_ACRONYM = r"[A-Z][A-Za-z]*[A-Z]\d?(?:-[A-Z][A-Za-z]+)?"
_BRACKET_ACRONYM_RE = re.compile(rf"\(({_ACRONYM})(?:\s*[-'’]\s*\d{{1,2}})?\)")
#: A venue's acronym leading a proceedings' name: "SC '08: Proceedings of …", "SC20: International …".
_LEAD_ACRONYM_RE = re.compile(rf"(?:^|[,.]\s|\s)({_ACRONYM})\s*['’]?\d{{2}}(?:\d{{2}})?\s*:\s+[A-Z]")


@dataclass
class Reference:
    """What a note's reference line says: ``link`` (DOI or arXiv address), ``venue`` ("HPCA 2019"),
    ``year``; each None when the line does not say."""

    line: str
    link: str | None
    venue: str | None
    year: int | None


def _names_title(line: str, title: str) -> bool:
    """True when ``line`` repeats ``title`` (letters and digits) or ``title`` holds the line's quoted title."""
    key, line_key = title_key(title), title_key(line)
    if len(key) >= 8 and key in line_key and len(line_key) > len(key) + 10:
        return True
    quoted = [title_key(q) for q in _QUOTED_RE.findall(line)]
    return any(len(q) >= 12 and q in key for q in quoted)


def _reference_venue(line: str, year: int | None) -> str | None:
    """The venue of a reference: the bracketed acronym with the reference's year, else the venues the
    line states (:func:`~papernotes.corpus.venues.stated_venues`), one or none."""
    acronyms = list(dict.fromkeys(m.group(1) for m in _BRACKET_ACRONYM_RE.finditer(line)))
    acronyms = acronyms or list(dict.fromkeys(m.group(1) for m in _LEAD_ACRONYM_RE.finditer(line)))
    if len(acronyms) == 1 and year:
        return normalize_venue(f"{acronyms[0]} {year}") or f"{acronyms[0]} {year}"
    venue, _ = decide_venue(stated_venues(line, byline=True))
    return venue


def reference_of(title: str, lines: list[str]) -> Reference | None:
    """The note's reference among its opening ``lines`` (the first :data:`REFERENCE_LINES`; see the module
    docstring), or None. ``title``: the note's title."""
    for k, raw in enumerate(lines[:REFERENCE_LINES]):
        line = _LABEL_RE.sub("", raw).strip()
        years = [int(y) for y in _YEAR_RE.findall(line)]
        if not years or not _names_title(line, title):
            continue
        near = " ".join([line, *lines[k + 1 : k + 2]])  # "doi: 10.1109/…" on the line after
        doi = _DOI_RE.search(near)
        arxiv = _ARXIV_RE.search(line)
        link = f"https://doi.org/{doi.group(1).rstrip('.')}" if doi else None
        link = link or (f"https://arxiv.org/abs/{arxiv.group(1)}" if arxiv else None)
        year = years[0]
        return Reference(line=line, link=link, venue=_reference_venue(line, year), year=year)
    return None
