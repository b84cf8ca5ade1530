"""A paper note's title: the front-matter title or the title heading (its paper link's text), without a
post's framing or the marks around it (a leading emoji, the venue before or after it), replaced by the
paper's full title when the note states it."""

from __future__ import annotations

import re

from papernotes.corpus.markdown import Inline, is_section_heading, parse_tokens, render_inline
from papernotes.corpus.models import Page
from papernotes.corpus.note_opening import Opening, frame_stripped, heading_label, is_collection_title
from papernotes.corpus.paper_links import is_paper_link, paper_id
from papernotes.corpus.papers import DATE_LEAD_RE, title_key
from papernotes.corpus.short_names import initials_match
from papernotes.corpus.venues import SERIES, normalize_venue, split_venue


def note_title(page: Page, head: tuple[int, Inline] | None, op: Opening, link: str | None) -> tuple[str, str | None]:
    """``(title, alias)``: the front-matter title, else the title heading's paper-link label (the heading
    is that link), else the heading's text, else the page title (the file name as a last resort) —
    without a post's framing ("Paper notes: QLoRA" → "QLoRA"). A full title the note states wins when
    the title was framed, was the file name, or is a shorter name the full title contains, or is
    written in another script (a Chinese post on an English paper): a labelled line's link text
    ("**Paper:** [Title](…)"), else the one title the opening sets apart (the text of the note's paper
    ``link``, a quoted or bold line: :attr:`Opening.named`). The shorter name is then the ``alias``."""
    fm_title = page.front_matter.get("title")
    base, fallback = page.title.strip(), True
    if isinstance(fm_title, str) and fm_title.strip():
        base, fallback = fm_title.strip(), False
        heading_name = _heading_name(head, fm_title) if not op.title and not frame_stripped(base)[1] else None
        if heading_name:  # "title: Training Compute-Optimal …" over "# Chinchilla paper": its short name
            return base, heading_name
    elif head and not is_section_heading(head[1].text) and not heading_label(head[1].text):
        # (a field label as a heading, "### Paper:", names no paper: its value is the line below)
        inline = head[1]
        label = next(
            (
                lbl.strip()
                for lbl, href in inline.links
                if is_paper_link(href) and len(lbl) >= 0.6 * len(inline.text) and len(lbl.split()) >= 2
            ),
            None,
        )
        if label or inline.text.strip():
            base, fallback = label or inline.text.strip(), False
    stripped, framed = frame_stripped(base)
    stripped = _ENUMERATION_RE.sub("", stripped) or stripped  # "10.BYOL", "3、DINO": a section's number
    translated = _translated_title(stripped)
    if translated and not op.title:  # "光场 The Lumigraph": the paper's own title after its translation
        return translated
    system_named = _named_after(stripped)
    if system_named and not op.title:  # "Reconstructing … From cryo-EM Images (CryoDRGN)": the name aside
        return system_named
    short, named_full = short_and_full(stripped)
    if named_full:  # "MQA — “Fast Transformer Decoding: One Write-Head is All You Need”"
        return named_full, short
    full = op.title
    if not full:
        own = [t for t, href in op.named if href is None or (link is not None and paper_id(href) == paper_id(link))]
        keys = {title_key(t): t for t in own}
        full = next(iter(keys.values())) if len(keys) == 1 else None
    if not full and not fallback and head and head[0] == 1 and not is_section_heading(head[1].text):
        # `title: SGLang` over "# SGLang: Efficient Execution of Structured Language Model Programs": the
        # level-1 heading states the full title the front matter shortens (a "## What" is a section)
        heading = frame_stripped(head[1].text.strip())[0]
        heading = short_and_full(heading)[1] or heading
        named = ":" in heading and title_key(heading.split(":", 1)[0]) == title_key(stripped)  # "SGLang: …"
        full = (
            heading if title_key(heading) != title_key(stripped) and (named or _short_name(stripped, heading)) else None
        )
    if not full and head and head[0] == 1 and not fallback:
        # "# RAG" then "!!! abstract "Retrieval-Augmented Generation for …"" (an admonition, read as the
        # heading right under the title): a sub-heading that spells out the short title, or under a
        # title in another script ("# 大模型推理加速：…" over "## Fast Inference from Transformers …")
        sub = _heading_under_title(page.markdown)
        if sub and (_spells_out(stripped, sub) or (_foreign(stripped) and _latin_title(sub))):
            full = sub
    if not full and fallback:
        full = _title_section_line(page.markdown)  # "## 标题&作者" over "Title: 中文释义"
    key = title_key(stripped)
    other_script = bool(key) and not re.search(r"[a-z]", key) and full is not None and re.search(r"[A-Za-z]", full)
    # a post title mixing scripts names the paper by its Latin name ("读 OSDI 2022 论文 Orca", "KIVI：非对称
    # 2bit 量化"): the full title holding that name is the paper's
    mixed = full is not None and _foreign(stripped) and _names_in(stripped, full)
    if full and (
        framed or fallback or other_script or mixed or (key and key in title_key(full)) or _short_name(stripped, full)
    ):
        full = full.strip()
        return full, (stripped if stripped and not fallback and title_key(stripped) != title_key(full) else None)
    # "### vLLM / PagedAttention (SOSP '23)" over "**Paper:** [Efficient … with PagedAttention](…)"
    short_name = _names_of_full(stripped, full) if full else None
    if full and short_name:
        return full.strip(), short_name
    return stripped, None


