"""The bench's result: the ``--json`` object built from the raw :class:`Measurements`, the targets it is
checked against, and the readable table."""

from __future__ import annotations

import os
import resource
from pathlib import Path
from typing import Any

from baseline import PIPELINE
from measure import Measurements, median
from rich.console import Console
from rich.table import Table
from workspace import NoteEdit

#: The repository root (paths in results are relative to it).
REPO = Path(__file__).resolve().parent.parent

#: The targets this benchmark reports against (from the performance brief): ``name → (operator, value)``.
TARGETS = {
    "overhead_ratio": ("<=", 1.15),
    "noop_reingest_share": ("<=", 0.03),
    "noop_embedded": ("==", 0),
    "search_p50_ms": ("<=", 30.0),
    "ask_p50_ms": ("<=", 100.0),
    "cold_ask_s": ("<=", 3.0),
    "peak_rss_mb": ("<=", 1536.0),
    "ingest_ratio_vs_baseline": ("<=", 1.0),
    "hit_ratio_vs_baseline": (">=", 1.3),
}

#: The scoring rules, as the JSON names them (see scoring.py).
SCORING = {
    "rule": "a gold title is found when its title_key (letters and digits, case-folded, accents removed) is "
    "a substring of the title_key of a top-5 chunk's text; used for hit_at_5, recall_at_5, mrr of both pipelines",
    "by_title_metadata": "the papernotes eval rule: a gold title equals (by title_key) a top-5 chunk's "
    "paper_title or page_title metadata; the baseline's chunks only carry their page's level-1 heading",
}

_SCORE_KEYS = (
    "hit_at_5",
    "recall_at_5",
    "mrr",
    "misses",
    "hit_at_5_by_title_metadata",
    "recall_at_5_by_title_metadata",
    "mrr_by_title_metadata",
    "misses_by_title_metadata",
)


def ratio(a: float | None, b: float | None) -> float | None:
    """``a / b`` rounded to 3 decimals; None when either is missing or ``b`` is 0."""
    return round(a / b, 3) if a is not None and b else None


def baseline_result(m: Measurements) -> dict[str, Any]:
    """The ``baseline`` object: ingest seconds (median), chunks, both scoring rules' figures, search
    latency (ms), repetitions; ``{"ingest_s": None, "hit_at_5": None, "skipped": True}`` when not run."""
    s = m.baseline_scores
    if s is None:
        return {"ingest_s": None, "hit_at_5": None, "skipped": True}
    return {
        "ingest_s": round(median(m.baseline_s), 3),
        "chunks": m.baseline_chunks,
        **{k: s[k] for k in _SCORE_KEYS},
        "search_ms": s["search_ms"],
        "reps": len(m.baseline_s),
        "pipeline": PIPELINE,
        "skipped": False,
    }


