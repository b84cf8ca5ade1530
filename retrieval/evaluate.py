"""Retrieval and answer evaluation over a JSONL question set (``papernotes eval``).

Each line: ``{"id", "type", "question", "gold_titles": [...], "answer_must_contain": [...]}``.
Metrics: hit@k, recall@k (over gold titles), MRR (reciprocal rank of the first gold title, 0 if none
in the top k), refusal accuracy over unanswerable questions (no gold titles, or type
``unanswerable``: a detail the notes lack about a paper they hold), false-refusal rate over the
others, answer-contains rate (each string, word-boundary, case-insensitive), latency p50/p95.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.papers import title_key


def load_questions(path: Path) -> list[dict[str, Any]]:
    """Read and validate the JSONL file.

    Raises
    ------
    BadInputError
        if the file is missing, a line is not JSON, or a line lacks ``question``.
    """
    if path.is_dir():
        raise BadInputError(f"{path} is a directory, not a JSONL file")
    if not path.is_file():
        raise BadInputError(f"eval file not found: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise BadInputError(f"{path}: not a UTF-8 text file") from None
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise BadInputError(f"{path}:{n}: not JSON ({e.msg})") from None
        if not isinstance(row, dict) or not str(row.get("question", "")).strip():
            raise BadInputError(f'{path}:{n}: each line needs a "question"')
        if not isinstance(row["question"], str):
            raise BadInputError(f'{path}:{n}: "question" must be a string')
        for key in ("gold_titles", "answer_must_contain"):
            if key in row and not (isinstance(row[key], list) and all(isinstance(x, str) for x in row[key])):
                raise BadInputError(f'{path}:{n}: "{key}" must be a list of strings')
        row.setdefault("id", f"line{n}")
        row.setdefault("type", "unknown")
        row.setdefault("gold_titles", [])
        row.setdefault("answer_must_contain", [])
        rows.append(row)
    if not rows:
        raise BadInputError(f"{path} has no questions")
    return rows


#: Letters and digits of scripts that separate words by spaces (Latin): a needle starting or ending with
#: one must not continue a word there; Chinese or Japanese text around it is no word to continue
#: ("作者团队来自Meta AI" holds "Meta AI", "参数量为15 亿" holds "15 亿"). The Latin-1 letters leave out
#: the two signs among them, × and ÷ (U+00D7, U+00F7): "2.6× speedup" holds "2.6", "512×512" holds "512".
_SPACED = "0-9A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"


def contains(answer: str, needle: str) -> bool:
    """``needle`` in ``answer``, case-insensitive, at word boundaries: where the needle starts/ends with
    a Latin letter or digit, the answer's neighbouring character is none (:data:`_SPACED`)."""
    pre = rf"(?<![{_SPACED}])" if re.match(rf"[{_SPACED}]", needle) else ""
    post = rf"(?![{_SPACED}])" if re.search(rf"[{_SPACED}]$", needle) else ""
    return re.search(pre + re.escape(needle) + post, answer, re.IGNORECASE) is not None


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0–100) by linear interpolation (numpy's default method)."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100
    lo, hi = int(pos), min(int(pos) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def gold_keys(row: dict[str, Any]) -> set[str]:
    """The question's gold titles as :func:`~papernotes.corpus.papers.title_key` keys."""
    return {key for t in row["gold_titles"] if (key := title_key(t))}


def is_answerable(row: dict[str, Any]) -> bool:
    """Whether the notes answer the question: it has gold titles and is not of type ``unanswerable``
    (a detail the notes lack about a paper they hold keeps that paper as a gold title for retrieval)."""
    return bool(gold_keys(row)) and row.get("type") != "unanswerable"


def rank_scores(row: dict[str, Any], ranks: dict[str, int], refused: bool) -> dict[str, Any]:
    """``{"id", "type", "answerable", "refused"}`` plus, for a question with gold titles, ``hit`` (1.0
    or 0.0), ``recall`` (share of gold titles found, 0–1) and ``rr`` (1 / rank of the first found), from
    ``ranks``: gold title key → rank (1-based) at which it was found."""
    gold = gold_keys(row)
    out: dict[str, Any] = {"id": row["id"], "type": row["type"], "answerable": is_answerable(row), "refused": refused}
    if gold:
        out["hit"] = 1.0 if ranks else 0.0
        out["recall"] = len(ranks) / len(gold)
        out["rr"] = 1.0 / min(ranks.values()) if ranks else 0.0
    return out


def score_one(
    row: dict[str, Any],
    retrieved: list[dict[str, Any]],
    answer: str,
    refused: bool,
    k: int,
    cited: list[str] | None = None,
) -> dict[str, Any]:
    """Per-question scores from the ranked ``retrieved`` rows (``paper_title``/``page_title``) and, for
    list questions (type ``list_query``), ``list_recall``: the share of gold titles among the answer's
    cited paper titles (``cited``)."""
    gold = gold_keys(row)
    ranks: dict[str, int] = {}
    for i, r in enumerate(retrieved[:k], 1):
        for t in (r.get("paper_title"), r.get("page_title")):
            key = title_key(t or "")
            if key in gold and key not in ranks:
                ranks[key] = i
    out = rank_scores(row, ranks, refused)
    if gold and row["type"] == "list_query":
        have = {title_key(t or "") for t in cited or []}
        out["list_recall"] = len(gold & have) / len(gold)
    must = row.get("answer_must_contain") or []
    if must:
        out["contains"] = sum(contains(answer, m) for m in must) / len(must)
        out["lacks"] = [m for m in must if not contains(answer, m)]
    return out


def aggregate(scored: list[dict[str, Any]], latencies: list[float]) -> dict[str, Any]:
    """The ``eval --json`` object from per-question scores and latencies (ms)."""

    def mean(key: str, rows: list[dict[str, Any]]) -> float | None:
        vals = [r[key] for r in rows if key in r]
        return round(statistics.fmean(vals), 4) if vals else None

    answerable = [r for r in scored if r["answerable"]]
    unanswerable = [r for r in scored if not r["answerable"]]
    by_type: dict[str, Any] = {}
    for t in sorted({r["type"] for r in scored}):
        rows = [r for r in scored if r["type"] == t]
        by_type[t] = {
            "n": len(rows),
            "hit_at_k": mean("hit", rows),
            "recall_at_k": mean("recall", rows),
            "mrr": mean("rr", rows),
            "answer_contains": mean("contains", rows),
            "list_recall": mean("list_recall", rows),
            "refused": sum(r["refused"] for r in rows),
        }
    details = []
    for r in scored:
        why = []
        if r["answerable"] and r.get("hit") == 0:
            why.append("no gold title in the top k")
        if r["answerable"] and r["refused"]:
            why.append("refused though answerable")
        if not r["answerable"] and not r["refused"]:
            why.append("answered though the notes do not cover it")
        if r.get("lacks"):
            why.append("answer lacks " + ", ".join(repr(x) for x in r["lacks"]))
        if why:
            details.append({"id": r["id"], "why": "; ".join(why)})
    return {
        "n": len(scored),
        "hit_at_k": mean("hit", answerable),
        "recall_at_k": mean("recall", answerable),
        "mrr": mean("rr", answerable),
        "refusal_accuracy": round(sum(r["refused"] for r in unanswerable) / len(unanswerable), 4)
        if unanswerable
        else None,
        "false_refusal_rate": round(sum(r["refused"] for r in answerable) / len(answerable), 4) if answerable else None,
        "answer_contains": mean("contains", scored),
        "list_recall": mean("list_recall", scored),
        "latency_ms": {"p50": round(percentile(latencies, 50), 1), "p95": round(percentile(latencies, 95), 1)},
        "by_type": by_type,
        "misses": [d["id"] for d in details],
        "miss_details": details,
    }


def score_all(
    rows: list[dict[str, Any]], ask: Callable[[str], Any], k: int
) -> tuple[list[dict[str, Any]], list[float]]:
    """Ask every question with ``ask(question) -> Answer``: the per-question scores
    (:func:`score_one`) and latencies (ms), in the order of ``rows``; :func:`aggregate` sums them up."""
    scored, lat = [], []
    for row in rows:
        t = time.perf_counter()
        a = ask(row["question"])
        lat.append((time.perf_counter() - t) * 1000)
        cited = [c.paper_title or c.page_title or "" for c in a.citations]
        scored.append(score_one(row, a.retrieved, a.answer, a.refused, k, cited))
    return scored, lat


def run_eval(rows: list[dict[str, Any]], ask: Callable[[str], Any], k: int) -> dict[str, Any]:
    """Ask every question with ``ask(question) -> Answer`` and aggregate (see :func:`aggregate`).

    When rows carry a ``split`` (the calibration set's ``fit`` / ``held``), the result also has
    ``splits``: the same aggregate for each split, so figures on questions the answer models were
    fitted on are never mixed with figures on held-out ones."""
    scored, lat = score_all(rows, ask, k)
    out = aggregate(scored, lat)
    splits = sorted({str(r["split"]) for r in rows if r.get("split")})
    if splits:
        out["splits"] = {
            name: aggregate(
                [s for s, r in zip(scored, rows, strict=True) if r.get("split") == name],
                [x for x, r in zip(lat, rows, strict=True) if r.get("split") == name],
            )
            for name in splits
        }
    return out
