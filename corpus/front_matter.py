"""Front matter of a note: YAML (``---``, Jekyll, Obsidian, GitBook, Zotero exports) or TOML (``+++``,
Hugo), read with python-frontmatter's handlers; YAML that does not parse is recovered key by key."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import frontmatter
import yaml
from frontmatter.default_handlers import BaseHandler, YAMLHandler


class TomlHandler(BaseHandler):
    """python-frontmatter handler for Hugo's TOML front matter between ``+++`` lines, parsed with the
    standard library's ``tomllib`` (python-frontmatter's own TOML handler needs the ``toml`` package)."""

    FM_BOUNDARY = re.compile(r"^\+{3,}\s*$", re.MULTILINE)
    START_DELIMITER = END_DELIMITER = "+++"

    def load(self, fm: str, **kwargs: object) -> Any:
        """Parse TOML text into a dict (raises ``tomllib.TOMLDecodeError`` on bad TOML)."""
        return tomllib.loads(fm)


#: Most YAML aliases (``*name``) one front matter may use. Aliases share a node, so a few nested ones
#: stand for an exponential number of copies (the "billion laughs" expansion: 600 bytes became 12 GB
#: once flattened); a note's front matter needs a handful at most.
MAX_YAML_ALIASES = 20


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing front matter with more than :data:`MAX_YAML_ALIASES` aliases."""

    aliases = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_YAML_ALIASES:
                raise yaml.YAMLError(f"more than {MAX_YAML_ALIASES} aliases")
        return super().compose_node(parent, index)


class BoundedYAMLHandler(YAMLHandler):
    """python-frontmatter's YAML handler with :class:`_BoundedLoader` (raises ``yaml.YAMLError`` on bad
    YAML or too many aliases; such front matter is then read key by key, :func:`recover_keys`)."""

    def load(self, fm: str, **kwargs: Any) -> Any:
        kwargs.setdefault("Loader", _BoundedLoader)
        return super().load(fm, **kwargs)


#: Handlers tried in order: python-frontmatter's defaults (YAML, bounded; JSON), then TOML.
HANDLERS = [BoundedYAMLHandler() if isinstance(h, YAMLHandler) else h for h in frontmatter.handlers] + [TomlHandler()]

_YAML = BoundedYAMLHandler()  # python-frontmatter's YAML reading (PyYAML's safe loader, bounded)
_KEY_LINE_RE = re.compile(r"^([A-Za-z_][\w-]*)\s*:(?:\s+(.*))?$")


def flatten(meta: dict[str, Any]) -> dict[str, Any]:
    """Keep front matter JSON-friendly: dates → ISO strings, other odd values → str (nested maps and
    lists kept)."""
    out: dict[str, Any] = {}
    for k, v in meta.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[str(k)] = v
        elif isinstance(v, (list, tuple)):
            out[str(k)] = [x if isinstance(x, (str, int, float, bool)) else str(x) for x in v]
        elif isinstance(v, dict):
            out[str(k)] = flatten(v)
        elif hasattr(v, "isoformat"):
            out[str(k)] = v.isoformat()
        else:
            out[str(k)] = str(v)
    return out


def recover_keys(fm: str) -> dict[str, Any]:
    """``key: value`` pairs of YAML-like text that does not parse as a whole (``title: X++: a study``,
    a stray tab or quote): each top-level key with its indented or ``- item`` continuation lines is
    parsed on its own; a value that still does not parse is kept as its text (quotes stripped).
    Lines before the first key are ignored. Returns ``{}`` when no line looks like ``key: value``."""
    groups: list[tuple[str, list[str]]] = []
    for line in fm.splitlines():
        m = _KEY_LINE_RE.match(line)
        if m and not line[:1].isspace():
            groups.append((m.group(1), [m.group(2) or ""]))
        elif groups and (line[:1].isspace() or line.lstrip().startswith("- ")):
            groups[-1][1].append(line)
    out: dict[str, Any] = {}
    for key, lines in groups:
        first, rest = lines[0], lines[1:]
        try:
            value = _YAML.load("\n".join([f"v: {first}", *rest]))["v"]
        except Exception:  # noqa: BLE001 — any YAML error: the value's text is kept
            value = " ".join(x.strip() for x in [first, *rest] if x.strip()).strip("'\"")
        out[key] = value
    return out


