"""Re-measure the re-ingest and query stages on a kept index, without its cold ingest.

```
python bench/reingest.py --index DIR [--reps N] [--queries] [--dev FILE] [--profile FILE] [--json]
```

``DIR`` is a scale's folder kept by ``bench/run.py --scale N --keep`` (``<workdir>/scaleN``): its
``sources.json`` (the sources the cold ingest was given, the real notes' copy first) and ``cold0`` (the
data dir). A 10x cold ingest takes most of an hour on 2 cores; this measures a code change's no-op and
one-edit re-ingests (and, with ``--queries``, warm search/ask) on the index built once. After a warm-up
no-op ingest (not timed: a changed parser version re-parses every page once), ``--reps`` no-op and
one-edit re-ingests (the scale bench's edit), wall and process CPU seconds, medians; the edited note is
restored and re-ingested at the end. ``--profile FILE`` writes a pyinstrument text profile of one more
edit (pyinstrument must be installed).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from measure import log, median, query_stage
from report import emit
from workspace import analyses_of, base_settings, pick_edit, with_data_dir

from papernotes.retrieval.indexing import IngestReport, ingest
from papernotes.retrieval.settings import Settings

DEFAULT_DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "dev_qa.jsonl"


def timed(settings: Settings, sources: list[str]) -> tuple[IngestReport, float, float]:
    """One ingest: ``(report, wall seconds, process CPU seconds)``."""
    t, c = time.perf_counter(), time.process_time()
    rep = ingest(settings, sources)
    return rep, time.perf_counter() - t, time.process_time() - c


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The measurements (see the module docstring) as one JSON-ready dict."""
    root = Path(args.index)
    sources = json.loads((root / "sources.json").read_text(encoding="utf-8"))
    settings = with_data_dir(base_settings(), root / "cold0")
    edit = pick_edit(analyses_of(settings, sources[:1]), [Path(sources[0])])
    rep, w, c = timed(settings, sources)
    log(f"warm-up no-op: {w:.2f} s ({c:.2f} s CPU), {rep.chunks} chunks, stages {rep.stages}")
    noop, edits = [], []
    for _ in range(args.reps):
        noop.append(timed(settings, sources))
    for i in range(args.reps):
        edit.apply(i + 1)
        edits.append(timed(settings, sources))
    log(f"no-op {[round(w, 2) for _, w, _ in noop]} s; edit {[round(w, 2) for _, w, _ in edits]} s")
    if args.profile:
        from pyinstrument import Profiler

        edit.apply(args.reps + 1)
        with Profiler(interval=0.002) as prof:
            ingest(settings, sources)
        Path(args.profile).write_text(prof.output_text(color=False, show_all=False), encoding="utf-8")
    edit.restore()
    ingest(settings, sources)
    out: dict[str, Any] = {
        "chunks": rep.chunks,
        "sources": len(sources),
        "noop_reingest_s": round(median([w for _, w, _ in noop]), 3),
        "noop_reingest_cpu_s": round(median([c for _, _, c in noop]), 3),
        "noop_embedded": max(r.added + r.updated for r, _, _ in noop),
        "edit_reingest_s": round(median([w for _, w, _ in edits]), 3),
        "edit_reingest_cpu_s": round(median([c for _, _, c in edits]), 3),
        "edit_embedded": max(r.added + r.updated for r, _, _ in edits),
        "stages_noop": _median_stages([r for r, _, _ in noop]),
        "stages_edit": _median_stages([r for r, _, _ in edits]),
        "raw": {
            "noop_reingest_s": [round(w, 3) for _, w, _ in noop],
            "edit_reingest_s": [round(w, 3) for _, w, _ in edits],
        },
    }
    if args.queries:
        rows = [json.loads(ln) for ln in Path(args.dev).read_text(encoding="utf-8").splitlines() if ln.strip()]
        q = query_stage(settings, rows, args.reps)
        out.update(
            search_ms=q["search_ms"], ask_ms=q["ask_ms"], hit_at_5=q["scores"]["hit_at_5"], mrr=q["scores"]["mrr"]
        )
        log(f"search p50 {q['search_ms']['p50']} ms; hit@5 {q['scores']['hit_at_5']}")
    out["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    return out


def _median_stages(reports: list[IngestReport]) -> dict[str, float]:
    keys = {k for r in reports for k in r.stages}
    return {k: round(median([r.stages[k] for r in reports if k in r.stages]), 3) for k in sorted(keys)}


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run, print the result (JSON with ``--json``, else one line per figure)."""
    p = argparse.ArgumentParser(prog="bench/reingest.py", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--index", required=True, metavar="DIR", help="A scale folder kept by run.py --scale N --keep.")
    p.add_argument("--reps", type=int, default=3, help="Repetitions of each stage (default 3).")
    p.add_argument("--queries", action="store_true", help="Also measure warm search/ask over the dev questions.")
    p.add_argument("--dev", default=str(DEFAULT_DEV), metavar="FILE", help="Dev questions JSONL.")
    p.add_argument("--profile", metavar="FILE", help="Write a pyinstrument profile of one more edit to FILE.")
    p.add_argument("--json", action="store_true", help="Print one JSON object.")
    args = p.parse_args(argv)
    if args.reps < 1:
        p.error("--reps must be at least 1")
    if not (Path(args.index) / "sources.json").is_file():
        p.error(f"{args.index} has no sources.json (keep a scale run with run.py --scale N --keep)")
    emit(run(args), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
