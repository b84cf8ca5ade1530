"""Catalog records as BibTeX (``papernotes papers --format bibtex``), written with bibtexparser.

What each entry holds: ``@inproceedings`` (``@misc`` for arXiv and for papers without a venue) with
``title``, ``booktitle`` (the venue's series, e.g. ``OSDI``; arXiv as ``howpublished``), ``year``,
``author`` (when the notes name the authors), ``url`` (the paper's link) and ``note`` (the notes'
one-line summary, then the affiliations).

How text becomes LaTeX, in this order (so the file compiles):

1. the characters special to LaTeX — ``\\ { } & % $ # _ ~ ^`` — are escaped (``\\&``, ``\\%``, …);
2. **accent policy**: every non-ASCII character is written as its LaTeX command via pylatexenc
   (``é`` → ``{\\'e}``, ``–`` → ``{\\textendash}``), so the file works with classic BibTeX and pdfLaTeX
   as well as biber; a character with no LaTeX form (CJK, emoji) is kept as UTF-8, never dropped;
3. in titles and booktitles, words whose case a style must keep — a capital after the first letter
   or a digit with a capital (``LLM``, ``GANs``, ``vLLM``, ``H100``) — are wrapped in protective
   braces ``{LLM}``; these braces are added after step 1 and so never escaped.

Dashes stay as written (``--`` prints as an en dash, as LaTeX always does); URLs are written verbatim.

Keys are ``name`` + ``year`` in lower-case ASCII (``name``: the first author's surname, else the
system's name, else the title's first word); papers sharing a key all get ``a``, ``b``, … suffixes in
the order of their titles, so the same list exports with the same keys every time.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence

import bibtexparser
from bibtexparser.model import Entry, Field
from pylatexenc.latexencode import UnicodeToLatexEncoder

from papernotes.corpus.models import PaperRecord
from papernotes.corpus.venues import split_venue
from papernotes.retrieval.tokens import one_line

#: LaTeX's special characters in text and how they are written (the LaTeX2e manual's "reserved
#: characters", https://latexref.xyz/Reserved-characters.html, plus ``~`` and ``^``).
LATEX_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIAL_RE = re.compile("|".join(re.escape(c) for c in LATEX_SPECIALS))
_ACCENTS = UnicodeToLatexEncoder(
    non_ascii_only=True,
    replacement_latex_protection="braces-all",
    unknown_char_policy="keep",
    unknown_char_warning=False,
)
#: Words a bibliography style must not lower-case: a capital after the first letter, or a capital
#: and a digit ("LLM", "GANs", "vLLM", "KV-Cache", "H100").
_KEEP_CASE_RE = re.compile(r"\w[^\s]*[A-Z]|[A-Z][^\s]*\d|\d[^\s]*[A-Z]")


def latex_text(text: str) -> str:
    """``text`` as LaTeX: specials escaped (:data:`LATEX_SPECIALS`), then non-ASCII characters as LaTeX
    commands (kept as UTF-8 when they have none). ``"R&D at Zürich"`` → ``"R\\&D at Z{\\"u}rich"``."""
    escaped = _SPECIAL_RE.sub(lambda m: LATEX_SPECIALS[m.group()], " ".join(text.split()))
    return _ACCENTS.unicode_to_latex(escaped)


def latex_title(text: str) -> str:
    """A title as LaTeX (:func:`latex_text`, word by word) with the words whose case must stay
    (``_KEEP_CASE_RE``) in protective braces: ``"GANs & LLM_x"`` → ``"{GANs} \\& {LLM\\_x}"``."""
    words = []
    for w in text.split():
        tex = latex_text(w)
        words.append(f"{{{tex}}}" if _KEEP_CASE_RE.search(w) else tex)
    return " ".join(words)


def _ascii_word(text: str) -> str:
    """Lower-case ASCII letters and digits of ``text`` (accents folded: "Zürich" → "zurich")."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]", "", folded.lower())


def _key_name(r: PaperRecord) -> str:
    """The name part of a key: first author's surname, else the system, else the title's first word
    of three or more letters, else ``paper``."""
    if r.authors and r.authors[0].strip():
        first = r.authors[0]
        name = _ascii_word(first.split(",")[0] if "," in first else first.split()[-1])  # "Last, First" | "First Last"
        if name:
            return name
    if r.system and _ascii_word(r.system):
        return _ascii_word(r.system)
    for w in r.title.split():
        if len(_ascii_word(w)) >= 3:
            return _ascii_word(w)
    return "paper"


def _year(r: PaperRecord) -> int | None:
    return r.year or (split_venue(r.venue)[1] if r.venue else None)


def bibtex_keys(records: Sequence[PaperRecord]) -> list[str]:
    """One unique key per record, in the records' order (see the module's docstring): records sharing
    ``name+year`` get ``a``, ``b``, … in the order of their titles (then their venues)."""
    base = [f"{_key_name(r)}{_year(r) or ''}" for r in records]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, b in enumerate(base):
        groups[b].append(i)
    keys = list(base)
    for b, idx in groups.items():
        if len(idx) > 1:
            for n, i in enumerate(sorted(idx, key=lambda i: (records[i].title.lower(), records[i].venue or ""))):
                keys[i] = b + _suffix(n)
    return keys


def _suffix(n: int) -> str:
    """``a`` … ``z``, then ``aa``, ``ab``, … for the ``n``-th (from 0) paper sharing a key."""
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def bibtex_entry(r: PaperRecord, key: str) -> Entry:
    """The BibTeX entry of one record (fields as the module's docstring lists; absent facts omitted)."""
    series = split_venue(r.venue)[0] if r.venue else None
    fields = [Field("title", latex_title(r.title))]
    if r.authors:
        fields.append(Field("author", " and ".join(latex_text(a) for a in r.authors)))
    if series and series.lower() == "arxiv":
        fields.append(Field("howpublished", latex_text(series)))
    elif series:
        fields.append(Field("booktitle", latex_title(series)))
    if _year(r):
        fields.append(Field("year", str(_year(r))))
    if r.url:
        # URLs stay as written (the url field is read verbatim); only braces would break the entry
        fields.append(Field("url", r.url.replace("{", "%7B").replace("}", "%7D")))
    note = [one_line(r.summary)] if r.summary else []
    if r.affiliations:
        note.append(", ".join(r.affiliations))
    if note:
        fields.append(Field("note", latex_text(". ".join(n.rstrip(".") for n in note) + ".")))
    kind = "inproceedings" if series and series.lower() != "arxiv" else "misc"
    return Entry(kind, key, fields)


def to_bibtex(records: Sequence[PaperRecord]) -> str:
    """Every record as one BibTeX entry (none dropped), in the records' order, as the text of a .bib
    file."""
    lib = bibtexparser.Library()
    for r, key in zip(records, bibtex_keys(records), strict=True):
        lib.add(bibtex_entry(r, key))
    return bibtexparser.write_string(lib)
