"""The opening of a note, read line by line: the labelled lines that name the note's own paper
(``**Paper:** [Title](link)``, ``Paper: <link>``, ``Link: …``, ``PDF: …``, ``arXiv: 2401.12345``,
``DOI: 10.…``, ``Title: …``, ``Venue: OSDI '22``, ``Authors: …``), its byline, and the framing of a
post title ("Paper notes: QLoRA", "Reading: X", "Notes on X", "X — paper notes").

A labelled line is a label word, then ``:`` — bold, italic or as a list bullet alike — at the start of
one of the note's first :data:`OPENING_LINES` lines outside code. A row of a two-column key/value
table (the metadata table of MkDocs-style notes: ``| Venue | OSDI 2022 |``, ``| Link | [arXiv](…) |``,
``| Year | 2022 |``; header row included, as such tables often have no other) reads as the labelled
line ``Venue: OSDI 2022``. The opening proper (where a byline
states the venue) is the text before the first heading that follows some text: headings before any text
(the title, a "Metadata" heading) are passed over.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from markdown_it.token import Token

from papernotes.corpus.lexicon import readings
from papernotes.corpus.markdown import Inline, parse_tokens, render_inline
from papernotes.corpus.paper_links import (
    arxiv_url,
    doi_url,
    is_paper_link,
    names_its_site,
    one_paper,
    paper_id,
    written_urls,
)
from papernotes.corpus.papers import (
    ET_AL_RE,
    PAPER_LINK_LABELS,
    byline_names,
    name_like,
    personal_name,
    split_authors,
)
from papernotes.corpus.venues import find_venues

#: How many of a note's first lines (outside code, headings not counted) are read for labelled lines.
OPENING_LINES = 20
#: Labels of a line giving the paper's code ("Code: [github](…)", "Repo: …").
CODE_LABELS = ("code", "github", "repo", "repository", "代码")
#: Labels of a line that names the note's own paper, most telling first: the link of the first kind
#: present wins when the kinds disagree (a paper's arXiv abstract and its publisher's PDF).
IDENTITY_LABELS = ("paper", "arxiv", "doi", "pdf", "link", "url", "source")
#: Of those, labels that say the line is the paper itself, so any web link on it counts; "Link:",
#: "URL:" and "Source:" count only with a link to a paper (:func:`~papernotes.corpus.paper_links.is_paper_link`).
_STRONG_LABELS = ("paper", "arxiv", "doi", "pdf")
_LABEL_RE = re.compile(
    r"^\W{0,3}(paper(?:\s+link)?|pdf|arxiv(?:\s+id)?|doi|link|url|source|venue|conference|published(?:\s+(?:at|in))?"
    r"|(?:(?:full|paper|original|complete|official|preprint|arxiv|earlier|former|previous|old)\s+)?title"
    r"|(?:system|model|method|short)\s+names?|aliases?|aka|a\.k\.a\.?|also\s+known\s+as|authors?|affiliations?|institutions?|year|tags|keywords|code|github|repo|repository|代码"
    r"|论文标题|论文名称|论文名|原文标题|原标题|英文标题|英文题目|论文题目|文章标题|文章题目|文章名称|标题|题目"
    r"|论文链接|论文地址|原文链接|原文地址|文章链接|文章地址|论文下载|链接|地址|原文|论文|作者|单位|机构|发表会议|发表期刊|会议名称|会议|期刊|会议/期刊|出处|录用于?|发表于?|收录于?)"
    r"(?:\s*[(（]([^()（）]{1,24})[)）])?"  # a qualifier: "Title (arXiv version):", "论文标题（FAST 版）："
    r"\s*[*_]{0,2}\s*(?:::|[:：])\s*[*_]{0,2}\s*",  # "Paper:", "**Paper:**", Logseq's "url:: …"
    re.IGNORECASE,
)
#: A heading that is only a title label ("## Full title", "### Paper title", "## 论文标题"): the line
#: below it reads as that labelled line.
_TITLE_HEADING_RE = re.compile(
    r"^\W{0,3}(?:(?:(?:full|paper|original|complete|official)\s+)?title|论文标题|原文标题|原标题|英文标题|论文题目)\W{0,3}$",
    re.IGNORECASE,
)


def heading_label(heading: str) -> str | None:
    """The label a heading gives the line below it, or None: a title label ("## Full title", "## 论文标题",
    :data:`_TITLE_HEADING_RE`), or any field label written as one with its colon ("### Paper:",
    "### Author:", "### Year:", "## 作者：" — notes that lay out their fields as headings)."""
    h = heading.strip()
    if _TITLE_HEADING_RE.match(h):
        return h
    m = _LABEL_RE.match(h)
    return h.rstrip(":：*_ ") if m and m.end() == len(h) and h.rstrip("*_ ").endswith((":", "：")) else None


_BARE_URL_RE = re.compile(r"https?://[^\s)>\]]+")
#: The same labels as Chinese notes write them: 论文标题/原文标题/原标题/英文标题/论文题目 "(original,
#: English) paper title", 论文链接/论文地址/原文链接 "paper link", 原文/论文 "the paper", 作者 "authors",
#: 单位/机构 "affiliation", 会议/发表于 "venue/published in", 链接 "link".
CJK_LABELS = {
    "论文标题": "title",
    "论文名称": "title",
    "论文名": "title",
    "文章标题": "title",
    "文章题目": "title",
    "文章名称": "title",
    "原文地址": "link",
    "文章链接": "link",
    "文章地址": "link",
    "论文下载": "link",
    "地址": "link",
    "期刊": "venue",
    "会议/期刊": "venue",
    "收录": "published",
    "收录于": "published",
    "原文标题": "title",
    "原标题": "title",
    "英文标题": "title",
    "英文题目": "title",
    "论文题目": "title",
    "标题": "title",
    "题目": "title",
    "论文链接": "link",
    "论文地址": "link",
    "原文链接": "link",
    "链接": "link",
    "原文": "paper",
    "论文": "paper",
    "作者": "authors",
    "单位": "affiliations",
    "机构": "affiliations",
    "会议": "venue",
    "发表会议": "venue",
    "发表期刊": "venue",
    "会议名称": "venue",
    "出处": "venue",
    "录用": "published",
    "录用于": "published",
    "发表": "published",
    "发表于": "published",
}
#: A post title's framing around the paper's name: "Paper notes: X", "Reading: X", "Notes on X",
#: "Paper review – X" (any dash), "[Paper] X", "X — paper notes", "X (notes)", and the same framing in
#: Chinese posts ("论文笔记：X", "论文阅读：X").
_FRAME_HEAD_RE = re.compile(
    r"^\s*(?:\[(?:(?:paper|reading)\s+)?(?:paper|notes?|reading|review|summary)\]\s*|【[^】]{1,12}】\s*|(?:(?:my|paper|reading|quick|short)\s+)*"
    r"(?:notes?|reading|summary|review|paper|tl;?dr)(?:\s*[:|｜–—-]\s*|\s+(?:on|of|about|for)\s+)"
    r"|(?:论文|文献)?(?:阅读|精读|解读|速读)?笔记\s*[:：|｜]\s*|(?:论文|文献)(?:阅读|精读|解读|速读)\s*[:：|｜]\s*"
    r"|(?:一文(?:读懂|看懂|搞懂|详解)|浅析|浅谈|详解|图解|读论文)\s*[:：|｜]?\s*)(?=\S)",
    re.IGNORECASE,
)
_FRAME_TAIL_RE = re.compile(
    r"\s*(?:[:|–—-]\s*(?:(?:my|paper|reading)\s+)*(?:notes?|summary|review)|\s(?:paper|reading)?\s*notes|\s+paper"
    r"|\((?:(?:my|paper|reading|quick)\s+)*(?:notes?|review|summary)\)"
    r"|\s*(?:论文|文献)?(?:阅读|精读|解读|速读|学习)?笔记|\s*(?:论文|文献)(?:阅读|精读|解读|速读|分享|总结)"
    r"|\s*(?:论文|原理|算法)?(?:详解|解读|精读|速览))\s*$",
    re.IGNORECASE,
)


@dataclass
class Opening:
    """What a note's opening says about its paper.

    ``link``: the paper's URL from a labelled line (None when none, or when two lines of one label
    give different papers: ``ambiguous``); ``title``: a labelled line's link text or text when it reads
    as a title; ``placeholder``: a labelled paper line with an empty link (``[Title]()``);
    ``named_only``: a ``Paper:`` line with a title and no link at all; ``venues``: the text of
    ``Venue:``/``Conference:``/``Published at:`` lines; ``authors``: the text of an ``Authors:`` line; ``affiliations``: the places an ``Affiliation:`` line
    names (split at commas, semicolons and "&"); ``byline``: the opening proper's lines (see the module docstring);
    ``named``: full titles the opening proper sets apart, with their paper link when they are a link's
    text (:func:`_named_titles`); ``bare_placeholder``: the text of an unlabelled line of the opening proper that is one link with
    an empty address (``[Scaling Laws for Neural Language Models]()``); ``year``: a ``Year:`` line's
    year (with a ``Venue:`` line naming only the series, the two make the venue); ``tags``: a ``Tags:`` or
    ``Keywords:`` line's items; ``code``: the link of a ``Code:`` (``GitHub:``, ``Repo:``) line; ``labelled``: the first link of each
    identifying label (``{"paper": …, "arxiv": …}``); ``aliases``: the paper's earlier titles ("Preprint title:
    …"); ``names``: its names that a names line gives ("System name: vLLM", "Aliases: RDD, Spark RDDs").
    """

    link: str | None = None
    labelled: dict[str, str] = field(default_factory=dict)
    code: str | None = None
    title: str | None = None
    ambiguous: bool = False
    placeholder: bool = False
    named_only: bool = False
    venues: list[str] = field(default_factory=list)
    authors: str | None = None
    affiliations: list[str] = field(default_factory=list)
    byline: list[str] = field(default_factory=list)
    bare_placeholder: str | None = None
    year: int | None = None
    tags: list[str] = field(default_factory=list)
    named: list[tuple[str, str | None]] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


#: A title label's words or qualifier that mark the paper's earlier name: "Preprint title:", "Title
#: (arXiv version):", "论文标题（arXiv 版）：" (预印本 "preprint").
_EARLIER_TITLE_RE = re.compile(r"preprint|arxiv|earlier|former|previous|old|预印本", re.IGNORECASE)


#: Words of a line set apart as a paper's full title: a title has a few words, not a paragraph's.
TITLE_WORDS = (2, 30)
#: Fewest words of a title set apart by quoting or emphasis alone (a bold "Key idea" is a lead-in).
SET_APART_WORDS = 3


def _named_titles(inline: Inline, apart: str | None) -> list[tuple[str, str | None]]:
    """Full titles an unlabelled line of the opening proper gives, as ``(title, paper link or None)``:
    the text of a link to a paper when it reads as a title (``[FlexGen: High-Throughput …](arxiv)``),
    or the text the line sets ``apart`` (quoted or emphasised, :func:`_set_apart`) when it reads as a
    title — three words or more, a capital first, no closing stop — and not as a byline (no "et al.", venue or
    year: ``*Dao et al., NeurIPS '22*``)."""
    out: list[tuple[str, str | None]] = []
    for label, href in inline.links:
        words = len(label.split())
        if (
            is_paper_link(href.strip())
            and _title_like(label)
            and not re.match(r"(?:the|this|our|their|a|an)\s|.*\s(?:paper|pdf)$", label.strip())  # "the Orca paper"
            and not names_its_site(label, href.strip())  # "[ACM DL](…)", "[IEEE Xplore](…)"
            and TITLE_WORDS[0] <= words <= TITLE_WORDS[1]
        ):
            out.append((label.strip(), href.strip()))
    text = (apart or "").strip()
    n = len(text.split())
    byline = re.search(r"\bet al\b|\b(?:19|20)\d\d\b|['’]\d\d\b", text) or find_venues(text) or author_list(text)
    if text and not out and SET_APART_WORDS <= n <= TITLE_WORDS[1] and _title_case(text) and not byline:
        out.append((text, None))
    return out


#: A title in the marks prose puts around a work's name: Chinese title marks (《Attention Is All You
#: Need》, 〈…〉) or curly quotes (“Attention Is All You Need”).
_TITLE_MARKS_RE = re.compile(r"《([^《》]{3,200})》|〈([^〈〉]{3,200})〉|“([^“”]{3,200})”")


def _marked_titles(text: str) -> list[str]:
    """Paper titles a line of the opening sets in title marks or curly quotes (:data:`_TITLE_MARKS_RE`):
    text in Latin script that reads as a title (three words or more, a capital first, no closing stop);
    a quoted phrase of other words ("“the model”") is none."""
    out = []
    for m in _TITLE_MARKS_RE.finditer(text):
        t = next(g for g in m.groups() if g).strip()
        latin = re.findall(r"[A-Za-z][\w'’-]*", t)
        if (
            SET_APART_WORDS <= len(latin) <= TITLE_WORDS[1]
            and len(" ".join(latin)) >= 0.8 * len(t) - 4
            and _title_case(t)
        ):
            out.append(t)
    return out


#: Most characters of a key/value table's key cell ("Venue", "Published in", "arXiv ID").
_TABLE_KEY_CHARS = 24


def _table_row_line(tokens: list[Token], i: int) -> tuple[Token | None, int]:
    """``(a labelled-line inline, index after the row)`` for the table row opening at ``tokens[i]``
    (``tr_open``): ``Key: value`` when the row has two cells and the first is a short key; else None."""
    cells: list[Token] = []
    j = i + 1
    while j < len(tokens) and tokens[j].type != "tr_close":
        if tokens[j].type == "inline":
            cells.append(tokens[j])
        j += 1
    if len(cells) != 2 or not (0 < len(cells[0].content.strip(" *_")) <= _TABLE_KEY_CHARS):
        return None, j + 1
    sep = Token(type="text", tag="", nesting=0, content=": ")
    return Token(
        type="inline", tag="", nesting=0, children=[*(cells[0].children or []), sep, *(cells[1].children or [])]
    ), j + 1


def _set_apart(part: list[Token], inline: Inline, quoted: bool) -> str | None:
    """The text a line sets apart as a title: the whole line when it is quoted (``> Full Title``) or all
    emphasis (``**Full Title**``, ``*Full Title*``), or the bold text that opens a quoted line
    (``> **Full Title** Dao, Fu, …``) or a line whose rest is a byline or a venue (``**Full Title**
    (NeurIPS 2022)``, ``**Full Title** — Dao et al.``, ``**Full Title** by …``); else None."""
    ch = [c for c in part if not (c.type == "text" and not c.content.strip())]
    if not ch:
        return None
    whole = ch[0].type in ("em_open", "strong_open") and ch[-1].type == ch[0].type[:-4] + "close"
    lead = inline.strong[0] if ch[0].type == "strong_open" and inline.strong else None
    if ch[0].type == "em_open" and not whole:  # "*Full Title*, A. Author, B. Author. SC '20."
        end = next((k for k, c in enumerate(ch) if c.type == "em_close"), 0)
        lead = render_inline(Token(type="inline", tag="", nesting=0, children=ch[1:end])).text.strip() or None
    rest = inline.text.strip()[len(lead) :] if lead and inline.text.strip().startswith(lead) else ""
    if whole and not (quoted and lead):
        return inline.text.strip()
    if lead and (quoted or re.match(r"\s*(?:[(\[,—–（【，-]|by\s)", rest)):  # full-width brackets of Chinese text alike
        return lead
    return inline.text.strip() if quoted else None


def _lines(markdown: str) -> list[tuple[Inline, bool, str | None]]:
    """The note's first lines outside code and headings as ``(rendered inline, in the opening
    proper, the text it sets apart: see _set_apart)``; a paragraph's soft line breaks separate lines.
    A bullet that links a paper is a listing's entry, not part of the opening proper."""
    out: list[tuple[Inline, bool, str | None]] = []
    proper = True
    quoted = 0
    items = 0  # list-item depth: a bullet that links a paper is a listing's entry, no byline
    label: str | None = None  # a title-label heading's text, for the line below it
    tokens = parse_tokens(markdown)
    i = -1
    while i + 1 < len(tokens):
        i += 1
        t = tokens[i]
        if t.type == "heading_open":
            proper = proper and not out
        quoted += 1 if t.type == "blockquote_open" else -1 if t.type == "blockquote_close" else 0
        items += 1 if t.type == "list_item_open" else -1 if t.type == "list_item_close" else 0
        if t.type == "tr_open":
            row, i = _table_row_line(tokens, i)
            i -= 1
            if row is None:
                continue
            t = row
        elif t.type == "inline" and i and tokens[i - 1].type == "heading_open":
            label = heading_label(t.content)
            continue
        elif t.type != "inline":
            continue
        if label:  # "## Full title" over "**Title**": the line reads "Full title: Title"
            lead = Token(type="text", tag="", nesting=0, content=f"{label}: ")
            t = Token(type="inline", tag="", nesting=0, children=[lead, *(t.children or [])])
            label = None
        parts: list[list[Token]] = [[]]
        for c in t.children or []:
            if c.type in ("softbreak", "hardbreak"):
                parts.append([])
            else:
                parts[-1].append(c)
        for part in parts:
            inline = render_inline(Token(type="inline", tag="", nesting=0, children=part))
            if inline.text:
                listed = items > 0 and any(is_paper_link(h.strip()) for _, h in inline.links)
                fields = field_segments(inline)
                apart = _set_apart(part, inline, quoted > 0) if len(fields) == 1 else None
                out += [(f, proper and not listed, apart) for f in fields]
        if len(out) >= OPENING_LINES:
            break
    return out[:OPENING_LINES]


#: Where a line of fields starts its next field: after a bar or a middle dot ("**Authors:** … |
#: **Year:** 2014 | [arXiv](…)"), or, for a Chinese label, after a space ("论文链接: … 作者: … 发表于: …").
_FIELD_BREAK_RE = re.compile(
    r"\s*[|·•]\s*|\s+(?=(?:" + "|".join(sorted(CJK_LABELS, key=len, reverse=True)) + r")\s*[:：])"
    # a sentence's stop before the next field's label: "Venue: SIGCOMM 2001. Authors: Ion Stoica, …"
    r"|(?<=\.)\s+(?=(?i:authors?|venue|conference|year|published(?:\s+(?:at|in))?|paper|pdf|arxiv|doi|link|url)\s*:)"
)


def field_segments(inline: Inline) -> list[Inline]:
    """A line that lists several labelled fields (:data:`_FIELD_BREAK_RE`; it opens with a label and
    another field after a break is labelled too) as one :class:`Inline` per field, each with the links
    whose text it holds; any other line as ``[inline]``."""
    text = inline.text
    if not _LABEL_RE.match(text):
        return [inline]
    bounds = [0] + [m.end() for m in _FIELD_BREAK_RE.finditer(text)]
    starts = [m.start() for m in _FIELD_BREAK_RE.finditer(text)] + [len(text)]
    parts = [(b, e) for b, e in zip(bounds, starts, strict=True) if text[b:e].strip()]
    if sum(1 for b, e in parts[1:] if _LABEL_RE.match(text[b:e])) == 0:
        return [inline]
    out: list[Inline] = []
    links = list(inline.links)
    for n, (b, e) in enumerate(parts):
        seg = text[b:e].strip()
        if n < len(parts) - 1:
            seg = seg.rstrip(".").rstrip()  # the stop that ends a field before the next one's label
        own = [lk for lk in links if lk[0] and lk[0] in seg]
        links = [lk for lk in links if lk not in own]
        out.append(Inline(seg, own, [s for s in inline.strong if s in seg]))
    return out


#: Words of link texts that only say where the paper is ("the paper", "PDF here", "arXiv link").
_LINK_WORDS = frozenset(
    "the this a paper papers here link pdf arxiv full text preprint read it version url doi".split()
)


#: Fewest names that make a line an author list ("Jared Kaplan, Sam McCandlish, Tom Henighan").
AUTHOR_LIST_NAMES = 2
#: A surname as a byline writes it alone: one capitalised word, a prefix ("McCandlish", "O'Neil") or a
#: hyphenated second part ("Lacoste-Julien") aside; not a product's camel case ("PyTorch") or an acronym.
_SURNAME_RE = re.compile(r"(?:Mc|Mac|O['’]|D['’])?[A-Z][a-z]+(?:-[A-Z][a-z]+)?")


def author_list(line: str) -> bool:
    """A line that opens with an author list: comma-separated personal names (two to four capitalised
    words or initials each; a mark such as ``*`` or ``†`` after a name aside), affiliations in brackets
    aside ("Jared Kaplan, Sam McCandlish, … (OpenAI)"), judged up to where the byline goes on to say
    something else (:func:`~papernotes.corpus.papers.byline_names`: "Jane Doe, John Roe (MIT). Best Paper
    Award at EuroSys 2023.") and without an opening "By"."""
    whole, line = line, byline_names(line)
    parts = re.split(r"\s*,\s*|\s+and\s+|\s+&\s+", re.sub(r"\([^()]*\)", " ", line).strip())
    names = parts
    lead = []
    for n in names:
        if not personal_name(n):
            break
        lead.append(n)
    if len(lead) >= AUTHOR_LIST_NAMES:
        return True
    # surnames alone ("Ho, Jain, Abbeel — UC Berkeley", "Rafailov, …, Finn (Stanford); NeurIPS 2023",
    # "Kaplan, McCandlish et al. (OpenAI)") are an author list only with the places they work at after
    # them, or "et al." (single capitalised words may be anything else: "PyTorch, JAX (frameworks)")
    # (and most of them no English word: "Training, Inference (NVIDIA)" names no one)
    names = list(itertools.takewhile(name_like, names))  # "Brown et al. (OpenAI), 31 authors"
    et_al = bool(ET_AL_RE.search(names[-1])) if names else False
    surnames = [ET_AL_RE.sub("", n).strip(" .") for n in names]
    if not all(_SURNAME_RE.fullmatch(n) for n in surnames) or len(surnames) < (1 if et_al else AUTHOR_LIST_NAMES):
        return False
    if not et_al and 2 * sum(not readings(n) for n in surnames) <= len(surnames):
        return False
    # the places after the byline's end are theirs only when nothing but names comes before it ("Zhong et
    # al., OSDI '24 — [USENIX](…)": the dash follows a venue, the link names no place)
    return bool(split_authors(whole if len(names) == len(parts) else line)[1])


def _title_case(text: str) -> bool:
    """Text written as a title, not a sentence: it starts with a capital or digit and ends without a stop
    (nor a comma or semicolon: a line that a sentence continues on the next)."""
    return (text[:1].isupper() or text[:1].isdigit()) and not text.rstrip().endswith((".", ",", ";", "，", "；"))


def _title_like(label: str) -> bool:
    """A link text that names a paper: words, not a URL, an identifier or a link kind ("Paper", "PDF",
    "the paper here")."""
    s = label.strip()
    low = s.lower()
    return (
        len(s) >= 3
        and not set(re.findall(r"\w+", low)) <= _LINK_WORDS
        and not low.startswith(("http", "www.", "arxiv:", "doi:", "10."))
        and not re.match(r"^[\w-]+(?:\.[\w-]+)+/", low)  # an address written without its scheme
        and low not in PAPER_LINK_LABELS
        and low not in ("link", "here", "this", "url", "pdf link", "paper link", "full paper", "preprint")
        and not re.fullmatch(r"[\d.v/ -]+", s)
    )


def frame_stripped(title: str) -> tuple[str, bool]:
    """``(the title without its framing, whether it had one)``: "Paper notes: QLoRA" → ``("QLoRA",
    True)``, "Reading: Orca" → ``("Orca", True)``, "FlashAttention — paper notes" →
    ``("FlashAttention", True)``, "Chinchilla paper" → ``("Chinchilla", True)``, "Deep dive: QLoRA" →
    ``("QLoRA", True)``; a title without framing is returned as it is."""
    s = title.strip()
    if is_collection_title(s):  # "My Reading Notes": all framing, no paper named
        return s, False
    head = _FRAME_HEAD_RE.match(s)
    if head and len(s) > head.end():
        s = s[head.end() :].strip()
        tail = _FRAME_TAIL_RE.search(s)  # both ends framed: "【ICML 2023】X 解读"
        return (s[: tail.start()].strip() if tail and tail.start() > 0 else s), True
    tail = _FRAME_TAIL_RE.search(s)
    if tail and tail.start() > 0:
        return s[: tail.start()].strip(), True
    lead = _WORDS_THEN_NAME_RE.match(s)
    if lead:  # "Deep dive: QLoRA": ordinary words, then the name they frame
        return lead.group(1), True
    return s, False


#: A heading of one to three ordinary lower-case words (the first may be capitalized), a colon, then one
#: name written as names are (a capital or digit after its first letter: "QLoRA", "vLLM", "GPT-3"): the
#: words frame the name ("Deep dive: QLoRA", "Worked example: AWQ"); a paper's own title puts its name
#: first ("Orca: A Distributed Serving System …").
_WORDS_THEN_NAME_RE = re.compile(r"^[A-Za-z][a-z]+(?:\s+[a-z]+){0,2}\s*:\s*([A-Za-z][\w.+-]*[A-Z0-9][\w.+-]*)$")


#: A title made only of words that describe a collection of notes ("My Reading Notes", "Paper Notes
#: 2023", "Weekly paper log", "Reading list — ML"): it names no paper.
_COLLECTION_RE = re.compile(
    r"^(?:(?:my|our|paper|papers|reading|readings|research|notes?|log|logs|list|lists|journal|diary|summar(?:y|ies)"
    r"|reviews?|weekly|daily|monthly|archive|index|ml|ai|dl|nlp|cv|(?:19|20)\d\d|and|of|on|&)(?:\s+|\s*[-–—:|,]\s*|$))+$",
    re.IGNORECASE,
)


def is_collection_title(title: str) -> bool:
    """True for a title that only says it is a collection of notes (:data:`_COLLECTION_RE`), with two
    words or more ("My Reading Notes"; a one-word title, "Notes", is a section's name), or that is a
    date or week (a journal's page: "2023-05-01", "Week 12")."""
    t = title.strip()
    return (len(t.split()) >= 2 and bool(_COLLECTION_RE.match(t))) or bool(_DATE_TITLE_RE.match(t))


#: A title that is a date or a week: a journal page ("2023-05-01", "2024/03", "2023年5月", "Week 12").
_DATE_TITLE_RE = re.compile(
    r"^(?:(?:19|20)\d\d[-/._](?:0?[1-9]|1[0-2])(?:[-/._](?:0?[1-9]|[12]\d|3[01]))?"
    r"|(?:19|20)\d\d年\d{1,2}月(?:\d{1,2}日)?|week\s*\d{1,2}(?:,?\s*(?:19|20)\d\d)?)$",
    re.IGNORECASE,
)


#: The labels of a line giving the paper's other names ("System name: vLLM", "Aliases: RDD").
_NAME_LABEL_RE = re.compile(r"(?:system|model|method|short)\s+names?|aliases?|aka|a\.k\.a\.?|also\s+known\s+as")


def is_labelled_line(text: str) -> bool:
    """True for a labelled line ("Author: …", "**Venue:** …", "论文链接：…"; see the module docstring)."""
    return bool(_LABEL_RE.match(text))


#: A value set in title marks or quotes as a whole: 《Title》, 〈Title〉, “Title”, "Title".
_QUOTED_WHOLE_RE = re.compile(r"^[《〈“\"]([^《》〈〉“”\"]{3,300})[》〉”\"]")


def _title_value(text: str) -> str:
    """A ``Title:`` line's title without what follows it: a closing stop ("Full title: **X**."), a
    remark in full-width brackets ("X（Google Research）") or a bracket holding a venue or year
    ("X (NeurIPS 2022)")."""
    t = text.strip().rstrip(".。 ")
    t = _QUOTED_WHOLE_RE.sub(r"\1", t)  # "《Title》", "“Title”"
    m = re.search(r"\s*(?:（[^（）]*）|\(([^()]*)\))$", t)
    if (
        m
        and m.start() > 0
        and (m.group(1) is None or re.search(r"\b(?:19|20)\d\d\b", m.group(1)) or find_venues(m.group(1)))
    ):
        t = t[: m.start()].rstrip(" .,")
    return t


def _line_paper_links(links: list[tuple[str, str]], strong: bool) -> list[tuple[str, str]]:
    """The paper links of one labelled line, as ``(text, url)``: its links to papers (on a line whose
    label says it is the paper, ``strong``, any web link when none is a paper's), or only the first
    when they are copies of one paper (``Link: [USENIX](…) · [arXiv](…)``,
    :func:`~papernotes.corpus.paper_links.one_paper`); a code link beside them (``· Code: <github>``)
    is not the paper's."""
    web = [(label, href) for label, href in links if re.match(r"^https?://", href, re.I)]
    papers = [(label, href) for label, href in web if is_paper_link(href)] or (web if strong else [])
    one = one_paper(papers)
    return [next(x for x in papers if x[1] == one)] if one else papers


def read_opening(markdown: str) -> Opening:
    """What the labelled lines and the byline of a note's opening say (see :class:`Opening`)."""
    op = Opening()
    found: dict[str, list[str]] = {}  # label kind → paper links in order
    titles: list[str] = []
    for inline, proper, apart in _lines(markdown):
        if proper:
            op.byline.append(inline.text)
        m = _LABEL_RE.match(inline.text)
        if not m and proper:
            op.named += _named_titles(inline, apart) + [(t, None) for t in _marked_titles(inline.text)]
        if not m:
            empty = [lbl for lbl, href in inline.links if href.strip() in ("", "#")]
            if proper and len(empty) == 1 and _title_like(empty[0]) and len(empty[0]) >= 0.6 * len(inline.text):
                op.bare_placeholder = op.bare_placeholder or empty[0]
            continue
        label = m.group(1).lower()
        kind = CJK_LABELS.get(m.group(1), "title" if label.endswith("title") else re.split(r"\s+", label)[0])
        rest = inline.text[m.end() :].strip()
        if _NAME_LABEL_RE.fullmatch(label):  # "System name: vLLM", "Aliases: RDD, Spark RDDs"
            op.names += [
                n for n in (x.strip(" *_`.") for x in re.split(r"\s*[,;/，；]\s*", rest)) if 0 < len(n.split()) <= 4
            ]
            continue
        if kind in ("venue", "conference", "published"):
            op.venues.append(rest)
            continue
        if kind == "year":
            y = re.fullmatch(r"\W*((?:19|20)\d\d)\W*", rest)
            if y is None and find_venues(rest):  # "Year: AAAI 2020": the venue, dated
                op.venues.append(rest)
                y = re.search(r"\b((?:19|20)\d\d)\b", rest)
            op.year = op.year or (int(y.group(1)) if y else None)
            continue
        if kind == "title":
            rest = _title_value(rest)
            if _title_like(rest):
                earlier = _EARLIER_TITLE_RE.search(f"{label} {m.group(2) or ''}")
                (op.aliases if earlier else titles).append(rest)
            continue
        if kind.startswith("author"):
            op.authors = op.authors or rest
            continue
        if kind in ("tags", "keywords"):  # a Notion page's exported "Tags: systems, llm serving"
            op.tags = op.tags or [t.strip(" #") for t in re.split(r"\s*[,;，；]\s*", rest) if t.strip(" #")]
            continue
        if kind.startswith(("affiliation", "institution")):
            op.affiliations = op.affiliations or [
                a.strip() for a in re.split(r"\s*[,;，；]\s*|\s+&\s+", rest) if a.strip()
            ]
            continue
        links = [(label, href.strip()) for label, href in inline.links]
        if kind in CODE_LABELS:  # "Code: [github](…)": the code's link, never the paper's
            web = [href for _, href in links if re.match(r"^https?://", href, re.I)] or written_urls(rest)
            op.code = op.code or (web[0] if web else None)
            continue
        for label, href in links:
            if href in ("", "#") and kind == "paper" and _title_like(label):
                titles.append(label)
                op.placeholder = True
        for label, href in _line_paper_links(links, kind in _STRONG_LABELS):
            found.setdefault(kind, []).append(href)
            if _title_like(label):
                titles.append(label)
        if not links:
            bare = written_urls(rest)
            word = rest.split()[0] if rest.split() else ""
            url = (
                bare[0]
                if bare
                else arxiv_url(word.rstrip(".,;"))
                if kind == "arxiv"
                else doi_url(rest)
                if kind == "doi"
                else None
            )
            if url and (kind in _STRONG_LABELS or is_paper_link(url)):
                found.setdefault(kind, []).append(url)
            elif (
                kind == "paper"
                and _title_like(rest := _title_value(rest))
                and 2 <= len(rest.split()) <= 30
                and _title_case(rest)
            ):
                titles.append(rest)  # "Paper: Title", "论文：《Title》"
                op.named_only = True
    for kind in IDENTITY_LABELS:
        ids = list(dict.fromkeys(paper_id(u) for u in found.get(kind, [])))
        if len(ids) > 1:
            return Opening(
                ambiguous=True,
                venues=op.venues,
                authors=op.authors,
                affiliations=op.affiliations,
                byline=op.byline,
                year=op.year,
                named=op.named,
                aliases=op.aliases,
                names=op.names,
            )
    if op.bare_placeholder and not found and not titles:
        titles.append(op.bare_placeholder)
    op.labelled = {k: found[k][0] for k in IDENTITY_LABELS if found.get(k)}
    op.link = next(iter(op.labelled.values()), None)
    distinct_titles = list(dict.fromkeys(titles))
    op.title = distinct_titles[0] if len(distinct_titles) == 1 else None
    return op
