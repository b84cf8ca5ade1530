"""Venue names: one canonical spelling per venue ("OSDI '26", "osdi-2026", "osdi26" → "OSDI 2026").

The canonical casing of known series follows the venues' own spelling (e.g. "EuroSys", "MLSys",
"SoCC", "PPoPP", "arXiv"). A series not in :data:`SERIES` keeps the casing it is written in
(``"ToySys 2026"``; compare venues case-insensitively — the catalog gives each such venue one spelling);
publication pages upper-case it (``"FOOCONF 2021"``, see :mod:`~papernotes.corpus.publications`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.lexicon import CLITIC_HOSTS, readings
from papernotes.corpus.normalize import unify_punctuation
from papernotes.corpus.venue_names import journal_abbreviated

#: Canonical spelling of venue series seen in systems/ML notes (lower-case key → canonical name).
SERIES: dict[str, str] = {
    s.lower(): s
    for s in (
        "OSDI SOSP NSDI ATC EuroSys SoCC ASPLOS MLSys CAIS FAST HPCA PPoPP SC ISCA MICRO SIGCOMM "
        "SIGMETRICS SIGMOD VLDB ICDE KDD WWW HotOS HotNets HotCloud HotChips ICML ICLR NeurIPS CVPR "
        "ICCV ECCV ACL EMNLP NAACL AAAI IJCAI CLUSTER IPDPS HPDC ICPP IWQoS Middleware INFOCOM CoNEXT "
        "TPDS TCC TC TOCS arXiv NVMW CGO PLDI LCTES DAC ICS PACT MobiSys MobiCom SenSys BigData "
        "SIGGRAPH ISSCC USENIX DSN SRDS JMLR TMLR TPAMI TACL JACM CACM TOG TOS TKDE COLM "
        # more of the series DBLP lists for machine learning, vision, speech, robotics, language, data,
        # software and theory, in their own casing (https://dblp.org/db/conf/)
        "CoRL ICRA IROS AISTATS UAI COLT WACV BMVC ICASSP Interspeech MICCAI COLING CoNLL EACL AACL "
        "WSDM CIKM RecSys SIGIR ICDM ECIR UIST CSCW ICSE OOPSLA POPL NDSS STOC FOCS SODA PODC SPAA ICDCS "
        "EuroMLSys IJCV TNNLS JAIR ECML ACML L4DC Nature Science"
    ).split()
}
#: A workshop named with the conference that hosts it: "NIPS 2014 Deep Learning Workshop", "ICML 2023
#: Workshop on …", "Workshop on X at NeurIPS 2022" — the paper is not the conference's.
_WORKSHOP_AFTER_RE = re.compile(
    r"^\W{0,3}(?:[A-Z][\w&-]*\s+(?:(?:[A-Z][\w&-]*|and|of|on|for|in|the|&)\s+){0,7})?[Ww]orkshops?\b"
)
_WORKSHOP_BEFORE_RE = re.compile(r"\bworkshops?\b[^.;()\n]{0,100}(?:\bat|@|\bco-located with)\s*(?:the\s+)?$", re.I)


def workshop_venues(text: str) -> list[str]:
    """Conferences (with a year) that ``text`` names as a workshop's host ("NIPS 2014 Deep Learning
    Workshop" → ``["NeurIPS 2014"]``); a paper of such a workshop is not the conference's."""
    return [m.venue for m in find_venue_mentions(text) if m.venue and _at_workshop(text, m.span)]


def _at_workshop(text: str, span: tuple[int, int]) -> bool:
    return bool(_WORKSHOP_AFTER_RE.match(text[span[1] :]) or _WORKSHOP_BEFORE_RE.search(text[: span[0]]))


# the USENIX Annual Technical Conference: "USENIX ATC", as USENIX and DBLP name it ("ATC '24" alike)
SERIES["usenix atc"] = "USENIX ATC"
SERIES["atc"] = "USENIX ATC"
SERIES["neurips"] = "NeurIPS"
SERIES["nips"] = "NeurIPS"
SERIES["ieee bigdata"] = "BigData"
SERIES["hot chips"] = "HotChips"


