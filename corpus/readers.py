"""Readers: turn a source (GitBook directory, Markdown/text file, one-file site dump, publication page,
git URL) into :class:`~papernotes.corpus.models.Page` objects, reporting bad files instead of failing on them."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Callable, Iterable, MutableMapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from papernotes.corpus.bibtex_notes import BibEntry, bibliography, citation_key
from papernotes.corpus.errors import BadSourceError
from papernotes.corpus.files import NOTE_SUFFIXES, NoteFiles, decode_note, note_files
from papernotes.corpus.front_matter import split_front_matter
from papernotes.corpus.git_times import commit_times, date_pages
from papernotes.corpus.markdown import (
    heading_sections,
    is_section_heading,
    parse_tokens,
    render_inline,
    unclosed_fence_line,
)
from papernotes.corpus.models import Page, Warning_
from papernotes.corpus.normalize import strip_controls
from papernotes.corpus.note_syntax import normalize_note_syntax, template_placeholder
from papernotes.corpus.org_notes import org_to_markdown
from papernotes.corpus.publications import looks_like_publication_page, parse_publication_page
from papernotes.corpus.site_nav import mkdocs_nav_titles, summary_order

#: Title of the note an ``![[name]]`` embed names, or None when there is none.
EmbedTitle = Callable[[str], str | None]
HASHTAG_RE = re.compile(r"(?<![\w/&#])\\?#([A-Za-z][\w\\-]*[A-Za-z0-9])")
GIT_URL_RE = re.compile(r"^(?:https?://|ssh://|git://|file://|git@[^:]+:).+|.+\.git/?$")


@dataclass
class ReadResult:
    """What one source yielded: pages in order, per-file warnings, and file counts."""

    origin: str
    pages: list[Page] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    files_read: int = 0
    files_skipped: int = 0
    cache_used: set[str] = field(default_factory=set)
    #: hidden folders and files (``.obsidian``, ``.trash``, ``.git``, ``.draft.md`` …) not read, as
    #: ``"<path name>/<relative path>"``
    hidden_skipped: list[str] = field(default_factory=list)
    #: files that could not be read and folders that could not be listed now (a permission, a lock), and
    #: files that are no text now (binary, no known encoding, empty): their earlier index is kept
    #: (``"<path name>/<relative path>"``)
    unreadable: list[str] = field(default_factory=list)


def is_git_url(source: str) -> bool:
    """True for sources to clone with git (http(s)/ssh/git/file URLs, ``git@host:repo``, ``*.git``)."""
    return bool(GIT_URL_RE.match(source)) and not Path(source).is_dir()


def slugify(text: str) -> str:
    """Lower-case ASCII slug (``"SOSP 2026"`` → ``"sosp-2026"``); never empty."""
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return s[:80] or hashlib.sha1(text.encode()).hexdigest()[:10]


def hashtags(text: str) -> list[str]:
    """Hashtags in ``text`` (``"#llm_for_systems"`` → ``"llm_for_systems"``; GitBook escapes removed)."""
    tags = []
    for m in HASHTAG_RE.finditer(text):
        tag = m.group(1).replace("\\", "")
        if tag not in tags:
            tags.append(tag)
    return tags


def _tags_from(meta: dict[str, Any], body: str) -> list[str]:
    tags: list[str] = []
    desc = meta.get("description")
    if isinstance(desc, str):
        tags += hashtags(desc)
    # the taxonomies of Jekyll and Hugo (`tags`, `categories`) and of Zotero/Obsidian exports (`keywords`)
    for key in ("tags", "categories", "keywords"):
        raw = meta.get(key)
        if isinstance(raw, list):
            tags += [str(t).lstrip("#") for t in raw if str(t).strip()]
        elif isinstance(raw, str):
            tags += [t.strip().lstrip("#") for t in re.split(r"[,\s]+", raw) if t.strip()]
    # a paragraph made only of hashtags near the top of the page (the dump keeps them in the body)
    for line in body.splitlines()[:12]:
        s = line.strip()
        if s and re.fullmatch(r"(?:\\?#[\w\\-]+\s*)+", s):
            tags += hashtags(s)
    out: list[str] = []
    for t in tags:
        if t and t not in out:
            out.append(t)
    return out


def _first_heading(body: str) -> str | None:
    h = heading_sections(body, 1)
    return h[0][1] if h else None


def site_path_for(rel: str) -> str:
    """GitBook site path of a file (``a/b/README.md`` → ``a/b``; ``a/c.md`` → ``a/c``)."""
    p = re.sub(r"\.(md|markdown|mdx|qmd|txt)$", "", rel)
    if p.endswith("/README") or p == "README":
        p = p[: -len("README")].rstrip("/")
    return p


def split_dump(text: str, heads: list[tuple[int, str]] | None = None) -> list[tuple[str, str]]:
    """Split a one-file site dump into ``(title, markdown)`` pages at level-1 headings outside code
    fences (``heads``: those headings when already found). Text before the first heading becomes a
    page with an empty title."""
    heads = heading_sections(text, 1) if heads is None else heads
    lines = text.splitlines(keepends=True)
    pages: list[tuple[str, str]] = []
    if not heads:
        return [("", text)]
    if "".join(lines[: heads[0][0]]).strip():
        pages.append(("", "".join(lines[: heads[0][0]])))
    for idx, (line, title) in enumerate(heads):
        end = heads[idx + 1][0] if idx + 1 < len(heads) else len(lines)
        pages.append((title, "".join(lines[line:end])))
    return pages


def _dump_site_paths(text: str) -> dict[str, str]:
    """Map page titles to site paths from the dump's own internal links (``[MLSys 2026](/reading-
    notes/conference/mlsys-2026)``): the label names the page the link points to."""
    out: dict[str, str] = {}
    for m in re.finditer(r"\[([^\]\n]{2,200})\]\((/(?:reading-notes|paper-list)/[^)\s#]+)\)", text):
        out.setdefault(m.group(1).strip().lower(), m.group(2).strip("/"))
    return out


#: A Jekyll post's file name: ``2018-03-18-some-title.md`` (the date is the post's).
_JEKYLL_NAME_RE = re.compile(r"^((?:19|20)\d\d-\d\d-\d\d)-(.+)$")


def file_title(rel: str) -> str:
    """A page title from its file name, the last resort: the stem without a Jekyll date prefix; for a
    folder's own page (``index.md``, ``_index.md``, ``README.md``: Hugo page bundles, GitBook) the
    folder's name; a Notion export's page id is dropped; a title written as a slug of capitalized words
    (``Efficient-Memory-Management-for-LLM-Serving``) reads with spaces. A Logseq page's file name is
    read back to its page name: ``%3A``-style escapes decoded, ``___`` (a namespace's ``/``) as ``/``
    (Logseq's ``:file/name-format :triple-lowbar``, https://docs.logseq.com/#/page/filename%20format)."""
    path = Path(rel.split("#", 1)[0])
    stem = path.stem
    if re.search(r"%[0-9A-Fa-f]{2}", stem):
        stem = unquote(stem)
    stem = stem.replace("___", "/")
    if stem.lower() in ("index", "_index", "readme") and path.parent.name:
        stem = path.parent.name
    m = _JEKYLL_NAME_RE.match(stem)
    title = _NOTION_ID_RE.sub("", m.group(2) if m else stem)
    parts = [p for p in re.split(r"[-_]", title) if p]
    if " " not in title and title[:1].isupper() and sum(p.isalpha() and len(p) > 1 for p in parts) >= SLUG_WORDS:
        return " ".join(parts)
    return title


#: Fewest words (of two letters or more) of a file or folder name read as a title slug (:func:`file_title`).
SLUG_WORDS = 3


#: A first line that is a property of the note ("Authors: …", "URL: …", Logseq's "tags:: …"), not its title.
_PROPERTY_LINE_RE = re.compile(
    r"^(?:authors?|url|link|paper|pdf|arxiv|doi|venue|conference|year|tags?|status|date|created|type|source"
    r"|category|categories|rating|published|aliases|id)\s*::?\s",
    re.IGNORECASE,
)
#: The id Notion appends to an exported page's file name ("Deep Residual Learning 8f3a…e7f8.md").
_NOTION_ID_RE = re.compile(r"\s+[0-9a-f]{32}$")


def _first_heading_any(tokens: list) -> str:
    """Text of the first heading of any level (links read as their labels), or "" — also when that
    heading names a section ("## Summary", :func:`~papernotes.corpus.markdown.is_section_heading`)."""
    for i, t in enumerate(tokens):
        if t.type == "heading_open":
            text = render_inline(tokens[i + 1]).text
            return "" if is_section_heading(text) else text
    return ""


def pages_from_text(
    text: str,
    rel: str,
    origin: str,
    order: int,
    title_hint: str | None = None,
    site_path: str = "",
    embed_title: EmbedTitle | None = None,
) -> tuple[list[Page], list[str]]:
    """Pages in one decoded file: a publication page, a dump (≥ 2 level-1 headings) or a single page.

    Notes-tool syntax (Obsidian links, embeds and callouts, Liquid and Hugo blocks) is rewritten first
    (:func:`~papernotes.corpus.note_syntax.normalize_note_syntax`; ``embed_title`` gives an embedded
    note's title); a notes-tool template (:func:`~papernotes.corpus.note_syntax.template_placeholder`)
    gives no page, with a problem naming its placeholder. A Jekyll post's file date becomes its front matter's ``date`` when that is unset.

    Returns ``(pages, problems)``; problems are per-file messages (the file is still used if it has
    content).
    """
    problems: list[str] = []
    if rel.lower().endswith(".org"):  # Org-mode: read as Markdown with front matter
        text = org_to_markdown(text)
    meta, body, problem = split_front_matter(text)
    if problem:
        problems.append(problem)
    placeholder = template_placeholder(meta, body)
    if placeholder:
        problems.append(f"a notes-tool template (unfilled {placeholder}), not a note; skipped")
        return [], problems
    body, syntax_problems = normalize_note_syntax(body, embed_title)
    problems += syntax_problems
    jekyll = _JEKYLL_NAME_RE.match(Path(rel).stem)
    if jekyll and not meta.get("date"):
        meta["date"] = jekyll.group(1)
    if not body.strip():
        problems.append("only front matter, no content; skipped" if meta else "empty file; skipped")
        return [], problems
    tokens = parse_tokens(body)  # parsed once for fences and headings
    fence = unclosed_fence_line(body, tokens)
    if fence is not None:
        problems.append(f"code fence opened at line {fence + 1} is never closed; the rest of the file is read as code")
    if rel.endswith(".txt") and looks_like_publication_page(body):
        pp = parse_publication_page(body)
        md = "\n\n".join(f"## {h}\n\n{b}" if h else b for h, b in pp.sections)
        return [
            Page(
                title=pp.person,
                source=rel,
                origin=origin,
                markdown=md,
                site_path=site_path,
                front_matter=meta,
                publications=pp.publications,
                order=order,
            )
        ], problems
    heads = heading_sections(body, 1, tokens)
    raw_title = meta.get("title")
    fm_title = raw_title.strip() if isinstance(raw_title, str) else ""
    if len(heads) >= 2 and not fm_title:  # a front-matter title declares one page, whatever its headings
        paths = _dump_site_paths(body)
        pages: list[Page] = []
        seen: dict[str, int] = {}
        for i, (title, md) in enumerate(split_dump(body, heads)):
            title = title or title_hint or file_title(rel)
            slug = slugify(title)
            seen[slug] = seen.get(slug, 0) + 1
            anchor = slug if seen[slug] == 1 else f"{slug}~{seen[slug]}"
            pmeta, pbody, _ = split_front_matter(md)
            pages.append(
                Page(
                    title=title,
                    source=f"{rel}#{anchor}",
                    origin=origin,
                    markdown=pbody,
                    site_path=paths.get(title.lower(), ""),
                    front_matter=pmeta,
                    tags=_tags_from(pmeta, pbody),
                    order=order * 10000 + i,
                )
            )
        return pages, problems
    # the front matter's title names the page; its first heading is then a section (and text before
    # that heading, the preamble, is the page's own, not the section's)
    title = fm_title or (heads[0][1] if heads else "") or title_hint or _first_heading_any(tokens)
    if not title:
        first = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
        # a line of links ("[paper](…) | [code](…)"), an image or HTML names no page
        usable = (
            first
            and not first.startswith(("#", "*", "-", "|", "`", "[", "!", "<"))
            and not _PROPERTY_LINE_RE.match(first)
        )
        title = first[:120] if usable else file_title(rel)
    return [
        Page(
            title=title,
            source=rel,
            origin=origin,
            markdown=body,
            site_path=site_path,
            front_matter=meta,
            tags=_tags_from(meta, body),
            order=order,
        )
    ], problems


def _directory_files(
    path: Path, walk: NoteFiles, orders: dict[Path, dict[str, tuple[int, str]]]
) -> list[tuple[Path, str, Path | None]]:
    """Note files under ``path`` (found by :func:`note_files`) as ``(file, source, gitbook_root)``,
    in reading order; ``orders`` gives the :func:`~papernotes.corpus.site_nav.summary_order` of each GitBook root.

    A GitBook is any folder holding a ``SUMMARY.md`` (``path`` itself or one below it, e.g. a cloned
    notes repository next to other notes); its pages come in SUMMARY.md order (unlisted pages after,
    by path) and its ``SUMMARY.md`` (the table of contents) is not a page. ``source`` is
    ``"<path name>/<relative path>"``; ``gitbook_root`` is None outside a GitBook.
    """
    found = walk.files
    roots = sorted(orders, key=lambda r: len(r.parts), reverse=True)

    def root_of(p: Path) -> Path | None:
        return next((r for r in roots if p.is_relative_to(r)), None)  # the innermost GitBook

    def key(p: Path):
        r = root_of(p)
        if r is None:
            return (p.relative_to(path).as_posix(), 0, "")
        inner = p.relative_to(r).as_posix()
        return (r.relative_to(path).as_posix(), orders[r].get(inner, (10**9, ""))[0], inner)

    files = [
        (p, f"{path.name}/{p.relative_to(path).as_posix()}", root_of(p))
        for p in sorted(found, key=key)
        if not (p.name == "SUMMARY.md" and p.parent in orders)
    ]
    return files


def read_path(
    path: Path,
    origin: str | None = None,
    cache: MutableMapping[str, Any] | None = None,
    follow_external_links: bool = False,
) -> ReadResult:
    """Read a directory (recursively; GitBooks in ``SUMMARY.md`` order, see :func:`_directory_files`;
    links and hidden folders as :func:`note_files` says, ``follow_external_links`` allowing links
    that leave ``path``) or a single file. Files that cannot be used are reported in ``warnings`` and
    counted in ``files_skipped``; the rest is read. A file not in UTF-8 is decoded in the encoding
    detected (see :func:`decode_note`), with a warning naming it.

    ``cache`` (optional, mutated): parsed pages by a hash of the file's bytes and reading context, so
    unchanged files are not parsed again; stale keys are the caller's to drop (see ``cache_used``).

    Raises
    ------
    BadSourceError
        if the path does not exist, or a directory holds no readable note at all.
    """
    path = path.expanduser()
    if not path.exists():
        raise BadSourceError(f"source not found: {path}")
    origin = origin or str(path.resolve())
    result = ReadResult(origin=origin)
    files: list[tuple[Path, str, Path | None]]
    orders: dict[Path, dict[str, tuple[int, str]]] = {}
    if not path.is_file() and not path.is_dir():  # a device, a pipe or a socket ("/dev/null")
        raise BadSourceError(f"{path} is neither a notes file nor a folder of notes (a device, pipe or socket)")
    if path.is_file():
        if path.suffix and path.suffix.lower() not in NOTE_SUFFIXES:
            raise BadSourceError(f"{path} is not a notes file (notes are .md, .markdown, .mdx, .qmd, .txt, .org)")
        files = [(path, path.name, None)]
    else:
        walk = note_files(path, follow_external_links)
        for summary_root in {p.parent for p in walk.files if p.name == "SUMMARY.md"}:
            orders[summary_root] = summary_order(summary_root, cache, result.cache_used)
        files = _directory_files(path, walk, orders)
        result.warnings += walk.warnings
        result.files_skipped += walk.links_skipped
        result.hidden_skipped = walk.hidden
        result.unreadable += walk.unlisted
        if not files:
            n = len(walk.warnings)
            why = f" ({n} {'entry' if n == 1 else 'entries'} skipped: {walk.warnings[0]})" if walk.warnings else ""
            raise BadSourceError(f"no notes (.md, .markdown, .mdx, .qmd, .txt, .org) found in {path}{why}")
    embed_title = _embed_titles(path, [f for f, _, _ in files])
    nav_titles: dict[Path, str] = {}
    if path.is_dir():  # every MkDocs site in the tree: the folders that hold notes, and their parents
        for folder in sorted({d for f, _, _ in files for d in f.parents if d == path or path in d.parents}):
            nav_titles.update(mkdocs_nav_titles(folder))
    for i, (file, rel, root) in enumerate(files):
        try:
            rel.encode("utf-8")
        except UnicodeEncodeError:  # a name in another encoding: no index or message can hold it as is
            shown = rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            result.warnings.append(Warning_(shown, "the file name is not UTF-8; rename it to ingest it; skipped"))
            result.files_skipped += 1
            continue
        try:
            data = file.read_bytes()
            if not data.strip():  # emptied (a sync that truncated it, an editor's crash): kept as it was
                result.warnings.append(
                    Warning_(rel, "empty file; skipped (what was indexed of it before, if anything, is kept)")
                )
                result.files_skipped += 1
                result.unreadable.append(rel)
                continue
            hint, site = None, ""
            if root is not None:  # a page of a GitBook: SUMMARY.md title and the site path
                inner = file.relative_to(root).as_posix()
                hint = orders[root].get(inner, (0, None))[1]
                site = site_path_for(inner)
            else:  # an MkDocs site: the title its nav gives the page, for a page without a heading
                hint = nav_titles.get(file.resolve())
            key = hashlib.sha1(repr((rel, origin, i, hint, site)).encode() + b"\x1f" + data).hexdigest()
            if cache is not None and key in cache:
                pages, problems = cache[key]
                result.cache_used.add(key)
                _collect(result, rel, pages, problems)
                continue
            text, encoding = decode_note(data, rel)
            text = strip_controls(text)  # a terminal escape in a note is no text, and must not reach a terminal
        except OSError as e:
            result.warnings.append(
                Warning_(
                    rel, f"cannot read ({e.strerror}); skipped (what was indexed of it before, if anything, is kept)"
                )
            )
            result.files_skipped += 1
            result.unreadable.append(rel)
            continue
        except ValueError as e:  # binary, or text in no known encoding: kept as it was, like an unreadable file
            result.warnings.append(Warning_(rel, f"{e} (what was indexed of it before, if anything, is kept)"))
            result.files_skipped += 1
            result.unreadable.append(rel)
            continue
        try:
            pages, problems = pages_from_text(text, rel, origin, i, hint, site, embed_title)
        except ValueError as e:  # a publication page whose records cannot be parsed
            pages, problems = [], [f"{e}; skipped"]
        if encoding:
            problems = [f"not UTF-8: decoded as {encoding} (detected); re-save it as UTF-8 to be sure", *problems]
        if cache is not None:
            cache[key] = (pages, problems)
            result.cache_used.add(key)
        _collect(result, rel, pages, problems)
    if path.is_dir():
        _cite_from_bibliographies(path, walk.bibliographies, result)
    return result


def _cite_from_bibliographies(path: Path, bibs: list[Path], result: ReadResult) -> None:
    """Give each of ``result``'s pages whose front matter names a citation key (``citekey``, org-roam's
    ``ROAM_REFS: cite:key``) the entry of that key in the BibTeX files ``bibs`` under ``path`` (a
    reference manager's export beside the notes, found by :func:`note_files`) as :attr:`Page.cited`, read as a BibTeX
    entry pasted in the note is (:func:`~papernotes.corpus.paper_notes.paper_note_entry`: full title,
    venue, year, link, authors where the note says nothing of them). A .bib that cannot be read, entries
    that cannot be parsed, a key given twice, and a key that no .bib holds are reported."""
    entries: dict[str, BibEntry] = {}
    found_any = False
    for bib in bibs:
        rel = f"{path.name}/{bib.relative_to(path).as_posix()}"
        found_any = True
        if not bib.is_file():
            result.warnings.append(Warning_(rel, "not a file; no bibliography read from it"))
            continue
        try:
            text, _ = decode_note(bib.read_bytes(), rel)
            found, problems = bibliography(text)
        except (OSError, ValueError) as e:
            result.warnings.append(Warning_(rel, f"{e}; its entries are not used for the notes citing them"))
            continue
        result.warnings += [Warning_(rel, p) for p in problems]
        for key, entry in found.items():
            first = entries.setdefault(key, entry)
            if first is not entry and first.title != entry.title:
                result.warnings.append(
                    Warning_(rel, f"key {key} is also in an earlier .bib file: the first entry is used")
                )
    for n, page in enumerate(result.pages):
        key = citation_key(page.front_matter)
        if not key or not found_any:
            continue
        if key in entries:
            result.pages[n] = replace(page, cited=entries[key])
        else:
            result.warnings.append(Warning_(page.source, f"cites {key}, which no .bib file under the notes holds"))


def _embed_titles(path: Path, files: list[Path]) -> EmbedTitle:
    """Title of the note an Obsidian ``![[name]]`` embed names, found among ``files`` by file name
    (``name`` or ``name.md``) or by path inside ``path`` (``folder/name``), case-insensitively: its
    front-matter title, else its first heading, else its file name; None when no note has that name."""
    by_name: dict[str, Path] = {}
    for f in files:
        by_name.setdefault(f.stem.lower(), f)
        by_name.setdefault(f.name.lower(), f)
        if path.is_dir():
            rel = f.relative_to(path).as_posix().lower()
            by_name.setdefault(rel, f)
            by_name.setdefault(rel.rsplit(".", 1)[0], f)
    titles: dict[Path, str] = {}

    def title(target: str) -> str | None:
        f = by_name.get(target.strip().lower())
        if f is None:
            return None
        if f not in titles:
            try:
                text, _ = decode_note(f.read_bytes(), f.name)
            except (OSError, ValueError):
                return None
            meta, body, _ = split_front_matter(text)
            fm_title = meta.get("title")
            heads = parse_tokens(body)
            titles[f] = (
                (fm_title.strip() if isinstance(fm_title, str) and fm_title.strip() else "")
                or _first_heading_any(heads)
                or file_title(f.name)
            )
        return titles[f]

    return title


def _collect(result: ReadResult, rel: str, pages: list[Page], problems: list[str]) -> None:
    result.warnings += [Warning_(rel, p) for p in problems]
    if pages:
        result.pages += pages
        result.files_read += 1
    else:
        result.files_skipped += 1


def clone_dir_name(url: str) -> str:
    """Folder name of a URL's clone: a readable slug plus a hash of the exact URL, so two URLs with the
    same slug (``a_b`` / ``a-b``, or long URLs sharing their first 60 characters) never share a clone."""
    return f"{slugify(re.sub(r'[.]git/?$', '', url))[:60]}-{hashlib.sha1(url.encode()).hexdigest()[:10]}"


def clone_or_pull(url: str, repos_dir: Path, timeout: float = 300.0) -> Path:
    """Clone ``url`` into ``repos_dir/<slug>`` with git, or fast-forward pull it if already cloned.

    Raises
    ------
    BadSourceError
        if git is missing, or the clone/pull fails or takes longer than ``timeout`` seconds.
    """
    dest = repos_dir / clone_dir_name(url)
    repos_dir.mkdir(parents=True, exist_ok=True)
    cmd = (
        ["git", "-C", str(dest), "pull", "--ff-only", "--quiet"]
        if (dest / ".git").is_dir()
        else ["git", "clone", "--quiet", "--depth", "1", url, str(dest)]
    )
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env={"GIT_TERMINAL_PROMPT": "0", "PATH": _path_env()}
        )
    except FileNotFoundError:
        raise BadSourceError("git is not installed; cannot read a git URL source") from None
    except subprocess.TimeoutExpired:
        raise BadSourceError(f"git timed out after {timeout:.0f} s on {url}") from None
    if proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        fatal = [m.split(":", 1)[1].strip() for m in msg if m.startswith("fatal:")]
        reason = fatal[0] if fatal else (msg[-1] if msg else "unknown error")
        raise BadSourceError(f"git could not fetch {url}: {reason}")
    return dest


def _path_env() -> str:

    return os.environ.get("PATH", "/usr/bin:/bin")


def read_source(
    source: str, repos_dir: Path, cache: MutableMapping[str, Any] | None = None, follow_external_links: bool = False
) -> ReadResult:
    """Read one configured source: a git URL (cloned/pulled under ``repos_dir``; its pages dated by
    their files' last commit, :mod:`~papernotes.corpus.git_times`) or a local path (``cache``,
    ``follow_external_links``: see :func:`read_path`)."""
    if is_git_url(source):
        clone = clone_or_pull(source, repos_dir)
        result = read_path(clone, origin=source, cache=cache, follow_external_links=follow_external_links)
        date_pages(result.pages, clone, commit_times(clone))
        return result
    return read_path(Path(source), cache=cache, follow_external_links=follow_external_links)


def read_sources(sources: Iterable[str], repos_dir: Path) -> list[ReadResult]:
    """Read several sources in order (each must exist; see :func:`read_source`)."""
    return [read_source(s, repos_dir) for s in sources]
