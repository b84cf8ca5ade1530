"""The benchmark's scratch workspace: settings, data dirs with the model files pre-seeded, a private copy
of the corpus, the chunk texts ingest makes of it, and the one-note edit of the re-ingest stage."""

from __future__ import annotations

import gc
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from chromadb.api.shared_system_client import SharedSystemClient
from pydantic import ValidationError

from papernotes.corpus.chunking import PageAnalysis
from papernotes.corpus.errors import BadInputError, BadSourceError
from papernotes.corpus.readers import read_source
from papernotes.retrieval.embeddings import make_embeddings, prepare_minilm_files, token_counter
from papernotes.retrieval.indexing import analyze_pages
from papernotes.retrieval.settings import DEFAULT_EMBEDDING_MODEL, Settings


def base_settings() -> Settings:
    """The settings from the environment / ``.env`` (embedding model, chunk budget…); each stage replaces
    the data dir with :func:`with_data_dir`.

    Raises
    ------
    BadInputError
        naming the first invalid setting.
    """
    try:
        return Settings()
    except ValidationError as e:
        first = e.errors()[0]
        raise BadInputError(f"bad setting {'.'.join(str(x) for x in first['loc'])}: {first['msg']}") from None


def with_data_dir(settings: Settings, data_dir: Path) -> Settings:
    """A copy of ``settings`` whose state lives in ``data_dir``."""
    return settings.model_copy(update={"data_dir": data_dir})


def prepare_models(settings: Settings, work: Path) -> Path | None:
    """Assemble the offline model files once under ``work/models`` (not timed) and return that folder;
    None for a remote embedder (``openai:MODEL``), which needs no files.

    Raises
    ------
    ModelUnavailableError
        when the model files cannot be assembled (see ``prepare_minilm_files``).
    """
    if settings.embedding_model != DEFAULT_EMBEDDING_MODEL:
        return None
    cache = work / "models"
    prepare_minilm_files(cache)
    return cache


def fresh_data_dir(work: Path, name: str, models: Path | None) -> Path:
    """An empty data dir ``work/name`` (replacing any earlier one) with the prepared model folder copied
    in, so that model preparation is never part of a timed ingest."""
    d = work / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    if models is not None:
        shutil.copytree(models, d / "models")
    return d


def clear_chroma_cache() -> None:
    """Forget chromadb's per-path client systems (it caches one per persist directory per process), so
    deleted benchmark stores do not linger in memory across repetitions."""
    SharedSystemClient.clear_system_cache()
    gc.collect()


def copy_corpora(corpora: list[Path], dst: Path) -> list[Path]:
    """Copy each corpus (a directory, ``.git`` left out, or a file) to ``dst/<i>/<name>`` so that the
    edit stage never touches the user's notes; returns the copies in the order given.

    Raises
    ------
    BadSourceError
        for a corpus path that does not exist.
    """
    out = []
    for i, c in enumerate(corpora):
        if not c.exists():
            raise BadSourceError(f"corpus not found: {c}")
        target = dst / str(i) / c.name
        target.parent.mkdir(parents=True, exist_ok=True)
        if c.is_dir():
            shutil.copytree(c, target, ignore=shutil.ignore_patterns(".git"))
        else:
            shutil.copy2(c, target)
        out.append(target)
    return out


def analyses_of(settings: Settings, sources: list[str]) -> list[PageAnalysis]:
    """The page analyses (chunks included) exactly as ingest makes them: ``read_source`` →
    ``analyze_pages`` with the configured embedder's token counter, no parse cache.

    Raises
    ------
    BadSourceError
        for a source that cannot be read.
    """
    pages = [p for s in sources for p in read_source(s, settings.repos_dir).pages]
    return analyze_pages(pages, settings, token_counter(make_embeddings(settings)), None)


# ---------------------------------------------------------------------------------------------------
# the one-note edit

_NOT_PROSE = re.compile(r"^\s*(#|\||```|~~~|>|<|\{%|!\[|\[\^|[*+-]\s|\d+[.)]\s|---|===)")


@dataclass
class NoteEdit:
    """One line of one deep-note Markdown file, appended to with a different sentence per repetition.

    ``source`` is the page's source id (as in chunk metadata), ``line_no`` 0-based, ``note_chunks`` the
    number of chunks the note makes."""

    path: Path
    source: str
    line_no: int
    original: str
    note_chunks: int

    def apply(self, n: int) -> None:
        """Append the sentence numbered ``n`` to the line (replacing an earlier edit)."""
        lines = self.path.read_text(encoding="utf-8").split("\n")
        lines[self.line_no] = f"{self.original} The benchmark appended this sentence (edit {n})."
        self.path.write_text("\n".join(lines), encoding="utf-8")

    def restore(self) -> None:
        """Put the line back as it was."""
        lines = self.path.read_text(encoding="utf-8").split("\n")
        lines[self.line_no] = self.original
        self.path.write_text("\n".join(lines), encoding="utf-8")


def pick_edit(analyses: list[PageAnalysis], copies: list[Path]) -> NoteEdit:
    """The first (by source) deep note that is its own Markdown file inside ``copies``, and in it the first
    prose line under a level-2+ heading other than "Meta Info" (falling back to its first non-heading
    line).

    Raises
    ------
    BadInputError
        if no corpus holds a deep-note Markdown file.
    """
    cands = sorted(
        (
            a
            for a in analyses
            if a.is_deep_note and "#" not in a.page.source and a.page.source.lower().endswith((".md", ".markdown"))
        ),
        key=lambda a: a.page.source,
    )
    for a in cands:
        path = Path(a.page.origin).parent / a.page.source
        if not path.is_file() or not any(path.resolve().is_relative_to(c.resolve()) for c in copies):
            continue
        line = _first_prose_line(path.read_text(encoding="utf-8").split("\n"))
        if line is not None:
            return NoteEdit(path, a.page.source, line[0], line[1], len(a.chunks))
    raise BadInputError("no deep-note Markdown file in the corpus to edit (the edit stage needs one)")


def _first_prose_line(lines: list[str]) -> tuple[int, str] | None:
    """``(index, line)`` of the first prose line (at least 30 characters) under a level-2+ heading that is
    not "Meta Info", outside front matter and code fences; else the first non-heading line; else None."""
    fence, front, heading = False, lines[:1] == ["---"], ""
    fallback: tuple[int, str] | None = None
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
        if re.match(r"#{2,6}\s", s):
            heading = s.lstrip("#").strip().lower()
            continue
        if s.startswith("#"):
            continue
        if fallback is None:
            fallback = (i, ln)
        if heading and heading != "meta info" and len(s) >= 30 and not _NOT_PROSE.match(ln):
            return i, ln
    return fallback