def _joined(alt: str) -> str:
    """Pattern of a joint conference's second name after a known series ("NAACL-HLT 2019", "ACL-IJCNLP
    2021", "EMNLP/IJCNLP 2019"): the venue is the known series'. A second known series ("NeurIPS/ICML")
    is no partner."""
    return rf"(?:[-/](?!(?:{alt})\b)[A-Za-z][A-Za-z]{{1,11}}(?=\s*['’‘]?\s*(?:19|20)?\d\d\b))?"


_series_alt = "|".join(sorted((re.escape(k) for k in SERIES), key=len, reverse=True))
# "OSDI 2026", "OSDI'26", "OSDI '26", "osdi-2026", "osdi26", "OSDI-26", "SoCC 2024"; not an identifier
# ("arXiv 1909.08053" names no year 1909)
VENUE_RE = re.compile(
    rf"(?<![A-Za-z0-9])(?P<series>{_series_alt}){_joined(_series_alt)}\s*(?:[-_ ]\s*|['’‘]\s*)?"
    r"(?P<year>(?:19|20)\d\d|\d\d)(?![0-9]|\.\d)",
    re.IGNORECASE,
)


def _year(text: str) -> int:
    """A year as written: four digits, or two read by the POSIX ``strptime`` ``%y`` rule (69–99 →
    1969–1999, 00–68 → 2000–2068: "OSDI '99" is 1999, "osdi'26" 2026)."""
    return two_digit_year(int(text))


def two_digit_year(y: int) -> int:
    """``y`` itself from 100 on; else the year a two-digit ``y`` stands for by the POSIX ``strptime``
    ``%y`` rule (IEEE Std 1003.1: 69–99 → 1969–1999, 00–68 → 2000–2068)."""
    if y >= 100:
        return y
    return 1900 + y if y >= 69 else 2000 + y


def normalize_venue(text: str | None) -> str | None:
    """Canonical ``"SERIES YEAR"`` for a venue written any common way, or ``None`` if none is found.

    >>> normalize_venue("OSDI '26"), normalize_venue("osdi-2026"), normalize_venue("mlsys26")
    ('OSDI 2026', 'OSDI 2026', 'MLSys 2026')
    """
    if not text:
        return None
    m = VENUE_RE.search(text.strip())
    if not m:
        # a series we do not know, written plainly: "ToySys 2026", "toysys-2026", "ToySys '26"
        u = _UNKNOWN_RE.match(text.strip())
        if not u or u.group(1).lower().rstrip(".") in MONTHS:
            return None  # "January 2024", "Sept 2023": a date, not a venue
        return f"{u.group(1)} {_year(u.group(2))}"
    return f"{SERIES[m.group('series').lower()]} {_year(m.group('year'))}"


#: Month names and their abbreviations: "January 2024" is a date, never an unknown venue's series.
MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_UNKNOWN_RE = re.compile(r"^([A-Za-z][A-Za-z&+]{1,19})\s*[-_ ]?\s*['’]?\s*((?:19|20)\d\d|(?<=['’])\d\d)$")


def find_venues(text: str) -> list[str]:
    """Every venue with a year named in free text, canonical, in order of appearance, without repeats.

    Any casing counts when a year is attached ("fast 2026", "FAST '26", "atc'25", "sosp24"); two-digit
    years only count when written with an apostrophe or glued to the series ("OSDI'26", "osdi26"), so
    "SC 25 nodes" is not a venue.
    """
    text = journal_abbreviated(text)
    return list(dict.fromkeys(m.venue for m in find_venue_mentions(text) if m.venue and not _at_workshop(text, m.span)))


