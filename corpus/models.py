"""Plain data objects passed from the readers to the chunker, the catalog and the index."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

ChunkKind = Literal["paper_entry", "deep_note", "page_section", "table", "publication"]


@dataclass
class Publication:
    """One record of a researcher's publication page.

    ``venue`` is normalized (e.g. ``"SOSP 2023"``, ``"arXiv 2026"``) or ``None``; ``year`` is an int or None;
    ``venue_text`` is the venue line as the page writes it ("In Proceedings of the 2024 IEEE International
    Conference on Big Data (IEEE BigData 2024)"), empty when there is none.
    """

    title: str
    venue: str | None = None
    year: int | None = None
    venue_text: str = ""
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    links: dict[str, str] = field(default_factory=dict)
    subjects: list[str] = field(default_factory=list)


@dataclass
class Page:
    """One page of notes as read from a source.

    Attributes
    ----------
    title : the page title (first level-1 heading, SUMMARY.md entry, or first line of a text page).
    source : stable identifier of where the page came from, relative to its origin, e.g.
        ``"awesome-papers-repo/reading-notes/conference/sc-2023/iadeep.md"`` or
        ``"seeds/003_x.txt#p42"`` for the 42nd page of a one-file dump.
    origin : the ingested root the page was found under (a path or a git URL), used to scope cleanup.
    site_path : the GitBook site path (``"reading-notes/conference/sc-2023/iadeep"``) or ``""``.
    markdown : the page body (front matter removed).
    front_matter : parsed YAML front matter (may be empty).
    tags : hashtags from the front matter description or the body (``"llm_for_systems"``).
    publications : for publication pages, the parsed records (the markdown then holds the rest).
    order : position of the page in its source (SUMMARY.md order or file order).
    committed : for a git source, when the page's file last changed (commit time, seconds since the
        epoch); None otherwise.
    cited : the entry, in a BibTeX file beside the notes, of the citation key the page's front matter
        names (a :class:`~papernotes.corpus.bibtex_notes.BibEntry`); None otherwise.
    """

    title: str
    source: str
    origin: str
    markdown: str
    site_path: str = ""
    front_matter: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    publications: list[Publication] = field(default_factory=list)
    order: int = 0
    committed: int | None = None
    cited: Any = None


@dataclass
class Chunk:
    """A unit of retrieval. ``text`` is what is embedded and shown; it starts with the page title and the
    heading path. ``metadata`` holds only Chroma-valid values (str, int, float, bool; no None, no
    nested dicts, no empty lists)."""

    id: str
    text: str
    metadata: dict[str, Any]


#: Preference order of link labels when one URL must stand for a paper (the notes' link labels:
#: ``\[[Paper](…)] \[[arXiv](…)] \[[Code](…)]``).
URL_PREFERENCE = ("paper", "arxiv", "pdf", "doi", "openreview", "homepage", "project")
#: Labels of links that are not the paper: its code, slides or talk (kept in ``links``, never its ``url``).
NOT_THE_PAPER = frozenset({"code", "slides", "video", "talk", "poster", "blog", "notes"})


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    """The dataclass ``cls``'s field names, in order (read once per class: ``fields`` costs as much as
    the copy it serves)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        from dataclasses import fields

        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@dataclass
class Paper:
    """What is known about one paper: the fields a listing bullet, a deep note, a publication record and
    the merged catalog record all have. ``links`` maps a lower-case label ("paper", "code") to a URL;
    ``aliases`` are further names the paper is known by (searchable like its title)."""

    title: str
    system: str | None = None
    venue: str | None = None
    year: int | None = None
    affiliations: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    summary: str = ""
    tags: list[str] = field(default_factory=list)
    #: other names of the paper: front-matter ``aliases``, a renamed system's earlier title
    aliases: list[str] = field(default_factory=list)

    @property
    def url(self) -> str | None:
        """The link that best stands for the paper (:data:`URL_PREFERENCE`), else any link but its code,
        slides or talk (:data:`NOT_THE_PAPER`: a paper known only by its repository has no paper link),
        else None."""
        for k in URL_PREFERENCE:
            if self.links.get(k):
                return self.links[k]
        return next((v for k, v in self.links.items() if v and k not in NOT_THE_PAPER), None)

    @property
    def code(self) -> str | None:
        """The link to the paper's code (its ``code`` link), or None."""
        return self.links.get("code") or None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with every field (``papers --json`` record shape for a catalog record); its
        lists and dicts are the record's own (not copies: read them, do not change them), which makes it
        about 10x faster than ``dataclasses.asdict`` over a catalog."""
        return {name: getattr(self, name) for name in _field_names(type(self))}


@dataclass(kw_only=True)
class PaperEntry(Paper):
    """What one place in the notes says about one paper: a :class:`Paper` plus where it was said.

    ``kind`` is ``paper_entry`` (a listing bullet), ``deep_note`` (a note about one paper),
    ``publication``, ``pointer`` (an index bullet naming one of the reader's notes, whose ``links``
    ``notes`` is that note: an alias or title for the note's paper, never a record by itself) or ``note``
    (a note that names no paper: a ``pointer`` may title it); ``topic`` the
    heading path of the bullet on its page; ``site_path`` the page's GitBook site path (deep notes), for
    "Personal Notes" links; ``committed`` the commit time of its page's file in a git source (seconds
    since the epoch; None elsewhere)."""

    kind: str
    source: str
    page_title: str
    topic: str = ""
    site_path: str = ""
    committed: int | None = None


@dataclass(kw_only=True)
class PaperRecord(Paper):
    """One paper in the catalog, merged over every place the notes mention it: ``topics`` are the
    places' heading paths ("Page › heading"), ``sources`` their files, ``deep_note`` the per-paper
    note's source if there is one; ``history`` the venues the notes give it when they differ, oldest
    first (``["arXiv 2023", "SOSP 2024"]``, ``["MICRO 2021", "NVMW 2022"]``), else empty."""

    topics: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    deep_note: str | None = None
    history: list[str] = field(default_factory=list)

    @property
    def venues(self) -> list[str]:
        """Every venue the paper appeared at: its venue and those of its history ("MICRO 2021" and
        "NVMW 2022" for a paper presented at both), each once; empty when the notes give none."""
        return list(dict.fromkeys(v for v in [*self.history, self.venue or ""] if v))


@dataclass
class Warning_:
    """A problem with one file: reported, the file (or part) skipped, the rest ingested."""

    source: str
    message: str

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"
