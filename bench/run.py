#!/usr/bin/env python
"""Ingest and query benchmark for papernotes, with a LangChain-quickstart baseline on the same embedder.

Usage::

    python bench/run.py [--corpus PATH ...] [--dev FILE] [--reps N] [--heavy-reps N] [--skip-baseline] [--json]
    python bench/run.py --scale 1 --scale 4 --scale 10 [--plot bench/scale.png] [--json]

Everything runs in this one process except the cold ``papernotes ask`` (a fresh process, as a user
would run it). Each figure is the median of several repetitions; the expensive stages (embedding floor,
cold ingest, baseline ingest) repeat while they stay within ``--heavy-budget`` seconds unless
``--heavy-reps`` is given; the repetitions actually used are in the output's ``"reps"``.

Stages (see bench/README.md for what each number means):

1. embedding floor: ``embed_documents`` over exactly the chunk texts ingest produces (warm model);
2. cold ingest into an empty data dir (model files pre-seeded), peak RSS sampled with psutil;
3. no-op re-ingest, and re-ingest after appending one sentence to one deep note;
4. warm ``Notes.search`` / extractive ``Notes.ask`` latency over the dev questions, our hit@5, and the
   cold ``papernotes ask --no-llm`` process time;
5. baseline: RecursiveCharacterTextSplitter(1000, 200) + ``Chroma.from_documents`` + ``similarity_search(k=5)``;
   both pipelines' top 5 scored by one rule (a gold title appears in a retrieved chunk's text), the
   title-metadata rule of ``papernotes eval`` reported beside it.

With ``--scale N`` (repeatable) the stages 1–4 run at each scale over the notes plus N − 1 distractor
copies (renamed, reshuffled: distractors.py; scale.py), and the JSON holds one entry per scale under
``"scales"``; ``--plot FILE`` draws time and memory against corpus size (plot.py).

The modules beside this script: workspace.py (settings, data dirs, the corpus copy and the edited
note), measure.py (the timed stages), baseline.py (the quickstart pipeline), scoring.py (the scoring
rules), report.py (the JSON result, targets and table). Bad input (missing corpus or dev file) is
reported as one ``error: …`` line, exit code non-zero.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from baseline import baseline_ingest, baseline_search
from measure import (
    Measurements,
    cold_ask,
    cold_rep,
    floor_rep,
    log,
    query_stage,
    repeat_heavy,
    timed_ingest,
)
from plot import plot_scales, render_scales
from report import build_result, render
from scale import run_scales
from scoring import score_retrieval
from workspace import (
    analyses_of,
    base_settings,
    clear_chroma_cache,
    copy_corpora,
    fresh_data_dir,
    pick_edit,
    prepare_models,
    with_data_dir,
)

from papernotes.corpus.errors import BadSourceError, PapernotesError
from papernotes.retrieval.evaluate import load_questions
from papernotes.retrieval.settings import Settings

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_DEV = REPO.parent / "shared" / "eval" / "dev_qa.jsonl"


def run(args: argparse.Namespace) -> dict[str, Any]:
    """All stages in a scratch folder (removed afterwards unless ``--keep``); returns the result object
    (see :func:`report.build_result`).

    Raises
    ------
    BadSourceError
        for a missing corpus.
    BadInputError
        for a bad dev file or setting, or a corpus without a deep-note Markdown file.
    PapernotesError
        when a stage fails (e.g. the cold ``papernotes ask``).
    """
    corpora = [Path(c).expanduser().resolve() for c in (args.corpus or [DEFAULT_CORPUS])]
    for c in corpora:
        if not c.exists():
            raise BadSourceError(f"corpus not found: {c}")
    rows = load_questions(Path(args.dev).expanduser())
    settings = base_settings()
    work = Path(tempfile.mkdtemp(prefix="pn-bench-", dir=args.workdir))
    try:
        if args.scale:
            heavy_max = args.heavy_reps or args.reps
            budget = None if args.heavy_reps else args.heavy_budget
            models = prepare_models(settings, work)

            def keep(partial: dict[str, Any]) -> None:  # what is measured so far survives an interrupted run
                if args.out:
                    Path(args.out).write_text(json.dumps(partial, indent=2) + "\n", encoding="utf-8")
                if args.plot:
                    plot_scales(partial, Path(args.plot))

            return run_scales(
                args.scale,
                corpora,
                rows,
                settings,
                work,
                reps=args.reps,
                heavy_max=heavy_max,
                budget=budget,
                models=models,
                floor_max=args.floor_max_scale or max(args.scale),
                on_scale=keep,
                keep=args.keep,
            )
        return _run(args, corpora, rows, settings, work)
    finally:
        clear_chroma_cache()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def _run(
    args: argparse.Namespace, corpora: list[Path], rows: list[dict[str, Any]], settings0: Settings, work: Path
) -> dict[str, Any]:
    heavy_max = args.heavy_reps or args.reps
    budget = None if args.heavy_reps else args.heavy_budget
    log(f"work dir {work}; corpora {', '.join(map(str, corpora))}; {len(rows)} dev questions")
    models = prepare_models(settings0, work)
    copies = copy_corpora(corpora, work / "corpus")
    sources = [str(c) for c in copies]
    prep = with_data_dir(settings0, fresh_data_dir(work, "prep", models))
    analyses = analyses_of(prep, sources)
    texts = [c.text for a in analyses for c in a.chunks]
    edit = pick_edit(analyses, copies)
    log(f"{len(texts)} chunk texts; edit target {edit.source} line {edit.line_no + 1}")
    m = Measurements()
    cold_dir: list[Path] = []

    # 1+2. cold ingest and embedding floor, interleaved so drifting machine load hits both alike
    def cold_and_floor(i: int) -> None:
        cold_rep(m, cold_dir, work, i, models, settings0, sources)
        floor_rep(m, prep, texts, i)

    m.heavy_reps = repeat_heavy(cold_and_floor, heavy_max, budget)
    main_settings = with_data_dir(settings0, cold_dir[0])
    if m.cold_report is not None and m.cold_report.chunks != len(texts):
        log(f"warning: ingest made {m.cold_report.chunks} chunks but the floor embedded {len(texts)} texts")

    # 3. no-op and one-note edit re-ingests
    m.noop = [timed_ingest(main_settings, sources) for _ in range(args.reps)]
    log(f"no-op re-ingest: {[round(s, 2) for s, _ in m.noop]} s, embedded {[n for _, n in m.noop]}")
    for n in range(args.reps):
        edit.apply(n + 1)
        m.edits.append(timed_ingest(main_settings, sources))
    log(f"edited re-ingest: {[round(s, 2) for s, _ in m.edits]} s, embedded {[n for _, n in m.edits]}")
    edit.restore()
    timed_ingest(main_settings, sources)  # back to the corpus as given (not timed)

    # 4. queries
    m.queries = query_stage(main_settings, rows, args.reps)
    ours = m.queries["scores"]
    log(
        f"warm search p50 {m.queries['search_ms']['p50']} ms, ask p50 {m.queries['ask_ms']['p50']} ms; "
        f"hit@5 {ours['hit_at_5']} (by title metadata {ours['hit_at_5_by_title_metadata']})"
    )
    clear_chroma_cache()
    m.cold_ask_s = cold_ask(main_settings.data_dir, rows[0]["question"], args.reps)
    log(f"cold ask: {[round(x, 2) for x in m.cold_ask_s]} s")

    # 5. baseline
    if not args.skip_baseline:
        stores: list[Any] = []

        def baseline_rep(i: int) -> None:
            if stores:
                stores.clear()
                shutil.rmtree(work / f"baseline{i - 1}", ignore_errors=True)
                clear_chroma_cache()
            store, s, n = baseline_ingest(prep, copies, work / f"baseline{i}")
            m.baseline_s.append(s)
            m.baseline_chunks = n
            stores.append(store)
            log(f"baseline ingest rep {i + 1}: {s:.2f} s, {n} chunks")

        repeat_heavy(baseline_rep, heavy_max, budget)
        store = stores[0]
        m.baseline_scores = score_retrieval(rows, lambda q: baseline_search(store, q))
        b = m.baseline_scores
        log(
            f"baseline: ingest {[round(s, 2) for s in m.baseline_s]} s; hit@5 {b['hit_at_5']} "
            f"(by title metadata {b['hit_at_5_by_title_metadata']})"
        )

    return build_result(m, corpora=corpora, dev_questions=len(rows), edit=edit, reps=args.reps)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see the module docstring); exits with a usage error for reps below 1."""
    p = argparse.ArgumentParser(prog="bench/run.py", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument(
        "--corpus", action="append", metavar="PATH", help=f"Notes to ingest (repeatable; default {DEFAULT_CORPUS})."
    )
    p.add_argument(
        "--dev",
        default=str(DEFAULT_DEV),
        metavar="FILE",
        help=f"Dev questions JSONL (the `papernotes eval` format; default {DEFAULT_DEV}).",
    )
    p.add_argument("--reps", type=int, default=3, help="Repetitions of the cheap stages (default 3).")
    p.add_argument(
        "--heavy-reps",
        type=int,
        default=None,
        help="Repetitions of the embedding floor, cold ingest and baseline ingest (default: up to "
        "--reps, stopping once a stage has used --heavy-budget seconds).",
    )
    p.add_argument(
        "--heavy-budget",
        type=float,
        default=240.0,
        help="Seconds after which the expensive stages stop repeating (default 240).",
    )
    p.add_argument("--skip-baseline", action="store_true", help="Do not run the LangChain quickstart baseline.")
    p.add_argument("--workdir", default=None, help="Parent folder for scratch data (default: the system temp dir).")
    p.add_argument("--keep", action="store_true", help="Keep the scratch folder.")
    p.add_argument(
        "--scale",
        type=int,
        action="append",
        metavar="N",
        help="Measure at N times the notes (the notes plus N-1 distractor copies); repeatable: --scale 1 --scale 4.",
    )
    p.add_argument("--plot", metavar="FILE", help="With --scale: write the time and memory plot (PNG) to FILE.")
    p.add_argument(
        "--floor-max-scale",
        type=int,
        default=None,
        metavar="N",
        help="With --scale: measure the separate embedding floor only up to scale N (above it, the cold "
        "ingest's own time in the embedder stands for it; default: at every scale).",
    )
    p.add_argument(
        "--out", metavar="FILE", help="With --scale: also write the JSON result to FILE, rewritten after each scale."
    )
    p.add_argument("--json", action="store_true", help="Print one JSON object instead of a table.")
    a = p.parse_args(argv)
    if a.reps < 1 or (a.heavy_reps is not None and a.heavy_reps < 1):
        p.error("--reps and --heavy-reps must be at least 1")
    if a.scale and min(a.scale) < 1:
        p.error("--scale must be at least 1")
    if a.plot and not a.scale:
        p.error("--plot needs --scale")
    return a


def main(argv: list[str] | None = None) -> int:
    """Run the bench and print the result (JSON with ``--json``, else a table); returns the exit code:
    0, the error's exit code after one ``error: …`` line on stderr, or 130 when interrupted."""
    args = parse_args(argv)
    try:
        result = run(args)
    except PapernotesError as e:
        sys.stderr.write(f"error: {e}\n")
        return getattr(e, "exit_code", 1) or 1
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    elif args.scale:
        render_scales(result)
    else:
        render(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