def ordinary_word_series(series: Iterable[str], texts: Iterable[str]) -> set[str]:
    """The series (of ``series``) whose name the notes also use as an ordinary word: written in lower
    case as a whole word, not glued to a year or inside a link ("fast" in "fast inference").

    Returns canonical series names. Series not in this set can be recognised in questions in any
    casing; these need a year, their own casing or a venue position (:func:`find_venue_mentions`).
    """
    wanted = {s.lower(): s for s in series if s and s.lower() == s.lower().strip()}
    if not wanted:
        return set()
    alt = "|".join(sorted((re.escape(k) for k in wanted), key=len, reverse=True))
    pat = re.compile(rf"(?<![\w/.#-])({alt})(?![\w/.-]|\s*['’]?\s*(?:19|20)?\d\d\b)")
    found: set[str] = set()
    for t in texts:
        for m in pat.finditer(t):
            found.add(wanted[m.group(1)])
        if len(found) == len(wanted):
            break
    return found


#: A word character of an alphabetic script: Chinese, Japanese and Korean text writes a venue without
#: spaces around it ("发表在NeurIPS 2023上", "这篇OSDI 2022的论文"), so their characters do not join it.
_LATIN_WORD = r"[^\W\u2E80-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF\uFF00-\uFFEF]"


@dataclass(frozen=True)
class VenueMention:
    """A venue named in a question: its canonical ``series`` ("SOSP"), the ``year`` when one is
    attached (else every year of the series is meant), and the ``span`` (start, end) in the text."""

    series: str
    year: int | None
    span: tuple[int, int]

    @property
    def venue(self) -> str | None:
        """``"SERIES YEAR"`` when a year is attached, else None."""
        return f"{self.series} {self.year}" if self.year else None


#: Nouns after a series name that make it a venue ("fast papers", "sosp talks").
_VENUE_NOUNS = (
    r"papers?|talks?|proceedings|tracks?|workshops?|tutorials?|submissions?|accepted|program(?:me)?|articles?|pubs?"
)


def counted_noun(word: str) -> bool:
    """``word`` reads as a plural noun that a number before it counts ("25 nodes", "24 gpus"): it ends
    in a single "s" and the English lexicon (lemminflect's) knows it as a noun, or knows neither it nor
    its form without the "s" (jargon: "gpus", "vms"). A verb ("23 predicts", "24 lets") or a
    contraction typed without its apostrophe ("25 whats", "25 hows": :data:`CLITIC_HOSTS`) counts
    nothing, so the number before it stays a year ("sosp 25 whats it about")."""
    w = word.lower()
    if not re.fullmatch(r"\w*[^s\W]s", w) or w[:-1] in CLITIC_HOSTS:
        return False
    known = readings(w)
    return "NOUN" in known if known else not readings(w[:-1])


def _venue_position(text: str, start: int, end: int) -> bool:
    """A series word in a venue position: after "at"/"@", before a paper noun or a possessive, or after
    "in"/"from"/"of" at the end of a clause ("papers in fast?")."""
    before = text[:start].rstrip()
    after = text[end:]
    if re.search(r"(?:\bat|@)$", before, re.IGNORECASE):
        return True
    if re.match(rf"\s*(?:['’]s\b\s*)?(?:{_VENUE_NOUNS})\b", after, re.IGNORECASE):
        return True
    if re.match(r"['’]s\b", after):
        return True
    return bool(re.search(r"\b(?:in|from|of)$", before, re.IGNORECASE) and re.match(r"\s*(?:[?.!,;:)]|$)", after))


def _acronym_like(name: str) -> bool:
    """A name with two or more capitals ("SOSP", "EuroSys", "NeurIPS"): written that way it is a name,
    not an ordinary word; one written "Middleware" or "fast" may be an ordinary word."""
    return sum(c.isupper() for c in name) >= 2


