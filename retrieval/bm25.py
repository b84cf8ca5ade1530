"""The sparse side: a BM25 index over every chunk (postings scored at query time,
:mod:`~papernotes.retrieval.term_matrix`), persisted beside the Chroma store and updated in place by a
re-ingest, and the metadata filters over it (the same ``where`` dicts as Chroma)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from papernotes.retrieval import json_load
from papernotes.retrieval.abbreviations import Abbreviations, find_abbreviations
from papernotes.retrieval.spelling import Vocabulary
from papernotes.retrieval.term_matrix import TermMatrix
from papernotes.retrieval.terms import english_word, lexical_terms

_ACRONYM_RE = re.compile(r"\b(?=[A-Za-z]*[A-Z][a-z]*[A-Z])[A-Za-z]{3,8}\b")

#: the term standing for a chunk without any (so that every chunk has a length of at least one)
EMPTY_TERM = "\u2205"


class BM25Index:
    """The chunk ids, texts and metadata the index covers and their postings (:class:`TermMatrix`), in
    one order.

    Files under ``directory``: ``terms.npz`` (the postings) and ``chunks.json`` (ids, texts, metadatas),
    written in that order, so a complete ``chunks.json`` means a complete index.
    """

    def __init__(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], matrix: TermMatrix):
        self.ids = ids
        self.texts = texts
        self.metadatas = metadatas
        self.matrix = matrix
        self._field_codes: dict[str, tuple[np.ndarray, dict[Any, int]]] = {}

    @classmethod
    def build(cls, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]]) -> BM25Index:
        """Index the texts: each chunk's :func:`~papernotes.retrieval.terms.lexical_terms`."""
        return cls([], [], [], TermMatrix.empty()).updated(np.zeros(0, dtype=bool), ids, texts, metadatas)

    def updated(self, keep: np.ndarray, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]]) -> BM25Index:
        """A new index of this one's chunks where ``keep`` (bool, one per chunk) is true, in their order,
        then the chunks ``ids``/``texts``/``metadatas`` (only these are tokenized). It scores every query
        as :meth:`build` over the same chunks would."""
        keep = np.asarray(keep, dtype=bool)
        idx = np.flatnonzero(keep)
        added = [lexical_terms(t) or [EMPTY_TERM] for t in texts]
        return BM25Index(
            [self.ids[i] for i in idx] + list(ids),
            [self.texts[i] for i in idx] + list(texts),
            [self.metadatas[i] for i in idx] + list(metadatas),
            self.matrix.changed(keep, added),
        )

    def save(self, directory: Path) -> None:
        """Persist to ``directory`` (each file replaced atomically, ``chunks.json`` last)."""
        directory.mkdir(parents=True, exist_ok=True)
        self.matrix.save(directory / "terms.npz")
        tmp = directory / "chunks.json.tmp"
        tmp.write_bytes(orjson.dumps({"ids": self.ids, "texts": self.texts, "metadatas": self.metadatas}))
        tmp.replace(directory / "chunks.json")

    @classmethod
    def load(cls, directory: Path) -> BM25Index:
        """Load an index saved by :meth:`save`; an absent one is empty. Postings that are missing or
        do not cover ``chunks.json``'s chunks are rebuilt from its texts."""
        f = directory / "chunks.json"
        if not f.is_file():
            return cls([], [], [], TermMatrix.empty())
        data = json_load.loads(f.read_bytes())
        return cls.from_chunks(data, TermMatrix.load(directory / "terms.npz"))

    @classmethod
    def from_chunks(cls, data: dict[str, list], matrix: TermMatrix | None) -> BM25Index:
        """The index of ``data`` (``chunks.json``'s ids, texts, metadatas) with its postings ``matrix``,
        rebuilt from the texts when it is None or covers another number of chunks."""
        if matrix is None or len(matrix) != len(data["ids"]):
            return cls.build(data["ids"], data["texts"], data["metadatas"])
        return cls(data["ids"], data["texts"], data["metadatas"], matrix)

    def __len__(self) -> int:
        return len(self.ids)

    def mask(self, where: dict[str, Any] | None) -> np.ndarray | None:
        """0/1 float mask over the chunks for a Chroma-style ``where`` filter (None: no filter); the same
        chunks as :func:`~papernotes.retrieval.filters.matches_where` on each one's metadata, evaluated
        over per-field value codes built once per index (:meth:`_codes`)."""
        if not where:
            return None
        return self._where(where).astype(np.float32)

    def _where(self, where: dict[str, Any]) -> np.ndarray:
        out = np.ones(len(self.ids), dtype=bool)
        for key, cond in where.items():
            if key == "$and":
                for c in cond:
                    out &= self._where(c)
            elif key == "$or":
                out &= np.logical_or.reduce([self._where(c) for c in cond]) if cond else False
            else:
                codes, code_of = self._codes(key)
                if not isinstance(cond, dict):
                    cond = {"$eq": cond}
                for op, arg in cond.items():
                    if op in ("$eq", "$ne"):
                        hit = codes == code_of.get(arg, -2)
                    elif op in ("$in", "$nin"):
                        hit = np.isin(codes, [code_of[a] for a in arg if a in code_of])
                    else:
                        continue
                    out &= hit if op in ("$eq", "$in") else ~hit
        return out

    def _codes(self, field: str) -> tuple[np.ndarray, dict[Any, int]]:
        """Each chunk's value of metadata ``field`` as an integer code (-1: absent), and value → code."""
        found = self._field_codes.get(field)
        if found is None:
            code_of: dict[Any, int] = {}
            codes = np.fromiter(
                (-1 if (v := m.get(field)) is None else code_of.setdefault(v, len(code_of)) for m in self.metadatas),
                dtype=np.int64,
                count=len(self.metadatas),
            )
            found = self._field_codes[field] = (codes, code_of)
        return found

    def search(self, terms: list[str], k: int, where: dict[str, Any] | None = None) -> list[tuple[int, float]]:
        """Top ``k`` chunks for query ``terms`` (from :func:`~papernotes.retrieval.terms.lexical_terms`)
        as ``(position, bm25 score)``, best first (equal scores by position); score > 0 only; terms the
        index lacks are ignored."""
        if k <= 0 or not any(self.has(t) for t in terms):
            return []
        scores = self.matrix.scores(terms)
        mask = self.mask(where)
        if mask is not None:
            scores *= mask
        hits = np.flatnonzero(scores > 0)
        if len(hits) > k:
            hits = hits[np.argpartition(-scores[hits], k - 1)[:k]]
        hits = hits[np.lexsort((hits, -scores[hits]))]
        return [(int(p), float(scores[p])) for p in hits[:k]]

    def postings(self, term: str) -> np.ndarray:
        """Positions of the chunks that contain ``term`` (a stemmed term), ascending; empty if none."""
        return self.matrix.postings(term)

    def holding(self, terms: Sequence[str]) -> np.ndarray:
        """Positions of the chunks that contain every one of ``terms`` (stemmed), ascending; empty when
        ``terms`` is."""
        if not terms:
            return np.empty(0, dtype=np.int64)
        out = self.postings(terms[0])
        for t in terms[1:]:
            out = np.intersect1d(out, self.postings(t), assume_unique=True)
        return out

    def df(self, term: str) -> int:
        """Number of chunks containing ``term``."""
        return int(len(self.postings(term)))

    @cached_property
    def acronyms(self) -> frozenset[str]:
        """Words of three to eight letters the notes write as acronyms (two or more capitals: "LoC",
        "MoE", "TPC"), case-folded."""
        found: set[str] = set()
        for text in self.texts:
            found.update(m.casefold() for m in _ACRONYM_RE.findall(text))
        return frozenset(found)

    @cached_property
    def abbreviations(self) -> Abbreviations:
        """The abbreviations the notes define ("Large Language Models (LLMs)"), as index terms."""
        return find_abbreviations(self.texts)

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The notes' words with their chunk counts, to read a question's misspellings and abbreviations."""
        return Vocabulary(self.texts, english_word)

    def has(self, term: str) -> bool:
        """True when some chunk contains ``term``."""
        return term in self.matrix.term_ids

    def _written(self, word: str, limit: int, flags: int = 0) -> Iterator[str]:
        """The whole-word occurrences of ``word`` (matched with the ``re`` ``flags``) in the first
        ``limit`` chunks holding its term, as written; none for a word of several terms."""
        terms = lexical_terms(word)
        if len(terms) != 1 or not self.has(terms[0]):
            return
        pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?![\w-])", flags)
        for pos in self.postings(terms[0])[:limit]:
            for m in pattern.finditer(self.texts[int(pos)]):
                yield m.group(0)

    def writes(self, word: str, limit: int = 500) -> bool:
        """True when some chunk writes ``word`` as it is cased ("ZeRO", not only "zero"), as a whole
        word; read in the first ``limit`` chunks holding its term."""
        return next(self._written(word, limit), None) is not None

    def casings(self, word: str, limit: int = 500) -> set[str]:
        """The forms in which the chunks write ``word`` as a whole word, in any casing ("MassiveText" for
        "massivetext"); read in the first ``limit`` chunks holding its term; empty when none does."""
        return set(self._written(word, limit, re.IGNORECASE))

    def idf(self, term: str) -> float:
        """Inverse document frequency of a (stemmed) term: ``ln(1 + (N - df + .5) / (df + .5))``
        (the BM25/Lucene form); unseen terms get the maximum."""
        n = max(1, len(self.ids))
        df = self.df(term)
        return float(np.log(1 + (n - df + 0.5) / (df + 0.5)))
