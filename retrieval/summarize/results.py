"""The result objects of a conference summary (the ``summarize --json`` contract)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


def plural(n: int, noun: str) -> str:
    """``"1 paper"``, ``"3 papers"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass
class PaperItem:
    """One paper of the summary; ``n`` is its citation marker (position in the whole summary, from 1)."""

    n: int
    title: str
    system: str | None
    affiliations: list[str]
    summary: str
    url: str | None
    sources: list[str]
    section: str = ""  # the paper's place in the notes ("LLM Inference › KV Cache Management")

    def as_dict(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "title": self.title,
            "system": self.system,
            "affiliations": self.affiliations,
            "summary": self.summary,
            "url": self.url,
            "sources": self.sources,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PaperItem:
        """The item :meth:`as_dict` gave (``section`` is not in it and stays empty)."""
        return cls(**{k: d[k] for k in ("n", "title", "system", "affiliations", "summary", "url", "sources")})


@dataclass
class Group:
    """Papers under one heading path of the notes, in the notes' order; ``summary`` only with a model."""

    name: str
    papers: list[PaperItem] = field(default_factory=list)
    summary: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "papers": [p.as_dict() for p in self.papers], "summary": self.summary}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Group:
        """The group :meth:`as_dict` gave."""
        return cls(d["name"], [PaperItem.from_dict(p) for p in d["papers"]], d.get("summary"))


@dataclass
class ConferenceSummary:
    """The summary of one venue's papers on one topic (``summarize --json`` contract plus extras).

    ``mode`` is "llm" when the overview was written by a model, else "extractive". ``message`` is set
    when there is nothing to summarize (no papers on the topic at that venue). ``note`` says why a
    configured model was not used. ``total_papers`` counts every catalog paper of the venue.
    """

    venue: str
    topic: str
    topic_label: str
    groups: list[Group]
    overview: str
    mode: str
    total_papers: int = 0
    when: str | None = None
    where: str | None = None
    acceptance_rate: str | None = None
    homepage: str | None = None
    message: str | None = None
    note: str | None = None
    dropped_citations: int = 0
    model_calls: int = 0

    @property
    def paper_count(self) -> int:
        return sum(len(g.papers) for g in self.groups)

    @property
    def papers(self) -> list[PaperItem]:
        return [p for g in self.groups for p in g.papers]

    def as_dict(self) -> dict[str, Any]:
        return {
            "venue": self.venue,
            "topic": self.topic,
            "paper_count": self.paper_count,
            "groups": [g.as_dict() for g in self.groups],
            "overview": self.overview,
            "mode": self.mode,
            "topic_label": self.topic_label,
            "total_papers": self.total_papers,
            "when": self.when,
            "where": self.where,
            "acceptance_rate": self.acceptance_rate,
            "homepage": self.homepage,
            "message": self.message,
            "note": self.note,
            "dropped_citations": self.dropped_citations,
            "model_calls": self.model_calls,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ConferenceSummary:
        """The summary :meth:`as_dict` gave (a ``summarize --json`` object or file): ``from_dict(d).as_dict()
        == d``.

        Raises
        ------
        KeyError
            When a field of the contract is missing.
        """
        groups = [Group.from_dict(g) for g in d["groups"]]
        fields = ("venue", "topic", "topic_label", "overview", "mode")
        extras = (
            "total_papers",
            "when",
            "where",
            "acceptance_rate",
            "homepage",
            "message",
            "note",
            "dropped_citations",
            "model_calls",
        )
        return cls(groups=groups, **{k: d[k] for k in fields}, **{k: d[k] for k in extras if k in d})
