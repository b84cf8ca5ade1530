"""Checks on a model's answer before any front end shows it (the CLI, ``papernotes chat`` and the
Discord bot all get answers through :meth:`~papernotes.retrieval.service.Notes.ask`).

Notes are copied from papers, blogs and web pages, and some hold instruction-like text; a model that
obeys such text may answer with a link the notes' owner never vouched for. Two rules:

* a reply that cites none of the given sources (the refusal phrase aside) is never presented as the
  answer — :meth:`Notes.ask <papernotes.retrieval.service.Notes.ask>` shows the extractive answer with
  :data:`~papernotes.retrieval.prompts.UNGROUNDED_NOTE` instead;
* a URL survives (:func:`filter_links`) only when it is the catalog link of a cited paper, or appears
  in the text of a source cited in the same sentence — so a link that is shown always carries the
  citation of the note it came from. Others are removed (a Markdown link keeps its text) and counted
  in ``Answer.dropped_links``.

Mentions are not this module's concern: the bot sends everything with ``AllowedMentions.none()``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from papernotes.retrieval.search import Hit

#: An http(s) or www. URL (up to whitespace, brackets, quotes or backticks).
URL_RE = re.compile(r"(?:https?://|www\.)[^\s<>()\[\]{}\"'`]+", re.IGNORECASE)
#: A Markdown link ``[text](url)`` or ``[text](<url>)``.
_MD_LINK_RE = re.compile(r"\[([^\]\n]{0,300})\]\(<?([^)\s>]+)>?\)")
_MARKER_RE = re.compile(r"\[(\d+)\]")
#: Sentence ends: after ., ! or ? and whitespace, unless a citation marker follows (it belongs to the
#: sentence before).
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?])\s+(?!\[\d)")
_TRAILING = ".,;:!?)]}>'\"*_"


def normalize_url(url: str) -> str:
    """A URL in comparable form: trailing punctuation and ``/`` removed, scheme and ``www.``
    dropped, lower-cased (``"https://X.org/a/."`` → ``"x.org/a"``)."""
    u = url.strip().rstrip(_TRAILING).rstrip("/")
    u = re.sub(r"^https?://", "", u, flags=re.IGNORECASE)
    u = re.sub(r"^www\.", "", u, flags=re.IGNORECASE)
    return u.lower()


def urls_in(text: str) -> set[str]:
    """Normalized URLs (:func:`normalize_url`) found in ``text``."""
    return {normalize_url(m.group(0)) for m in URL_RE.finditer(text or "")}


def _hit_links(h: Hit) -> set[str]:
    """The catalog links of a source's paper (its ``url``) and its page link, normalized."""
    return {normalize_url(str(u)) for u in (h.get("url"), h.get("page_url")) if u}


def _segments(text: str) -> list[str]:
    """``text`` cut into sentences (each line split at sentence ends), separators kept so that
    ``"".join`` gives ``text`` back."""
    out: list[str] = []
    for line in re.split(r"(\n)", text):
        if line == "\n":
            out.append(line)
            continue
        pos = 0
        for m in _SENTENCE_SPLIT_RE.finditer(line):
            out.append(line[pos : m.end()])
            pos = m.end()
        out.append(line[pos:])
    return [s for s in out if s]


def filter_links(text: str, cited: Sequence[Hit]) -> tuple[str, int]:
    """Remove the URLs of a checked answer that the notes do not vouch for.

    Parameters
    ----------
    text
        The answer after citation checking: markers ``[n]`` name ``cited[n-1]``.
    cited
        The cited sources, in marker order.

    Returns
    -------
    tuple[str, int]
        The text, where a URL is kept only when it is the catalog/page link of any cited source or
        occurs in the text of a source cited in the same sentence (a Markdown link with another URL
        keeps its link text; a bare one is removed with its ``<…>``), and the number of URLs removed.
    """
    catalog: set[str] = set().union(*(_hit_links(h) for h in cited)) if cited else set()
    in_text = [urls_in(h.text) | urls_in(h.body) for h in cited]
    dropped = 0

    def allowed(url: str, segment: str) -> bool:
        u = normalize_url(url)
        if not u:
            return True
        if u in catalog:
            return True
        for m in _MARKER_RE.finditer(segment):
            n = int(m.group(1))
            if 1 <= n <= len(in_text) and u in in_text[n - 1]:
                return True
        return False

    def check(segment: str) -> str:
        nonlocal dropped

        def md(m: re.Match[str]) -> str:
            nonlocal dropped
            if allowed(m.group(2), segment):
                return m.group(0)
            dropped += 1
            return m.group(1)

        segment_out = _MD_LINK_RE.sub(md, segment)

        def bare(m: re.Match[str]) -> str:
            nonlocal dropped
            url = m.group(0)
            core = url.rstrip(_TRAILING)
            if allowed(core, segment):
                return url
            dropped += 1
            return url[len(core) :]

        pieces: list[str] = []
        last = 0
        for m in URL_RE.finditer(segment_out):
            a, b = m.span()
            pieces.append(segment_out[last:a])
            repl = bare(m)
            if not repl.strip(_TRAILING) and pieces[-1].endswith("<") and segment_out[b : b + 1] == ">":
                pieces[-1] = pieces[-1][:-1]  # a removed <url>: its brackets go too
                b += 1
                repl = ""
            pieces.append(repl)
            last = b
        pieces.append(segment_out[last:])
        return "".join(pieces)

    out = "".join(check(s) for s in _segments(text))
    if dropped:
        out = re.sub(r"[ \t]{2,}", " ", out)
        out = re.sub(r"[ \t]+([.,;:!?])", r"\1", out)
        out = re.sub(r"(?m)[ \t]+$", "", out)
    return out.strip(), dropped
