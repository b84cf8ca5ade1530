"""How the bench decides that a retrieved chunk found a gold paper: one rule for every pipeline.

**Title in text** (the rule of ``hit_at_5`` / ``recall_at_5`` / ``mrr``): a gold title is found at rank
*i* when its key is a substring of the key of the *i*-th chunk's text, keys made by
:func:`papernotes.corpus.papers.title_key` (letters and digits only, case-folded, accents removed).
It needs nothing but the chunk text, so papernotes' chunks and the LangChain baseline's plain text
splits are judged alike.

**Title metadata** (``*_by_title_metadata``, the rule of ``papernotes eval``): a gold title is found
when it equals (by the same key) the chunk's ``paper_title`` or ``page_title`` metadata —
:func:`papernotes.retrieval.evaluate.score_one`. It is reported beside the first for comparison with
earlier figures; it is unfair to the baseline, whose chunks carry only their page's level-1 heading,
never the title of a paper listed as a bullet inside the page.

Both rules give per-question scores of the shape of ``score_one`` (``hit``, ``recall``, ``rr``), which
:func:`papernotes.retrieval.evaluate.aggregate` averages over the answerable questions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langchain_core.documents import Document

from papernotes.corpus.papers import title_key
from papernotes.retrieval.evaluate import aggregate, gold_keys, rank_scores, score_one

#: Rank cut-off for both pipelines: the LangChain quickstart's ``similarity_search(k=5)``.
K = 5


def score_by_text(row: dict[str, Any], docs: list[Document], k: int) -> dict[str, Any]:
    """Scores of one question by the title-in-text rule.

    Parameters
    ----------
    row : a question of the ``papernotes eval`` format (``id``, ``type``, ``gold_titles``).
    docs : the retrieved chunks, best first; only ``page_content`` is read.
    k : rank cut-off.

    Returns
    -------
    ``{"id", "type", "answerable", "refused": False}`` plus, for a question with gold titles, ``hit``
    (1.0 or 0.0), ``recall`` (share of gold titles found, 0–1) and ``rr`` (1 / rank of the first found).
    """
    gold = gold_keys(row)
    ranks: dict[str, int] = {}
    for i, d in enumerate(docs[:k], 1):
        text_key = title_key(d.page_content)
        for g in gold:
            if g not in ranks and g in text_key:
                ranks[g] = i
    return rank_scores(row, ranks, refused=False)


def score_by_title_metadata(row: dict[str, Any], docs: list[Document], k: int) -> dict[str, Any]:
    """Scores of one question by the title-metadata rule (``papernotes eval``'s ``score_one`` over the
    chunks' ``paper_title`` / ``page_title`` metadata); same shape as :func:`score_by_text`."""
    return score_one(row, [d.metadata for d in docs], "", False, k)


def score_retrieval(rows: list[dict[str, Any]], retrieve: Callable[[str], list[Document]]) -> dict[str, Any]:
    """Retrieve the top :data:`K` chunks for every question and score them by both rules.

    Parameters
    ----------
    rows : questions in the ``papernotes eval`` format.
    retrieve : ``question → ranked chunks`` (e.g. ``HybridRetriever.invoke`` or
        ``lambda q: store.similarity_search(q, k=5)``).

    Returns
    -------
    ``hit_at_5``, ``recall_at_5``, ``mrr`` and ``misses`` (ids of answerable questions with no gold
    title in the top 5) by the title-in-text rule, the same four suffixed ``_by_title_metadata`` by the
    metadata rule (all rates 0–1, None without answerable questions), and ``search_ms``
    (``{"p50", "p95"}`` of the retrieve calls, milliseconds).
    """
    by_text, by_meta, latency = [], [], []
    for row in rows:
        t = time.perf_counter()
        docs = retrieve(row["question"])
        latency.append((time.perf_counter() - t) * 1000)
        by_text.append(score_by_text(row, docs, K))
        by_meta.append(score_by_title_metadata(row, docs, K))
    text, meta = aggregate(by_text, latency), aggregate(by_meta, latency)

    def misses(scored: list[dict[str, Any]]) -> list[str]:
        return [s["id"] for s in scored if s.get("hit") == 0.0]

    return {
        "hit_at_5": text["hit_at_k"],
        "recall_at_5": text["recall_at_k"],
        "mrr": text["mrr"],
        "misses": misses(by_text),
        "hit_at_5_by_title_metadata": meta["hit_at_k"],
        "recall_at_5_by_title_metadata": meta["recall_at_k"],
        "mrr_by_title_metadata": meta["mrr"],
        "misses_by_title_metadata": misses(by_meta),
        "search_ms": text["latency_ms"],
    }