def build_result(
    m: Measurements, *, corpora: list[Path], dev_questions: int, edit: NoteEdit, reps: int
) -> dict[str, Any]:
    """The result object (the ``--json`` contract plus extras) from the raw measurements of a full run.

    Times are medians over repetitions, seconds (``*_s``) or milliseconds (``*_ms``); ``raw`` keeps every
    repetition; ``targets`` is :func:`check_targets` of the rest. ``reps`` is the repetitions of the
    cheap stages.

    Raises
    ------
    ValueError
        when ``m`` holds no cold ingest.
    """
    rep = m.cold_report
    if rep is None or not m.cold_s:
        raise ValueError("build_result needs a measured cold ingest")
    base = baseline_result(m)
    ours = m.queries["scores"]
    floor, cold = median(m.floor_s), median(m.cold_s)
    noop_s, edit_s = median([s for s, _ in m.noop]), median([s for s, _ in m.edits])
    result: dict[str, Any] = {
        "chunks": rep.chunks,
        "embed_floor_s": round(floor, 3),
        "cold_ingest_s": round(cold, 3),
        "overhead_ratio": ratio(cold, floor),
        "peak_rss_mb": round(m.peak_rss_mb[0], 1),
        "noop_reingest_s": round(noop_s, 3),
        "noop_embedded": max(n for _, n in m.noop),
        "edit_reingest_s": round(edit_s, 3),
        "edit_embedded": max(n for _, n in m.edits),
        "search_ms": m.queries["search_ms"],
        "ask_ms": m.queries["ask_ms"],
        "cold_ask_s": round(median(m.cold_ask_s), 3),
        "baseline": base,
        **{k: ours[k] for k in _SCORE_KEYS},
        "ingest_ratio_vs_baseline": ratio(cold, base["ingest_s"]),
        "hit_ratio_vs_baseline": ratio(ours["hit_at_5"], base["hit_at_5"]),
        "hit_ratio_vs_baseline_by_title_metadata": ratio(
            ours["hit_at_5_by_title_metadata"], base.get("hit_at_5_by_title_metadata")
        ),
        "scoring": SCORING,
        # extras
        "chunks_per_s": round(rep.chunks / cold, 1) if cold else None,
        "cold_embedded": rep.added,
        "embed_floor_cpu_s": round(median(m.floor_cpu_s), 3),
        "cold_ingest_cpu_s": round(median(m.cold_cpu_s), 3),
        "cpu_overhead_ratio": ratio(median(m.cold_cpu_s), median(m.floor_cpu_s)),
        "model_load_s": round(median(m.model_load_s), 3),
        "noop_share_of_cold": ratio(noop_s, cold),
        "edit_note": {"source": edit.source, "line": edit.line_no + 1, "note_chunks": edit.note_chunks},
        "process_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "answer_contains": m.queries["answer_contains"],
        "dev_questions": dev_questions,
        "reps": {
            "embed_floor": m.heavy_reps,
            "cold_ingest": m.heavy_reps,
            "baseline_ingest": len(m.baseline_s),
            "noop_reingest": reps,
            "edit_reingest": reps,
            "queries": reps,
            "cold_ask": reps,
        },
        "raw": {
            "embed_floor_s": m.floor_s,
            "cold_ingest_s": m.cold_s,
            "peak_rss_mb": m.peak_rss_mb,
            "noop_reingest_s": [s for s, _ in m.noop],
            "edit_reingest_s": [s for s, _ in m.edits],
            "cold_ask_s": m.cold_ask_s,
        },
        # relative to the repository, so a result file names the notes the same on every machine
        "corpora": [os.path.relpath(c, REPO) for c in corpora],
        "embedding_model": rep.embedding_model,
        "cpus": os.cpu_count(),
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
    }
    result["targets"] = check_targets(result)
    return result


def check_targets(r: dict[str, Any]) -> dict[str, Any]:
    """``{name: {"value", "target", "met"}}`` for each target of :data:`TARGETS` (``met`` None when the
    value could not be measured, e.g. without the baseline) and for the one-note edit."""
    vals = {
        "overhead_ratio": r["overhead_ratio"],
        "noop_reingest_share": r["noop_share_of_cold"],
        "noop_embedded": r["noop_embedded"],
        "search_p50_ms": r["search_ms"]["p50"],
        "ask_p50_ms": r["ask_ms"]["p50"],
        "cold_ask_s": r["cold_ask_s"],
        "peak_rss_mb": r["peak_rss_mb"],
        "ingest_ratio_vs_baseline": r["ingest_ratio_vs_baseline"],
        "hit_ratio_vs_baseline": r["hit_ratio_vs_baseline"],
    }
    out: dict[str, Any] = {}
    for name, (op, target) in TARGETS.items():
        v = vals[name]
        met = None if v is None else (v <= target if op == "<=" else v >= target if op == ">=" else v == target)
        out[name] = {"value": v, "target": f"{op} {target}", "met": met}
    note = r["edit_note"]["note_chunks"]
    out["edit_embeds_only_changed"] = {
        "value": r["edit_embedded"],
        "target": f"1..{note} (chunks of that note)",
        "met": 1 <= r["edit_embedded"] <= note,
    }
    return out


