"""Short names a paper note gives its paper beside the full title — the names a reader asks by ("ViT",
"Chinchilla", "SAM") — read from the note's opening lines, and a post's own title reduced to the short
name it holds ("EAGLE：在特征层做投机采样" → "EAGLE", "1. SnapKV" → "SnapKV").

Read generally, from how notes write them:

* a quoted name in a byline: ``"Chinchilla" — Hoffmann et al.``, ``Krizhevsky, Sutskever, Hinton —
  University of Toronto. "AlexNet"``;
* a name after "a.k.a." / "aka" / "also known as" / "also called": ``a.k.a. **StreamingLLM**``;
* an acronym in brackets after the words it abbreviates, when those words name the paper (share a word
  with its title: ``Segment Anything Model (SAM)``), not a part of it (``Ghost Attention (GAtt)`` in a
  note on Llama 2);
* the last part of a byline after its authors and affiliation, set off by a dash:
  ``Dosovitskiy et al., Google Research — ViT``, ``Ting Chen, …, Geoffrey Hinton (Google) — SimCLR``;
* names listed on a line of their own beside one the title holds: ``vLLM, PagedAttention`` under
  "Efficient Memory Management for Large Language Model Serving with PagedAttention";
* a name in a sentence saying which paper the note is: ``The GPT-3 paper.``, ``Everyone calls it the
  **Chinchilla** paper.``;
* a name a line opens by defining: ``MigrRDMA: a software-based RDMA live migration``,
  ``**LingXi**, a system for personalized adaptive video streaming``, or by presenting:
  ``Introduce MorphKernel, targeting …``.

Authors and affiliations are never names of the paper: a bracket after a name list ("(Microsoft)") is no
acronym of the words before it, and a byline's first part after its authors is the affiliation.
"""

from __future__ import annotations

import re

from papernotes.corpus.papers import PAPER_LINK_LABELS
from papernotes.corpus.venues import find_venues, normalize_venue

#: Most words of a short name.
SHORT_NAME_WORDS = 3

_QUOTED_RE = re.compile(r"[\"“”«]([^\"“”«»\n]{2,40})[\"“”»]")
_AKA_RE = re.compile(
    r"\b(?:a\.k\.a\.?|aka|also known as|also called|dubbed)\s*[:,]?\s*(?:\*\*|__|[\"“])?([^\s*_\"”,.;()]+(?:\s[^\s*_\"”,.;()]+){0,2})",
    re.IGNORECASE,
)
_ACRONYM_RE = re.compile(r"\(([A-Z][A-Za-z0-9]{0,2}[A-Z0-9][A-Za-z0-9-]{0,8})\)")
#: A sentence that says which paper the note is: "The GPT-3 paper.", "This is the vLLM paper.",
#: "Everyone calls it the Chinchilla paper." — a name (capitalized or with a capital or digit inside,
#: one or two words) between "the" and "paper", ending the sentence.
_THE_NAME_PAPER_RE = re.compile(
    r"(?:^|(?<=[.!?])\s+)(?:[\w,' ]{0,40}\s)?(?i:the)\s+((?:[A-Z0-9]|[a-z]+[A-Z])[\w.+-]*(?:\s[A-Z0-9][\w.+-]*)?)\s+paper\s*[.!]?(?=\s|$)"
)
#: The same said alone, a sentence of its own in the note's first paragraphs: "The vLLM paper.", "This
#: is the GPT-3 paper." (not "This extends the Orca paper.": another paper it builds on).
_IS_THE_PAPER_RE = re.compile(
    r"(?:^|(?<=[.!?])\s+)(?:(?i:this\s+is|it\s+is|it's)\s+)?(?i:the)\s+((?:[A-Z0-9]|[a-z]+[A-Z])[\w.+-]*(?:\s[A-Z0-9][\w.+-]*)?)"
    r"\s+paper\s*[.!](?=\s|$)"
)
_DASH_RE = re.compile(r"\s+[—–]\s+|\s+-\s+")
#: A line that opens by defining a name: "MigrRDMA: a software-based …", "**LingXi**, a system for …",
#: "HiveD is a …" — one word with a capital or digit after its first letter (a gloss in brackets may
#: follow it: "BiAn (狴犴), an LLM-based framework …"), then ":"/","/"is" and an article.
_LEAD_NAME_RE = re.compile(
    r"^([A-Za-z][\w.+-]*[A-Z0-9][\w.+-]*)(?:\s*\([^()]{1,30}\))?\s*(?:[:,]|\s[—–-]|\s+is)\s+(?:a|an|the)\s",
    re.IGNORECASE,
)
#: A line that opens by presenting a contribution by its name, as notes summarise one ("Introduce
#: MorphKernel, targeting …", "Present Tessera, a …", "Propose FooDB to …"): a capitalized word after
#: a verb of presenting, then ":"/"," or "to"/"that"/"which"/"for".
_PRESENTED_RE = re.compile(
    r"^(?i:we\s+)?(?i:introduce|present|propose|design|develop|build)s?\s+"
    r"([A-Z][\w.+-]*)(?:\s*[:,]\s|\s+(?:to|that|which|for)\s)"
)
_BYLINE_START_RE = re.compile(r"^[A-Z][\w'’.-]+(?:\s+[A-Z][\w'’.-]+){0,3}(?:\s+et al\.?|\s*,\s*[A-Z])")


