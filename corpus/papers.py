"""The notes' conventions for papers: which list items are paper entries, and what a paper entry, a deep
note and a publication record say (title, system, venue, affiliations, links, summary)."""

from __future__ import annotations

import itertools
import re
import unicodedata
from functools import lru_cache
from urllib.parse import urlsplit

from papernotes.corpus.listing_marks import dash_venue, part_venue, short_name_tail, without_shortcodes
from papernotes.corpus.markdown import Block, Item, is_section_heading
from papernotes.corpus.models import Page, PaperEntry, Publication
from papernotes.corpus.normalize import CJK_CHARS
from papernotes.corpus.paper_links import is_paper_link, names_its_site
from papernotes.corpus.venues import (
    find_venue_mentions,
    find_venues,
    normalize_venue,
    split_venue,
    venue_from_site_path,
    workshop_venues,
)

#: Link labels that mark a list item as a paper entry (GitBook notes: ``\[[Paper](…)] \[[Code](…)]``).
PAPER_LINK_LABELS = {
    "paper",
    "code",
    "arxiv",
    "pdf",
    "slides",
    "slide",
    "homepage",
    "personal notes",
    "notes",
    "video",
    "blog",
    "project",
    "poster",
    "talk",
    "dataset",
    "openreview",
    "artifact",
    "doi",
}
#: The same link labels in Chinese notes ("[论文](…) [代码](…)") → the kind of link they name.
CJK_LINK_KINDS = {
    "论文": "paper",
    "原文": "paper",
    "论文链接": "paper",
    "代码": "code",
    "项目主页": "project",
    "主页": "homepage",
    "视频": "video",
    "博客": "blog",
    "笔记": "notes",
}
PAPER_LINK_LABELS |= set(CJK_LINK_KINDS)
#: Generic link labels ("[link](…)", "[url](…)", "[链接](…)"): the paper's own link when they point at a
#: paper (:func:`~papernotes.corpus.paper_links.is_paper_link`), else no evidence of one.
GENERIC_LINK_LABELS = {"link", "url", "链接", "地址"}
#: Link labels that point at the reader's own notes on a paper, not at the paper.
NOTE_LABELS = {"notes", "personal notes", "my notes", "note"}
#: A task-list checkbox at the start of a bullet (``- [ ] read``, ``- [x] done``).
#: A log's date before an entry or a title: "2024-09-03: ", "2024/09/03 — ", "2024-09 · ", "03/14: ",
#: "Mar 11 — ", "19 Mar · ", "March 5th: ".
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
DATE_LEAD_RE = re.compile(
    r"^\s*(?:(?:19|20)\d\d[-/.](?:0?[1-9]|1[0-2])(?:[-/.](?:0?[1-9]|[12]\d|3[01]))?|\d{1,2}[/.]\d{1,2}"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}\s+{_MONTH})\s*[:：·|—–-]\s+",
    re.IGNORECASE,
)
_TASK_BOX_RE = re.compile(r"^\s*\[[ xX✓✔-]\]\s+")
#: A to-do's lead before a paper's name (after a task box, or starting with "TODO"): "TODO read:",
#: "TODO:", "to read:", "To-read —", "read later:", "want to read", "TODO skim"; and after an unchecked
#: box a bare "read"/"skim" (``- [ ] read Orca``). Such a bullet is a to-do, not a note on the paper.
_TODO_RE = re.compile(
    r"^(?:to-?do\b(?!-\w)[\s:–—-]*(?:(?:read|skim|check)(?:\s+later)?\b)?|(?:(?:want|need)\s+)?to[\s-]+(?:read|skim)\b"
    r"|(?:read|skim)\s+later\b)[\s:–—-]*",
    re.IGNORECASE,
)
#: The keywords, in capitals, that open a task not started in Logseq ("LATER", "TODO", "WAITING";
#: https://docs.logseq.com/#/page/tasks) and Org mode ("TODO", "NEXT", "HOLD"; the Org manual's
#: TODO keywords): a block "LATER Paxos Made Simple" is a paper to read, not a note on it.
_TASK_MARKER_RE = re.compile(r"^(?:TODO|LATER|WAITING|WAIT|NEXT|HOLD)\s+")
_UNCHECKED_LEAD_RE = re.compile(r"^(?:read|skim)\b[\s:–—-]*", re.IGNORECASE)
_LABELS_TAIL_RE = re.compile(r"(\s*\[(?:[^\[\]]{1,40})\])+\s*$")
_AFFIL_WORD_OK = {"of", "and", "the", "de", "at", "for", "in", "la", "und", "du", "des", "di", "e"}
_ARXIV_ID_RE = re.compile(r"\(arXiv[: ]?(\d{2})(\d{2})\.\d{4,5}\)", re.IGNORECASE)


@lru_cache(maxsize=1 << 16)
def title_key(title: str) -> str:
    """Case-, accent- and punctuation-insensitive key for matching paper titles: the title's letters
    and digits only, case-folded, accents removed (``"Zürich—Log-Structured"`` → ``"zurichlogstructured"``);
    letters of any script count, so a title in CJK has a non-empty key too. Recent keys are cached
    (the catalog merge and the name index compute the same titles' keys again and again)."""
    t = "".join(c for c in unicodedata.normalize("NFKD", title) if not unicodedata.combining(c))
    return re.sub(r"[\W_]+", "", t.casefold())


def page_venue(page: Page) -> str | None:
    """Venue a whole page is about: a conference page titled ``"OSDI 2026"`` or under
    ``reading-notes/conference/osdi-2026``; None otherwise."""
    v = normalize_venue(page.title)
    if v and re.fullmatch(r"[\w&+'’ -]{2,30}\s(?:19|20)\d\d", page.title.strip()):
        return v
    return venue_from_site_path(page.site_path) if page.site_path else None


def looks_like_affiliation(text: str) -> bool:
    """Heuristic for the notes' affiliation lines (``"UMacau & SIAT, CAS"``, ``"Google"``):
    short, no sentence punctuation at the end, no year, capitalized words or ``&``-joined names."""
    s = text.strip()
    if s.endswith(".") and re.search(r"(?:^|\s)[A-Z][a-z]{0,3}\.$", s):
        s = s[:-1]  # "Kangaroo Corp.", "Numbat Inc." (not a word: "MLSys 2024 Best Paper Award.")
    if not s or len(s) > 160 or s.endswith((".", ":", ";", "?", "!")):
        return False
    if re.search(r"\b(?:19|20)\d\d\b", s):
        return False  # a year dates an event ("MLSys 2024 Best Paper"), a place has none
    words = s.split()
    if len(words) > 16:
        return False
    if " & " in s:
        return True
    caps = sum(1 for w in words if w[:1].isupper() or w[:1].isdigit() or w.lower() in _AFFIL_WORD_OK)
    return caps == len(words) and len(words) <= 8


