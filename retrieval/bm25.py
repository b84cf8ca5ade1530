"""The sparse side: a bm25s index over every chunk, persisted beside the Chroma store, and a small
LangChain retriever around it. Metadata filters use the same ``where`` dicts as Chroma."""

from __future__ import annotations

import json
import re
from functools import cached_property
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from papernotes.retrieval.spelling import Vocabulary
from papernotes.retrieval.terms import english_word, lexical_terms

_ACRONYM_RE = re.compile(r"\b(?=[A-Za-z]*[A-Z][a-z]*[A-Z])[A-Za-z]{3,8}\b")


class BM25Index:
    """bm25s index plus the chunk ids, texts and metadata it covers (in one order).

    Files under ``directory``: bm25s's own files and ``chunks.json`` (ids, texts, metadatas).
    """

    def __init__(self, ids: list[str], texts: list[str], metadatas: list[dict[str, Any]], model: bm25s.BM25 | None):
        self.ids = ids
        self.texts = texts
        self.metadatas = metadatas
        self.model = model
        self._vocab: dict[str, int] = dict(getattr(model, "vocab_dict", None) or {}) if model else {}
        self._field_codes: dict[str, tuple[np.ndarray, dict[Any, int]]] = {}

    @classmethod
    def build(
        cls,
        ids: list[str],
        texts: list[str],
        metadatas: list[dict[str, Any]],
        terms: dict[str, list[str]] | None = None,
    ) -> BM25Index:
        """Index the texts (BM25 with bm25s' defaults: Lucene variant, k1=1.5, b=0.75).

        ``terms`` maps chunk ids to their :func:`~papernotes.retrieval.terms.lexical_terms` from an
        earlier build (ids are content hashes, so a known id has the same text); only the other texts
        are tokenized, and their terms are added to it. Tokenizing is most of a build, so a re-ingest
        that changed a few chunks rebuilds the index in a fraction of a cold build's time.
        """
        if not ids:
            return cls([], [], [], None)
        known = terms if terms is not None else {}
        for i, t in zip(ids, texts, strict=True):
            if i not in known:
                known[i] = lexical_terms(t) or ["\u2205"]
        model = bm25s.BM25()
        model.index([known[i] for i in ids], show_progress=False)
        return cls(ids, texts, metadatas, model)

    def save(self, directory: Path) -> None:
        """Persist to ``directory`` (replaced whole)."""
        directory.mkdir(parents=True, exist_ok=True)
        if self.model is not None:
            self.model.save(str(directory))
        tmp = directory / "chunks.json.tmp"
        tmp.write_text(
            json.dumps({"ids": self.ids, "texts": self.texts, "metadatas": self.metadatas}, ensure_ascii=False),
            encoding="utf-8",
        )
        tmp.replace(directory / "chunks.json")

    @classmethod
    def load(cls, directory: Path) -> BM25Index:
        """Load an index saved by :meth:`save`; an absent one is empty."""
        f = directory / "chunks.json"
        if not f.is_file():
            return cls([], [], [], None)
        data = json.loads(f.read_text(encoding="utf-8"))
        model = bm25s.BM25.load(str(directory)) if data["ids"] else None
        return cls(data["ids"], data["texts"], data["metadatas"], model)

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
        as ``(position, bm25 score)``, best first; score > 0 only; terms the index lacks are ignored."""
        if self.model is None:
            return []
        q = [t for t in terms if t in self._vocab]
        if not q:
            return []
        mask = self.mask(where)
        if mask is not None and not mask.any():
            return []
        k = min(k, len(self.ids))
        docs, scores = self.model.retrieve([q], k=k, show_progress=False, weight_mask=mask, n_threads=1)
        return [(int(d), float(s)) for d, s in zip(docs[0], scores[0], strict=True) if s > 0]

    def postings(self, term: str) -> np.ndarray:
        """Positions of the chunks that contain ``term`` (a stemmed term), ascending; empty if none.
        Read from bm25s's term-column score matrix (``scores["indptr"]``/``["indices"]``)."""
        tid = self._vocab.get(term)
        if self.model is None or tid is None:
            return np.zeros(0, dtype=np.int64)
        sc = self.model.scores
        return np.asarray(sc["indices"][sc["indptr"][tid] : sc["indptr"][tid + 1]])

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
    def vocabulary(self) -> Vocabulary:
        """The notes' words with their chunk counts, to read a question's misspellings and abbreviations."""
        return Vocabulary(self.texts, english_word)

    def has(self, term: str) -> bool:
        """True when some chunk contains ``term``."""
        return term in self._vocab

    def idf(self, term: str) -> float:
        """Inverse document frequency of a (stemmed) term: ``ln(1 + (N - df + .5) / (df + .5))``
        (the BM25/Lucene form); unseen terms get the maximum."""
        n = max(1, len(self.ids))
        df = self.df(term)
        return float(np.log(1 + (n - df + 0.5) / (df + 0.5)))
