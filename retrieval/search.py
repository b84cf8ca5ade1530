"""Hybrid retrieval: dense (the chunks' vectors in memory, else Chroma) + sparse (BM25) fused by reciprocal rank
fusion, near-duplicates collapsed, list questions diversified; filters pushed into both sides; a LangChain
retriever."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from langchain_chroma import Chroma
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, PrivateAttr

from papernotes.corpus.errors import PapernotesError
from papernotes.corpus.models import PaperRecord
from papernotes.corpus.papers import title_key
from papernotes.corpus.venues import find_venues, ordinary_word_series, split_venue
from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.chunk_vectors import load_vectors, nearest
from papernotes.retrieval.embeddings import make_embeddings
from papernotes.retrieval.entities import PaperIndex
from papernotes.retrieval.errors import IndexDamagedError
from papernotes.retrieval.filters import Filters, build_where, check_against_question, matches_where
from papernotes.retrieval.index_health import (
    ensure_index,
    marker_path,
    read_bm25,
    read_catalog,
    repair_command,
    unfinished_ingest,
)
from papernotes.retrieval.question import Question, understand
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import lock_held, make_client, storage_error, store_internal_error, vector_store
from papernotes.retrieval.terms import lexical_terms, lexical_terms_once

#: Two chunks whose term sets overlap this much (overlap coefficient |A ∩ B| / min(|A|, |B|)) are
#: copies of one text (a note saved twice or renamed, the dump and the directory copy of a page, a
#: copy with a line added); only the better-ranked one is kept.
NEAR_DUPLICATE_OVERLAP = 0.9
#: Chunks with fewer terms (a title and a line) are alike by chance: only the same terms make them copies.
SHORT_TERMS = 8
#: Chunks outside a venue filter that name the venue, fused as one more ranked list
#: (:meth:`HybridRetriever.venue_mentions`).
VENUE_MENTION_CHUNKS = 3

#: Threads that embed questions while they are read (:meth:`HybridRetriever.question_vector`); the
#: embedding runs outside the interpreter lock (ONNX Runtime), the reading inside it.
_EMBEDDERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="question-vector")


@dataclass
class Hit:
    """One retrieved chunk: text, metadata, fused score, its dense similarity (cosine, 0–1) and BM25
    score (0 when absent from a side), its rank (1-based), the catalog position of the paper it is
    about (None if none) and its collapse ``group`` (that paper, else its page); ``also`` lists the
    sources of near-copies collapsed into it; ``paper``: that paper's title (a chunk of a note titled by
    the paper's name alone, "# SGLang", has no ``paper_title`` of its own)."""

    id: str
    text: str
    metadata: dict[str, Any]
    score: float
    dense: float = 0.0
    bm25: float = 0.0
    rank: int = 0
    record: int | None = None
    group: str = ""
    also: list[str] = field(default_factory=list)
    paper: str | None = None

    def get(self, key: str) -> Any:
        return self.metadata.get(key)

    @property
    def body(self) -> str:
        """The chunk text without its first (title › section) line."""
        return self.text.split("\n", 1)[1] if "\n" in self.text else self.text


@dataclass
class SearchResult:
    """Ranked hits plus the question as understood, the filters applied (given or detected), whether
    a fallback to unfiltered search happened (and for which missing venue), and the wider ``pool`` of
    fused candidates (near-copies removed) that answers may draw evidence from."""

    query: str
    hits: list[Hit]
    filters: Filters = field(default_factory=Filters)
    detected: bool = False
    fallback: bool = False
    pool: list[Hit] = field(default_factory=list)
    missing_venue: str | None = None
    question: Question | None = None
    query_vector: list[float] | None = None

    @property
    def is_list(self) -> bool:
        return bool(self.question and self.question.is_list)