def _name_like(text: str) -> bool:
    """A short name: one to :data:`SHORT_NAME_WORDS` words, a capital or digit among its letters, no
    sentence's stop, not a venue, year or kind of link ("arXiv", "PDF")."""
    t = text.strip()
    words = t.split()
    return (
        0 < len(words) <= SHORT_NAME_WORDS
        and t.lower() not in PAPER_LINK_LABELS  # "— [arXiv](…)": a kind of link
        and "/" not in t
        and bool(re.search(r"[A-Z0-9]", t))
        and bool(re.search(r"[A-Za-z]", t))
        and not t.endswith((".", ":", "?", "!"))
        and not re.search(r"\b(?:19|20)\d\d\b", t)
        and not find_venues(t)
        and normalize_venue(t) is None
    )


def initials_match(acronym: str, words_text: str, leading: bool = False) -> bool:
    """True when ``acronym``'s capitals are the initials of the capitalised words just before it
    ("Segment Anything Model (SAM)", "Reinforcement Learning from Human Feedback (RLHF)"), or with
    ``leading`` of the first ones of ``words_text`` ("GAN": "Generative Adversarial Nets")."""
    caps = [c for c in acronym if c.isupper()]
    words = [w for w in re.findall(r"[A-Za-z][\w-]*", words_text) if w[0].isupper()]
    parts = [p for w in words for p in w.split("-") if p and p[0].isupper()]
    if len(caps) < 2 or len(parts) < len(caps):
        return False
    chosen = parts[: len(caps)] if leading else parts[-len(caps) :]
    return "".join(p[0] for p in chosen) == "".join(caps)


def abbreviates_title(acronym: str, expansion: str, title: str) -> bool:
    """True when an acronym written after the words it abbreviates (``expansion``: "Segment Anything
    Model", "Deep Q-Network") names the paper titled ``title``: its capitals are the initials of the
    title's first words ("GAN": "Generative Adversarial Nets"), or the expansion shares a word of four or
    more letters with the title ("Segment Anything", "Human-level control through deep reinforcement
    learning"). An acronym of a component the note names beside the paper ("Ghost Attention (GAtt)" in
    a note on "Llama 2: Open Foundation and Fine-Tuned Chat Models") shares none."""
    if initials_match(acronym, title, leading=True):
        return True
    words = {w.lower() for w in re.findall(r"[A-Za-z][\w-]{3,}", title)}
    return any(w.lower() in words for w in re.findall(r"[A-Za-z][\w-]{3,}", expansion))