@lru_cache(maxsize=64)
def _mention_pattern(known_series: frozenset[str]) -> tuple[dict[str, str], re.Pattern[str]]:
    """Lower-cased series name → its spelling (built-in :data:`SERIES`, then ``known_series`` in sorted
    order: of two spellings of one name, the first) and the pattern of :func:`find_venue_mentions` over
    them; built once per set of known series (an index's series are the same for every question)."""
    series_map = dict(SERIES)
    for s in sorted(known_series):
        if s and s.lower() not in series_map:
            series_map[s.lower()] = s
    alt = "|".join(sorted((re.escape(k) for k in series_map), key=len, reverse=True))
    pat = re.compile(
        rf"(?<!{_LATIN_WORD})(?P<series>{alt})(?:{_joined(alt)}\s*(?:[-_ ]\s*|['’‘]\s*)?(?P<year>(?:19|20)\d\d|\d\d)"
        rf"(?![0-9]|\.\d))?(?!{_LATIN_WORD})",
        re.IGNORECASE,
    )
    return series_map, pat


def series_spellings(known_series: frozenset[str]) -> dict[str, str]:
    """Lower-cased series name → its spelling, built-in :data:`SERIES` and ``known_series`` (cached
    with the mention pattern, see :func:`find_venue_mentions`)."""
    return _mention_pattern(known_series)[0]


def find_venue_mentions(
    text: str, known_series: Iterable[str] = (), any_case: Iterable[str] = ()
) -> list[VenueMention]:
    """Venues named in a question or flag, with or without a year, in order of appearance.

    One rule for every series (built-in :data:`SERIES` and ``known_series``, e.g. series the notes
    have that the built-in list lacks): with a year attached, any casing counts ("sosp24", "fast
    2026", "FAST '26", "sosp 24", "mlsys 24 accept rate"; a two-digit number after a space followed by a
    plural noun other than a paper noun is a count, so "SC 25 nodes" names no year). Without a year, a series counts anywhere in
    any casing when it is in ``any_case`` (series whose name is not an ordinary word of the notes, see
    :func:`ordinary_word_series`); otherwise only when written in its own casing with two or more
    capitals ("SOSP", "EuroSys", "FAST") or in a venue position ("at fast", "fast papers", "atc's best
    paper", "papers in sosp?"). So "how fast is X" names no venue and "fast papers on SSDs" does.
    """
    loose = {s.lower() for s in any_case}
    series_map, pat = _mention_pattern(frozenset(known_series))
    out: list[VenueMention] = []
    for m in pat.finditer(text):
        canon = series_map[re.sub(r"\s+", " ", m.group("series").lower())]
        raw_year = m.group("year")
        if raw_year and len(raw_year) == 2:
            between = text[m.end("series") : m.start("year")]
            spaced = between.strip() == "" and between != ""
            nxt = re.match(r"\s*(\w+)", text[m.end() :])
            plural = nxt is not None and counted_noun(nxt.group(1))
            if spaced and plural and not re.match(rf"\s*(?:{_VENUE_NOUNS})\b", text[m.end() :], re.IGNORECASE):
                raw_year = None  # "SC 25 nodes": a number before a plural noun is a count, not a year
        if raw_year:
            out.append(VenueMention(canon, _year(raw_year), (m.start(), m.end())))
            continue
        end = m.end("series")
        written = m.group("series")
        if (
            canon.lower() in loose
            or re.sub(r"\s+", " ", written.lower()) in loose  # "ATC" for USENIX ATC
            or (written == canon and _acronym_like(canon))
            or _venue_position(text, m.start(), end)
        ):
            out.append(VenueMention(canon, None, (m.start(), end)))
    # a series unknown to us, written as people write venues with a year: "foocon'24", "FOOCON 2024"
    taken = [m.span for m in out]
    for u in _UNKNOWN_MENTION_RE.finditer(text):
        word = u.group("series")
        if word.lower() in series_map or any(a < u.end() and u.start() < b for a, b in taken):
            continue
        if u.group("short") or word.isupper():
            year = _year(u.group("short") or u.group("long"))
            out.append(VenueMention(word.upper() if word.islower() else word, year, (u.start(), u.end())))
    return sorted(out, key=lambda m: m.span)


#: A venue of a series nobody listed: a word glued to an apostrophe and a two-digit year ("foocon'24"),
#: or an all-capitals word before a four-digit year ("FOOCON 2024").
_UNKNOWN_MENTION_RE = re.compile(
    r"(?<![\w'’])(?P<series>[A-Za-z][A-Za-z&+]{2,19})(?:['’](?P<short>\d\d)|\s+(?P<long>(?:19|20)\d\d))(?![\w'’])"
)