def _names_of_full(heading: str, full: str) -> str | None:
    """The first of the short names a heading gives (alternatives set apart by "/", without a venue
    mark: "vLLM / PagedAttention (SOSP '23)", "Speculative decoding (ICML '23)") when one of them is a
    name the full title holds as words of its own ("… Serving with PagedAttention", "… via Speculative
    Decoding") and the full title is longer; else None."""
    bare = _TAIL_VENUE_MARK_RE.sub("", heading).strip()
    names = [n.strip() for n in bare.split("/") if n.strip()]
    if not names or any(len(n.split()) > SHORT_NAME_WORDS for n in names) or len(full.split()) <= len(bare.split()):
        return None
    words = _spaced_words(full)
    return names[0] if any(_spaced_words(n) in words for n in names) else None


def _spaced_words(text: str) -> str:
    """``text``'s words, case-folded, each between single spaces (" serving with pagedattention ")."""
    return " " + " ".join(re.findall(r"[^\W_]+", text.casefold())) + " "


#: A venue mark in brackets at a heading's end: "(SOSP '23)", "(OSDI 2022)", "[ICML'23]".
_TAIL_VENUE_MARK_RE = re.compile(r"\s*[(\[（【][^()\[\]（）【】]{2,24}[)\]）】]\s*$")


#: A section's number before a title: "10.BYOL", "2) Orca", "3、DINO" (not "1.58-bit", "3D").
_ENUMERATION_RE = re.compile(r"^\d{1,3}[.)、]\s*(?=[^\W\d_])")

_CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _foreign(title: str) -> bool:
    """A title written (at least in part) in Chinese, Japanese or Korean."""
    return bool(_CJK_RE.search(title))


#: A heading that puts a translation before the paper's title: a run of Chinese, Japanese or Korean
#: words, then the title in Latin script ("光场 The Lumigraph", "最先进的神经渲染 State of the Art on Neural
#: Rendering").
_TRANSLATED_RE = re.compile(
    r"^([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\s，、（）()]+?)\s*([A-Z][^\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]*)$"
)


#: The other order: the title in Latin script, then its translation in brackets
#: ("Deep Residual Learning for Image Recognition（用于图像识别的深度残差学习）"); the translation may keep Latin
#: names ("ZeRO：面向…"). Chinese words after a dash, bar or colon are not read so: they may describe the
#: note ("Title - 阅读笔记") or start a subtitle rather than translate the title.
_TRANSLATION_AFTER_RE = re.compile(
    r"^([A-Za-z][^\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]*?)\s*"
    r"[(（]([^()（）]*[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af][^()（）]*)[)）]$"
)