def linked_title(item: Item) -> str | None:
    """The label of a bullet that starts with its title linked to the paper's page on a registry of
    papers (arXiv, a DOI, OpenReview, a USENIX presentation: :func:`~papernotes.corpus.paper_links.is_paper_link`;
    a bare ``.pdf`` is any document, so it is not enough alone): ``[Title](https://arxiv.org/abs/…) — SC '21``
    → ``"Title"``. None when the bullet does not start that way or the label is a single word that is no
    name with its venue after it (:func:`_one_word_name`)."""
    links = item.inline.links
    if not links:
        return None
    label, href = links[0][0].strip(), links[0][1].strip()
    text = todo_stripped(item.text)[0].strip()
    if not text.startswith(label) or not is_paper_link(href):
        return None
    if len(label.split()) < 2 and not _one_word_name(label, href, text[len(label) :]):
        return None
    return None if urlsplit(href).path.lower().endswith(".pdf") else label


def _one_word_name(label: str, href: str, after: str) -> bool:
    """A one-word link text that is the paper's name, as a listing bullet gives it with its venue after it
    ("[Mongoose](arXiv link) (ICML'24) — …", "[Tern](…) -- NeurIPS 2023 -- …"; without one, "[FlashAttention](…)
    — see my notes" may only point to a note): a name, not a link kind ("[arXiv](…)", "[Paper](…)",
    "[usenix](…)") nor an identifier ("[2401.12345](…)")."""
    low = label.lower()
    if low in PAPER_LINK_LABELS | GENERIC_LINK_LABELS | NOTE_LABELS or names_its_site(label, href):
        return False
    if not re.search(r"[^\W\d_]{2}", label) or low.startswith("http"):
        return False
    return venue_after_name(after) is not None


def venue_after_name(after: str) -> str | None:
    """The venue a bullet states right after its title: in brackets ("(ICML'24) — …") or as the first part
    after a dash ("-- NeurIPS 2023 -- …"); None otherwise. ``after``: the bullet's text after the title."""
    if (m := re.match(_BRACKETED_VENUE, after.strip())) and (vs := find_venues(m.group(1))):
        return vs[0]
    cut = re.match(_DESCRIPTION_CUT, after)
    return part_venue(re.split(_DESCRIPTION_CUT, after[cut.end() :])[0]) if cut else None


def todo_stripped(text: str) -> tuple[str, bool]:
    """``(the bullet's text without its task box and to-do lead, whether it had a to-do lead)``:
    "[ ] TODO read: Sarathi-Serve" → ``("Sarathi-Serve", True)``, "[x] Orca (OSDI 2022)" →
    ``("Orca (OSDI 2022)", False)``; a date before it ("2024-09-03: Orca") is dropped too. Task lists:
    https://github.github.com/gfm/#task-list-items-extension-."""
    text = DATE_LEAD_RE.sub("", text, count=1)  # a log's date before the entry: "2024-09-03: [Title](…)"
    box = _TASK_BOX_RE.match(text)
    rest = text[box.end() :] if box else text
    if not box and not re.match(r"to-?do\b(?!-\w)", rest, re.IGNORECASE):  # not "Todo-style checklists"
        marker = _TASK_MARKER_RE.match(rest)  # "LATER Paxos Made Simple": a task not started
        return (rest[marker.end() :], True) if marker and marker.end() < len(rest) else (rest, False)
    lead = _TODO_RE.match(rest) or (_UNCHECKED_LEAD_RE.match(rest) if box and "[ ]" in box.group(0) else None)
    return (rest[lead.end() :], True) if lead and lead.end() < len(rest) else (rest, False)


#: A mark ending a line that says what it names is not read yet: "See also: DeepSeekMoE — TODO.",
#: "Follow-up reading: Mixtral (haven't read)", "Related: [ST-MoE](…) (not read yet)", "X [to read]", "saw a
#: talk on X, added to Reading Queue", "someone asked if anyone has read X — nobody has".
_UNREAD_TAIL_RE = re.compile(
    r"(?:\s+[—–-]+\s*|\s*[(\[（]\s*)(?:todo|to[- ]?do|to[- ]read|(?:still\s+)?unread|not\s+(?:yet\s+)?read(?:\s+yet)?"
    r"|ha(?:ve|s)n['’]?t\s+(?:been\s+)?read(?:\s+(?:it|this))?(?:\s+yet)?|待读|未读)"
    # (in brackets, a remark may follow it: "(haven't read, not noting it yet)")
    r"(?:\s*[)\]）]?|\s*[,;，；][^()\[\]（）\n]{0,60}[)\]）])\s*[.!。]?\s*$"
    # "someone asked if anyone has read the Mamba paper — nobody has": no one has read it
    r"|(?:\s*[,;—–-]\s*|\s+)(?:nobody|no\s+one|none\s+of\s+us)(?:\s+(?:here|else|in\s+the\s+\w+))?\s+(?:has|have)"
    r"(?:\s+(?:read|looked\s+at)(?:\s+it)?)?(?:\s+yet)?\s*[.!]?\s*$"
    # "saw a talk on Mixtral of Experts, added to Reading Queue": put on a list of papers to read
    r"|(?:\s*[,;—–-]\s*|\s+)(?:added|moved|put)\s+(?:it\s+)?(?:to|on|in)(?:to)?\s+(?:(?:(?:the|my|our)\s+)?"
    r"(?:reading[- ](?:queue|list)|to[- ]read(?:\s+(?:list|pile|queue))?)|(?:my|our)\s+backlog)\s*[.!]?\s*$",
    re.IGNORECASE,
)


def is_todo(text: str) -> bool:
    """True for an unchecked task ("[ ] routing"), a line with a to-do lead ("TODO: read this", "to read:
    Orca") or one ending in a mark that what it names is not read yet ("See also: DeepSeekMoE — TODO.",
    "Mixtral (haven't read)"): something not read yet, which states nothing about it (see
    :func:`todo_stripped`)."""
    box = _TASK_BOX_RE.match(text)
    return bool(box and "[ ]" in box.group(0)) or todo_stripped(text)[1] or bool(_UNREAD_TAIL_RE.search(text))


def _title_words(item: Item) -> list[str]:
    """Words of a bullet's text that are not its paper-link labels or a trailing venue."""
    title, _ = parse_title(item.text)
    for label, _href in item.inline.links:
        if label.lower() in PAPER_LINK_LABELS | GENERIC_LINK_LABELS:
            title = re.sub(rf"(?<!\w){re.escape(label)}(?!\w)", " ", title)
    return re.sub(r"[\[\]()|,;]+", " ", title).split()


def _local(href: str) -> bool:
    """A link into the notes themselves (``distserve.md``, ``../orca/``, an Obsidian wiki link's target),
    not to the web; a local PDF is a paper's file, not a note."""
    h = href.strip()
    return bool(h) and h != "#" and not re.match(r"^[a-z][a-z0-9+.-]*:", h, re.I) and not h.lower().endswith(".pdf")


def note_slug(path: str) -> str:
    """A note's name in links: the last part of a path or URL, without ``.md``/``.html``, anchor or
    query; a page bundle's ``index.md``/``README.md`` is named by its folder
    (``posts/flash-attention-2/index.md`` and ``../flash-attention-2/`` → ``flash-attention-2``)."""
    parts = [p for p in re.split(r"[/\\]", re.sub(r"[?#].*$", "", path).strip()) if p not in ("", ".", "..")]
    if parts and re.fullmatch(r"(?:_?index|readme)(?:\.\w+)?", parts[-1], re.IGNORECASE):
        parts = parts[:-1]
    return re.sub(r"\.(?:md|markdown|html?|txt)$", "", parts[-1], flags=re.IGNORECASE).lower() if parts else ""


