"""The scale benchmark (``bench/run.py --scale N …``): the real notes plus N − 1 distractor copies
(distractors.py), measured at each scale with the stages of the main bench (embedding floor, cold
ingest, no-op and one-edit re-ingests, queries, cold ask), plus the keyword-index and catalog rebuild
times, the near-duplicate check and the machine's load average.

The distractors are generated once for the largest scale; scale N ingests the first N − 1 copies.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
from distractors import make_distractors, near_duplicates
from measure import (
    Measurements,
    cold_ask,
    cold_rep,
    floor_rep,
    log,
    median,
    query_stage,
    repeat_heavy,
)
from report import build_result
from workspace import analyses_of, clear_chroma_cache, copy_corpora, fresh_data_dir, pick_edit, with_data_dir

from papernotes.retrieval.indexing import IngestReport, ingest
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import make_client


def run_scales(
    scales: list[int], corpora: list[Path], rows: list[dict[str, Any]], settings0: Settings, work: Path, **opts: Any
) -> dict[str, Any]:
    """Every scale in ascending order; returns ``{"scales": [entry per scale], "distractors": {…},
    "cpus", "loadavg_at_start", "loadavg_at_end"}`` (entries: :func:`scale_entry`).

    ``opts``: ``reps`` (cheap stages), ``heavy_max`` and ``budget`` (see :func:`measure.repeat_heavy`),
    ``models`` (the prepared model folder), ``floor_max`` (the separate embedding floor is measured at
    scales up to this one; above it the ingest's own time in the embedder stands for it), ``on_scale``
    (called with the result so far after each scale, so a long run keeps what it measured), ``keep`` (keep
    each scale's index, ``scaleN/cold0``, with the sources it was given in ``scaleN/sources.json``, for
    ``bench/reingest.py``).

    Raises
    ------
    BadInputError
        for a corpus without a deep-note Markdown file (the edit stage needs one).
    """
    on_scale = opts.pop("on_scale", None)
    keep = opts.pop("keep", False)
    load0 = [round(x, 2) for x in os.getloadavg()]
    copies = copy_corpora(corpora, work / "corpus")
    prep = with_data_dir(settings0, fresh_data_dir(work, "prep", opts["models"]))
    analyses = analyses_of(prep, [str(c) for c in copies])
    edit = pick_edit(analyses, copies)
    t = time.perf_counter()
    extra, shuffled = make_distractors(copies, analyses, max(scales) - 1, work / "distractors")
    gen_s = time.perf_counter() - t
    log(f"{max(scales) - 1} distractor copies in {gen_s:.1f} s ({shuffled} sentences and items shuffled)")
    entries: list[dict[str, Any]] = []
    result: dict[str, Any] = {}
    for n in sorted(set(scales)):
        sources = [str(c) for c in copies] + [str(d) for d in extra[: (n - 1) * len(copies)]]
        entries.append(scale_entry(n, sources, copies, corpora, edit, rows, settings0, work / f"scale{n}", **opts))
        if keep:  # bench/reingest.py re-measures the re-ingests and queries on it
            (work / f"scale{n}" / "sources.json").write_text(json.dumps(sources), encoding="utf-8")
        else:
            shutil.rmtree(work / f"scale{n}", ignore_errors=True)
        clear_chroma_cache()
        result = {
            "scales": entries,
            "distractors": {"copies": max(scales) - 1, "generate_s": round(gen_s, 2), "shuffled": shuffled},
            "cpus": os.cpu_count(),
            "loadavg_at_start": load0,
            "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
        }
        if on_scale is not None:
            on_scale(result)
    return result


def scale_entry(
    n: int,
    sources: list[str],
    copies: list[Path],
    corpora: list[Path],
    edit: Any,
    rows: list[dict[str, Any]],
    settings0: Settings,
    work: Path,
    *,
    reps: int,
    heavy_max: int,
    budget: float | None,
    models: Path | None,
    floor_max: int,
) -> dict[str, Any]:
    """One scale: the main bench's result object (:func:`report.build_result`, without the baseline) plus
    ``scale``, ``sources``, ``stages_cold`` / ``stages_edit`` (seconds per ingest stage, the keyword index
    ``bm25`` and ``catalog`` rebuilds among them), ``embed_in_ingest_s`` (the cold ingest's time inside
    the embedder) and ``overhead_vs_embed_in_ingest``, ``near_duplicates`` (distractors.near_duplicates)
    and the load average when the scale started. Above ``floor_max`` the separate floor is not measured
    (its figures are None)."""
    work.mkdir(parents=True, exist_ok=True)
    load = [round(x, 2) for x in os.getloadavg()]
    log(f"scale {n}x: {len(sources)} sources; load average {load}")
    m = Measurements()
    cold_dir: list[Path] = []
    texts: list[str] = []

    def cold_and_floor(i: int) -> None:
        d = cold_rep(m, cold_dir, work, i, models, settings0, sources)
        if n > floor_max:
            return
        if not texts:  # the floor embeds exactly the chunk texts the ingest stored
            texts.extend(_store_texts(with_data_dir(settings0, d)))
        floor_rep(m, with_data_dir(settings0, d), texts, i)

    m.heavy_reps = repeat_heavy(cold_and_floor, heavy_max, budget)
    s = with_data_dir(settings0, cold_dir[0])
    dup = _near_duplicates(s, copies)
    log(f"  near-duplicates: {dup}")
    noop_reports, edit_reports = [], []
    for _ in range(reps):
        rep, sec = _timed(s, sources)
        m.noop.append((sec, rep.added + rep.updated))
        noop_reports.append(rep)
    for i in range(reps):
        edit.apply(i + 1)
        rep, sec = _timed(s, sources)
        m.edits.append((sec, rep.added + rep.updated))
        edit_reports.append(rep)
    edit.restore()
    _timed(s, sources)
    log(f"  no-op {[round(x, 2) for x, _ in m.noop]} s; edit {[round(x, 2) for x, _ in m.edits]} s")
    m.queries = query_stage(s, rows, reps)
    log(f"  search p50 {m.queries['search_ms']['p50']} ms; hit@5 {m.queries['scores']['hit_at_5']}")
    clear_chroma_cache()
    m.cold_ask_s = cold_ask(s.data_dir, rows[0]["question"], reps)
    result = build_result(m, corpora=corpora, dev_questions=len(rows), edit=edit, reps=reps)
    if not m.floor_s:
        for k in ("embed_floor_s", "embed_floor_cpu_s", "model_load_s"):
            result[k] = None
    result.pop("baseline")
    for k in [k for k in result if "baseline" in k]:
        result.pop(k)
    result["targets"] = {k: v for k, v in result["targets"].items() if "baseline" not in k}
    cold_report = m.cold_report
    assert cold_report is not None
    embed_s = cold_report.stages.get("embed")
    result.update(
        embed_in_ingest_s=embed_s,
        overhead_vs_embed_in_ingest=round(result["cold_ingest_s"] / embed_s, 3) if embed_s else None,
        scale=n,
        sources=len(sources),
        stages_cold=cold_report.stages,
        stages_edit=_median_stages(edit_reports),
        stages_noop=_median_stages(noop_reports),
        near_duplicates=dup,
        loadavg_at_start=load,
    )
    result["targets"]["edit_reingest_s"] = {
        "value": result["edit_reingest_s"],
        "target": "<= 3.0",
        "met": result["edit_reingest_s"] <= 3.0,
    }
    return result


def _timed(settings: Settings, sources: list[str]) -> tuple[IngestReport, float]:
    t = time.perf_counter()
    rep = ingest(settings, sources)
    return rep, time.perf_counter() - t


def _median_stages(reports: list[IngestReport]) -> dict[str, float]:
    keys = {k for r in reports for k in r.stages}
    return {k: round(median([r.stages[k] for r in reports if k in r.stages]), 3) for k in sorted(keys)}


def _collection(settings: Settings):
    return make_client(settings).get_collection(settings.collection)


def _store_texts(settings: Settings) -> list[str]:
    """The chunk texts the store holds (what a cold ingest embedded)."""
    return [str(d) for d in _collection(settings).get(include=["documents"])["documents"]]


def _near_duplicates(settings: Settings, copies: list[Path]) -> dict[str, Any]:
    """:func:`distractors.near_duplicates` over the store's vectors; a chunk is real when its origin is
    one of the real corpus copies."""
    got = _collection(settings).get(include=["embeddings", "metadatas"])
    real = {str(c) for c in copies}
    is_real = np.array([str((md or {}).get("origin", "")) in real for md in got["metadatas"]])
    return near_duplicates(np.asarray(got["embeddings"], dtype=np.float32), is_real)
