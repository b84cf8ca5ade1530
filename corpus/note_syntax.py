"""Notes-tool syntax turned into plain Markdown before parsing: Obsidian wiki links, embeds and callouts,
Jekyll's Liquid ``{% highlight %}`` / ``{% raw %}`` blocks and Hugo shortcodes.

* ``[[target|label]]`` → ``[label](<target>)`` (read as its label; the target stays as the link's
  address), ``[[target]]`` → ``[target](<target>)`` (``note#heading`` reads ``note › heading``).
* ``![[figure.png]]`` (an attachment) is dropped; ``![[other note]]`` becomes that note's title (from
  ``embed_title``); a target that is not found is dropped and reported.
* ``> [!note] Title`` callouts become a section: a heading one level below the heading in force (never
  level 1), then the callout's text unquoted. Admonitions of Python-Markdown / MkDocs-Material
  (``!!! abstract "TL;DR"``, collapsible ``??? note`` / ``???+ tip``, their body indented by four
  spaces) are read the same way: a section titled with the quoted title, else the type; the body
  dedented (indented, it would read as code).
* ``{% highlight lang %}…{% endhighlight %}`` and Hugo's ``{{< highlight lang >}}…{{< /highlight >}}``
  become fenced code, so ``#`` lines inside are code, not headings; ``{% raw %}…{% endraw %}`` is code
  too (only its tags are dropped when it wraps a fence already); other ``{{< … >}}`` / ``{{% … %}}``
  shortcodes are removed and the text between them kept; MkDocs-Material icons
  (``:material-file-pdf-box:``) and a heading's attributes (``# Title { #anchor }``) are removed.

* Logseq (https://docs.logseq.com/#/page/properties, https://docs.logseq.com/#/page/macros): a block's
  ``key:: value`` property line reads as the field line ``key: value``; the properties Logseq itself
  keeps hidden (``id::``, ``collapsed::``, ``heading::``, ``card-*``, … — ``hidden-built-in-properties``
  of logseq/graph-parser ``property.cljs``) are dropped, as are an empty property, a macro with
  arguments (``{{embed [[page]]}}``, ``{{query (page-tags paper)}}``, ``{{video …}}``; a ``{{cloze
  text}}`` keeps its text) and a block reference ``((65f0a7c1-…))``, whose text lives in another block.

A note template of a notes tool — a file whose title, first heading or front matter is still an
unfilled placeholder (``{{title}}``, ``{{date:YYYY-MM-DD}}``: Obsidian's core Templates plugin and the
Zotero Integration plugin; ``<% tp.file.title %>``: the Templater plugin, whose tags are never left in a
note it filled) — is a template, not a note (:func:`template_placeholder`).

Syntax documentation: Obsidian (https://help.obsidian.md/Linking+notes+and+files/Internal+links,
https://help.obsidian.md/Editing+and+formatting/Callouts), Jekyll (https://jekyllrb.com/docs/liquid/tags/),
Hugo (https://gohugo.io/content-management/shortcodes/), admonitions
(https://python-markdown.github.io/extensions/admonition/, templates:
https://help.obsidian.md/Plugins/Templates, https://silentvoid13.github.io/Templater/,
https://squidfunk.github.io/mkdocs-material/reference/admonitions/, icons:
https://squidfunk.github.io/mkdocs-material/reference/icons-emojis/).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

#: A block property line of Logseq (or an Obsidian Dataview inline field): ``  id:: 65f0…``, ``- rating:: 5``.
_BLOCK_PROPERTY_RE = re.compile(r"^(\s*(?:[-*+]\s+)?)([A-Za-z][\w.-]*)::(?:\s+(.*))?$")
#: Properties Logseq keeps hidden (``hidden-built-in-properties`` of logseq/graph-parser property.cljs),
#: by name or prefix.
LOGSEQ_HIDDEN_PROPERTIES = frozenset(
    {
        "id", "custom-id", "collapsed", "heading", "background-color", "background_color", "created-at",
        "updated-at", "last-modified-at", "created_at", "last_modified_at", "query-table", "query-properties",
        "query-sort-by", "query-sort-desc", "ls-type", "hl-type", "hl-page", "hl-stamp", "hl-color", "icon",
        "public", "filters", "exclude-from-graph-view", "template", "template-including-parent",
    }
)  # fmt: skip
_LOGSEQ_HIDDEN_PREFIXES = ("card-", "logseq.")
#: A Logseq macro with arguments (``{{embed [[page]]}}``); a bare ``{{title}}`` is a template's placeholder.
_MACRO_RE = re.compile(r"\{\{([a-z][\w-]*)\s+([^{}\n]*)\}\}")
#: A Logseq block reference: ``((`` a block's UUID ``))``.
_BLOCK_REF_RE = re.compile(r"\s?\(\([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\)\)")

#: File endings of Obsidian attachments: an embed of one shows a file, not text to index.
ATTACHMENT_SUFFIXES = (
    "png jpg jpeg gif svg webp bmp tif tiff avif heic pdf mp3 mp4 m4a wav ogg webm mov mkv excalidraw canvas"
).split()

_FENCE_RE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s")
_HIGHLIGHT_OPEN_RE = re.compile(
    r"^\s*(?:\{%-?\s*highlight\s*([\w+#.-]*)[^%]*-?%\}|\{\{[<%]\s*highlight\s*([\w+#.-]*)[^>%]*[>%]\}\})\s*(.*)$"
)
_HIGHLIGHT_CLOSE_RE = re.compile(r"^(.*?)\s*(?:\{%-?\s*endhighlight\s*-?%\}|\{\{[<%]\s*/\s*highlight\s*[>%]\}\})\s*$")
_RAW_OPEN_RE = re.compile(r"^\s*\{%-?\s*raw\s*-?%\}\s*$")
_RAW_CLOSE_RE = re.compile(r"^\s*\{%-?\s*endraw\s*-?%\}\s*$")
_RAW_TAG_RE = re.compile(r"\{%-?\s*(?:end)?raw\s*-?%\}")
_SHORTCODE_RE = re.compile(r"\{\{[<%].*?[>%]\}\}")
#: An icon of MkDocs-Material (``:material-file-pdf-box:``, ``:fontawesome-brands-github:``,
#: ``:octicons-mark-github-16:``, ``:simple-arxiv:``): pymdownx.emoji syntax, no text of the note.
#: Attributes after a heading (Python-Markdown's attr_list, as MkDocs uses it; kramdown's IAL):
#: ``# Title { #anchor .class }``, ``## Title {: #id}`` — no part of the title.
_HEADING_ATTRS_RE = re.compile(
    r"^(#{1,6}\s.*?)\s*\{:?\s*(?:[#.][\w-]+|[\w-]+=\S+)(?:\s+(?:[#.][\w-]+|[\w-]+=\S+))*\s*\}\s*$"
)
_ICON_RE = re.compile(r"(?<![\w:/]):(?:material|fontawesome|octicons|simple)-[a-z0-9-]+:(?![\w/])\s?")
_CALLOUT_RE = re.compile(r"^\s{0,3}>\s*\[!([\w-]+)\][+-]?\s*(.*)$")
#: An admonition's first line: ``!!! type "Title"``, ``??? type``, ``???+ type inline end "Title"``.
#: Most words of a definition list's term read as a label ("Venue", "Published in").
DEFINITION_TERM_WORDS = 4
_ADMONITION_RE = re.compile(
    r'^\s{0,3}(?:(?:!!!|\?\?\?\+?)\s*([\w-]+)(?:\s+[\w-]+)*\s*(?:"([^"]*)")?|===!?\+?\s*"([^"]*)")\s*$'
)
#: A definition list's definition (Python-Markdown's def_list, Pandoc): ``:   OSDI 2022`` under its term.
_DEFINITION_RE = re.compile(r"^:\s{1,4}(\S.*)$")
_EMBED_RE = re.compile(r"!\[\[([^\[\]|#^]+)(?:[#^][^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")
_WIKI_RE = re.compile(r"(?<!!)\[\[([^\[\]|]+?)(?:\|([^\[\]]+))?\]\]")


#: An unfilled placeholder: ``{{title}}``, ``{{ date:YYYY-MM-DD }}``, ``{{citekey}}`` (not a Hugo
#: shortcode ``{{< … >}}`` / ``{{% … %}}``), a Go-template action of a Hugo archetype (``{{ .Date }}``,
#: ``{{ replace .File.ContentBaseName "-" " " | title }}``: a field reference starting with a dot), or a
#: Templater tag ``<% tp.… %>`` / ``<%* … %>``.
_PLACEHOLDER_RE = re.compile(
    r"\{\{\s*[A-Za-z_][\w.-]*(?:\s*[:|][^{}\n]*)?\s*\}\}|\{\{-?\s*(?:[a-z]\w*\s+)*\.[A-Za-z][^{}\n]*\}\}"
    r"|<%[_-]?\s*tp\.[^%\n]*%>|<%\*[^\n]*?%>"
)
_PLAIN_PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_]\w*)(?:\s*:[^{}\n]*)?\s*\}\}")
_TEMPLATER_RE = re.compile(r"<%[_-]?\s*tp\.[^%\n]*%>|<%\*[^\n]*?%>")


def template_placeholder(front_matter: Mapping[str, Any], body: str) -> str | None:
    """The first unfilled placeholder that makes a file a notes-tool template, or None for a note: one
    in a front-matter value, in the first heading, a Templater tag on any line outside code, or two
    different plain ``{{name}}`` placeholders (no dotted ``{{ site.url }}``: a Jekyll post's body holds
    Liquid its site renders, so one such tag is no template)."""
    for v in front_matter.values():
        m = _PLACEHOLDER_RE.search(str(v))
        if m:
            return m.group(0)
    fence: str | None = None
    heading_seen = False
    plain: dict[str, str] = {}
    for line in body.split("\n"):
        f = _FENCE_RE.match(line)
        if f:
            fence = None if fence and f.group(1)[0] == fence[0] else fence or f.group(1)
            continue
        if fence:
            continue
        m = _TEMPLATER_RE.search(line)
        if not m and not heading_seen and _HEADING_RE.match(line):
            heading_seen = True
            m = _PLACEHOLDER_RE.search(line)
        if m:
            return m.group(0)
        for p in _PLAIN_PLACEHOLDER_RE.finditer(line):
            plain.setdefault(p.group(1).lower(), p.group(0))
        if len(plain) >= 2:
            return next(iter(plain.values()))
    return None


def _wiki_link(m: re.Match[str]) -> str:
    target = m.group(1).strip()
    label = (m.group(2) or "").strip() or " › ".join(p.strip() for p in target.split("#") if p.strip())
    return f"[{label}](<{target.replace('>', '')}>)"


def is_attachment(target: str) -> bool:
    """True for an embed target that is a file (image, PDF, media), not a note."""
    return target.rsplit(".", 1)[-1].lower() in ATTACHMENT_SUFFIXES if "." in target else False


def normalize_note_syntax(
    markdown: str, embed_title: Callable[[str], str | None] | None = None
) -> tuple[str, list[str]]:
    """Rewrite notes-tool syntax (see the module docstring) outside code fences.

    Parameters
    ----------
    markdown : a note's body (front matter removed).
    embed_title : the title of the note an ``![[note]]`` embed names, or None when there is no such
        note; without it every note embed is reported missing.

    Returns
    -------
    ``(markdown, problems)``: the rewritten text and one-line messages (embeds whose note is missing).
    """
    if not any(
        s in markdown for s in ("[[", "{%", "{{", "[!", "!!!", "???", "}\n", "===", "\n:", ":: ", "::\n", "((")
    ) and not _ICON_RE.search(markdown):
        return markdown, []
    lines = markdown.split("\n")
    out: list[str] = []
    problems: list[str] = []
    fence: str | None = None  # the open fence's marker, when inside one
    level = 1  # level of the heading in force
    i = 0
    while i < len(lines):
        line = lines[i]
        if fence is not None:
            if fence == "liquid":
                close = _HIGHLIGHT_CLOSE_RE.match(line)
                if close:
                    out += [close.group(1)] if close.group(1).strip() else []
                    out.append("```")
                    fence = None
                else:
                    out.append(line)
            else:
                out.append(line)
                m = _FENCE_RE.match(line)
                if (
                    m
                    and m.group(1)[0] == fence[0]
                    and len(m.group(1)) >= len(fence)
                    and not line.strip()[len(m.group(1)) :]
                ):
                    fence = None
            i += 1
            continue
        m = _FENCE_RE.match(line)
        if m:
            fence = m.group(1)
            out.append(line)
            i += 1
            continue
        hl = _HIGHLIGHT_OPEN_RE.match(line)
        if hl:
            out.append("```" + (hl.group(1) or hl.group(2) or ""))
            rest = hl.group(3)
            close = _HIGHLIGHT_CLOSE_RE.match(rest) if rest else None
            if close:  # a one-line block
                out += [close.group(1), "```"] if close.group(1).strip() else ["```"]
            else:
                out += [rest] if rest.strip() else []
                fence = "liquid"
            i += 1
            continue
        if _RAW_OPEN_RE.match(line):
            end = next((j for j in range(i + 1, len(lines)) if _RAW_CLOSE_RE.match(lines[j])), None)
            if end is not None:
                inner = lines[i + 1 : end]
                if any(_FENCE_RE.match(x) for x in inner):
                    lines[end] = ""  # it wraps a fence already: only the tags go
                else:
                    out += ["```", *inner, "```"]
                    i = end + 1
                    continue
            i += 1
            continue
        h = _HEADING_RE.match(line)
        if h:
            level = len(h.group(1))
        c = _CALLOUT_RE.match(line)
        if c:
            title = _inline(c.group(2).strip(), embed_title, problems) or c.group(1).replace("-", " ").capitalize()
            out.append(f"{'#' * min(6, max(2, level + 1))} {title}")
            out.append("")
            i += 1
            while i < len(lines) and re.match(r"^\s{0,3}>", lines[i]):
                out.append(_inline(re.sub(r"^\s{0,3}>\s?", "", lines[i]), embed_title, problems))
                i += 1
            out.append("")
            continue
        d = _DEFINITION_RE.match(line)
        term = next((k for k in range(len(out) - 1, -1, -1) if out[k].strip()), None)
        if d and term is not None and len(out[term].split()) <= DEFINITION_TERM_WORDS and not out[term].startswith("#"):
            # "Venue" then ":   OSDI 2022": the labelled line "Venue: OSDI 2022" (another definition: "; …")
            sep = "; " if re.search(r"[:：] \S", out[term]) else ": "
            out[term] = f"{out[term].rstrip()}{sep}{_inline(d.group(1), embed_title, problems)}"
            del out[term + 1 :]
            i += 1
            continue
        a = _ADMONITION_RE.match(line)
        if a:
            if a.group(3) is not None:  # a content tab: === "Summary"
                title = a.group(3).strip()
            else:
                title = a.group(2).strip() if a.group(2) is not None else a.group(1).replace("-", " ").capitalize()
            out += [f"{'#' * min(6, max(2, level + 1))} {_inline(title, embed_title, problems)}", ""] if title else []
            i += 1
            while i < len(lines) and (not lines[i].strip() or re.match(r"^(?: {4}|\t)", lines[i])):
                if not lines[i].strip() and not re.match(r"^(?: {4}|\t)", lines[i + 1] if i + 1 < len(lines) else ""):
                    break  # a blank line then text that is not indented: the admonition is over
                out.append(_inline(re.sub(r"^(?: {4}|\t)", "", lines[i]), embed_title, problems))
                i += 1
            out.append("")
            continue
        p = _BLOCK_PROPERTY_RE.match(line)
        if p:
            key = p.group(2).lower()
            if (
                key in LOGSEQ_HIDDEN_PROPERTIES
                or key.startswith(_LOGSEQ_HIDDEN_PREFIXES)
                or not (p.group(3) or "").strip()
            ):
                i += 1
                continue
            line = f"{p.group(1)}{p.group(2)}: {p.group(3)}"
        out.append(_inline(line, embed_title, problems))
        i += 1
    return "\n".join(out), problems


def _inline(line: str, embed_title: Callable[[str], str | None] | None, problems: list[str]) -> str:
    """One line outside code: embeds, wiki links, raw tags and shortcodes rewritten."""
    if "{%" in line:
        line = _RAW_TAG_RE.sub("", line)
    if "{{" in line:
        line = _SHORTCODE_RE.sub("", line)
        line = _MACRO_RE.sub(lambda m: m.group(2) if m.group(1) == "cloze" else "", line)
    if "((" in line:
        line = _BLOCK_REF_RE.sub("", line)
    if ":" in line:
        line = _ICON_RE.sub("", line)
    if line.startswith("#") and line.rstrip().endswith("}"):
        line = _HEADING_ATTRS_RE.sub(r"\1", line)
    if "[[" not in line:
        return line

    def embed(m: re.Match[str]) -> str:
        target = m.group(1).strip()
        if is_attachment(target):
            return ""
        title = embed_title(target) if embed_title else None
        if title is None:
            problems.append(f"embedded note '{target}' not found; dropped")
            return ""
        return title

    line = _EMBED_RE.sub(embed, line)
    return _WIKI_RE.sub(_wiki_link, line)
