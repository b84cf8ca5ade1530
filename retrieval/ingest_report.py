"""What an ingest reports: its counts, warnings, repairs and stage times (:class:`IngestReport`), the
progress callback's shape, and the embedder wrapper that counts and times what ``index()`` embeds."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from langchain_core.embeddings import Embeddings

from papernotes.retrieval.store import embedding_name

Progress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class IngestReport:
    """Counts from one ingest (the CLI's final line; ``ingest --json``)."""

    sources: list[str] = field(default_factory=list)
    files: int = 0
    files_skipped: int = 0
    pages: int = 0
    chunks: int = 0
    added: int = 0
    updated: int = 0
    skipped: int = 0
    deleted: int = 0
    papers: int = 0
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    embedding_model: str = ""
    #: what the consistency check found and repaired (record manager, vector store, keyword index,
    #: catalog), one phrase each; empty when all parts agreed
    repaired: list[str] = field(default_factory=list)
    #: hidden folders and files not read (``.obsidian``, ``.trash``, ``.git``, …)
    hidden_skipped: int = 0
    #: the unfinished ingest this one completed (its start time, UTC ISO), if any
    resumed: str | None = None
    #: seconds per stage: ``read`` (files and git), ``chunk``, ``index`` (embed, write, record; ``embed``
    #: is its time inside the embedder), ``bm25`` and ``catalog`` (rebuilds; absent when not needed)
    stages: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class CountingEmbeddings(Embeddings):
    """Delegating embedder that reports progress and counts embedded texts."""

    def __init__(self, inner: Embeddings, total: int, progress: Progress | None):
        self.inner = inner
        self.total = total
        self.progress = progress
        self.embedded = 0
        self.seconds = 0.0
        self.name = embedding_name(inner)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        t = time.perf_counter()
        out = self.inner.embed_documents(texts)
        self.seconds += time.perf_counter() - t
        self.embedded += len(texts)
        if self.progress:
            self.progress("embed", self.embedded, self.total)
        return out

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)