#: Fewest words of an index bullet's link text that titles the note it links, named after it.
TITLED_NOTE_WORDS = 3


def pointer_name(item: Item) -> tuple[str, str] | None:
    """``(name, target)`` of an index bullet that is only a link to one of the reader's notes, under a
    short name (``- [x] [SDXL](./notes/027_sdxl.md)``, ``* [DETR](notes/012_detr.md)``; a task box or
    a log's date before it aside) or under the paper's title with a one-word name after it
    (``- [Deep contextualized word representations](nlp/elmo.md) — ELMo``): the name the reader's index
    gives that note's paper. A link text of :data:`TITLED_NOTE_WORDS` words or more naming a note
    named after it (``1. [Dissecting the Graphcore IPU Architecture](papers/Dissecting-the-Graphcore-IPU-Architecture)``)
    is the title of that note's paper. None for any other bullet, for a name of more than three words or of a
    venue, or for a word after the title written in lower case ("— read twice")."""
    text, _ = todo_stripped(item.text)
    links = [(lbl.strip(), h.strip()) for lbl, h in item.inline.links]
    if len(links) != 1 or item.children:
        return None
    label, href = links[0]
    if not label or not _local(href) or not text.strip().startswith(label):
        return None
    if title_key(label) == title_key(note_slug(href)):
        # a note named after the bullet's words: when they read as a title ("[Dissecting the Graphcore IPU
        # Architecture](papers/Dissecting-the-Graphcore-IPU-Architecture)"), the index gives that note's
        # paper its title (:func:`~papernotes.corpus.catalog.merge_group`); a bare link showing its
        # target ("[[papers.nlp.seq2seq]]") gives nothing
        titled = len(label.split()) >= TITLED_NOTE_WORDS and label[:1].isupper() and not find_venues(label)
        return (label, href) if titled and text.strip() == label else None
    rest = text.strip()[len(label) :]
    if title_key(rest):  # "[Full Title](x.md) — ELMo": the name after the title
        tail = _INDEX_TAIL_NAME_RE.match(rest)
        name = tail.group(1) if tail else ""
        label = name if name[:1].isupper() or re.search(r"[A-Z0-9]", name[1:]) else ""
    if not label or len(label.split()) > 3 or normalize_venue(label) or find_venues(label):
        return None
    return label, href


#: A one-word name after an index bullet's linked title: "— ELMo", "- Raft", "(InstructGPT)",
#: "— Chinchilla（英文笔记）", "— InstructGPT，2024-03-11 读".
_INDEX_TAIL_NAME_RE = re.compile(r"\s*(?:[—–-]+\s*|[(（]\s*)([A-Za-z][\w.+-]*)\s*(?:$|[)）,，;；(（]|\s[^\w]*$)")


def points_to_note(item: Item) -> bool:
    """A reading-list bullet that links to the reader's note on a paper (``[x] DistServe → [notes](d.md)``,
    ``[Orca](orca.md) (OSDI 2022)``) and to no paper on the web: the note is that paper's record, the
    bullet a pointer to it. A link on the venue alone (``[OSDI 2022](../osdi-2022/)``) points to a
    venue page, not a note."""
    links = [(lbl, h) for lbl, h in item.inline.links if h.strip() not in ("", "#") or lbl.lower() in NOTE_LABELS]
    web = [h for lbl, h in links if not _local(h) and lbl.lower() not in NOTE_LABELS]
    pointers = [h for lbl, h in links if (_local(h) and not normalize_venue(lbl)) or (lbl.lower() in NOTE_LABELS)]
    return bool(pointers) and not web


#: A bracketed part naming a year (in full or as 'YY) or arXiv, where a bullet gives its venue: "(ICML 2023)",
#: "(ICML'23)", "(MLSys ’24)", "(arXiv 2401.01234)".
_BRACKETED_VENUE = r"\(([^()]*(?:\b(?:19|20)\d\d|['’‘]\d\d)\b[^()]*|arXiv[^()]*)\)"
#: What parts a bullet's title from what it says of the paper: a dash (or hyphen) set apart by spaces, or a
#: colon: "Title (ICML 2023) — what it does", "Title (NeurIPS 2023): what it does".
_DESCRIPTION_CUT = r"(?:\s+(?:[—–]|--?)\s|\s*[:：]\s)"
_VENUE_BEFORE_DASH_RE = re.compile(_BRACKETED_VENUE + _DESCRIPTION_CUT)
#: A link to one of a paper's resources, not a paper: its kind alone ("Code", "Video"), after one word
#: ("Tutorial slides", "Workshop talk", "Keynote slides") or with what it is of ("Slides from the MLSys
#: 2024 tutorial", "Blog post on …", "Talk at …"); a title that only begins with such a word goes on with a
#: name ("Dataset Distillation", "Project Adam: …", "Video Diffusion Models").
_RESOURCE_RE = re.compile(
    r"(?:(?:our|the|official|my)\s+)?(?:[\w-]+\s+)?(?:code|slides?|video|talk|blog(?:\s+post)?|poster|dataset"
    r"|demo|homepage|project(?:\s+page)?|recording|artifact|keynote|tutorial|notebook|colab)s?"
    r"(?:\s+(?:from|of|for|at|on|by|in|about|with)\b.*)?",
    re.IGNORECASE,
)


def _is_paper_item(item: Item, affiliation_rule: bool = True) -> bool:
    """A listing bullet that reads as a paper: a title (words that are not link labels, not a lead-in
    ending with ":" or a sentence ending with ".") plus a paper-link label, or a title of two or more
    words with a trailing venue (in parentheses or after a dash: :func:`dash_venue`), an arXiv identifier,
    or (``affiliation_rule``: on a listing page, see :func:`listing_page`) an affiliation line below it
    or its title linked to a paper registry (:func:`linked_title`); the bracketed venue may also stand
    right after the title, before a dash and a description. A task-list checkbox is not part of the title,
    and a bullet that only points to a note (:func:`points_to_note`) is no paper of its own. A to-do —
    an unchecked task or a to-do lead ("- [ ] TODO read: Sarathi-Serve [arXiv](…)", "- [ ] to read: X",
    :func:`todo_stripped`) — is a paper not read yet, so no paper of the notes, whatever it names."""
    words = _title_words(item)
    text, todo = todo_stripped(item.text)
    text = text.strip()
    one = linked_title(item)
    named = one is not None and len(one.split()) == 1  # a one-word name, then what it does (a sentence may end it)
    if not words or text.endswith(":") or len(words) > 40 or points_to_note(item):
        return False
    if " ".join(words).endswith(".") and not named:
        return False
    if todo or re.match(r"^\s*\[ \]", item.text):
        return False
    labels = {lbl.lower() for lbl, h in item.inline.links}
    labels |= {"paper" for lbl, h in item.inline.links if lbl.lower() in GENERIC_LINK_LABELS and is_paper_link(h)}
    name = re.split(_DESCRIPTION_CUT, parse_title(text)[0], maxsplit=1)[0].strip()
    if _RESOURCE_RE.fullmatch(name):
        return False  # "[Code](…) — our implementation", "[Slides from the tutorial](…) (MLSys 2024)"
    if labels & PAPER_LINK_LABELS:
        return True  # a name beside the labels is enough ("Mixtral [Paper]"); a bare "[Code]" is not
    if named:
        # a name linked to its paper with its venue after it (:func:`linked_title` requires it: "[Mongoose](arXiv
        # link) (ICML'24) — …"); without one it may be a pointer ("[FlashAttention](…) — see my notes")
        return True
    if len(words) < 2:
        return False
    if affiliation_rule and linked_title(item):
        return True  # on a listing page, "[Title](arXiv link)": the bullet is the paper's own link
    if dash_venue(without_shortcodes(text)):
        return True
    if re.search(_BRACKETED_VENUE + r"\s*$", text) and find_venues(text):
        return True
    # ... or right after the title, before a dash that goes on to describe it ("[Title](…) (ICML 2023) —
    # migrate activation outliers … — Xiao et al. (MIT)")
    if (m := _VENUE_BEFORE_DASH_RE.search(text)) and find_venues(m.group(1)):
        return True
    if _ARXIV_ID_RE.search(text):
        return True
    if affiliation_rule and _affiliation_child(item, text) is not None:
        # a title, then an affiliation line; topic bullets ("LLM Training") have items below instead
        return len(words) >= 3 or ":" in text
    return False


