"""The keyword index's postings: for every term, the chunks holding it and how often (a compressed sparse
column matrix, terms × chunks), with each chunk's length. BM25 scores are computed from it at query time
for the query's terms only, so nothing stored depends on the whole collection (document frequencies,
the average length): adding or removing chunks changes only their own postings, and an updated matrix
scores exactly as one built from scratch over the same chunks.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

#: BM25 parameters: bm25s's defaults (``k1=1.5``, ``b=0.75``), with its default Lucene variant of the
#: scoring rule (https://cs.uwaterloo.ca/~jimmylin/publications/Kamphuis_etal_ECIR2020_preprint.pdf)
K1, B = 1.5, 0.75


@dataclass(frozen=True, eq=False)
class TermMatrix:
    """Postings of ``vocab`` (term id → term) over ``len(lengths)`` chunks.

    The postings of term id ``t`` are ``docs[ptr[t]:ptr[t + 1]]`` (int32 chunk positions, ascending) with
    their term frequencies ``tf[ptr[t]:ptr[t + 1]]`` (float64); ``lengths`` (float64, one per chunk) is
    each chunk's number of terms, repeats counted. Every term of ``vocab`` has at least one posting.
    """

    vocab: list[str]
    ptr: np.ndarray
    docs: np.ndarray
    tf: np.ndarray
    lengths: np.ndarray

    @classmethod
    def empty(cls) -> TermMatrix:
        """No chunk, no term."""
        return cls([], np.zeros(1, np.int64), np.zeros(0, np.int32), np.zeros(0), np.zeros(0))

    @cached_property
    def term_ids(self) -> dict[str, int]:
        """Term → term id."""
        return {t: i for i, t in enumerate(self.vocab)}

    @cached_property
    def avg_length(self) -> float:
        """Mean chunk length in terms (1.0 when there is no chunk)."""
        return float(self.lengths.mean()) if len(self.lengths) else 1.0

    def __len__(self) -> int:
        return len(self.lengths)

    def postings(self, term: str) -> np.ndarray:
        """Positions of the chunks holding ``term``, ascending (empty if none)."""
        t = self.term_ids.get(term)
        return self.docs[self.ptr[t] : self.ptr[t + 1]] if t is not None else self.docs[:0]

    def scores(self, terms: list[str]) -> np.ndarray:
        """BM25 score of every chunk for the query ``terms`` (float64, one per chunk; a repeated term
        counts again, an unknown one adds nothing): per term, ``idf · tf / (tf + k1 · (1 − b + b · len /
        avg_len))`` with ``idf = ln(1 + (N − df + 0.5) / (df + 0.5))`` (Lucene's rule, as bm25s)."""
        n = len(self.lengths)
        out = np.zeros(n)
        norm = None
        for term in terms:
            t = self.term_ids.get(term)
            if t is None:
                continue
            s, e = int(self.ptr[t]), int(self.ptr[t + 1])
            if norm is None:
                norm = K1 * (1 - B + B * self.lengths / self.avg_length)
            docs, tf = self.docs[s:e], self.tf[s:e]
            idf = np.log(1 + (n - (e - s) + 0.5) / ((e - s) + 0.5))
            out[docs] += idf * tf / (tf + norm[docs])
        return out

    def changed(self, keep: np.ndarray, added: list[list[str]]) -> TermMatrix:
        """A new matrix over the chunks where ``keep`` (bool, one per chunk) is true, in their order, then
        one chunk per list of terms in ``added``; terms left without a posting leave the vocabulary. Work
        is linear in the postings (vectorized), plus the added chunks' terms."""
        keep = np.asarray(keep, dtype=bool)
        vocab = list(self.vocab)
        ids = dict(self.term_ids)
        position = np.cumsum(keep) - 1
        term_of = np.repeat(np.arange(len(vocab), dtype=np.int64), np.diff(self.ptr))
        kept = keep[self.docs]
        terms, docs, tf = [term_of[kept]], [position[self.docs[kept]]], [self.tf[kept]]
        base = int(keep.sum())
        flat = [ids.setdefault(t, len(ids)) for chunk in added for t in chunk]
        vocab += list(ids)[len(vocab) :]
        sizes = np.array([len(chunk) for chunk in added], dtype=np.int64)
        if flat:
            chunk_of = np.repeat(np.arange(len(added), dtype=np.int64), sizes)
            pairs, counts = np.unique(chunk_of * len(vocab) + np.asarray(flat, dtype=np.int64), return_counts=True)
            terms.append(pairs % len(vocab))
            docs.append(base + pairs // len(vocab))
            tf.append(counts.astype(np.float64))
        all_terms = np.concatenate(terms)
        count = np.bincount(all_terms, minlength=len(vocab))
        used = count > 0
        order = np.argsort((np.cumsum(used) - 1)[all_terms], kind="stable")
        return TermMatrix(
            [v for v, u in zip(vocab, used, strict=True) if u],
            np.concatenate([[0], np.cumsum(count[used])]).astype(np.int64),
            np.concatenate(docs)[order].astype(np.int32),
            np.concatenate(tf)[order],
            np.concatenate([self.lengths[keep], sizes.astype(np.float64)]),
        )

    def save(self, path: Path) -> None:
        """Write to ``path`` (an ``.npz``; through a temporary file, replaced atomically)."""
        tmp = path.with_name(path.name + ".tmp")
        with tmp.open("wb") as f:
            np.savez(
                f,
                vocab=np.frombuffer("\n".join(self.vocab).encode("utf-8"), dtype=np.uint8),
                ptr=self.ptr,
                docs=self.docs,
                tf=self.tf,
                lengths=self.lengths,
            )
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> TermMatrix | None:
        """A matrix written by :meth:`save`; None when absent or unreadable."""
        try:
            with np.load(path) as z:
                text = z["vocab"].tobytes().decode("utf-8")
                return cls(text.split("\n") if text else [], z["ptr"], z["docs"], z["tf"], z["lengths"])
        except (OSError, ValueError, KeyError):
            return None
