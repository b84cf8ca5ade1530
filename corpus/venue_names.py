"""Venue names written out in full — journals ("Journal of Machine Learning Research", "ACM Transactions
on Computer Systems (TOCS), vol. 31") and conferences as reference managers export them ("Advances in
Neural Information Processing Systems 35", "Proceedings of the 29th Symposium on Operating Systems
Principles") — read as the series :mod:`~papernotes.corpus.venues` uses."""

from __future__ import annotations

import re

#: Journals written out in full → their series (abbreviations as DBLP lists them, https://dblp.org/db/journals/).
JOURNALS: dict[str, str] = {
    "journal of machine learning research": "JMLR",
    "transactions on machine learning research": "TMLR",
    "transactions on computer systems": "TOCS",
    "transactions on pattern analysis and machine intelligence": "TPAMI",
    "transactions of the association for computational linguistics": "TACL",
    "journal of the acm": "JACM",
    "communications of the acm": "CACM",
    "transactions on graphics": "TOG",
    "transactions on storage": "TOS",
    "transactions on parallel and distributed systems": "TPDS",
    "transactions on knowledge and data engineering": "TKDE",
    "transactions on computers": "TC",
    "transactions on cloud computing": "TCC",
}
#: Series of :data:`SERIES` that are journals: named without a year, the note's year completes them.
JOURNAL_SERIES = frozenset(JOURNALS.values())
#: Conferences written out in full, as reference managers export them (Zotero's "Proceedings title",
#: BibTeX's ``booktitle``) → their series (names and abbreviations as DBLP lists them,
#: https://dblp.org/db/conf/); the edition ("29th") and publisher around the name stay as they are.
CONFERENCES: dict[str, str] = {
    "advances in neural information processing systems": "NeurIPS",
    "conference on neural information processing systems": "NeurIPS",
    "international conference on machine learning": "ICML",
    "international conference on learning representations": "ICLR",
    "symposium on operating systems principles": "SOSP",
    "symposium on operating systems design and implementation": "OSDI",
    "symposium on networked systems design and implementation": "NSDI",
    "usenix annual technical conference": "USENIX ATC",
    "european conference on computer systems": "EuroSys",
    "architectural support for programming languages and operating systems": "ASPLOS",
    "conference on machine learning and systems": "MLSys",
    "proceedings of machine learning and systems": "MLSys",
    "symposium on cloud computing": "SoCC",
    "international conference for high performance computing, networking, storage and analysis": "SC",
    "international symposium on computer architecture": "ISCA",
    "symposium on high-performance computer architecture": "HPCA",
    "symposium on principles and practice of parallel programming": "PPoPP",
    "conference on file and storage technologies": "FAST",
    "conference on computer vision and pattern recognition": "CVPR",
    "international conference on computer vision": "ICCV",
    "european conference on computer vision": "ECCV",
    "annual meeting of the association for computational linguistics": "ACL",
    "north american chapter of the association for computational linguistics": "NAACL",
    "conference on empirical methods in natural language processing": "EMNLP",
    "aaai conference on artificial intelligence": "AAAI",
    "international joint conference on artificial intelligence": "IJCAI",
    "conference on knowledge discovery and data mining": "KDD",
    "proceedings of the vldb endowment": "VLDB",
    "international conference on very large data bases": "VLDB",
    "international conference on management of data": "SIGMOD",
    "conference on language modeling": "COLM",
    "international symposium on microarchitecture": "MICRO",
}
#: Venue names written out in full (journals and conferences) → their series.
_FULL_NAMES = {**JOURNALS, **CONFERENCES}
_FULL_NAME_HINT_RE = re.compile(
    "|".join(sorted({re.escape(k.split()[-1]) for k in _FULL_NAMES} | set(JOURNALS.values()), key=len, reverse=True)),
    re.IGNORECASE,
)
_MONTHS = r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
#: Words a copied reference glues together ("EndowmentVolume 8Issue 12August 2015", from a digital library's
#: page): a space goes before each.
_GLUED_RE = re.compile(
    r"(?<=[a-z\d])(?=(?:Volume|Issue|January|February|March|April|May|June|July|August|September|October|November|December)\b)"
)
_JOURNAL_RE = re.compile(
    r"(?:\b(?:ACM|IEEE|USENIX)\s+)?\b("
    + "|".join(re.escape(k) for k in sorted([*_FULL_NAMES, *JOURNALS.values()], key=len, reverse=True))
    + r")\b"
    r"(?:\s*\([A-Z]{2,8}\))?"  # "(TOCS)" after the name
    # then what a reference adds before the year: volume(issue), pages — "15(56)", "vol. 31, no. 4, pp. 1–20"
    r"(?:[\s,:;]*(?:vol(?:ume)?\.?\s*)?(?!(?:19|20)\d\d\b)\d{1,4}(?:\s*\((?!(?:19|20)\d\d\))\d{1,4}\))?(?:[\s,]*(?:no\.?|issue)\s*\d+)?"
    r"(?:\s*:\s*\d+(?:\s*[-–]\s*\d+)?|[\s,]*pp\.?\s*\d+(?:\s*[-–]\s*\d+)?|[\s,]*\d+\s*[-–]\s*\d+)?)?"
    r"(?:[\s,]*(?:" + _MONTHS + r")\.?)?"  # "September 2013": a month before the year
    r"(?:[\s,]*(?P<open>\()?(?P<year>(?:19|20)\d\d)(?(open)\)))?",  # "(2014)"; "(JMLR 2022)" keeps its ")"
    re.IGNORECASE,
)


def journal_abbreviated(text: str) -> str:
    """``text`` with journals and conferences written out in full replaced by their series and year:
    "Journal of Machine Learning Research, 15(56), 2014" → "JMLR 2014", "Advances in Neural Information
    Processing Systems 35" → "NeurIPS" (a volume is no year), "Proceedings of the VLDB Endowment, September
    2013" → "VLDB 2013"; without a year, the series alone."""
    if not _FULL_NAME_HINT_RE.search(text):
        return text
    text = _GLUED_RE.sub(" ", text)

    def abbreviated(m: re.Match[str]) -> str:
        name = _FULL_NAMES.get(re.sub(r"\s+", " ", m.group(1).lower()), m.group(1).upper())
        return " ".join(x for x in (name, m.group("year")) if x)

    return _JOURNAL_RE.sub(abbreviated, text)