#: Words that introduce a list of papers not read yet: "to read next month:", "## Reading queue",
#: "Backlog", "Up next", "Unread", "TBR" (to be read), "⏳", "待读", "计划中", and the deferred lists of
#: task tools: "Someday"/"Maybe later" (the "Someday/Maybe" list of David Allen's *Getting Things Done*),
#: "read later". A bare "Later"
#: is no such list (a note's "## Later" section holds later work that disagrees), nor is "How to read"
#: (a paper's title: "How to Read a Paper").
_TO_READ_RE = re.compile(
    r"(?<!how )\bto[- ]?read\b|\breading[- ]queue\b|\bqueued?\b|\bbacklog\b|\bup next\b|\bnext (?:month|week)\b"
    r"|\bnot (?:yet )?read\b|\bwant to read\b|\bwish ?list\b|\bto skim\b|\bsome ?day\b|\bmaybe later\b"
    r"|\b(?:read|for) later\b|\bunread\b|\bto be read\b|\bTBR\b|⏳|待读|待看|未读|计划中",
    re.IGNORECASE,
)
#: Most words of a lead-in paragraph that introduces the list after it ("⏳ to read next month:").
LEAD_IN_WORDS = 12


def is_to_read_title(title: str) -> bool:
    """True for a page or heading titled as papers not read yet ("To Read", "Reading queue", "待读"):
    the papers under it are to-dos, no papers of the notes (:data:`_TO_READ_RE`)."""
    return bool(_TO_READ_RE.search(title))


def is_to_read_lead_in(text: str) -> bool:
    """True for a short paragraph (at most :data:`LEAD_IN_WORDS` words) that introduces the list after it
    as papers not read yet ("⏳ to read next month:", :data:`_TO_READ_RE`)."""
    return len(text.split()) <= LEAD_IN_WORDS and bool(_TO_READ_RE.search(text))


def is_to_read_list(blocks: list[Block], k: int) -> bool:
    """True when ``blocks[k]`` is a list of papers not read yet: introduced by a short lead-in paragraph
    or, as the first block of its section, by a heading that says so (:data:`_TO_READ_RE`). Its
    bullets are to-dos: no papers of the notes, whatever they name (as "- [ ] to read: X" is none)."""
    b = blocks[k]
    if b.kind != "list":
        return False
    prev = blocks[k - 1] if k else None
    if prev is not None and prev.heading_line == b.heading_line:
        return prev.kind == "text" and is_to_read_lead_in(prev.text)
    return bool(b.headings) and bool(_TO_READ_RE.search(b.headings[-1]))


def without_to_read(blocks: list[Block]) -> list[Block]:
    """``blocks`` without its lists of papers not read yet (:func:`is_to_read_list`)."""
    return [b for k, b in enumerate(blocks) if not is_to_read_list(blocks, k)]


def listing_page(blocks: list[Block], venue: str | None) -> bool:
    """True for a page that lists papers: a conference page (``venue``), or one with a bullet that is a
    paper by a link label, venue or arXiv id. Only there does a title with an affiliation line below
    it (and no link) read as a paper; elsewhere such bullets are ordinary notes."""
    if venue:
        return True

    def strong(items: list[Item]) -> bool:
        return any(_is_paper_item(i, affiliation_rule=False) or strong(i.children) for i in items)

    return any(b.kind == "list" and strong(b.items) for b in without_to_read(blocks))


def _internal_only(item: Item) -> bool:
    """A navigation bullet: its only link points inside the site (``[Data Processing](/paper-list/…)``)."""
    links = item.inline.links
    return (
        bool(links)
        and all(h.startswith("/") or not re.match(r"^[a-z]+:", h) for _, h in links)
        and len(links) == 1
        and links[0][0] == item.text.strip()
    )


def parse_title(text: str) -> tuple[str, str | None]:
    """Split a paper bullet's text into ``(title, venue)``: link labels at the end are dropped, and a
    trailing ``(VENUE YEAR)`` / ``(arXiv 2210.14826)`` gives the venue."""
    t = _LABELS_TAIL_RE.sub("", without_shortcodes(todo_stripped(text)[0])).strip()
    venue = None
    dashed = dash_venue(t)
    if dashed:
        return dashed[0].strip(" -–—→⇒>|"), dashed[1]
    m = re.search(r"\s*\(([^()]*)\)\s*$", t)
    if m:
        inner = m.group(1)
        normalized = normalize_venue(inner)
        vs = find_venues(inner) or ([normalized] if normalized else [])
        arx = re.match(r"arXiv[: ]?(\d{2})(\d{2})\.\d{4,5}", inner, re.IGNORECASE)
        if vs:
            venue = vs[0]
            t = t[: m.start()].strip()
        elif arx:
            venue = f"arXiv {2000 + int(arx.group(1))}"
            t = t[: m.start()].strip()
        elif re.fullmatch(r"arXiv.*", inner, re.IGNORECASE):
            venue = "arXiv"
            t = t[: m.start()].strip()
    if venue is None and (d := _VENUE_BEFORE_DASH_RE.search(t)) and (vs := find_venues(d.group(1))):
        return t[: d.start()].strip(" -–—→⇒>|"), vs[0]  # "Title (ICML 2023) — what it does"
    return t.strip(" -–—→⇒>|"), venue