#: Venue series of preprint servers: a peer-reviewed venue is preferred over these.
PREPRINT_SERIES = frozenset({"arxiv", "biorxiv", "medrxiv", "ssrn", "corr"})

#: Words before a venue that state it as the paper's own: "Accepted at", "Published in", "In
#: Proceedings of the", "Journal version in", "To appear in", "Presented at".
_LEAD_RE = re.compile(
    r"\b(?:accepted|published|presented|appear(?:s|ed|ing)?|proceedings|version(?![\s,-]+of\b)|venue|conference)\b"
    r"[\s:,-]*(?:(?:as|at|in|to|by|of|on|the|an?|\d+(?:st|nd|rd|th)|(?:19|20)\d\d)\b[\s:,-]*){0,4}$"
    # the same in Chinese notes: 发表于/发表在 "published in", 收录于 "included in", 被 … 接收 "accepted by",
    # 中稿/录用/入选 "accepted"
    r"|(?:发表于|发表在|发表|收录于|收录|被|中稿|录用于?|入选)\s*[:：]?\s*$",
    re.IGNORECASE,
)
#: A venue named as the note's own paper's by a determiner before it and a paper noun after it: "This
#: SOSP 2023 paper", "our ICML 2023 work", "这篇 OSDI 2022 的论文", "本文是 NeurIPS 2023 的工作"; without
#: the determiner ("compared with the OSDI 2022 paper Orca", "相比 OSDI 2022 的论文 Orca") it is another's.
_THIS_PAPER_RE = re.compile(
    r"(?:\b(?:this|our)\s*|(?:这篇|本篇|该篇|本文|该文|这是|本文是|本文为)\s*(?:一篇)?\s*)$", re.I
)
#: Chinese words after a venue that state it as the paper's (the verb follows the venue): "在 OSDI 2022
#: 上发表", "被 NeurIPS 2023 录用", "ICML 2023 中稿".
_STATED_AFTER_RE = re.compile(r"^\s*(?:上\s*)?(?:发表|录用|接收|收录|中稿)")
_PAPER_NOUN_RE = re.compile(r"^\s*(?:的\s*)?(?:papers?\b|work\b|article\b|论文|文章|工作)", re.I)
#: What may follow a venue that ends a byline: a remark in brackets ("(best paper)", "(oral)") and a stop,
#: or short comma-separated items ("Microsoft, ICLR 2022, 12 pages").
_BYLINE_TAIL_RE = re.compile(
    r"^\s*(?:[(\[][^()\[\]]{0,40}[)\]])?\s*[.,;:]?\s*$|^\s*(?:,\s*[\w+~≈.-]+(?:\s+[\w.-]+)?)+\.?\s*$"
)
#: A preprint with its year: "arXiv preprint, 2023", "arXiv preprint arXiv:2305.14314", "arXiv:2305.14314".
_PREPRINT_RE = re.compile(
    r"\b(arxiv|biorxiv|medrxiv)(?:\s+preprint)?[\s,:]*(?:(?:arxiv:\s*)?(\d\d)\d\d\.\d{4,5}(?:v\d+)?)?[\s,(]*((?:19|20)\d\d)?",
    re.IGNORECASE,
)
#: A series nobody listed, stated with a year after words that state it: "Published in: COLM 2024".
_LEAD_UNKNOWN_RE = re.compile(
    r"\b(?i:accepted|published|presented|appear(?:s|ed|ing)?)\s*(?i:as|at|in|to|by)?[\s:]*(?i:the\s+)?"
    r"([A-Z][A-Za-z&+-]{1,19})\s*[,'’]?\s*((?:19|20)\d\d)\b(?!\s*(?:[A-Z][\w&-]*\s+){0,5}[Ww]orkshop)",
)
#: Words that state where a paper appeared ("Published in", "Accepted at", "Appears in").
_STATES_RE = re.compile(r"\b(?:accepted|published|presented|appear(?:s|ed|ing)?)\s+(?:at|in|to|by)\b", re.IGNORECASE)
#: Capitalised words after "published in" that are no venue ("Published in January 2023").
_NOT_SERIES = frozenset(
    "january february march april may june july august september october november december spring summer "
    "autumn fall winter early late mid the a an".split()
)
#: Longest sentence (in words) that reads as a byline ("Yu et al. OSDI '22.").
BYLINE_WORDS = 25


