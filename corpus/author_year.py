"""An author-year citation after a paper's title, as reading notes and lists name a paper: "Attention Is
All You Need (Vaswani et al., 2017)", "Dropout … (Srivastava et al., JMLR 2014)", "Generative Adversarial
Nets - Goodfellow et al. 2014" — the APA/Harvard in-text citation, sometimes with the venue before the
year. The citation is no part of the title; its venue and year are the paper's."""

from __future__ import annotations

import re

from papernotes.corpus.venues import SERIES, normalize_venue, split_venue

#: A surname as an author-year citation writes it ("Vaswani", "O'Neil", "van den Oord", "Zhang-Li").
_SURNAME = r"(?:(?:van|von|de|der|den|da|di|du|la|le)\s+){0,2}[A-Z][\w'’-]+"
#: The authors of an author-year citation: "Vaswani et al.", "Frankle and Carbin", "Frankle & Carbin",
#: "Goodfellow, Bengio and Courville", or one surname or organisation ("Vaswani", "OpenAI").
_CITED_AUTHORS = rf"{_SURNAME}(?:\s+et\s+al\.?|(?:\s*,\s*{_SURNAME}){{0,4}}\s*(?:,\s*)?(?:and|&)\s+{_SURNAME})?"
#: An author-year citation after a title, as reading notes name a paper: "Title (Vaswani et al., 2017)",
#: "Title (Srivastava et al., JMLR 2014)", "Title - Goodfellow et al. 2014", "Title, Frankle & Carbin
#: (ICLR 2019)", "Title [He et al. 2016]" (the APA/Harvard in-text citation, with a venue between).
_AUTHOR_YEAR_RE = re.compile(
    rf"(?:\s*[(\[]\s*(?P<a>{_CITED_AUTHORS})[\s,.]*(?P<v>[^()\[\]]{{0,40}}?)[\s,']*(?P<y>(?:19|20)\d\d)[a-z]?\s*[)\]]"
    rf"|(?:\s*,|\s+[-–—|])\s+(?P<b>{_CITED_AUTHORS})[\s,.]*[(\[]?(?P<w>[^()\[\]]{{0,40}}?)[\s,']*(?P<z>(?:19|20)\d\d)[a-z]?[)\]]?)\.?$"
)


#: Authors credited after a title without a year: "Title, by Vaswani et al.", "Title (Jiang et al.)",
#: "Title — Frankle and Carbin".
_CREDIT_RE = re.compile(
    rf"(?:,\s+by\s+(?P<c>{_CITED_AUTHORS})|\s+by\s+(?P<f>{_SURNAME}\s+et\s+al\.?)|\s*\((?P<d>{_SURNAME}\s+et\s+al\.?)\)|\s+[—–]\s+(?P<e>{_SURNAME}\s+et\s+al\.?))\s*$"
)


def author_year_citation(title: str) -> tuple[str, str | None, int | None]:
    """``(title, venue, year)``: a title without the author-year citation after it ("Attention Is All You
    Need (Vaswani et al., 2017)" → ``("Attention Is All You Need", None, 2017)``; "Dropout … (Srivastava
    et al., JMLR 2014)" → venue ``"JMLR 2014"``); a title without one is returned as it is, with
    ``(None, None)``. A bracket of other words ("Llama 2 (Chat, 2023)" reads as one surname: the mark
    names who wrote it) and a title that would be left empty are kept whole. Authors credited without a
    year ("Title, by Vaswani et al.", "Title (Jiang et al.)") are dropped too."""
    credit = _CREDIT_RE.search(title)
    if credit and credit.start() > 0 and len(title[: credit.start()].split()) >= 2:
        title = title[: credit.start()].rstrip(" ,.-–—|")  # "Title, by Vaswani et al.": who wrote it
    m = _AUTHOR_YEAR_RE.search(title)
    if not m or m.start() == 0 or re.split(r"[\s'’-]", m.group("a") or m.group("b"))[0].lower() in SERIES:
        return title, None, None  # "Orca (OSDI 2022)": a venue, not who wrote it
    year = int(m.group("y") or m.group("z"))
    said = (m.group("v") or m.group("w") or "").strip(" ,.")
    venue = normalize_venue(f"{said} {year}") if said else None
    if venue and split_venue(venue)[0].lower() not in SERIES:
        venue = None  # "Kaplan et al., OpenAI, 2020": who wrote it, not where it was published
    return title[: m.start()].rstrip(" ,.-–—|"), venue, year