_PROPERTY_RE = re.compile(r"^([A-Za-z][\w-]*)::\s*(.*)$")
_WIKI_LINK_RE = re.compile(r"\[\[([^\[\]]+)\]\]")
#: Logseq properties whose value is a comma-separated list (https://docs.logseq.com/#/page/properties).
LIST_PROPERTIES = frozenset({"tags", "alias", "aliases", "authors"})


def page_properties(text: str) -> tuple[dict[str, Any], str]:
    """``(properties, body)`` of a Logseq page that opens with page properties — ``key:: value`` lines
    before the first block (``title:: LoRA: …``, ``alias:: LoRA``, ``tags:: [[paper]], [[LLM]]``): keys
    lower-cased, ``[[page]]`` references read as their names, and ``tags``/``alias``/``authors`` split
    at commas into lists. The first block may be written as a bullet (``- title:: …`` and its indented
    ``key:: …`` lines): Logseq reads a first block of properties only as the page's properties
    (https://docs.logseq.com/#/page/properties). ``({}, text)`` when the text does not open that way."""
    lines = text.split("\n")
    props: dict[str, Any] = {}
    n = 0
    if lines and re.match(r"^-\s+[A-Za-z][\w-]*::", lines[0]):
        k = 1  # the block's own lines: indented under its bullet
        while k < len(lines) and lines[k][:1] in " \t" and _PROPERTY_RE.match(lines[k].strip()):
            k += 1
        lines = [lines[0][1:].strip(), *(ln.strip() for ln in lines[1:k]), *lines[k:]]
    while n < len(lines) and (m := _PROPERTY_RE.match(lines[n].strip())):
        key, value = m.group(1).lower(), _WIKI_LINK_RE.sub(r"\1", m.group(2)).strip()
        props[key] = [v.strip() for v in value.split(",") if v.strip()] if key in LIST_PROPERTIES else value
        n += 1
    return (props, "\n".join(lines[n:]).strip()) if props else ({}, text)


def split_front_matter(text: str) -> tuple[dict[str, Any], str, str | None]:
    """``(front_matter, body, problem)`` of a note's text.

    YAML between ``---`` lines and TOML between ``+++`` lines are read (python-frontmatter with
    :class:`TomlHandler`), and a Logseq page's leading ``key:: value`` lines (:func:`page_properties`). YAML that does not parse is recovered key by key (:func:`recover_keys`),
    with a problem message saying so; front matter that is not a ``key: value`` map at all (a list, a
    sentence — e.g. a page that merely starts with a ``---`` rule) keeps the whole text as the body,
    also with a problem message. ``problem`` is None otherwise. Dates become ISO strings.
    """
    src = text.lstrip("\ufeff")
    handler = frontmatter.detect_format(src, HANDLERS)
    if handler is None:
        props, rest = page_properties(src)
        return (props, rest, None) if props else ({}, text, None)
    try:
        fm, content = handler.split(src.strip())
    except ValueError:  # an opening delimiter without a closing one: not front matter
        return {}, text, None
    problem = None
    try:
        data = handler.load(fm)
    except Exception as e:  # noqa: BLE001 — yaml/toml parser errors of any kind
        data = recover_keys(fm) if isinstance(handler, YAMLHandler) else {}
        kind = "TOML" if isinstance(handler, TomlHandler) else "YAML"
        if not data:
            return {}, text, f"front matter is not valid {kind} ({type(e).__name__}); kept as text"
        problem = f"front matter is not valid {kind} ({type(e).__name__}); read key by key: {', '.join(data)}"
    if data is None:  # an empty block
        data = {}
    if not isinstance(data, dict):
        return {}, text, "front matter is not a 'key: value' map; kept as text"
    return lifted(flatten(data)), content.strip(), problem


def lifted(meta: dict[str, Any]) -> dict[str, Any]:
    """Front matter with the keys of its nested maps also at the top level, where the top level lacks
    them: the custom keys static-site generators file under a table (Zola's ``[extra]`` and
    ``[taxonomies]``, Hugo's ``params:``, Hexo/Jekyll ``paper: {url: …, venue: …}``) read like top-level
    ones. The nested maps stay as they are."""
    out = dict(meta)
    for v in meta.values():
        if isinstance(v, dict):
            for k, inner in v.items():
                out.setdefault(k, inner)
    return out