def is_preprint(venue: str) -> bool:
    """True for a preprint server's venue ("arXiv 2023", "bioRxiv")."""
    return split_venue(venue)[0].strip().lower() in PREPRINT_SERIES


def _sentences(text: str) -> list[str]:
    # a web address after a stop starts a new sentence: "Wei et al. (NeurIPS 2022). https://…"
    # (a semicolon parts a byline's statements: "Rafailov, …, Finn (Stanford); NeurIPS 2023 oral; 1,200 citations")
    parts = re.split(
        r"\n|(?<=[.!?])\s+(?=[A-Z(\[]|https?://)|\s+[·|•—–]\s+|\s*[;；]\s+", text.replace("*", "").replace("_", " ")
    )
    return [p.strip() for p in parts if p.strip()]


#: Lower-case words of author lists ("Yu and Chun", "Frankle et al.", "Ludwig van Beethoven").
_NAME_WORDS = frozenset("and et al al. de van von der den da di du la le &".split())


def _names(text: str) -> bool:
    """Text that reads as an author list: capitalised words, initials and ``and``/``et al.`` only."""
    words = re.findall(r"[^\s,;]+", text)
    return bool(words) and all(
        w[:1].isupper() or w.lower().strip(".") in _NAME_WORDS or w.lower() in _NAME_WORDS for w in words
    )


def stated_venues(text: str, byline: bool = False) -> list[str]:
    """Venues a note's text states as its own paper's, canonical, in order, without repeats.

    A venue counts after words that state it ("Accepted at ICML 2023", "In Proceedings of SOSP
    2023", "Published at NeurIPS 2021", "Journal version in JMLR 2022"), or in brackets that hold
    little else at the end of a sentence ("Frankle and Carbin (ICLR'19).", "(NeurIPS 2024, oral)";
    not "compared with Triton (SC 2019) on …"), or between "this"/"our" and a paper noun ("This SOSP 2023
    paper", "这篇 OSDI 2022 的论文"), or before a Chinese verb that states it ("在 OSDI 2022 上发表"). With ``byline`` (the text is a note's opening)
    also a venue that starts or ends a short sentence ("Yu et al. OSDI '22.", "EuroSys 2024 (best
    paper)", "Microsoft, ICLR 2022, 12 pages"; before the venue only names, or a title's citation ending "et al.,";
    a semicolon parts a byline's statements) and a preprint with its year ("arXiv preprint, 2023" → ``"arXiv 2023"``). A venue named
    in passing ("compared with Orca, OSDI '22, on …") does not count, nor a conference hosting the
    paper's workshop (:func:`workshop_venues`). Journals written out in full are read by their series
    (:func:`journal_abbreviated`); after "Published in", "Accepted at/to" … a series the built-in list
    lacks counts too when a year follows ("Published in: COLM 2024", "Accepted to Interspeech 2023").
    """
    out: list[str] = []
    for s in _sentences(journal_abbreviated(text)):
        short = len(s.split()) <= BYLINE_WORDS
        if _STATES_RE.search(s):  # "Published in Nature, 2015": the series and its year, as a reference writes them
            s = re.sub(r"\b([A-Za-z][\w&+-]*),\s+((?:19|20)\d\d)\b", r"\1 \2", s)
        for u in _LEAD_UNKNOWN_RE.finditer(s):
            first = re.split(r"[-/]", u.group(1))[0].lower()  # "ACL-IJCNLP": a joint name of a known series
            if first not in SERIES and u.group(1).lower() not in _NOT_SERIES:
                out.append(f"{u.group(1)} {u.group(2)}")
        for m in find_venue_mentions(s):
            if not m.venue or _at_workshop(s, m.span):
                continue
            before, after = s[: m.span[0]], s[m.span[1] :]
            opened = before.rstrip().endswith(("(", "[", "（"))  # full-width brackets of Chinese text alike
            closed = re.match(r"^[^()\[\]（）]{0,24}[)\]）]\s*(?:[.,;:，。；：]\s*)?$", after)
            # a bracket right after a title in title marks or quotes: "《Title》（NeurIPS 2017）", "“Title” (ICML 2023)"
            after_title = re.search(r"[》〉”]\s*[(（]$", before.rstrip()) and re.match(r"^[^()（）]{0,24}[)）]", after)
            if (
                _LEAD_RE.search(before)
                or (opened and closed)
                or after_title
                or (_THIS_PAPER_RE.search(before) and _PAPER_NOUN_RE.match(after))
                or _STATED_AFTER_RE.match(after)
                or (
                    byline
                    and short
                    and (
                        not before.strip(" -–—:,")
                        or ((_names(before) or re.search(r"\bet al\.?,?\s*$", before)) and _BYLINE_TAIL_RE.match(after))
                    )
                )
            ):
                out.append(m.venue)
        if byline or _LEAD_RE.search(s):
            for p in _PREPRINT_RE.finditer(s):
                year = p.group(3) or (str(two_digit_year(int(p.group(2)))) if p.group(2) else None)
                if (
                    year
                    and (p.group(2) or p.group(3))
                    and not any(v.lower().startswith(p.group(1).lower()) for v in out)
                ):
                    out.append(f"{SERIES.get(p.group(1).lower(), p.group(1))} {year}")
    return list(dict.fromkeys(out))