def dash_description(text: str, title: str | None = None) -> str:
    """What a paper bullet says after its bracketed venue and a dash or colon ("[Title](…) (ICML 2023) —
    migrate activation outliers into weights", "[Title](…) (NeurIPS 2023): incoherence processing"), or,
    without a venue, after its linked ``title`` and a dash ("[Title](…) — learnable weight clipping"); ""
    when there is none (also when no part of it between dashes has three words or is a byline: "—
    arXiv:3006.16668 — Google")."""
    m = _VENUE_BEFORE_DASH_RE.search(text)
    cut = re.match(_DESCRIPTION_CUT, text[len(title) :]) if title and text.startswith(title) else None
    if m and find_venues(m.group(1)):
        said = text[m.end() :].strip()
    elif cut:
        said = text[len(title or "") + cut.end() :].strip()
        # after the title, the venue it was published at and a lone name stand before what it does:
        # "— ICML'23 — offload to CPU and disk", "— Proc. of OSDI 2022", "— OpenAI — with …"
        for part in re.finditer(r"(?:^|\s+(?:[—–]|--?)\s+)(.*?)(?=\s+(?:[—–]|--?)\s+|$)", said):
            mentions = find_venue_mentions(part.group(1))
            venue_led = part_venue(part.group(1)) or (mentions and mentions[0].year and mentions[0].span[0] == 0)
            if not venue_led and len(part.group(1).split()) >= 3:
                said = said[part.start(1) :]
                break
        else:
            said = ""
    else:
        said = ""
    # link labels and a lone affiliation ("— arXiv:3006.16668 — Google") describe nothing
    words = [w for w in re.split(r"\s+(?:[—–]|--?)\s+", said) if len(w.split()) >= 3 or byline_tail(w)[1]]
    return said if words else ""


#: A byline: surnames or names, comma-separated ("Frantar, Ashkboos, Hoefler, Alistarh", "Hu et al."), then
#: the affiliations in brackets.
#: Lower-case words inside a name ("Wil van der Aalst", "Leonardo de Moura").
_NAME_PARTICLES = frozenset({"van", "von", "de", "der", "den", "da", "di", "du", "le", "la", "del", "ter", "bin"})
_BYLINE_NAME_RE = re.compile(r"[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|" + "|".join(sorted(_NAME_PARTICLES)) + r")){0,3}")


def byline_tail(text: str) -> tuple[str, list[str], list[str]]:
    """``(text before it, authors, affiliations)`` of a byline ending a description after a dash — names
    or surnames, then the affiliations in brackets: "3.25x speedup on A100 — Frantar, Ashkboos, Hoefler,
    Alistarh (IST Austria, ETH Zurich)", "freeze W, learn BA — Hu et al. (Microsoft)", or all of it
    ("Lin et al. (MIT)", "Ji Lin, Song Han (MIT)": "et al." or full names then); ``(text, [], [])``
    when it ends in none (two or more names, or one with "et al.", and the brackets are required: "— Google,
    Meta" may be companies)."""
    dashes = list(re.finditer(r"\s+[—–-]\s+", text))
    head, tail = (text[: dashes[-1].start()], text[dashes[-1].end() :]) if dashes else ("", text)
    m = re.fullmatch(r"(.+?)\s*\(([^()]+)\)\.?", tail.strip())
    if not m:
        return text, [], []
    etal = bool(ET_AL_RE.search(m.group(1)))
    names = [n.strip(" .") for n in _NAMES_SPLIT_RE.split(ET_AL_RE.sub("", m.group(1))) if n.strip(" .")]
    if not names or not all(_BYLINE_NAME_RE.fullmatch(n) for n in names) or (len(names) < 2 and not etal):
        return text, [], []
    if not dashes and not (etal or all(personal_name(n) for n in names)):
        return text, [], []  # all of it a byline only by "et al." or full names: not "PyTorch, JAX (frameworks)"
    authors, affs = split_authors(tail)
    return head.strip(), authors, affs


_MEASURE_RE = re.compile(r"^[+\-~≈<>]?\s*\d[\d.,]*(?:\s*(?:%|x\b|×)|\s+\S)|^[+\-~≈<>]\s*\d")


def system_name(title: str, strong: list[str]) -> str | None:
    """The system's name: the short prefix before ``":"`` in the title, the title itself when it is one
    name (a capital or digit after its first letter: "QLoRA"), else the first bold term that
    reads as a name — two or more characters, one word ("AEGIS", "gigiprofiler") or words that are
    each capitalized or hold a digit ("Sarathi-Serve", "Llama 3"); a bold phrase ("Empirical reliability
    studies") or a bold initial ("**E**fficient") is not one."""
    if ":" in title:
        prefix = title.split(":", 1)[0].strip()
        if 0 < len(prefix) <= 30 and len(prefix.split()) <= 3:
            return prefix
    if re.fullmatch(r"[A-Za-z][\w.+-]*[A-Z0-9][\w.+-]*", title.strip()) and len(title.strip()) <= 30:
        return title.strip()  # a note titled by the name alone ("QLoRA", "AWQ")
    for s in strong:
        s = s.strip(" :")
        if not (1 < len(s) <= 30 and len(s.split()) <= 3) or re.search(r"our work|award|best paper|paper$", s, re.I):
            continue
        if _MEASURE_RE.match(s) or not re.search(r"[^\W\d_]", s):
            continue  # a figure ("28.4 BLEU", "+17.9%", "2.3x"), not a name ("3FS" is one)
        if re.search(f"[{CJK_CHARS}]", s):
            continue  # a bold phrase in Chinese or Japanese ("**模型坍塌**"), one "word" without spaces
        if is_section_heading(s):
            continue  # a label a note's sections go by ("**TL;DR:**", "**Summary**"), no name
        words = s.split()
        if len(words) == 1 or all(w[:1].isupper() or w[:1].isdigit() or re.search(r"\d|[A-Z]", w[1:]) for w in words):
            return s
    return None


#: A verb a note presents its paper's contribution with, before the contribution's name ("Propose
#: **Wormhole**, a …", "Present **Quark**, applying …").
_PRESENTING = r"(?:we\s+)?(?:introduce|present|propose|design|develop|build|implement)s?\s+"


