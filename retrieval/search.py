"""Hybrid retrieval: dense (Chroma) + sparse (BM25) fused by reciprocal rank fusion, near-duplicates
collapsed, list questions diversified; filters pushed into both sides; a LangChain retriever."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from papernotes.corpus.papers import title_key
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.embeddings import make_embeddings
from papernotes.retrieval.filters import Filters, build_where, detect_filters, matches_where
from papernotes.retrieval.indexing import ensure_index
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import make_client, vector_store
from papernotes.retrieval.terms import question_words

_LIST_RE = re.compile(
    r"^\s*(which|what)\b[^?]{0,80}\b(papers|systems|works|talks|studies|ones)\b|\b(list|enumerate|all the)\b",
    re.IGNORECASE,
)


def is_list_question(question: str) -> bool:
    """True for questions asking for several papers ("Which NSDI 2026 papers …", "list …")."""
    return bool(_LIST_RE.search(question))


@dataclass
class Hit:
    """One retrieved chunk: text, metadata, fused score, its dense similarity (cosine, 0–1) and BM25
    score (0 when absent from a side), and its rank (1-based)."""

    id: str
    text: str
    metadata: dict[str, Any]
    score: float
    dense: float = 0.0
    bm25: float = 0.0
    rank: int = 0

    def get(self, key: str) -> Any:
        return self.metadata.get(key)

    @property
    def group(self) -> str:
        """Collapse key: the paper (title key) when the chunk is about one, else the page title."""
        return title_key(self.metadata.get("paper_title") or self.metadata.get("page_title") or self.id)

    @property
    def body(self) -> str:
        """The chunk text without its first (title › section) line."""
        return self.text.split("\n", 1)[1] if "\n" in self.text else self.text


@dataclass
class SearchResult:
    """Ranked hits plus the filters applied (given or detected) and whether a fallback happened."""

    query: str
    hits: list[Hit]
    filters: Filters = field(default_factory=Filters)
    detected: bool = False
    fallback: bool = False
    is_list: bool = False
    pool: list[Hit] = field(default_factory=list)
    missing_venue: str | None = None


class Searcher:
    """Loaded retrieval state (embedder, Chroma collection, BM25 index); reuse across questions.

    Raises IndexMissingError (no index yet) or EmbeddingMismatchError on construction.
    """

    def __init__(self, settings: Settings, embeddings: Embeddings | None = None):
        ensure_index(settings)
        self.settings = settings
        self.embeddings = embeddings or make_embeddings(settings)
        self.store = vector_store(settings, self.embeddings, make_client(settings), create=False)
        self.bm25 = BM25Index.load(settings.bm25_dir)
        self._pos = {cid: i for i, cid in enumerate(self.bm25.ids)}
        self.topics = sorted({m.get("topic", "") for m in self.bm25.metadatas} - {""})
        self.sources = sorted({m.get("source", "") for m in self.bm25.metadatas} - {""})
        self.venues = sorted({m.get("venue", "") for m in self.bm25.metadatas} - {""})
        self.names = _name_index(self.bm25.metadatas)
        self._lock = threading.Lock()
        self._alltext: str | None = None

    def where(self, filters: Filters) -> dict[str, Any] | None:
        return build_where(filters, self.topics, self.sources)

    def _dense(self, query_vec: list[float], n: int, where) -> list[tuple[str, float, Document]]:
        coll = self.store._collection
        res = coll.query(
            query_embeddings=[query_vec],
            n_results=max(1, min(n, len(self.bm25) or n)),
            where=where,
            include=["documents", "metadatas", "distances"],
        )
        out = []
        for cid, doc, meta, dist in zip(
            res["ids"][0], res["documents"][0], res["metadatas"][0], res["distances"][0], strict=True
        ):
            out.append((cid, 1.0 - float(dist), Document(page_content=doc or "", metadata=meta or {}, id=cid)))
        return out

    def _fused(self, query: str, where, n: int) -> list[Hit]:
        qv = self.embeddings.embed_query(query)
        dense = self._dense(qv, n, where)
        sparse = self.bm25.search(query, n, where, drop=question_words())
        named = self._named(query, where)
        rrf = self.settings.rrf_k
        hits: dict[str, Hit] = {}
        for r, (cid, sim, doc) in enumerate(dense, 1):
            h = hits.setdefault(cid, Hit(cid, doc.page_content, dict(doc.metadata), 0.0))
            h.score += 1.0 / (rrf + r)
            h.dense = sim
        for r, (pos, s) in enumerate(sparse, 1):
            cid = self.bm25.ids[pos]
            h = hits.get(cid) or hits.setdefault(
                cid, Hit(cid, self.bm25.texts[pos], dict(self.bm25.metadatas[pos]), 0.0)
            )
            h.score += 1.0 / (rrf + r)
            h.bm25 = s
        bm25_rank = {pos: r for r, (pos, _) in enumerate(sparse)}
        named.sort(key=lambda p: bm25_rank.get(p, len(bm25_rank)))
        for r, pos in enumerate(named, 1):  # a third ranked list: chunks of papers named in the query
            cid = self.bm25.ids[pos]
            h = hits.get(cid) or hits.setdefault(
                cid, Hit(cid, self.bm25.texts[pos], dict(self.bm25.metadatas[pos]), 0.0)
            )
            h.score += 1.0 / (rrf + r)
        # chunks found only by BM25 still get their dense similarity (for the refusal threshold)
        missing = [h for h in hits.values() if h.dense == 0.0]
        if missing:
            got = self.store._collection.get(ids=[h.id for h in missing], include=["embeddings"])
            import numpy as np

            q = np.asarray(qv, dtype=np.float32)
            for cid, vec in zip(got["ids"], got["embeddings"], strict=True):
                hits[cid].dense = float(np.dot(q, np.asarray(vec, dtype=np.float32)))
        return sorted(hits.values(), key=lambda h: -h.score)

    def _named(self, query: str, where) -> list[int]:
        """Positions of chunks about a paper whose system name (or short title prefix) the query
        names as a word, e.g. "DistServe", "Mooncake"; filtered by ``where``."""
        out: list[int] = []
        for tok in re.findall(r"[A-Za-z][\w.+-]*[\w+]", query):
            tok = tok[:-2] if tok.endswith("'s") else tok
            for pos in self.names.get(tok.lower(), ()):
                if pos not in out and (where is None or matches_where(self.bm25.metadatas[pos], where)):
                    out.append(pos)
        return out

    def search(
        self, query: str, k: int | None = None, filters: Filters | None = None, auto_filters: bool = True
    ) -> SearchResult:
        """Top-``k`` hybrid search.

        Given ``filters`` are applied as they are; otherwise venues/years named in the query are
        detected and applied, falling back to unfiltered search when the filtered one finds nothing.
        Near-duplicates (same paper/page and section, or the same text) collapse to the best; at most
        two chunks per paper/page, one for list questions.
        """
        k = k or self.settings.k
        n = self.settings.candidates
        given = filters if filters else None
        f = given or (detect_filters(query, self.venues) if auto_filters else Filters())
        is_list = is_list_question(query)
        with self._lock:
            hits = self._fused(query, self.where(f), n) if f else self._fused(query, None, n)
            fallback = False
            if f and not hits and given is None:
                hits, fallback = self._fused(query, None, n), True
        per_group = 1 if is_list else 2
        kept: list[Hit] = []
        pool: list[Hit] = []
        seen_sections: set[tuple[str, str]] = set()
        seen_text: set[str] = set()
        groups: dict[str, int] = {}
        for h in hits:
            sec = (h.group, (h.get("section") or "").lower())
            norm = re.sub(r"\W+", "", h.body.lower())[:400]
            if norm in seen_text:
                continue  # the same text in two copies of the notes (dump and directory)
            seen_text.add(norm)
            pool.append(h)
            if len(kept) >= k or (sec in seen_sections and h.get("kind") != "deep_note"):
                continue
            if groups.get(h.group, 0) >= per_group:
                continue
            seen_sections.add(sec)
            groups[h.group] = groups.get(h.group, 0) + 1
            kept.append(h)
        for i, h in enumerate(kept, 1):
            h.rank = i
        return SearchResult(
            query=query,
            hits=kept,
            filters=f if not fallback else Filters(),
            detected=given is None and bool(f),
            fallback=fallback,
            is_list=is_list,
            pool=pool,
            missing_venue=f.venue if fallback else None,
        )

    def corpus_has(self, text: str) -> bool:
        """True if ``text`` occurs (case-insensitively) anywhere in the indexed chunks."""
        if self._alltext is None:
            self._alltext = "\n".join(self.bm25.texts).lower()
        return text.lower() in self._alltext


def _name_index(metadatas: list[dict[str, Any]]) -> dict[str, list[int]]:
    """``lower-cased system name → chunk positions`` from chunk metadata (``system``, or a title's
    prefix before ":" of at most three words). Names of three letters or fewer, and names that are
    ordinary question words, are left out: they match too much."""
    qw = question_words()
    names: dict[str, list[int]] = {}
    for pos, m in enumerate(metadatas):
        cands = {str(m.get("system") or "")}
        title = str(m.get("paper_title") or "")
        if ":" in title and len(title.split(":", 1)[0].split()) <= 3:
            cands.add(title.split(":", 1)[0])
        for c in cands:
            c = c.strip().lower()
            if len(c) >= 4 and c not in qw and " " not in c:
                names.setdefault(c, []).append(pos)
    return names


class HybridRetriever(BaseRetriever):
    """LangChain retriever over :class:`Searcher` (RRF of Chroma and BM25). Documents carry the fused
    ``score``, ``dense`` and ``bm25`` in metadata."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    searcher: Any
    k: int = 5
    filters: Any = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        res = self.searcher.search(query, self.k, self.filters)
        return [
            Document(
                page_content=h.text,
                id=h.id,
                metadata={**h.metadata, "score": h.score, "dense": h.dense, "bm25": h.bm25},
            )
            for h in res.hits
        ]