def _translated_title(text: str) -> tuple[str, str] | None:
    """``(the Latin title, its translation)`` for a heading written as a translation then the title
    (:data:`_TRANSLATED_RE`) or as the title then its translation (:data:`_TRANSLATION_AFTER_RE`), the
    title two words or more; else None."""
    text = text.strip()
    m = _TRANSLATED_RE.match(text)
    if m:
        title, translation = m.group(2), m.group(1)
    else:
        m = _TRANSLATION_AFTER_RE.match(text)
        if not m:
            return None
        title, translation = m.group(1), m.group(2)
    if len(re.findall(r"[A-Za-z][\w'’-]*", title)) < 2:
        return None
    return title.strip(" -–—|/：:"), translation.strip(" ：:，、")


#: A title followed by its system's name in brackets: "Reconstructing … Images (CryoDRGN)".
_NAMED_AFTER_RE = re.compile(r"^(.+?)\s*[(（]([A-Za-z][\w.+-]{1,19})[)）]$")


def _named_after(text: str) -> tuple[str, str] | None:
    """``(title, system name)`` for a title of three words or more followed by a bracketed name written as
    a system's is (a capital or digit after its first letter: "CryoDRGN", "GPT-3", "ResNet"), not a venue
    ("(OSDI)"); else None."""
    m = _NAMED_AFTER_RE.match(text.strip())
    if not m or len(m.group(1).split()) < 3:
        return None
    name = m.group(2)
    if not re.search(r"[A-Z0-9]", name[1:]) or name.lower() in SERIES or normalize_venue(name):
        return None
    return m.group(1).strip(), name


def _latin_title(text: str) -> bool:
    """Text in Latin script that reads as a title: three words or more, a capital first, no stop."""
    words = re.findall(r"[A-Za-z][\w'’-]*", text)
    return len(words) >= 3 and not _foreign(text) and text[:1].isupper() and not text.rstrip().endswith(".")


def _names_in(title: str, full: str) -> bool:
    """True when a Latin name of ``title`` (a word with a capital, not a venue: "Orca", "KIVI") is in
    ``full``'s words."""
    names = [w for w in re.findall(r"[A-Za-z][\w-]*", title) if re.search(r"[A-Z]", w) and w.lower() not in SERIES]
    words = {title_key(w) for w in re.findall(r"[\w-]+", full)}
    return any(title_key(n) in words for n in names)


#: A section that states the note's paper: "## Title", "## Part1. 标题&作者" (title and authors), "## 1 题目&作者".
_TITLE_SECTION_RE = re.compile(
    r"^\W*(?:(?:part\s*)?\d+(?:[.)]\s*|\s+))?(?:title|标题|题目)(?:\s*(?:&|and|与|和)\s*(?:authors?|作者))?\W*$", re.I
)
#: A line that opens with a Latin title, a gloss in Chinese after a colon aside ("Title: 中文释义").
_GLOSSED_TITLE_RE = re.compile(
    r"^\s*([A-Za-z0-9][^\u3040-\u30ff\u3400-\u9fff：]*?)\s*(?:[:：]\s*[\u3040-\u30ff\u3400-\u9fff].*)?$"
)


def _title_section_line(markdown: str) -> str | None:
    """The paper's title a title section states (:data:`_TITLE_SECTION_RE`): the Latin title opening the
    first line under that section's heading, a Chinese gloss after a colon aside; None when there is
    no such section or its first line is no title (:func:`_latin_title`)."""
    tokens = parse_tokens(markdown)
    for i, t in enumerate(tokens):
        if t.type == "heading_open" and _TITLE_SECTION_RE.match(render_inline(tokens[i + 1]).text.strip()):
            nxt = tokens[i + 3] if i + 3 < len(tokens) else None
            if nxt is None or nxt.type != "paragraph_open":
                return None
            first = render_inline(tokens[i + 4]).text.strip().split("\n", 1)[0]
            m = _GLOSSED_TITLE_RE.match(first)
            return m.group(1).strip() if m and _latin_title(m.group(1)) else None
    return None