def defining(strong: list[str], lines: list[str], paragraphs: bool = False) -> list[str]:
    """The bold terms of ``strong`` that ``lines`` (plain text, bold marks removed) write where a note
    gives a name, in their order in ``strong``:

    * opening a line (after a bold label, if any), alone (in a list; in prose a bold line is a heading)
      or followed by ":", ",", "(" or a dash: ``**Hotline**: a runtime framework``, ``**Krypton**``,
      ``**Summary.** **Raft** — consensus for …``;
    * after a verb of presenting or "named"/"called": ``Present **Quark**, applying …``, ``a system
      named **REEF**``;
    * before an appositive: ``presents **Falcon**, a novel configuration recommender``;
    * as what the note says it is about: ``This is the **vLLM** paper``;
    * in brackets after the words it abbreviates: ``core attention disaggregation (**CAD**)``;
    * with ``paragraphs`` (each line a paragraph of prose), as the subject opening a paragraph:
      ``**SYSSPEC** makes the specification …``.

    Bold elsewhere emphasizes a fact ("FID **3.17**", "pretrained on **JFT-300M**", a bullet
    "**RoIAlign** fixes …"); it is no name the note gives its paper."""
    out = []
    # a bold label opening the line may come first ("**Summary.** **Raft** — …")
    labels = "|".join(re.escape(x.strip()) for x in strong if x.rstrip().endswith((".", ":", "：")))
    label = rf"(?:(?:{labels})\s+)?" if labels else ""
    for s in strong:
        term = re.escape(s.strip(" :"))
        if not term or s.rstrip().endswith(".") or (s.rstrip().endswith((":", "：")) and _plain_word(s.strip(" :："))):
            continue  # a label ("**Summary.**", "**Presenter:**"), not a name ("**EcoRec:** a cache for …")
        # alone on a line only in a list ("* **Krypton**"); in prose it is a heading ("**Discussion**")
        end = r"[:,(：，]|\s[—–-]\s" if paragraphs else r"$|[:,(：，]|\s[—–-]\s"
        opening = rf"^\s*{label}(?i:{_PRESENTING})?{term}\s*(?:{end})"
        inside = (
            rf"(?i:\b{_PRESENTING}|\b(?:named|called|dubbed)\s+){term}(?!\w)|(?<!\w){term}\s*,\s+(?i:an?|the)\s"
            rf"|(?i:\b(?:this|it)\s+is\s+the\s+){term}\s+(?i:paper|system|model)\b"
        )
        pattern = re.compile(opening + "|" + inside + (rf"|^\s*{term}\s" if paragraphs else ""), re.MULTILINE)
        bracket = re.compile(rf"\(\s*{term}\s*\)")
        if any(pattern.search(text) for text in lines) or any(
            _defined_before(s, text[: m.start()]) for text in lines for m in bracket.finditer(text)
        ):
            out.append(s)
    return out


def _plain_word(text: str) -> bool:
    """One word written as an ordinary word, capitalized at most at its start ("Presenter"), not as a
    name is (a capital or digit inside: "EcoRec", "SYSSPEC", "T10")."""
    return bool(re.fullmatch(r"[^\W\d_][^\W\d_A-Z]*", text))


def _defined_before(short: str, before: str) -> bool:
    """True when the words just before a bracketed ``short`` spell it out: its letters and digits occur
    in order in them, the first starting a word ("core attention disaggregation (CAD)", "masked
    autoregressive (MAR)"), as in the Schwartz–Hearst rule (A. Schwartz and M. Hearst, PSB 2003, whose
    window of at most ``min(len + 5, 2 * len)`` words is kept); "ViT-H/14 (JFT-300M)" spells out nothing."""
    letters = [c for c in short.casefold() if c.isalnum()]
    if len(letters) < 2:
        return False
    words = before.casefold().split()[-min(len(letters) + 5, 2 * len(letters)) :]
    for i, word in enumerate(words):
        if word[:1] == letters[0]:
            rest = iter(" ".join(words[i:]))
            if all(ch in rest for ch in letters):
                return True
    return False


def join_lines(lines: list[str]) -> str:
    """Bullet lines as one text: a line that does not end a sentence is followed by "; " so labels
    ("Best Paper", "Axis: …") do not run into the next line."""
    out = ""
    for ln in (x.strip() for x in lines):
        if not ln:
            continue
        if out:
            out += " " if out.endswith((".", "!", "?", ":", ";")) else "; "
        out += ln
    return out


def _flatten(items: list[Item]) -> list[str]:
    out: list[str] = []
    for it in items:
        if it.text:
            out.append(it.text)
        out += it.extra
        out += _flatten(it.children)
    return out


def _strong_all(items: list[Item]) -> list[str]:
    out: list[str] = []
    for it in items:
        out += it.inline.strong
        out += _strong_all(it.children)
    return out


def _affiliation_child(item: Item, title: str) -> int | None:
    """Index of the bullet's nested item, a leaf, that reads as its affiliations ("MSR India & GaTech"):
    the first, unless it is the paper's own name over its notes — the title's name written bold
    ("**Gibbon**" under "Gibbon: …") or with the affiliations on the next line ("Saki", then "Forest AI
    Lab"), which is then the second. A name alone may be the company too ("OneFlow" under "OneFlow:
    Redesign …"): an affiliation. None without one."""
    kids = item.children

    def place(k: int) -> bool:
        return len(kids) > k and not kids[k].children and looks_like_affiliation(kids[k].text)

    if not place(0):
        return None
    first = kids[0]
    if title_key(first.text) not in {title_key(title), title_key(title.split(":")[0])}:
        return 0
    bold = any(title_key(b) == title_key(first.text) for b in first.inline.strong)
    if bold or place(1):
        return 1 if place(1) else None
    return 0


def entry_from_item(item: Item, page: Page, topic: str, venue_default: str | None) -> PaperEntry:
    """A :class:`PaperEntry` from a paper bullet and its nested bullets."""
    title, venue = parse_title(DATE_LEAD_RE.sub("", item.text, count=1))
    linked = linked_title(item)
    if linked and title.startswith(linked):
        title = linked  # "[Title](…), by A. Author": the linked title is all of it
        # "[Tern](…) -- NeurIPS 2023 -- what it does": the venue after a one-word name's dash
        venue = venue or venue_after_name(item.text.split(linked, 1)[-1])
    title, short = short_name_tail(title)
    kinds = [lbl for lbl, _ in item.inline.links if lbl.lower() in PAPER_LINK_LABELS | GENERIC_LINK_LABELS]
    labels = "|".join(map(re.escape, kinds))
    boxed = re.search(rf"\s*\[\s*(?:{labels})\s*\]", title) if kinds else None
    if boxed and len(title[: boxed.start()].split()) >= 2:
        title = title[: boxed.start()]  # "Title [[notes](…)] [[link](…)]": the title ends at its first boxed label
    for label, _href in reversed(item.inline.links):  # "Title [Paper](…)" renders "Title Paper"
        if label.lower() in PAPER_LINK_LABELS | GENERIC_LINK_LABELS and title.endswith(" " + label):
            title = title[: -len(label)].rstrip(" -–—→⇒>|")
    venue = venue or venue_default
    links: dict[str, str] = {}
    for label, href in item.inline.links:
        key = label.lower()
        if key in PAPER_LINK_LABELS and href.strip() not in ("", "#") and CJK_LINK_KINDS.get(key, key) not in links:
            links[CJK_LINK_KINDS.get(key, key)] = href
        elif key in GENERIC_LINK_LABELS and is_paper_link(href):
            links.setdefault("paper", href)  # "Title [[link](arXiv link)]"
        elif key not in PAPER_LINK_LABELS and venue and normalize_venue(label) == venue and href.startswith("http"):
            links.setdefault("venue", href)
        elif (
            (len(label.split()) >= 2 or label.strip() == linked)
            and title.startswith(label.strip())
            and is_paper_link(href)
        ):
            links.setdefault("paper", href)  # the linked title: "[Title](arXiv link) — SC '21"
    children = item.children
    affiliations: list[str] = []
    at = _affiliation_child(item, title)
    if at is not None:
        affiliations = [a.strip() for a in re.split(r"\s+&\s+", children[at].text) if a.strip()]
        rest = children[:at] + children[at + 1 :]
    else:
        rest = children
    # a leaf that only gives the paper's name ("**Shearwater**" over no notes) is no summary
    # a line that only gives the paper's name ("**Sarathi-Serve**" over its notes) is no part of its one-liner
    own_names = {title_key(title), title_key(title.split(":")[0]), title_key(short or "")}
    summary = join_lines([t for t in _flatten(rest) if title_key(t) not in own_names])
    authors: list[str] = []
    if described := dash_description(
        todo_stripped(item.text)[0].strip(), linked
    ):  # "[Title](…) (ICML 2023) — what it does — Xiao et al. (MIT)"
        described, authors, found = byline_tail(described)
        affiliations = affiliations or found
        summary = summary or described
    _, year = split_venue(venue) if venue else (None, None)
    from papernotes.corpus.short_names import initials_match, opening_names  # it reads this module's labels

    # a name the entry's first lines define ("MigrRDMA: a software-based …", "Tensor Language Model
    # (TLM)") is the system's when the title has no one-word name before its colon ("Towards
    # User-level QoE: …"); that prefix stays a name too
    prefix = system_name(title, [])
    said = opening_names([c.text for c in rest[:2]], title, whole=True) if prefix is None or " " in prefix else []
    # a bold word of the title line names the paper ("Efficient Sharding with **Shardy** and Friends"); in
    # the entry's notes, only one written where a name is given (:func:`defining`)
    defined = defining(_strong_all(rest), _flatten(rest))
    labelled = system_name(title, item.inline.strong + defined)
    system = short or (said[0] if said else None) or labelled
    names = [short, *said, prefix, labelled]
    # the acronym the notes give the system's name in brackets is its short form too ("called **Virtual
    # Token Counter** (**VTC**)")
    acronyms = [d for d in defined if system and d != system and initials_match(d, system, leading=True)]
    return PaperEntry(
        title=title,
        kind="paper_entry",
        source=page.source,
        page_title=page.title,
        system=system,
        aliases=[
            *([n for n in dict.fromkeys(names) if n and n != system] if said else ([short] if short else [])),
            *acronyms,
        ],
        venue=venue,
        year=year,
        affiliations=affiliations,
        authors=authors,
        links=links,
        summary=summary,
        topic=topic,
        tags=list(page.tags),
    )


