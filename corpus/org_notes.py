"""Org-mode notes (Emacs Org, org-roam, org-noter, org-ref) read as Markdown with YAML front matter, so
one reader and one set of conventions serve both.

What is rewritten (Org syntax, https://orgmode.org/manual/ and https://orgmode.org/worg/org-syntax.html):

* in-buffer settings ``#+TITLE: X``, ``#+AUTHOR:``, ``#+DATE:``, ``#+FILETAGS: :a:b:``, ``#+ROAM_REFS:``
  (org-roam's paper link or ``cite:key``), ``#+ROAM_ALIAS:`` and any other ``#+KEY: value`` before the
  first heading → front matter (``filetags`` → ``tags``, ``roam_refs``/``roam_key`` → ``url`` or
  ``citekey``, ``roam_alias``/``roam_aliases`` → ``aliases``);
* the file's top property drawer (org-roam v2: ``:ID:``, ``:ROAM_REFS:``, ``:ROAM_ALIASES:``) → front
  matter too; a heading's drawer (org-ref/org-noter: ``:AUTHOR:``, ``:YEAR:``, ``:JOURNAL:``, ``:URL:``,
  ``:DOI:``) → labelled lines under the heading (``- Authors: …``, ``- URL: …``);
* headings ``** Title :tag:`` → ``## Title`` (TODO keywords, priorities and tags dropped), one level
  deeper when the file has a ``#+TITLE:`` (the document's title, as Org export sets it: its ``*``
  headings are sections of the note, not titles of pages); a heading with nothing under it (a
  journal's "** 16:00 lab meeting moved", a reading list's "* TODO Mamba") is an outline's entry:
  a list item, unchecked ("- [ ] Mamba") when it is a task not done;
* planning lines (``SCHEDULED:``, ``DEADLINE:``, ``CLOSED:``), ``:LOGBOOK:`` drawers (clock and state
  changes) and footnote marks (``[fn:1]``) dropped; a footnote's definition kept as its text;
* links ``[[url][label]]`` → ``[label](url)``, ``[[url]]`` → ``<url>``, internal links
  (``[[id:…][label]]``, ``[[file:x.org][label]]``) → their label;
* blocks ``#+BEGIN_SRC lang`` → fenced code, ``#+BEGIN_QUOTE`` → a quote, ``#+BEGIN_EXAMPLE`` → code;
* markup ``*bold*`` → ``**bold**``, ``/italic/`` → ``*italic*``, ``=code=``/``~code~`` → `` `code` ``;
  ``1)`` items → ``1.``; table rules ``|---+---|`` → ``|---|---|`` (a table ends at its last row, as
  Org reads it: a blank line is put after it); ``# comment`` lines dropped.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SETTING_RE = re.compile(r"^\s*#\+([A-Za-z_]+):\s*(.*?)\s*$")
_DRAWER_LINE_RE = re.compile(r"^\s*:([A-Za-z_][\w-]*):\s*(.*?)\s*$")
_HEADING_RE = re.compile(r"^(\*+)\s+(.*?)\s*$")
#: The keywords of a task that is over (done, dropped, or a paper read).
_DONE_KEYWORDS = frozenset({"DONE", "CANCELLED", "CANCELED", "READ"})
_TODO_RE = re.compile(r"^(?:TODO|DONE|NEXT|WAITING|HOLD|CANCELL?ED|READ|READING|LATER|NOW)\s+")
_PRIORITY_RE = re.compile(r"^\[#[A-Z0-9]\]\s+")
_HEADING_TAGS_RE = re.compile(r"\s+(:[\w@#%:]+:)\s*$")
_BLOCK_RE = re.compile(r"^\s*#\+(BEGIN|END)_(\w+)\s*(.*?)\s*$", re.IGNORECASE)
_LINK_RE = re.compile(r"\[\[([^\[\]]+)\](?:\[([^\[\]]*)\])?\]")
#: Property keys of a heading's drawer that name its paper → the label of the line they become.
_PAPER_PROPERTIES = {
    "author": "Authors",
    "authors": "Authors",
    "year": "Year",
    "journal": "Venue",
    "booktitle": "Venue",
    "venue": "Venue",
    "conference": "Venue",
    "url": "URL",
    "doi": "DOI",
    "arxiv": "arXiv",
    "pdf": "PDF",
    "title": "Title",
    "roam_refs": "Link",
}
_INTERNAL = ("id:", "file:", "roam:", "*", "#", "attachment:", "denote:")
#: A planning line under a heading (https://orgmode.org/manual/Deadlines-and-Scheduling.html).
_PLANNING_RE = re.compile(r"^\s*(?:(?:SCHEDULED|DEADLINE|CLOSED):\s*[<\[][^>\]]*[>\]]\s*)+$")
#: A footnote mark or the opening of a footnote's definition (https://orgmode.org/manual/Creating-Footnotes.html).
_FOOTNOTE_RE = re.compile(r"\[fn:[\w-]*\]")
_TABLE_ROW_RE = re.compile(r"^\s*\|")


def _link(m: re.Match[str]) -> str:
    target, label = m.group(1).strip(), (m.group(2) or "").strip()
    if target.lower().startswith(_INTERNAL) or not re.match(r"[a-z][\w+.-]*:", target, re.I):
        return label or re.sub(r"^(?:id|file|roam|denote):", "", target).removesuffix(".org")
    if re.match(r"(?:cite|citep|citet|parencite|textcite):", target, re.I):
        return label or target
    return f"[{label}]({target})" if label else f"<{target}>"


def _inline(line: str) -> str:
    """One line's Org markup as Markdown (links, emphasis, verbatim; footnote marks dropped)."""
    line = _LINK_RE.sub(_link, _FOOTNOTE_RE.sub("", line))
    line = re.sub(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])", r"**\1**", line)
    line = re.sub(r"(?<![\w/:])/(?=\S)([^/\n]+?)(?<=\S)/(?![\w/])", r"*\1*", line)
    return re.sub(r"(?<![\w=~])[=~](?=\S)([^=~\n]+?)(?<=\S)[=~](?![\w=~])", r"`\1`", line)