def _heading_under_title(markdown: str) -> str | None:
    """The text of the heading that directly follows the page's first heading (nothing between them),
    or None."""
    tokens = parse_tokens(markdown)
    opens = [
        i
        for i, t in enumerate(tokens)
        if t.type
        in (
            "heading_open",
            "paragraph_open",
            "bullet_list_open",
            "ordered_list_open",
            "blockquote_open",
            "table_open",
            "fence",
            "code_block",
            "html_block",
            "hr",
        )
        and t.level == 0
    ]
    if len(opens) < 2 or tokens[opens[0]].type != "heading_open" or tokens[opens[1]].type != "heading_open":
        return None
    return render_inline(tokens[opens[1] + 1]).text.strip()


def _spells_out(short: str, full: str) -> bool:
    """True when ``full`` reads as the full title of the short name ``short``: it begins with it ("Orca"
    / "Orca: A Distributed …") or ``short`` is its acronym ("RAG" / "Retrieval-Augmented Generation for
    …"), and it is a title of a few more words, not a section's name."""
    if is_section_heading(full) or not _short_name(short, full) or full.rstrip().endswith("."):
        return False
    return title_key(full).startswith(title_key(short)) or initials_match(short, full, leading=True)


#: A title that pairs a short name with the paper's full title: "MQA — “Fast Transformer Decoding: …”",
#: "ViT - An Image is Worth 16x16 Words: …" (a dash set off by spaces; a colon is part of real titles).
_SHORT_DASH_FULL_RE = re.compile(r"^(?P<short>[^\s—–-][^—–]{0,30}?)\s+[—–-]{1,2}\s+(?P<full>.+)$")


def short_and_full(title: str) -> tuple[str | None, str | None]:
    """``(short name, full title)`` of a title written as a short name, a spaced dash and the full title
    (:data:`_SHORT_DASH_FULL_RE`, the full title's quotes dropped): the short name is at most
    :data:`SHORT_NAME_WORDS` words and the full title, written as a title, a few words more
    (:func:`_short_name`); ``(None, None)`` otherwise ("Orca: A Distributed …", "Attention — paper notes",
    "Title - OSDI 2012")."""
    m = _SHORT_DASH_FULL_RE.match(title.strip())
    if not m:
        return None, None
    short, full = m.group("short").strip(), m.group("full").strip()
    full = re.sub(r'^["“”\'‘’«]+|["“”\'‘’»]+$', "", full).strip()
    if not (full[:1].isupper() or full[:1].isdigit()) or full.endswith(".") or not _short_name(short, full):
        return None, None
    if not re.search(r"[A-Za-z]", short) or normalize_venue(short) or is_section_heading(short):
        return None, None
    if DATE_LEAD_RE.match(f"{short} — "):  # "Mar 11 — Title": a log's date
        return None, None
    return short, full


#: Most words of a note's title that is a short name for its paper ("vLLM", "CachedAttention (AttentionStore)").
SHORT_NAME_WORDS = 3


def _heading_name(head: tuple[int, Inline] | None, title: str) -> str | None:
    """The short name a note's level-1 title heading gives the paper its front matter titles in full ("#
    Chinchilla paper", "# RAG"): the heading without framing, of at most :data:`SHORT_NAME_WORDS` words,
    when it is not the title itself, a section heading ("Summary") or a collection's title."""
    if head is None or head[0] != 1:
        return None  # a level-2 heading under a titled note is a section ("## The one-sentence version")
    text = head[1].text.strip()
    name = frame_stripped(text)[0].strip(" :")
    if not name or len(name.split()) > SHORT_NAME_WORDS or is_section_heading(text) or is_collection_title(text):
        return None
    if title_key(name) in title_key(title):  # "# Attention" over "Attention Is All You Need"
        return None
    return name


def _short_name(title: str, full: str) -> bool:
    """True when ``title`` is a short name beside a full title of a few more words: a Dendron or wiki
    note titled "Transformer" whose body says "**Full title:** Attention Is All You Need", or one that is
    the full title's acronym ("GAN" beside "Generative Adversarial Nets")."""
    n = len(title.split())
    short = 0 < n <= SHORT_NAME_WORDS and ":" not in title
    return short and (len(full.split()) >= n + 3 or (n == 1 and initials_match(title, full, leading=True)))


