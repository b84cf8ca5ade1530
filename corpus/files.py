"""The files of a notes folder and their text: which files are notes (links followed inside the
folder, hidden folders skipped) and how their bytes become text (UTF-8, else the detected encoding)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from papernotes.corpus.models import Warning_

#: File endings read as notes; everything else under a directory is ignored. MDX (Docusaurus) and
#: Quarto notes are Markdown with front matter.
NOTE_SUFFIXES = {".md", ".markdown", ".mdx", ".qmd", ".txt", ".org"}


#: Byte order marks of the UTF-16/32 encodings: such text holds NUL bytes and is still text.
_WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")
#: Encodings preferred when charset-normalizer finds several equally plausible ones (short Latin
#: texts decode cleanly in many single-byte code pages): Windows-1252, what Windows editors save.
PREFERRED_ENCODINGS = ("cp1252",)


#: Fewest bytes of a non-UTF-8 note whose encoding (other than :data:`PREFERRED_ENCODINGS`) is guessed
#: without a language read in it (charset-normalizer's ``coherence`` 0): below it, many 8-bit code pages
#: fit a text equally well.
MIN_GUESSED_BYTES = 512


def decode_note(data: bytes, name: str) -> tuple[str, str | None]:
    """Decode a note's bytes: UTF-8 (a BOM is dropped), else the encoding charset-normalizer detects.

    Returns
    -------
    ``(text, encoding)``: ``encoding`` is None for UTF-8, else the detected codec's name (e.g.
    ``"cp1252"``), for a warning. When several encodings are equally plausible (no more chaos, about
    as coherent as the best), one of :data:`PREFERRED_ENCODINGS` is taken; a UTF-16/32 reading is
    taken only with a byte order mark.

    Raises
    ------
    ValueError
        with a user-facing reason if the bytes are binary (NUL bytes without a UTF-16/32 byte order
        mark), are text in no encoding charset-normalizer knows, or, not UTF-8 nor cp1252, are too short
        (under :data:`MIN_GUESSED_BYTES`) for any language to be read in them.
    """
    from charset_normalizer import from_bytes

    if b"\x00" in data[:8192] and not data.startswith(_WIDE_BOMS):
        raise ValueError("binary file, not text; skipped")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        pass
    # without a byte order mark, a "UTF-16/32" reading of NUL-free bytes is a misreading of a few
    # 8-bit characters (e.g. "café" in cp1252 as one CJK character)
    matches = [m for m in from_bytes(data) if data.startswith(_WIDE_BOMS) or not m.encoding.startswith("utf_")]
    if not matches:
        raise ValueError("not UTF-8 and no known text encoding fits; skipped — re-save it as UTF-8")
    best = min(matches, key=lambda m: (m.chaos, -m.coherence))
    tied = [m for m in matches if m.chaos <= best.chaos + 0.01 and m.coherence >= best.coherence - 0.1]
    # a match stands for every encoding that decodes the bytes to the same text (could_be_from_charset)
    preferred = ((m, enc) for enc in PREFERRED_ENCODINGS for m in tied if enc in m.could_be_from_charset)
    chosen, name = next(preferred, (best, best.encoding))
    if name not in PREFERRED_ENCODINGS and chosen.coherence == 0 and len(data) < MIN_GUESSED_BYTES:
        # no language read in a short text: a dozen 8-bit code pages decode it equally well (bytes of a
        # bad sync, "\xff\xfe\xfd\xfc garbage \x80\x81", read as Russian); the earlier version is kept
        raise ValueError("not UTF-8, and too short to tell its encoding; skipped — re-save it as UTF-8")
    return str(chosen).lstrip("\ufeff"), name


@dataclass
class NoteFiles:
    """What :func:`note_files` found: note files (paths under the source, links not resolved),
    warnings about links and entries that are no regular files, and the hidden folders/files not read
    (labelled like sources)."""

    files: list[Path] = field(default_factory=list)
    warnings: list[Warning_] = field(default_factory=list)
    hidden: list[str] = field(default_factory=list)
    #: links skipped (broken, leading outside, to no regular file) and entries named like notes that are
    #: no regular file (a pipe, a socket, a device)
    links_skipped: int = 0
    #: folders that could not be listed (no permission), labelled like sources
    unlisted: list[str] = field(default_factory=list)
    #: BibTeX files (``*.bib``) met on the same walk, by the same rules for hidden entries and links
    bibliographies: list[Path] = field(default_factory=list)


def note_files(path: Path, follow_external: bool = False) -> NoteFiles:
    """Every note file under the folder ``path``, each real file once.

    The folder tree is walked first without following links, then the symbolic links found in it (and
    in the folders they lead to): a link to a file or folder inside ``path`` (resolved) is followed,
    a link that leads outside it is skipped with a warning unless ``follow_external``, and a broken
    link (a missing target, a loop) is skipped with a warning. A folder or file reached twice (a link
    to a folder already read, a cycle) is read once, under the first path that reached it. Hidden
    folders and files (``.obsidian``, ``.trash``, ``.git``, …) are not read; they are listed in
    ``hidden``.
    """
    root = path.resolve()
    out = NoteFiles()
    seen_dirs: set[Path] = set()
    seen_files: set[Path] = set()
    links: list[Path] = []

    def label(p: Path) -> str:
        return f"{path.name}/{p.relative_to(path).as_posix()}"

    def take(p: Path, real: Path) -> None:
        if real not in seen_files:
            seen_files.add(real)
            out.files.append(p)

    def walk(d: Path) -> None:
        # each folder with its real path: a folder or file met as a plain entry (not a link) of a folder
        # is that folder's real path joined with its name, so only the start needs resolving
        stack = [(d, d.resolve())]
        while stack:
            cur, real = stack.pop()
            if real in seen_dirs:
                continue
            seen_dirs.add(real)
            try:
                entries = sorted(os.scandir(cur), key=lambda d: d.name)
            except OSError as err:
                where = label(cur) if cur != path else path.name
                out.warnings.append(
                    Warning_(
                        where, f"cannot list ({err.strerror}); what was indexed of it before, if anything, is kept"
                    )
                )
                out.unlisted.append(where)
                continue
            subdirs = []
            for entry in entries:
                p = cur / entry.name
                if p.suffix.lower() == ".bib" and not entry.name.startswith("."):
                    out.bibliographies.append(p)
                if entry.name.startswith("."):
                    if entry.is_dir() or p.suffix.lower() in NOTE_SUFFIXES:
                        out.hidden.append(label(p))
                elif entry.is_symlink():
                    links.append(p)
                elif entry.is_dir(follow_symlinks=False):
                    subdirs.append((p, real / entry.name))
                elif entry.is_file(follow_symlinks=False) and p.suffix.lower() in NOTE_SUFFIXES:
                    take(p, real / entry.name)
                elif p.suffix.lower() in NOTE_SUFFIXES:  # named like a note: a pipe, a socket, a device
                    out.warnings.append(Warning_(label(p), "not a regular file (a pipe, socket or device); skipped"))
                    out.links_skipped += 1
            stack.extend(reversed(subdirs))

    walk(path)
    while links:  # links last, so a file or folder reached directly keeps its own path
        link = links.pop(0)
        try:
            target = link.resolve(strict=True)
        except (OSError, RuntimeError):  # missing target, or a loop (RuntimeError before Python 3.13)
            out.warnings.append(Warning_(label(link), f"broken link (→ {os.readlink(link)}); skipped"))
            out.links_skipped += 1
            continue
        if not target.is_relative_to(root) and not follow_external:
            out.warnings.append(
                Warning_(
                    label(link),
                    f"link leads outside {root} (→ {target}); skipped — pass --follow-external-links to read it",
                )
            )
            out.links_skipped += 1
            continue
        if link.suffix.lower() == ".bib":
            out.bibliographies.append(link)
        if target.is_dir():
            walk(link)
        elif target.is_file() and (link.suffix.lower() in NOTE_SUFFIXES or target.suffix.lower() in NOTE_SUFFIXES):
            take(link, target)
        elif link.suffix.lower() in NOTE_SUFFIXES:
            out.warnings.append(
                Warning_(label(link), f"link to no regular file (→ {target}: a pipe, socket or device); skipped")
            )
            out.links_skipped += 1
    return out