def _setting_meta(key: str, value: str, meta: dict[str, Any]) -> None:
    k = key.lower()
    if not value:
        return
    if k == "filetags":
        meta["tags"] = [t for t in re.split(r"[:\s]+", value) if t]
    elif k in ("roam_refs", "roam_key"):
        for ref in value.split():
            ref = ref.strip('"')
            if re.match(r"https?://", ref):
                meta.setdefault("url", ref)
            elif m := re.match(r"\[?(?:cite[a-z]*:|@|&)+([^\s;,\]]+)", ref):  # cite:key, cite:&key, [cite:@key]
                meta.setdefault("citekey", m.group(1).lstrip("@&"))
    elif k in ("roam_alias", "roam_aliases"):
        meta["aliases"] = [a for a in re.findall(r'"([^"]+)"|(\S+)', value) for a in [a[0] or a[1]] if a]
    elif k not in ("options", "startup", "setupfile", "latex_header", "html_head", "id", "include"):
        meta.setdefault(k, _LINK_RE.sub(_link, value))


def _outline_items(lines: list[str]) -> set[int]:
    """Indexes of the headings that are entries of an outline, not sections: nothing under them (no
    text, no deeper heading; drawers and planning lines aside) — a journal's "** 16:00 lab meeting
    moved", a reading list's "* TODO Mamba"."""
    out: set[int] = set()
    heads = [(n, len(m.group(1))) for n, line in enumerate(lines) if (m := _HEADING_RE.match(line))]
    for n, level in heads:
        j, fields = n + 1, False
        while j < len(lines):
            line = lines[j].strip()
            if line.upper() in (":PROPERTIES:", ":LOGBOOK:"):
                while j < len(lines) and lines[j].strip().upper() != ":END:":
                    d = _DRAWER_LINE_RE.match(lines[j]) if line.upper() == ":PROPERTIES:" else None
                    fields = fields or bool(d and d.group(1).lower() in _PAPER_PROPERTIES and d.group(2))
                    j += 1
            elif line and not _PLANNING_RE.match(lines[j]):
                break
            j += 1
        nxt = _HEADING_RE.match(lines[j]) if j < len(lines) else None
        if not fields and (j >= len(lines) or (nxt is not None and len(nxt.group(1)) <= level)):
            out.add(n)
    return out


