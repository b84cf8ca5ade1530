"""Distractor notes for the scale benchmark (``bench/run.py --scale N``): N − 1 renamed, reshuffled
copies of the real notes, and the check that none of their chunks is a near-duplicate of a real one.

Each copy keeps the notes' shape (files, headings, listings, tables, front matter, so the parser makes
pages, chunks and catalog entries of the same kinds and sizes) and changes what they say:

- every paper title, system name and venue series the catalog knows is replaced by a made-up one
  (pseudo-words built from syllables, different in each copy), longest name first;
- every number is replaced by another of the same number of digits (figures, years, table cells);
- the sentences of the prose lines are pooled over all notes of the copy, shuffled, and dealt back, so a
  paragraph mixes sentences of different papers; the texts of list items are shuffled the same way (as
  whole items, markers and indentation kept); headings, tables and ``Key: value`` lines stay in place.

So the distractors compete with the real notes for the same words without repeating them; the dev
questions' answers stay in the real notes only.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from papernotes.corpus.chunking import PageAnalysis
from papernotes.corpus.venues import split_venue

#: Text files rewritten into each copy (others are not copied: the readers index only these).
TEXT_SUFFIXES = (".md", ".markdown", ".txt")
#: Cosine similarity at or above which a distractor chunk counts as a near-duplicate of a real one.
NEAR_DUPLICATE = 0.95

_SYLLABLES = "ka lo mi ra ze tu vo ni sa pe qu ri da fo gu le xo ma ti ne bo cy".split()
_NUMBER = re.compile(r"\d+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_STRUCTURE = re.compile(r"^\s*(#|\||```|~~~|>|<|\{%|!\[|\[\^|---|===|[A-Za-z][\w -]{0,30}:(\s|$))")
_ITEM = re.compile(r"^(\s*(?:[*+-]|\d+[.)])\s+)(.*)$")


@dataclass(frozen=True)
class Renamer:
    """The names one copy replaces (``mapping``: real name, lower-cased → made up) as one
    case-insensitive alternation regex."""

    mapping: dict[str, str]
    pattern: re.Pattern[str] | None

    def __call__(self, text: str) -> str:
        if self.pattern is None:
            return text
        return self.pattern.sub(lambda m: self.mapping[m.group(0).lower()], text)


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(syllables)).capitalize()


def renamer(analyses: list[PageAnalysis], rng: random.Random) -> Renamer:
    """Made-up replacements for the page titles and the catalog's titles, system names and venue series
    (names of at least 3 characters, page titles of at least 8; a title keeps its number of words)."""
    names: dict[str, str] = {}
    for a in analyses:
        title = a.page.title.strip()
        if len(title) >= 8 and title not in names:  # a page's own heading (deep notes, venue pages)
            names[title] = " ".join(_word(rng, 2 + len(w) % 2) for w in title.split())
        for e in a.entries:
            if e.title and len(e.title) >= 3 and e.title not in names:
                names[e.title] = " ".join(_word(rng, 2 + len(w) % 2) for w in e.title.split())
            if e.system and len(e.system) >= 3 and e.system not in names:
                names[e.system] = _word(rng, 3)
            series = split_venue(e.venue)[0] if e.venue else ""
            if len(series) >= 3 and series not in names:
                names[series] = _word(rng, 2).upper()
    if not names:
        return Renamer({}, None)
    lower = {k.lower(): v for k, v in names.items()}
    alternation = "|".join(re.escape(n) for n in sorted(lower, key=len, reverse=True))
    return Renamer(lower, re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])", re.IGNORECASE))


def _renumber(text: str, rng: random.Random) -> str:
    def other(m: re.Match[str]) -> str:
        n = len(m.group(0))
        lo = 10 ** (n - 1) if n > 1 else 0
        return str(rng.randrange(lo, 10**n))

    return _NUMBER.sub(other, text)


def _text_lines(lines: list[str]) -> tuple[list[int], list[int]]:
    """Indexes of ``(prose lines, list items)`` outside front matter and code fences; headings, tables,
    quotes, HTML and ``Key: value`` lines are neither."""
    prose: list[int] = []
    items: list[int] = []
    fence, front = False, lines[:1] == ["---"]
    for i, ln in enumerate(lines):
        s = ln.strip()
        if front:
            front = not (i > 0 and s == "---")
            continue
        if s.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or not s:
            continue
        if _ITEM.match(ln):
            items.append(i)
        elif not _STRUCTURE.match(ln):
            prose.append(i)
    return prose, items


def make_copy(files: list[tuple[Path, Path]], rename: Renamer, rng: random.Random) -> int:
    """Write one distractor copy: ``files`` are ``(real file, copy path)`` pairs. Returns the number of
    prose sentences and list items shuffled across the copy's notes."""
    texts = [_renumber(rename(src.read_text(encoding="utf-8", errors="replace")), rng) for src, _ in files]
    split = [t.split("\n") for t in texts]
    slots: list[tuple[int, int, int]] = []  # (file, line, sentences on it)
    pool: list[str] = []
    items: list[tuple[int, int, str]] = []  # (file, line, marker with indentation)
    item_texts: list[str] = []
    for f, lines in enumerate(split):
        prose, listed = _text_lines(lines)
        for i in prose:
            sentences = _SENTENCE_END.split(lines[i].strip())
            slots.append((f, i, len(sentences)))
            pool += sentences
        for i in listed:
            m = _ITEM.match(lines[i])
            assert m is not None
            items.append((f, i, m.group(1)))
            item_texts.append(m.group(2))
    rng.shuffle(pool)
    rng.shuffle(item_texts)
    it = iter(pool)
    for f, i, n in slots:
        split[f][i] = " ".join(next(it) for _ in range(n))
    for (f, i, marker), text in zip(items, item_texts, strict=True):
        split[f][i] = marker + text
    for (_, dst), lines in zip(files, split, strict=True):
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text("\n".join(lines), encoding="utf-8")
    return len(pool) + len(item_texts)