def opening_names(lines: list[str], title: str | None = None, whole: bool = False) -> list[str]:
    """The short names the opening ``lines`` (a note's first lines, as text) give its paper, in order,
    without repeats (see the module docstring). With the paper's ``title``, an acronym in brackets
    counts only when it names the paper (:func:`abbreviates_title`), not a part of it; with ``whole``
    also, only when every word of four or more letters it abbreviates is a word of the title ("Tensor
    Language Model (TLM)" under "Enabling Tensor Language Model to …", not "Automatic Software Repair
    (ASR)" under "Automatic Configuration Repair")."""
    out: list[str] = []
    for line in lines:
        line = line.replace("**", "").replace("__", "")
        found = [m.group(1).strip() for m in _AKA_RE.finditer(line)]
        lead = _LEAD_NAME_RE.match(line.strip())
        if lead and re.search(r"[A-Z0-9]", lead.group(1)[1:]):
            found.append(lead.group(1).rstrip(".,:"))
        found += [m.group(1) for m in _THE_NAME_PAPER_RE.finditer(line.strip()) if _name_like(m.group(1))]
        presented = _PRESENTED_RE.match(line.strip())
        if presented and len(presented.group(1)) > 2:
            found.append(presented.group(1).rstrip(".,:"))
        byline = bool(_BYLINE_START_RE.match(line.strip('"“ ')) or re.search(r"\bet al\b", line))
        quoted = [m.group(1).strip() for m in _QUOTED_RE.finditer(line)]
        if byline or len(line.split()) <= 2 * SHORT_NAME_WORDS:
            found += [q for q in quoted if _name_like(q)]
        for m in _ACRONYM_RE.finditer(line):
            if not initials_match(m.group(1), line[: m.start()]):
                continue
            caps = sum(c.isupper() for c in m.group(1))
            words = [w for w in re.findall(r"[A-Za-z][\w-]*", line[: m.start()]) if w[0].isupper()]
            expansion = " ".join([p for w in words for p in w.split("-") if p and p[0].isupper()][-caps:])
            title_words = {w.lower() for w in re.findall(r"[A-Za-z][\w-]{3,}", title or "")}
            long_words = {w.lower() for w in re.findall(r"[A-Za-z][\w-]{3,}", expansion)}
            if title is None or (
                abbreviates_title(m.group(1), expansion, title) and not (whole and long_words - title_words)
            ):
                found.append(m.group(1))
        parts = _DASH_RE.split(line.strip().rstrip("."))
        if byline and len(parts) >= 2:
            last, first = parts[-1].strip(), parts[0]
            # the name follows the authors and their affiliation: "A, B — Google — SimCLR", "A et al.,
            # Google — ViT", "A, B (Google) — SimCLR"
            bracketed = re.search(r",.*\([^()]+\)\s*$", first)
            # the affiliation is behind (in brackets, or after "et al.," — not a year there: "Zhang et al.,
            # 2023 — MIT" ends with it), so a word in capitals is a name ("— NVIDIA", "Mnih et al., DeepMind — DQN")
            affiliated = bracketed or re.search(r"\bet al\.?,\s*(?!(?:19|20)\d\d\b)[^\W\d]", first)
            after_authors = len(parts) >= 3 or re.search(r"\bet al\.?,\s*\S", first) or bracketed
            if after_authors and _name_like(last) and len(last.split()) == 1 and (affiliated or not last.isupper()):
                found.append(last)
        found += _listed_beside_title_name(line, title)
        out += [f for f in found if _name_like(f) and f not in out]
    return out


#: One word written as a name: a capital or digit after its first letter ("vLLM", "PagedAttention", "T5").
_NAME_WORD_RE = re.compile(r"[A-Za-z][\w.+-]*[A-Z0-9][\w.+-]*")


def _listed_beside_title_name(line: str, title: str | None) -> list[str]:
    """The other names on a line that only lists names, one of which the ``title`` holds: ``vLLM,
    PagedAttention`` under "Efficient Memory Management … with PagedAttention" names the paper vLLM too.
    Two to four one-word names set apart by commas, semicolons or slashes; an author list ("Kwon, Li")
    has no word written as a name."""
    parts = [p.strip() for p in re.split(r"\s*[,;/]\s*", line.strip().rstrip("."))]
    if not title or not 2 <= len(parts) <= 4 or not all(_NAME_WORD_RE.fullmatch(p) for p in parts):
        return []
    held = [p for p in parts if re.search(rf"(?<![\w-]){re.escape(p)}(?![\w-])", title, re.IGNORECASE)]
    return [p for p in parts if p not in held] if held else []


_NUMBER_RE = re.compile(r"^(?:\d{1,3}[.)、]|[一二三四五六七八九十]{1,3}、)\s*")
#: An arXiv identifier in a post's title, bare or in brackets: the file's name, not the paper's.
_ID_RE = re.compile(r"[(\[]?\b(?:arxiv:?\s*)?\d{4}\.\d{4,5}(?:v\d+)?\b[)\]]?", re.IGNORECASE)
_SPLIT_RE = re.compile(r"\s*(?:[：:]|——|\s[—–-]\s)\s*")


def short_name_of(title: str) -> str | None:
    """The short name a post's own title holds: the title without a section number ("1. SnapKV" →
    "SnapKV"), or its part before a colon or dash when that part is a short name and the rest is a
    description ("EAGLE：在特征层做投机采样" → "EAGLE", "Splitwise —— 把 LLM 推理的两个阶段拆开" →
    "Splitwise"); None when it holds none (a title in another script, an arXiv id)."""
    t = _ID_RE.sub(" ", _NUMBER_RE.sub("", title.strip())).strip(" —–-:：")  # "2401.10774 Medusa", "GPTQ (2210.17323)"
    head = _SPLIT_RE.split(t, maxsplit=1)[0].strip()
    return head if _name_like(head) and re.match(r"[A-Za-z0-9]", head) else None


def paper_sentence_names(text: str) -> list[str]:
    """Names a paragraph gives its paper in a sentence of their own ("The vLLM paper. LLM serving …" →
    ``["vLLM"]``): read in a note's first paragraphs, past its opening lines."""
    return [m.group(1) for m in _IS_THE_PAPER_RE.finditer(text.replace("**", "").strip()) if _name_like(m.group(1))]