def org_to_markdown(text: str) -> str:
    """An Org document as Markdown with YAML front matter (see the module docstring). Never raises:
    what is not Org syntax stays as it is."""
    meta: dict[str, Any] = {}
    out: list[str] = []
    lines = text.splitlines()
    titled = any((m := _SETTING_RE.match(line)) and m.group(1).lower() == "title" for line in lines)
    items = _outline_items(lines)
    i = 0
    seen_heading = False
    block: str | None = None
    while i < len(lines):
        line = lines[i]
        i += 1
        b = _BLOCK_RE.match(line)
        if b:
            kind = b.group(2).lower()
            if b.group(1).lower() == "begin":
                block = kind
                if kind in ("src", "example", "export"):
                    out.append(f"```{b.group(3).split()[0] if b.group(3) and kind == 'src' else ''}")
            else:
                if block in ("src", "example", "export"):
                    out.append("```")
                block = None
            continue
        if block in ("src", "example", "export"):
            out.append(line)
            continue
        if block == "quote":
            out.append(f"> {_inline(line)}" if line.strip() else ">")
            continue
        if line.strip().upper() == ":PROPERTIES:":
            props: dict[str, str] = {}
            while i < len(lines) and lines[i].strip().upper() != ":END:":
                d = _DRAWER_LINE_RE.match(lines[i])
                if d:
                    props[d.group(1).lower()] = d.group(2)
                i += 1
            i += 1
            if not seen_heading:
                for k, v in props.items():
                    _setting_meta(k, v, meta)
            else:
                out += [
                    f"- {_PAPER_PROPERTIES[k]}: {_inline(v)}" for k, v in props.items() if k in _PAPER_PROPERTIES and v
                ]
                out.append("")
            continue
        if re.match(r"^\s*:LOGBOOK:\s*$", line):  # clock entries and state changes: no notes
            while i < len(lines) and lines[i].strip().upper() != ":END:":
                i += 1
            i += 1
            continue
        if re.match(r"^\s*:(?:[A-Za-z_][\w-]*):\s*$", line):  # other drawers (":NOTES:"): their lines kept
            continue
        if _PLANNING_RE.match(line):
            continue
        s = _SETTING_RE.match(line)
        if s:
            if not seen_heading and s.group(1).lower() == "author":
                # ``#+AUTHOR:`` is the document's, the note taker's, not the paper's (org-roam-bibtex puts
                # those in the property drawer)
                meta.setdefault("note_author", s.group(2))
            elif not seen_heading:
                _setting_meta(s.group(1), s.group(2), meta)
            elif s.group(1).lower() == "caption":
                out.append(_inline(s.group(2)))
            continue
        if re.match(r"^\s*#(?:\s|$)", line):  # an Org comment line
            continue
        h = _HEADING_RE.match(line)
        if h:
            seen_heading = True
            title = _PRIORITY_RE.sub("", _TODO_RE.sub("", h.group(2)))
            title = _HEADING_TAGS_RE.sub("", title)
            if i - 1 in items:  # an entry of the outline, not a section: a list item; a task not done is
                # an unchecked one, as Markdown notes write a to-do ("* TODO Mamba" → "- [ ] Mamba")
                todo = _TODO_RE.match(_PRIORITY_RE.sub("", h.group(2)))
                box = "[ ] " if todo and todo.group(0).split()[0] not in _DONE_KEYWORDS else ""
                out.append(f"- {box}{_inline(title)}")
                continue
            out += ["", f"{'#' * min(len(h.group(1)) + titled, 6)} {_inline(title)}", ""]
            continue
        if out and _TABLE_ROW_RE.match(out[-1]) and line.strip() and not _TABLE_ROW_RE.match(line):
            out.append("")  # the table ended at its last row; Markdown would read on
        if re.match(r"^\s*\|[-+]+\|?\s*$", line):
            out.append(re.sub(r"\+", "|", line))
            continue
        line = re.sub(r"^(\s*)(\d+)\)\s", r"\1\2. ", line)
        out.append(_inline(line))
    body = "\n".join(out).strip() + "\n"
    if not meta:
        return body
    # each value written as JSON, which is YAML too (YAML 1.2 is a superset of JSON)
    fm = "".join(f"{k}: {json.dumps(v, ensure_ascii=False)}\n" for k, v in meta.items())
    return "---\n" + fm + "---\n\n" + body