def decide_venue(said: Iterable[str]) -> tuple[str | None, bool]:
    """``(venue, conflicting)`` from the venues one note states: the one peer-reviewed venue (a
    preprint only when there is none), or None and whether two of them disagree."""
    distinct = list(dict.fromkeys(normalize_venue(v) or v for v in said if v))
    reviewed = [v for v in distinct if not is_preprint(v)]
    pool = reviewed or distinct
    if len(pool) == 1:
        return pool[0], False
    return None, len(pool) > 1


@lru_cache(maxsize=8192)
def split_venue(venue: str) -> tuple[str, int | None]:
    """``"OSDI 2026"`` → ``("OSDI", 2026)``; a venue without a year → ``(venue, None)``."""
    m = re.match(r"^(.*?)\s+(\d{4})$", venue)
    if not m:
        return venue, None
    return m.group(1), int(m.group(2))


def venue_from_site_path(path: str) -> str | None:
    """Venue of a GitBook conference page from its path (``reading-notes/conference/osdi-2026/x`` →
    ``"OSDI 2026"``); ``None`` outside ``reading-notes/conference`` / ``journal``."""
    m = re.search(r"reading-notes/(?:conference|journal)/(?:[a-z]+/)?([a-z]+)-(\d{4})", path)
    if not m:
        return None
    return normalize_venue(f"{m.group(1)} {m.group(2)}")


#: The longest text read as a venue name ("USENIX Annual Technical Conference 2026" is 39 characters).
MAX_VENUE_CHARS = 200


