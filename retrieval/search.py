"""Hybrid retrieval: dense (Chroma) + sparse (BM25) fused by reciprocal rank fusion, near-duplicates
collapsed, list questions diversified; filters pushed into both sides; a LangChain retriever."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from langchain_chroma import Chroma
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, PrivateAttr

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


class HybridRetriever(BaseRetriever):
    """The hybrid retriever: Chroma (dense, cosine) and BM25 rankings plus a ranking of the chunks about
    papers the question names, fused by reciprocal rank fusion; filters applied to every side;
    near-duplicates collapsed. The one retrieval path of the CLI, chat, the Discord bot, eval and bench.

    As a LangChain retriever, ``invoke(question)`` returns the top ``k`` chunks as Documents whose
    metadata carries the fused ``score``, the ``dense`` similarity and the ``bm25`` score; :meth:`search`
    returns the same ranking with the detected filters and the wider candidate pool. Build one with
    :meth:`from_settings` and reuse it across questions (it holds the embedder, the store and the BM25
    index).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    settings: Settings
    embeddings: Embeddings
    store: Chroma
    bm25: BM25Index
    k: int = 5
    filters: Filters | None = None

    _names: dict[str, list[int]] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _alltext: str | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        self._names = _name_index(self.bm25.metadatas)

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        embeddings: Embeddings | None = None,
        k: int | None = None,
        filters: Filters | None = None,
    ) -> HybridRetriever:
        """Open the index of ``settings.data_dir`` (and the Chroma server, if configured).

        Raises
        ------
        IndexMissingError
            when there is no index yet.
        EmbeddingMismatchError
            when the index was built with another embedding model.
        StoreUnavailableError
            when the Chroma server cannot be reached.
        """
        ensure_index(settings)
        emb = embeddings or make_embeddings(settings)
        store = vector_store(settings, emb, make_client(settings), create=False)
        return cls(
            settings=settings,
            embeddings=emb,
            store=store,
            bm25=BM25Index.load(settings.bm25_dir),
            k=k or settings.k,
            filters=filters,
        )

    @property
    def topics(self) -> list[str]:
        return sorted({m.get("topic", "") for m in self.bm25.metadatas} - {""})

    @property
    def sources(self) -> list[str]:
        return sorted({m.get("source", "") for m in self.bm25.metadatas} - {""})

    @property
    def venues(self) -> list[str]:
        """Venues of the indexed chunks."""
        return sorted({m.get("venue", "") for m in self.bm25.metadatas} - {""})

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        res = self.search(query, self.k, self.filters)
        return [
            Document(
                page_content=h.text,
                id=h.id,
                metadata={**h.metadata, "score": h.score, "dense": h.dense, "bm25": h.bm25},
            )
            for h in res.hits
        ]

    def where(self, filters: Filters) -> dict[str, Any] | None:
        return build_where(filters, self.topics, self.sources)

    def _dense(self, query_vec: list[float], n: int, where: dict[str, Any] | None) -> list[tuple[float, Document]]:
        """``(cosine similarity, Document)`` of the ``n`` nearest chunks, best first."""
        n = max(1, min(n, len(self.bm25) or n))
        found = self.store.similarity_search_by_vector_with_relevance_scores(query_vec, k=n, filter=where)
        return [(1.0 - float(dist), doc) for doc, dist in found]  # cosine space: distance = 1 - similarity

    def _fused(self, query: str, where, n: int) -> list[Hit]:
        qv = self.embeddings.embed_query(query)
        dense = self._dense(qv, n, where)
        sparse = self.bm25.search(query, n, where, drop=question_words())
        named = self._named(query, where)
        rrf = self.settings.rrf_k
        hits: dict[str, Hit] = {}
        for r, (sim, doc) in enumerate(dense, 1):
            cid = str(doc.id)
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
            got = self.store.get(ids=[h.id for h in missing], include=["embeddings"])
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
            for pos in self._names.get(tok.lower(), ()):
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