def _open_store(settings: Settings, emb: Embeddings, copy: bool) -> tuple[Chroma, int]:
    """The vector store for reading (a temporary copy when the data dir cannot be written, or when
    ``copy``) and the number of chunks it holds.

    Raises
    ------
    IndexDamagedError
        if the store has no collection of the configured name.
    """
    client = make_client(settings, read_only=True, copy=copy)
    if settings.collection not in {getattr(c, "name", c) for c in client.list_collections()}:
        raise IndexDamagedError(
            f"the vector store of the index ({settings.chroma_url or settings.chroma_dir}) has no "
            f"collection {settings.collection!r}; run `{repair_command(settings)}` to rebuild it"
        )
    store = vector_store(settings, emb, client, create=False)
    return store, client.get_collection(settings.collection).count()


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

    catalog: list[PaperRecord] = Field(default_factory=list)
    #: the chunks' vectors in the keyword index's order (``chunk_vectors.py``); None: the dense ranking
    #: is asked of the vector store
    vectors: Any = None
    #: one-line notices about the index found when it was opened (an unfinished ingest, parts that
    #: disagree), each naming the command that repairs it
    notices: list[str] = Field(default_factory=list)
    #: mtime (ns) of the keyword index's ``chunks.json`` (rewritten at the end of every ingest) just
    #: before it was read; None when unknown
    loaded_stamp: int | None = None

    _papers: PaperIndex | None = PrivateAttr(default=None)
    _pos: dict[str, int] = PrivateAttr(default_factory=dict)
    _any_case: set[str] = PrivateAttr(default_factory=set)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _sections: dict[tuple[str, str], list[int]] | None = PrivateAttr(default=None)
    _values: dict[str, list[str]] = PrivateAttr(default_factory=dict)
    _body_terms: dict[str, set[str]] = PrivateAttr(default_factory=dict)
    _chunk_record: list[int | None] = PrivateAttr(default_factory=list)
    _record_terms: dict[str, set[int]] | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        self._pos = {cid: i for i, cid in enumerate(self.bm25.ids)}
        for key in ("topic", "source", "venue"):  # the index is fixed for this retriever's life
            self._values[key] = sorted({m.get(key, "") for m in self.bm25.metadatas} - {""})
        self._papers = PaperIndex(self.catalog, self.bm25)
        self._chunk_record = self._papers.chunk_record
        series = {split_venue(v)[0] for v in self.venues}
        self._any_case = series - ordinary_word_series(series, self.bm25.texts)

    @property
    def papers(self) -> PaperIndex:
        """The catalog's name index and the chunks of each paper."""
        assert self._papers is not None  # set in model_post_init
        return self._papers

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
        IndexDamagedError
            when a part of the index is missing (see :func:`~papernotes.retrieval.indexing.ensure_index`).
        DataDirReadOnlyError
            when the store of a read-only data dir cannot be read (it is read from a temporary copy).

        Parts that disagree (the vector store and the keyword index hold different numbers of chunks)
        and an unfinished ingest do not stop it: they are listed in ``notices``.
        """
        ensure_index(settings)
        emb = embeddings or make_embeddings(settings)
        try:
            store, vectors = _open_store(settings, emb, copy=False)
        except PapernotesError:
            raise
        except Exception as e:
            # chromadb writes when it opens a store (pending logs are compacted): on a full disk that
            # fails, so the store is read from a temporary copy; failing that, one line naming the cause
            if settings.chroma_url:
                raise
            try:
                store, vectors = _open_store(settings, emb, copy=True)
            except Exception:
                translated = storage_error(settings, e, "opening the index") or store_internal_error(settings, e)
                if translated is None:
                    raise e from None
                raise translated from e
        stamp = _chunks_stamp(settings)
        bm25 = read_bm25(settings)
        catalog = read_catalog(settings)
        held = load_vectors(settings.bm25_dir, bm25.ids)
        notices = [n for n in [unfinished_ingest(settings)] if n]
        if vectors != len(bm25) and not notices:
            notices.append(
                f"the index is inconsistent: the vector store holds {vectors} chunks, the keyword index "
                f"{len(bm25)}; run `{repair_command(settings)}` to repair it"
            )
        return cls(
            settings=settings,
            embeddings=emb,
            store=store,
            bm25=bm25,
            vectors=held,
            catalog=catalog,
            k=k or settings.k,
            filters=filters,
            notices=notices,
            loaded_stamp=stamp,
        )

    def index_changed(self) -> bool:
        """True when an ingest runs now (the data dir's write lock is held), stopped before it finished
        (its in-progress marker is left: killed, or a full disk, after it may have deleted chunks) or
        has finished since this retriever read the keyword index (its ``chunks.json`` was rewritten):
        chunks this retriever holds may then be gone from the store."""
        s = self.settings
        return (
            lock_held(s)
            or marker_path(s).exists()
            or self.loaded_stamp is None
            or _chunks_stamp(s) != self.loaded_stamp
        )

    @property
    def positions(self) -> dict[str, int]:
        """Chunk id → its position in the keyword index (and in :attr:`vectors`)."""
        return self._pos

    @property
    def topics(self) -> list[str]:
        return self._values["topic"]

    @property
    def sources(self) -> list[str]:
        return self._values["source"]

    @property
    def venues(self) -> list[str]:
        """Venues of the indexed chunks."""
        return self._values["venue"]

    def body_terms(self, h: Hit) -> set[str]:
        """The lexical terms of a hit's body (its chunk text without the title line), computed once per
        chunk and kept for this retriever's life (the near-copy test of :func:`collapse`)."""
        found = self._body_terms.get(h.id)
        if found is None:
            found = self._body_terms[h.id] = set(lexical_terms_once(h.body))
        return found

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
        """The Chroma ``where`` clause of ``filters`` over this index's topics, sources and venues."""
        return build_where(filters, self.topics, self.sources, self.venues)

    def understand(self, text: str) -> Question:
        """The question read against this index: its terms, venue filter and the papers it names."""
        return understand(
            text,
            self.papers,
            self.venues,
            self._any_case,
            self.bm25.has,
            self.bm25.acronyms,
            self.bm25.vocabulary.variant,
            self.bm25.abbreviations,
            self.bm25.writes,
        )

    def question_vector(self, text: str) -> Future[list[float]]:
        """The embedding of question ``text`` (what :meth:`search` embeds: the question as typed), computed
        in a background thread, so that reading the question (:meth:`understand`) overlaps it: on two
        cores a search waits for the longer of the two instead of their sum. CPU time is unchanged."""
        return _EMBEDDERS.submit(self.embeddings.embed_query, text)

    def _dense(self, query_vec: list[float], n: int, where: dict[str, Any] | None) -> list[tuple[float, str]]:
        """``(cosine similarity, chunk id)`` of the ``n`` nearest chunks, best first.

        With the chunks' vectors in memory (:attr:`vectors`), exact cosine over the chunks ``where`` keeps
        (the keyword index's filter mask, :meth:`BM25Index.mask`); else the store's nearest neighbours
        search (only the distances are read, as in ``similarity_search_by_vector``): the texts and
        metadata come from the keyword index, which holds the same chunks."""
        if self.vectors is not None:
            mask = self.bm25.mask(where)
            found = nearest(
                self.vectors, np.asarray(query_vec, dtype=np.float32), n, None if mask is None else mask > 0
            )
            return [(sim, self.bm25.ids[pos]) for pos, sim in found]
        n = max(1, min(n, len(self.bm25) or n))
        got = self.store._collection.query(
            query_embeddings=np.asarray([query_vec], dtype=np.float32), n_results=n, where=where, include=["distances"]
        )
        dists = (got.get("distances") or [[]])[0]
        return [(1.0 - float(d), str(i)) for i, d in zip(got["ids"][0], dists, strict=True)]  # cosine distance

    def _group(self, pos: int) -> str:
        """The collapse group of the chunk at ``pos``: ``paper:<catalog position>``, else ``page:<title key>``."""
        rec = self._chunk_record[pos]
        return (
            f"paper:{rec}"
            if rec is not None
            else f"page:{title_key(str(self.bm25.metadatas[pos].get('page_title') or pos))}"
        )

    def warm_up(self) -> None:
        """Build the lookups this retriever builds on first use (the catalog's terms, the keyword
        index's vocabulary, acronyms and abbreviations, the titles' terms), so no question waits for
        them."""
        bm25 = self.bm25
        _ = bm25.vocabulary, bm25.acronyms, bm25.abbreviations, self.papers.title_terms
        self._records_by_term()

    def _records_by_term(self) -> dict[str, set[int]]:
        """The catalog positions of the records whose title, system name, aliases or one-line summary
        hold each stemmed term; built on first use (the catalog is fixed for this retriever's life)."""
        if self._record_terms is None:
            by_term: dict[str, set[int]] = {}
            for i, r in enumerate(self.catalog):
                for t in set(lexical_terms(" ".join([r.title, r.system or "", *r.aliases, r.summary]))):
                    by_term.setdefault(t, set()).add(i)
            self._record_terms = by_term
        return self._record_terms

    def records_naming(self, alternatives: Sequence[Sequence[str]]) -> set[str]:
        """The collapse groups of the catalog records (``paper:N``) whose title, system name, aliases or
        one-line summary hold every stemmed term of one of ``alternatives``: papers the name is about,
        not only mentioned in their notes."""
        terms = self._records_by_term()
        return {
            f"paper:{i}" for alt in alternatives if alt for i in set.intersection(*(terms.get(t, set()) for t in alt))
        }

    def groups_writing(self, alternatives: Sequence[Sequence[str]]) -> set[str]:
        """The collapse groups (:attr:`Hit.group`: papers, else pages) with a chunk, or a catalog record
        (its title, system name, aliases, one-line summary), that holds every stemmed term of one of
        ``alternatives`` (a :class:`~papernotes.retrieval.terms.Key`'s)."""
        by_term = self._records_by_term()
        groups: set[str] = set()
        for alt in alternatives:
            if not alt:
                continue
            held = self.bm25.holding(list(alt))
            groups |= {self._group(int(pos)) for pos in held}
            records = [by_term.get(t, set()) for t in alt]
            groups |= {f"paper:{i}" for i in set.intersection(*records)}
        return groups

    def _hit(self, pos: int) -> Hit:
        rec = self._chunk_record[pos]
        meta = self.bm25.metadatas[pos]
        group = self._group(pos)
        meta = dict(meta)
        if rec is not None and self.catalog[rec].venue and meta.get("paper_title"):
            meta["venue"] = self.catalog[rec].venue  # the paper's venue over all its places, not this bullet's
        paper = self.catalog[rec].title if rec is not None else None
        return Hit(self.bm25.ids[pos], self.bm25.texts[pos], meta, 0.0, record=rec, group=group, paper=paper)

    def venue_mentions(self, venue: str, terms: list[str], where: dict[str, Any] | None, n: int) -> list[int]:
        """Positions of up to :data:`VENUE_MENTION_CHUNKS` chunks outside ``where`` whose body names
        ``venue`` (canonical, "SOSP 2023") in a line of its own text — the notes' conference calendar
        row, a page noting a co-located venue — best first by BM25 of the venue's words and ``terms``.
        A venue filter keeps the chunks *about* the venue's papers; these state facts about the venue."""
        out: list[int] = []
        for pos, _ in self.bm25.search(lexical_terms(venue) + list(terms), n, None):
            if where is not None and matches_where(self.bm25.metadatas[pos], where):
                continue
            if any(venue in find_venues(line) for line in self.bm25.texts[pos].split("\n")[1:]):
                out.append(pos)
                if len(out) == VENUE_MENTION_CHUNKS:
                    break
        return out

    def _venue_hit(self, pos: int, venue: str) -> Hit:
        """The hit of a chunk found by :meth:`venue_mentions`, its text cut to the lines naming ``venue``
        (after its title line and, for a table, its header row): the other rows are about other venues."""
        h = self._hit(pos)
        head, *lines = h.text.split("\n")
        header = [lines[0]] if lines and lines[0].lstrip().startswith("|") else []
        h.text = "\n".join([head, *header, *(ln for ln in lines[len(header) :] if venue in find_venues(ln))])
        return h

    def _fused(
        self, q: Question, qv: list[float], where: dict[str, Any] | None, n: int, venue: str | None = None
    ) -> tuple[list[Hit], list[str]]:
        """Reciprocal rank fusion (Cormack et al. 2009, constant ``settings.rrf_k``) of the dense,
        BM25 and named-paper rankings, and, for a question about ``venue`` (the filter's, with a year)
        naming no paper, the chunks outside the filter that name the venue (:meth:`venue_mentions`).
        Returns the fused hits, best first, and the ids of the best hit of each ranking (each is
        guaranteed a place in the top k)."""
        dense = self._dense(qv, n, where)
        terms = q.terms or lexical_terms(q.text)
        sparse = self.bm25.search(terms, n, where)
        bm25_rank = {pos: r for r, (pos, _) in enumerate(sparse)}
        named = [pos for rec in q.records for pos in self.paper_chunks(rec, where)]
        named.sort(key=lambda p: bm25_rank.get(p, len(bm25_rank)))
        about_venue = self.venue_mentions(venue, terms, where, n) if venue and not q.records and not q.is_list else []
        rrf = self.settings.rrf_k
        ids = self.bm25.ids
        hits: dict[str, Hit] = {}
        for r, (sim, cid) in enumerate(dense, 1):
            pos = self._pos.get(cid)
            if pos is None:  # in the store but not in the BM25 side: an index out of step
                continue
            h = hits.get(ids[pos]) or hits.setdefault(ids[pos], self._hit(pos))
            h.score += 1.0 / (rrf + r)
            h.dense = sim
        for r, (pos, score) in enumerate(sparse, 1):
            h = hits.get(ids[pos]) or hits.setdefault(ids[pos], self._hit(pos))
            h.score += 1.0 / (rrf + r)
            h.bm25 = score
        for r, pos in enumerate(named, 1):  # a third ranked list: chunks of the papers the question names
            h = hits.get(ids[pos]) or hits.setdefault(ids[pos], self._hit(pos))
            h.score += 1.0 / (rrf + r)
        for r, pos in enumerate(about_venue, 1):  # a fourth: what the notes say about the venue itself
            h = hits.get(ids[pos]) or hits.setdefault(ids[pos], self._venue_hit(pos, str(venue)))
            h.score += 1.0 / (rrf + r)
        leaders = [self.bm25.ids[p] for p, _ in sparse[:1]] + [self.bm25.ids[p] for p in named[:1]]
        leaders += [self.bm25.ids[p] for p in about_venue[:1]]
        # chunks found only by BM25 or by name still get their dense similarity (for answerability)
        missing = [h for h in hits.values() if h.dense == 0.0]
        if self.vectors is not None:
            if missing:
                sims = self.vectors[[self._pos[h.id] for h in missing]] @ np.asarray(qv, dtype=np.float32)
                for h, sim in zip(missing, sims, strict=True):
                    h.dense = float(sim)
            # the in-memory vectors are the index's as it was loaded: once an ingest has started (running,
            # or finished and these notes not yet reopened), the hits it has deleted from the store are
            # left out
            for gone in self.gone(list(hits)):
                del hits[gone]
        elif missing:
            got = self.store.get(ids=[h.id for h in missing], include=["embeddings"])
            qa = np.asarray(qv, dtype=np.float32)
            for cid, vec in zip(got["ids"], got["embeddings"], strict=True):
                hits[cid].dense = float(np.dot(qa, np.asarray(vec, dtype=np.float32)))
            for gone in {h.id for h in missing} - set(got["ids"]):  # deleted by an ingest running now
                del hits[gone]
        leaders = [i for i in leaders if i in hits]
        return sorted(hits.values(), key=lambda h: -h.score), leaders

    def search(
        self,
        query: str | Question,
        k: int | None = None,
        filters: Filters | None = None,
        auto_filters: bool = True,
        vector: Future[list[float]] | None = None,
    ) -> SearchResult:
        """Top-``k`` hybrid search.

        ``vector`` is the question's embedding under way (:meth:`question_vector` of the question's
        text), for a caller that reads the question itself; a question given as text is embedded while
        it is read.

        Given ``filters`` are applied as they are; otherwise the venue, series or year the question
        names is applied, falling back to unfiltered search when the filtered one finds nothing (the
        result then names the missing venue). Near-copies of one text collapse to the best-ranked one
        (its ``also`` lists the others); one chunk per paper or page in the top k (the paper's other
        places — its deep note, a topic page — are noted in ``also`` and stay in the pool answers draw
        on), so that distinct papers reach the top k; the best BM25 hit and the best chunk of a named
        paper always get a place in the top k.
        """
        if isinstance(query, Question):
            q = query
        else:
            vector = self.question_vector(query)
            q = self.understand(query)
        k = k or self.settings.k
        n = self.settings.candidates
        given = filters if filters else None
        if given and auto_filters:
            check_against_question(q.filters, given)
        f = given or (q.filters if auto_filters else Filters())
        qv = vector.result() if vector is not None else self.embeddings.embed_query(q.text)
        with self._lock:
            hits, leaders = self._fused(q, qv, self.where(f) if f else None, n, f.venue if f else None)
            fallback = False
            if f and not hits and given is None:
                hits, leaders = self._fused(q, qv, None, n)
                fallback = True
        kept, pool = collapse(hits, k, 1, leaders, self.body_terms)
        return SearchResult(
            query=q.text,
            hits=kept,
            filters=f if not fallback else Filters(),
            detected=given is None and bool(f),
            fallback=fallback,
            pool=pool,
            missing_venue=(f.venue or f.series) if fallback else None,
            question=q,
            query_vector=qv,
        )

    def section_siblings(self, h: Hit) -> list[str]:
        """Texts of the other chunks of ``h``'s source and section (a section split in several chunks),
        in index order."""
        if self._sections is None:
            sections: dict[tuple[str, str], list[int]] = {}
            for pos, m in enumerate(self.bm25.metadatas):
                sections.setdefault((str(m.get("source")), str(m.get("section"))), []).append(pos)
            self._sections = sections
        key = (str(h.get("source")), str(h.get("section")))
        return [self.bm25.texts[p] for p in self._sections.get(key, []) if self.bm25.ids[p] != h.id]

    def gone(self, ids: list[str]) -> set[str]:
        """The chunk ids of ``ids`` the vector store no longer holds (deleted by an ingest since the
        notes were loaded); empty for an empty list, and without asking the store while no ingest has
        started since (:meth:`index_changed`: only an ingest deletes chunks, under the write lock)."""
        if not ids or not self.index_changed():
            return set()
        return self.missing(ids)

    def missing(self, ids: list[str]) -> set[str]:
        """The chunk ids of ``ids`` the vector store does not hold, asking it (see :meth:`gone` for the
        question that asks only when an ingest may have deleted some)."""
        unique = list(dict.fromkeys(ids))  # a chunk cited twice (a paper's entry in it, and the whole chunk)
        return set(unique) - self._held(unique) if unique else set()

    def _held(self, ids: list[str]) -> set[str]:
        """The chunk ids of ``ids`` the store holds. A collection dropped since the notes were opened
        (``ingest --rebuild`` makes a new one) is looked up again by name; while there is none (a
        rebuild stopped after dropping it), it holds nothing."""
        from chromadb.errors import NotFoundError

        try:
            return set(self.store.get(ids=ids, include=[])["ids"])
        except NotFoundError:
            try:
                self.store = vector_store(
                    self.settings, self.embeddings, make_client(self.settings, read_only=True), create=False
                )
                return set(self.store.get(ids=ids, include=[])["ids"])
            except Exception:  # no collection of that name now: nothing is held
                return set()

    def paper_chunks(self, record: int, where: dict[str, Any] | None = None) -> list[int]:
        """Positions (in the BM25 index) of the chunks about the catalog paper ``record``, those matching
        the Chroma-style ``where`` only when one is given."""
        chunks = self.papers.chunks.get(record, [])
        if where is None:
            return list(chunks)
        return [pos for pos in chunks if matches_where(self.bm25.metadatas[pos], where)]

    def deleted_records(self, records: Sequence[int]) -> set[int]:
        """The catalog records (positions) among ``records`` whose chunks, as this retriever knows them,
        the store holds none of any longer: an ingest since this retriever was opened deleted their
        notes, or edited them so that their chunks changed (it still lists them, and knows only the old
        chunks, until the notes are reopened). Empty, without asking the store, while no ingest has
        started since (:meth:`index_changed`)."""
        if not records or not self.index_changed():
            return set()
        ids = {r: [self.bm25.ids[p] for p in self.papers.chunks.get(r, [])] for r in records}
        gone = self.missing([i for v in ids.values() for i in v])
        return {r for r, v in ids.items() if v and set(v) <= gone}

    def chunk_hits(self, positions: list[int]) -> list[Hit]:
        """Hits for chunk positions of the BM25 index (unscored), e.g. a paper's own chunks; those the
        vector store no longer holds (deleted by an ingest that has not finished) are left out, so no
        answer cites a chunk that is gone."""
        if not positions:
            return []
        gone = self.gone([self.bm25.ids[p] for p in positions])
        return [self._hit(p) for p in positions if self.bm25.ids[p] not in gone]


def _chunks_stamp(settings: Settings) -> int | None:
    """mtime (ns) of the keyword index's ``chunks.json``, None when it cannot be read."""
    try:
        return (settings.bm25_dir / "chunks.json").stat().st_mtime_ns
    except OSError:
        return None


def collapse(
    hits: list[Hit],
    k: int,
    per_group: int,
    leaders: Sequence[str] = (),
    body_terms: Callable[[Hit], set[str]] | None = None,
) -> tuple[list[Hit], list[Hit]]:
    """Near-duplicate collapse and diversification of fused hits (best first).

    Returns ``(top k, pool)``: ``pool`` is every hit that is not a near-copy of a better one (term-set
    overlap ≥ :data:`NEAR_DUPLICATE_OVERLAP`, or the same text); the top k takes at most
    ``per_group`` hits per paper/page group, and the hits in ``leaders`` (ids) replace the last ones
    when they did not make it. ``body_terms`` gives a hit's body terms (default: computed here).
    """
    terms_of = body_terms or (lambda h: set(lexical_terms(h.body)))
    pool: list[Hit] = []
    seen: list[tuple[Hit, set[str], int]] = []  # the pool's hits, their terms and how many
    for h in hits:
        ts = terms_of(h)
        n = len(ts)
        # the overlap inline (each hit is compared with every hit kept before it)
        twin = next(
            (
                o
                for o, ots, m in seen
                if ts == ots
                or (n >= SHORT_TERMS and m >= SHORT_TERMS and len(ts & ots) / min(n, m) >= NEAR_DUPLICATE_OVERLAP)
            ),
            None,
        )
        if twin is not None:
            src = str(h.get("source") or "")
            if src and src != twin.get("source") and src not in twin.also:
                twin.also.append(src)
            continue
        seen.append((h, ts, n))
        pool.append(h)
    kept: list[Hit] = []
    groups: dict[str, int] = {}
    for h in pool:
        if len(kept) >= k:
            break
        if groups.get(h.group, 0) >= per_group:
            first = next(x for x in kept if x.group == h.group)
            src = str(h.get("source") or "")
            if src and src != first.get("source") and src not in first.also:
                first.also.append(src)  # the same paper elsewhere in the notes (its deep note, a topic page)
            continue
        groups[h.group] = groups.get(h.group, 0) + 1
        kept.append(h)
    for lead in leaders:
        found = next((x for x in pool if x.id == lead), None)
        if found is None or any(x.group == found.group for x in kept):
            continue
        h = found
        if len(kept) >= k:
            drop = next((x for x in reversed(kept) if x.id not in leaders), None)
            if drop is None:
                continue
            kept.remove(drop)
        kept.append(h)
    for i, h in enumerate(kept, 1):
        h.rank = i
    return kept, pool