#: Pictographs after a title (a rating, a status): "Title ⭐🔥", "Title 🚧".
_TAIL_MARK_RE = re.compile(r"(?:\s*[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200d])+$")
#: A reader's status after a title, set off by a dash and led by a pictograph: "Title — 👀 skimmed".
_STATUS_TAIL_RE = re.compile(r"\s+[—–|-]\s+[\U0001F300-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF][^—–|]{0,30}$")
_LEAD_MARK_RE = re.compile(r"^[^\w\[(（【\"'“‘«]+")
_LEAD_VENUE_RE = re.compile(
    r"^[\[(（【]([^\[\]()（）【】]{2,24})[\])）】]\s*[:：|–—-]?\s*|^([A-Za-z][\w-]{1,11}\s*['’]?\s*\d{2,4})\s*[:：|–—-]\s+"
)
_TAIL_VENUE_RE = re.compile(r"\s+[|–—-]\s+([^|–—]{2,30})$|\s*[\[【]([^\[\]【】]{2,24})[\]】]$")


def _marked_venue(said: str) -> str | None:
    """The venue a title's mark names: a few words that are a venue of a known series or of one written
    in capitals ("OSDI'22", "FOOCON 2024"; not "ResNet 2016")."""
    v = normalize_venue(said) if len(said.split()) <= 3 else None
    return v if v and (split_venue(v)[0].lower() in SERIES or split_venue(v)[0].isupper()) else None


#: A section's number before a title in a numbered list of papers: "1. Title", "2) Title", "Paper 3: Title",
#: "一、Title", "（二）Title" (not "3D Gaussian …" or "2.5D …": a number then a stop and a space).
_NUMBERING_RE = re.compile(
    r"^(?:(?:paper|论文|no\.?)\s*)?(?:\d{1,3}|[一二三四五六七八九十]{1,3})\s*(?:[.)）]\s+|[:：]\s*|、\s*)"
    r"|^[(（](?:\d{1,3}|[一二三四五六七八九十]{1,3})[)）]\s*",
    re.IGNORECASE,
)


def venue_decoration(title: str) -> tuple[str, str | None]:
    """``(title, venue)``: a title without the marks a note puts around it — a leading emoji or symbol
    ("📄 Title"), a section number ("1. Title", "一、Title"), a log's date ("2024-06-03 · Title"), a venue before it ("[OSDI'22] Title", "【SOSP 2023】Title", "OSDI '22: Title") or after
    it ("Title | NeurIPS 2022", "Title - OSDI 2012", "Title [ICML'23]") — and the venue such a mark
    names (None when there is none: "[Draft] Title" keeps its bracket)."""
    t = _LEAD_MARK_RE.sub("", title).strip() or title.strip()
    t = _TAIL_MARK_RE.sub("", t).strip() or t  # "Title ⭐🔥", "Title 🚧"
    t = _STATUS_TAIL_RE.sub("", t).strip() or t  # "Title — 👀 skimmed"
    if len(t) > 2 and t[0] + t[-1] in ('""', "“”", "''", "‘’", "**", "__", "«»"):
        t = t[1:-1].strip() or t  # the whole title quoted or emphasised
    t = _NUMBERING_RE.sub("", t).strip() or t
    t = DATE_LEAD_RE.sub("", t).strip() or t
    venue = None

    m = _LEAD_VENUE_RE.match(t)
    if m:
        said = (m.group(1) or m.group(2)).strip()
        v = _marked_venue(said)
        if v and len(t) > m.end():
            t, venue = t[m.end() :].strip(), v
    m = _TAIL_VENUE_RE.search(t)
    if m and venue is None:
        said = (m.group(1) or m.group(2)).strip()
        v = _marked_venue(said)
        if v and m.start() > 0:
            t, venue = t[: m.start()].strip(), v
    return t, venue
