"""Warm search latency on a kept index: wall and process CPU time per question, without re-ingesting.

```
python bench/queries.py --index DIR [--reps N] [--dev FILE] [--profile FILE] [--ranks FILE] [--json]
```

``DIR`` is a scale's folder kept by ``bench/run.py --scale N --keep`` (its ``cold0`` data dir). The
notes are opened once (``Notes`` over a ``HybridRetriever``, k = 5, the bot's path), every dev question
is searched once to warm the process (model session, term caches), then ``--reps`` times; each
``Notes.search`` is timed in wall and process CPU milliseconds (p50/p95, and the CPU mean). On shared
cores the CPU time is the steadier figure: wall time includes waiting for the cores. Compare two codes
by running them in alternating processes on two copies of the index. ``--profile FILE`` writes a
pyinstrument text profile of the timed searches (pyinstrument must be installed; its sampling adds
to the times), ``--ranks FILE`` each question's top-5 ids and first 20 pool ids as JSON (to check that
two codes rank alike).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from report import emit
from workspace import base_settings, with_data_dir

from papernotes.retrieval.evaluate import percentile
from papernotes.retrieval.search import HybridRetriever
from papernotes.retrieval.service import Notes

DEFAULT_DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "dev_qa.jsonl"


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The measurements (see the module docstring) as one JSON-ready dict."""
    settings = with_data_dir(base_settings(), Path(args.index) / "cold0")
    rows = [json.loads(ln) for ln in Path(args.dev).read_text(encoding="utf-8").splitlines() if ln.strip()]
    t = time.perf_counter()
    notes = Notes(settings, HybridRetriever.from_settings(settings, k=5))
    opened = time.perf_counter() - t
    for r in rows:
        notes.search(r["question"])
    wall: list[float] = []
    cpu: list[float] = []
    ranks: dict[str, list[str]] = {}
    prof = None
    if args.profile:
        from pyinstrument import Profiler

        prof = Profiler()
        prof.start()
    for _ in range(args.reps):
        for r in rows:
            t, c = time.perf_counter(), time.process_time()
            res = notes.search(r["question"])
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
            ranks[r["question"]] = [h.id for h in res.hits] + ["|"] + [h.id for h in res.pool[:20]]
    if prof is not None:
        prof.stop()
        Path(args.profile).write_text(prof.output_text(color=False, show_all=False), encoding="utf-8")
    if args.ranks:
        Path(args.ranks).write_text(json.dumps(ranks, indent=0), encoding="utf-8")
    return {
        "chunks": len(notes.retriever.bm25),
        "vectors_in_memory": notes.retriever.vectors is not None,
        "searches": len(wall),
        "open_s": round(opened, 2),
        "search_ms": {"p50": round(percentile(wall, 50), 1), "p95": round(percentile(wall, 95), 1)},
        "search_cpu_ms": {
            "p50": round(percentile(cpu, 50), 1),
            "p95": round(percentile(cpu, 95), 1),
            "mean": round(sum(cpu) / len(cpu), 1),
        },
        "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run, print the result (JSON with ``--json``, else one line per figure)."""
    p = argparse.ArgumentParser(prog="bench/queries.py", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--index", required=True, metavar="DIR", help="A scale folder kept by run.py --scale N --keep.")
    p.add_argument("--reps", type=int, default=2, help="Passes over the dev questions (default 2).")
    p.add_argument("--dev", default=str(DEFAULT_DEV), metavar="FILE", help="Dev questions JSONL.")
    p.add_argument("--profile", metavar="FILE", help="Write a pyinstrument profile of the timed searches to FILE.")
    p.add_argument("--ranks", metavar="FILE", help="Write each question's top-5 and pool ids to FILE (JSON).")
    p.add_argument("--json", action="store_true", help="Print one JSON object.")
    args = p.parse_args(argv)
    if args.reps < 1:
        p.error("--reps must be at least 1")
    if not (Path(args.index) / "cold0").is_dir():
        p.error(f"{args.index} has no cold0 data dir (keep a scale run with run.py --scale N --keep)")
    emit(run(args), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