def walk_list(items: list[Item], page: Page, path: list[str], venue_default: str | None, affiliation_rule: bool = True):
    """Yield ``("paper", item, topic_path, entry)`` for paper bullets and ``("other", item, topic_path,
    None)`` for bullets that are not papers and have no paper below them (kept as plain text);
    ``affiliation_rule``: see :func:`listing_page`."""
    for it in items:
        if _is_paper_item(it, affiliation_rule):
            topic = " › ".join(path)
            yield "paper", it, path, entry_from_item(it, page, topic, venue_default)
        elif it.children and not _internal_only(it) and _has_paper(it.children, affiliation_rule):
            yield from walk_list(it.children, page, path + [it.text], venue_default, affiliation_rule)
        else:
            yield "other", it, path, None


def _has_paper(items: list[Item], affiliation_rule: bool) -> bool:
    return any(_is_paper_item(i, affiliation_rule) or _has_paper(i.children, affiliation_rule) for i in items)


# --- deep notes ---------------------------------------------------------------------------------


def is_deep_note(page: Page, blocks: list[Block]) -> bool:
    """A per-paper note: a ``Meta Info`` section that says where the paper was presented."""
    return any(
        b.kind == "text"
        and (i < 5 or (b.headings and "meta" in b.headings[-1].lower()))
        and re.match(r"^(Presented in|Published in|Accepted (?:by|to|at))\b", b.text)
        for i, b in enumerate(blocks)
    )


def split_authors(line: str) -> tuple[list[str], list[str]]:
    """``"A, B (X & Y), C (Z)"`` or ``"A, B, C (X, Y)"`` → (authors, affiliations).

    The author list ends where the byline goes on to say something else (:func:`_authors_end`): at the
    end of its first sentence ("… Dan Alistarh (IST Austria). Published at ICLR 2023.") or at a dash,
    middle dot, bullet or bar set apart by spaces ("Ho, Jain, Abbeel — UC Berkeley"); what follows is
    no author. After a dash, dot or bar, the part up to the next one is the affiliation when it reads
    as one (:func:`_affiliation_like`: "UC Berkeley", not "USENIX ATC 2014", "pdf" or a link); so are
    plain words after the names ("Diego Ongaro & John Ousterhout, Stanford"). A bracketed part is an
    affiliation when it reads as one and ends in no lower-case word: not "(22 authors, Laurent Sifre
    last)", "(NeurIPS 2023)", "(work done at Google)"."""
    head, end, tail = _byline_parts(line.replace("（", "(").replace("）", ")"))
    affs: list[str] = []
    for m in re.finditer(r"\(([^()]*)\)", head):
        for a in re.split(r"\s*(?:&|,|;|、)\s*", m.group(1)):
            a = a.strip(" _*")
            if a not in affs and _affiliation_like(a) and not re.search(r"\b[a-z]+$", a):
                affs.append(a)
    names_part = re.sub(r"\([^()]*\)", "", head)
    names = [n for n in (ET_AL_RE.sub("", n.strip(" .")).strip(" .") for n in _NAMES_SPLIT_RE.split(names_part)) if n]
    # the names end at a part written as no name is: with a digit, or opening with a lower-case word
    # that is no name particle ("…, Jimmy Ba (OpenAI), published at ICLR 2015, cited 150k+ times")
    names = list(itertools.takewhile(name_like, names))
    bracketed = bool(affs)
    # plain words after two or more personal names are where they work ("…, John Ousterhout, Stanford")
    while len(names) > 2 and not personal_name(names[-1]) and all(personal_name(n) for n in names[-3:-1]):
        affs.append(names.pop())
    # (a bracket already said where they work: "(Google Research) | Best paper honorable mention" names
    # no place after the bar)
    if (
        end
        and not bracketed
        and not end.group().strip().endswith(".")
        and (place := _PART_END_RE.split(tail, 1)[0].strip(" ."))
    ):
        affs += [a for a in re.split(r"\s*(?:&|,|;|/)\s*", place) if _affiliation_like(a) and a not in affs]
    return names, affs


#: What separates the names of an author list: commas (Latin or full-width), 、, semicolons, "and", "&".
_NAMES_SPLIT_RE = re.compile(r",|，|、|;|\band\b|&")
#: The end of a byline's first sentence, a period after a lower-case letter or a closing bracket then a
#: capital, digit or link (an initial's period, "Jonathan T. Barron", and "Jr."/"St." end nothing),
#: a semicolon after the affiliations' bracket, or a dash, middle dot, bullet or bar between spaces.
_AUTHORS_END_RE = re.compile(r"(?<=[a-z)])(?<!\b[JS][rt])(?<!\bDr)\.\s+(?=[A-Z0-9\[])|(?<=\))\s*[;；]\s*|\s+[—–·•|]\s+")
#: Where a part after the author list ends: the next such separator or sentence end.
_PART_END_RE = re.compile(r"\s+[—–·•|]\s+|\s*[;；]\s*|\.\s+|\s*\(")
#: "By" opening a byline ("By Edward J. Hu, Yelong Shen, …"): no part of the first name.
_BY_RE = re.compile(r"^\s*(?:written\s+)?by\s+(?=[A-Z])", re.IGNORECASE)