def resolve_venue(text: str, known: Iterable[str]) -> str:
    """Canonical venue for ``text`` ("mlsys26" → "MLSys 2026") if it is one of ``known`` (given most
    important first, e.g. by paper count).

    Raises
    ------
    BadInputError
        When the notes lack it, with the suggestions of :func:`suggest_venues` (see
        :func:`unknown_venue`); when ``text`` is empty or names no venue; when it is a series of the
        notes without a year ("OSDI": the message names its years in the notes).
    """
    known = list(dict.fromkeys(known))
    raw = unify_punctuation(text or "").strip()  # "ＯＳＤＩ 2024", "OSDI‑2024" as typed on any keyboard
    if len(raw) > MAX_VENUE_CHARS:
        raise BadInputError(f"the venue is too long ({len(raw)} characters): write it like 'OSDI 2026'")
    if not raw:
        raise BadInputError("no venue given: name one, e.g. 'MLSys 2026' or 'osdi26'")
    v = normalize_venue(raw)
    by_lower = {k.lower(): k for k in known}
    if v and v.lower() in by_lower:
        return by_lower[v.lower()]
    if not v:  # a series venues.py does not know, written compactly: "toysys26", "ToySys-2026"
        compact = re.sub(r"[^a-z0-9]", "", raw.lower())
        years = [
            k for k in known if split_venue(k)[1] and re.sub(r"[^a-z0-9]", "", split_venue(k)[0].lower()) == compact
        ]
        if years:  # a series the notes hold, without its year
            series = split_venue(years[0])[0]
            raise BadInputError(
                f"{raw!r} needs a year: {', '.join(suggest_venues(series, None, known))} are in the notes"
            )
        for k in known:
            series, year = split_venue(k)
            forms = {re.sub(r"[^a-z0-9]", "", f"{series}{y}".lower()) for y in (year, (year or 0) % 100)}
            if year and compact in forms:
                return k
        raise BadInputError(f"{raw!r} is not a venue name (e.g. 'MLSys 2026' or 'osdi26')")
    raise unknown_venue(v, known)


#: Most venues a suggestion names.
MAX_SUGGESTIONS = 6


def suggest_venues(
    series: str, year: int | None, known: Iterable[str], limit: int | None = MAX_SUGGESTIONS
) -> list[str]:
    """Venues of ``known`` (most important first) to suggest for a venue the notes lack: the same
    series' other years (nearest year first, the newer of two equally near), else the other series of
    that year (in ``known``'s order), else nothing — never a venue chosen by how its name is spelled.
    At most ``limit`` (:data:`MAX_SUGGESTIONS`; None: all).

    >>> suggest_venues("OSDI", 2030, ["MLSys 2026", "OSDI 2024", "OSDI 2026", "SIGMOD 2030"])
    ['OSDI 2026', 'OSDI 2024']
    >>> suggest_venues("SIGGRAPH", 2026, ["MLSys 2026", "SIGMOD 2025", "OSDI 2026"])
    ['MLSys 2026', 'OSDI 2026']
    """
    parts = [(k, *split_venue(k)) for k in dict.fromkeys(known)]
    same = [(k, y) for k, s, y in parts if s.lower() == series.lower()]
    if same:
        target = year or max((y or 0) for _, y in same)
        same.sort(key=lambda ky: (abs((ky[1] or 0) - target), -(ky[1] or 0)))
        return [k for k, _ in same][:limit]
    if year is None:
        return []
    return [k for k, _, y in parts if y == year][:limit]


def unknown_venue(venue: str, known: Iterable[str]) -> BadInputError:
    """The one-line error for a venue (``"OSDI 2030"``) or series (``"SIGGRAPH"``) the notes lack,
    naming :func:`suggest_venues`' suggestions: ``unknown venue 'OSDI 2030'; the notes have OSDI 2026,
    …``, ``…; the notes have no FOO papers; their 2026 venues: …``, or, with nothing to suggest,
    ``…; the notes have no FOO papers and none of 1999``."""
    series, year = split_venue(venue)
    known = list(known)
    near = suggest_venues(series, year, known)
    more = len(suggest_venues(series, year, known, limit=None)) - len(near)
    named = ", ".join(near) + (f" (and {more} more)" if more > 0 else "")
    what = f"unknown venue {venue!r}"
    if near and split_venue(near[0])[0].lower() == series.lower():
        return BadInputError(f"{what}; the notes have {named}")
    if near:
        return BadInputError(f"{what}; the notes have no {series} papers; their {year} venues: {named}")
    of_year = f" and none of {year}" if year else ""
    return BadInputError(f"{what}; the notes have no {series} papers{of_year} (`papernotes stats` lists every venue)")