def make_distractors(
    copies: list[Path], analyses: list[PageAnalysis], n: int, dst: Path, seed: int = 16
) -> tuple[list[Path], int]:
    """``n`` distractor copies of the corpus ``copies`` under ``dst/d<i>/<name>-d<i>``.

    Returns
    -------
    ``(the copies' source folders/files, one list per copy in order, flattened; sentences shuffled in all)``.
    """
    out: list[Path] = []
    shuffled = 0
    for i in range(1, n + 1):
        rng = random.Random(seed * 1000 + i)
        rename = renamer(analyses, rng)
        for c in copies:
            target = dst / f"d{i}" / f"{c.name}-d{i}"
            if c.is_dir():
                files = [(f, target / f.relative_to(c)) for f in sorted(c.rglob("*")) if _is_note(f, c)]
            else:
                files = [(c, target)]
            shuffled += make_copy(files, rename, rng)
            out.append(target)
    return out, shuffled


def _is_note(f: Path, root: Path) -> bool:
    rel = f.relative_to(root).parts
    return f.is_file() and f.suffix.lower() in TEXT_SUFFIXES and not any(p.startswith(".") for p in rel)


def near_duplicates(
    vectors: np.ndarray, is_real: np.ndarray, threshold: float = NEAR_DUPLICATE, block: int = 4096
) -> dict[str, float | int]:
    """How close the distractor chunks come to the real ones.

    Parameters
    ----------
    vectors
        ``(chunks, dim)`` unit-norm embeddings (cosine = dot product).
    is_real
        ``(chunks,)`` bool: the chunk comes from the real notes.

    Returns
    -------
    ``{"distractor_chunks", "near_duplicates"`` (distractor chunks whose best cosine with a real chunk
    is ≥ ``threshold``), ``"max_cosine"``, ``"p99_cosine"``, ``"threshold"}``.
    """
    real, fake = vectors[is_real], vectors[~is_real]
    if not len(real) or not len(fake):
        return {"distractor_chunks": int(len(fake)), "near_duplicates": 0, "max_cosine": 0.0, "p99_cosine": 0.0}
    best = np.concatenate([(fake[s : s + block] @ real.T).max(axis=1) for s in range(0, len(fake), block)])
    return {
        "distractor_chunks": int(len(fake)),
        "near_duplicates": int((best >= threshold).sum()),
        "max_cosine": round(float(best.max()), 4),
        "p99_cosine": round(float(np.percentile(best, 99)), 4),
        "threshold": threshold,
    }