def name_like(part: str) -> bool:
    """A part of an author list that may be a name: no digit, and not opening with a lower-case word
    other than a name particle ("van der Aalst"; not "published at ICLR 2015", "cited 150k+ times")."""
    first = part.split()[0] if part.split() else ""
    return not re.search(r"\d", part) and (not first[:1].islower() or first in _NAME_PARTICLES)


def byline_names(line: str) -> str:
    """The part of a byline that can hold its names: up to where it goes on to say something else
    (:func:`_authors_end`), without an opening "By" ("By Jane Doe, John Roe (MIT). Best Paper Award" →
    "Jane Doe, John Roe (MIT)")."""
    return _byline_parts(line)[0]


def _byline_parts(line: str) -> tuple[str, re.Match[str] | None, str]:
    """``(names part, the match ending it or None, the rest)`` of a byline without an opening "By"
    (:func:`_authors_end`)."""
    line = _BY_RE.sub("", line)
    end = _authors_end(line)
    return (line[: end.start()], end, line[end.end() :]) if end else (line, None, "")


def _authors_end(line: str) -> re.Match[str] | None:
    """The first :data:`_AUTHORS_END_RE` match outside brackets in ``line`` (a period inside "(Univ. of
    X)" ends no sentence), or None."""
    for m in _AUTHORS_END_RE.finditer(line):
        if line.count("(", 0, m.start()) == line.count(")", 0, m.start()):
            return m
    return None


def personal_name(text: str) -> bool:
    """Two to four capitalised words or initials, a name particle inside aside ("Wil van der Aalst"), a
    mark such as ``*`` or ``†`` aside ("Tom B. Brown", "J. J. Furman"): how an author list writes a name
    (:func:`~papernotes.corpus.note_opening.author_list`)."""
    words = re.sub(r"[*†‡§¹²³]+", "", text).strip(" .").split()
    return (
        2 <= len(words) <= 4
        and all(_NAME_WORD_RE.fullmatch(w) for w in (words[0], words[-1]))
        and all(_NAME_WORD_RE.fullmatch(w) or w in _NAME_PARTICLES for w in words[1:-1])
    )


#: A capitalised word or initial of a personal name ("Tom", "B.", "O'Neil").
_NAME_WORD_RE = re.compile(r"[A-Z][\w'’-]*\.?|[A-Z]\.")


def _affiliation_like(text: str) -> bool:
    """A short phrase with no digit, link or venue name, capitalised or in a script without case: "UC
    Berkeley", "Stanford", "清华大学" (not "USENIX ATC 2014", "NeurIPS", "pdf", "https://…")."""
    words = text.split()
    return (
        1 <= len(words) <= 6
        and text[:1].isalpha()
        and not text[:1].islower()
        and not any(c.isdigit() for c in text)
        and "://" not in text
        and not find_venues(text)
    )


#: "et al." or its Chinese form 等/等人 closing an author list: no author's name.
ET_AL_RE = re.compile(r"\s*(?:\bet\.?\s*al\b\.?|等人?)\s*$", re.IGNORECASE)


def deep_note_entry(page: Page, blocks: list[Block]) -> PaperEntry:
    """The :class:`PaperEntry` a deep note gives: title = page title; venue, paper link, authors and
    affiliations from ``Meta Info``; summary = the first TL;DR paragraph (else the first paragraph)."""
    venue = None
    links: dict[str, str] = {}
    authors: list[str] = []
    affs: list[str] = []
    summary = ""
    for b in blocks:
        sec = " › ".join(b.headings).lower()
        if b.kind == "text" and ("meta" in sec or re.match(r"^(Presented in|Published in|Accepted)", b.text)):
            if re.match(r"^(Presented in|Published in|Accepted)", b.text):
                venue = _meta_venue(b) or venue
                for _label, href in b.links:
                    if href.startswith("http"):
                        links.setdefault("paper", href)
            elif b.text.lower().startswith("authors:"):
                authors, affs = split_authors(b.text.split(":", 1)[1])
            elif re.match(r"^(Resources|Code|Links?):", b.text):
                for label, href in b.links:
                    key = label.lower().strip()
                    if key in PAPER_LINK_LABELS or key.startswith("http"):
                        links.setdefault("code" if key.startswith("http") else key, href)
        elif b.kind == "text" and not summary and "tl;dr" in sec:
            summary = b.text
        elif b.kind == "list" and not summary and "tl;dr" in sec:
            summary = join_lines(_flatten(b.items))
    if not summary:
        summary = next(
            (
                b.text
                for b in blocks
                if b.kind == "text" and "meta" not in " ".join(b.headings).lower() and not b.text.startswith("#")
            ),
            "",
        )
    venue = venue or (venue_from_site_path(page.site_path) if page.site_path else None)
    _, year = split_venue(venue) if venue else (None, None)
    strong = defining_strong([b for b in blocks if "tl;dr" in " ".join(b.headings).lower()])
    return PaperEntry(
        title=page.title,
        kind="deep_note",
        site_path=page.site_path,
        source=page.source,
        page_title=page.title,
        system=system_name(page.title, strong[:3]),
        venue=venue,
        year=year,
        affiliations=affs,
        authors=authors,
        links=links,
        summary=summary[:600],
        tags=list(page.tags),
    )


def _meta_venue(b: Block) -> str | None:
    """Venue of a ``Presented in [OSDI 2026](…).`` line: a known venue anywhere in it, else a link
    label that reads as a venue, else the text after the lead words (``"Presented in ToySys 2026."``);
    none for a workshop ("Accepted at the ICML 2023 Workshop on …": not the conference's paper)."""
    if workshop_venues(b.text):
        return None
    v = normalize_venue(b.text) if find_venues(b.text) else None
    if v:
        return v
    for label, _ in b.links:
        v = normalize_venue(label)
        if v:
            return v
    rest = re.sub(r"^(?:Presented in|Published in|Accepted (?:by|to|at|in))\s+(?:the\s+)?", "", b.text)
    return normalize_venue(re.split(r"[.,;(]", rest)[0].strip())


def strong_in(b: Block) -> list[str]:
    if b.kind == "list":
        return _strong_all(b.items)
    return list(b.strong)


def defining_strong(blocks: list[Block]) -> list[str]:
    """The bold terms of ``blocks`` in a defining position (:func:`defining`), in order."""
    return [
        s
        for b in blocks
        for s in (defining(strong_in(b), _flatten(b.items)) if b.kind == "list" else defining(b.strong, [b.text], True))
    ]


def publication_entry(page: Page, pub: Publication) -> PaperEntry:
    """The :class:`PaperEntry` for one record of a researcher's publication page."""
    return PaperEntry(
        title=pub.title,
        kind="publication",
        source=page.source,
        page_title=page.title,
        system=system_name(pub.title, []),
        venue=pub.venue,
        year=pub.year,
        authors=list(pub.authors),
        links={k: v for k, v in pub.links.items() if v},
        summary=pub.abstract[:600],
        topic="Publications",
        tags=list(pub.subjects),
    )