def render(r: dict[str, Any]) -> None:
    """Print the result as a readable table (rich) on stdout."""
    t = Table(
        title=f"papernotes bench — {r['chunks']} chunks, {r['dev_questions']} dev questions, {r['embedding_model']}"
    )
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_column("target")
    t.add_column("", justify="center")
    tg = r["targets"]

    def mark(name: str) -> str:
        m = tg.get(name, {}).get("met")
        return "" if name not in tg else ("[green]ok[/]" if m else "[red]miss[/]" if m is False else "–")

    def row(label: str, value: str, target: str = "") -> tuple[str, str, str, str]:
        return (label, value, tg[target]["target"], mark(target)) if target else (label, value, "", "")

    b = r["baseline"]
    rows = [
        row("embedding floor", f"{r['embed_floor_s']:.2f} s"),
        row("cold ingest", f"{r['cold_ingest_s']:.2f} s ({r['chunks_per_s']} chunks/s)"),
        row("overhead ratio (ingest / floor)", f"{r['overhead_ratio']}", "overhead_ratio"),
        row("  same, in CPU time", f"{r['cpu_overhead_ratio']}"),
        row("peak RSS during ingest", f"{r['peak_rss_mb']:.0f} MiB", "peak_rss_mb"),
        row(
            "no-op re-ingest",
            f"{r['noop_reingest_s']:.2f} s ({r['noop_share_of_cold']:.1%} of cold)",
            "noop_reingest_share",
        ),
        row("  chunks embedded", str(r["noop_embedded"]), "noop_embedded"),
        row("one-note edit re-ingest", f"{r['edit_reingest_s']:.2f} s"),
        row(
            "  chunks embedded",
            f"{r['edit_embedded']} of {r['edit_note']['note_chunks']} in the note",
            "edit_embeds_only_changed",
        ),
        row("search p50 / p95", f"{r['search_ms']['p50']} / {r['search_ms']['p95']} ms", "search_p50_ms"),
        row("extractive ask p50 / p95", f"{r['ask_ms']['p50']} / {r['ask_ms']['p95']} ms", "ask_p50_ms"),
        row("cold `papernotes ask`", f"{r['cold_ask_s']:.2f} s", "cold_ask_s"),
        row("hit@5 / recall@5 (ours, title in text)", f"{r['hit_at_5']} / {r['recall_at_5']}"),
        row("  by title metadata", f"{r['hit_at_5_by_title_metadata']} / {r['recall_at_5_by_title_metadata']}"),
    ]
    if not b.get("skipped"):
        rows += [
            row("baseline ingest", f"{b['ingest_s']:.2f} s ({b['chunks']} chunks)"),
            row("baseline hit@5 / recall@5 (title in text)", f"{b['hit_at_5']} / {b['recall_at_5']}"),
            row("  by title metadata", f"{b['hit_at_5_by_title_metadata']} / {b['recall_at_5_by_title_metadata']}"),
            row("ingest ratio vs baseline", f"{r['ingest_ratio_vs_baseline']}", "ingest_ratio_vs_baseline"),
            row("hit@5 ratio vs baseline (title in text)", f"{r['hit_ratio_vs_baseline']}", "hit_ratio_vs_baseline"),
            row("  by title metadata", f"{r['hit_ratio_vs_baseline_by_title_metadata']}"),
        ]
    for cells in rows:
        t.add_row(*cells)
    c = Console()
    c.print(t)
    c.print(f"reps: {r['reps']}; load average at end {r['loadavg_at_end']} on {r['cpus']} CPUs", markup=False)


def emit(result: dict[str, Any], as_json: bool) -> None:
    """Print a bench script's result: one JSON object (``--json``), else one ``key: value`` line each."""
    import json
    import sys

    if as_json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        for k, v in result.items():
            sys.stdout.write(f"{k}: {v}\n")
