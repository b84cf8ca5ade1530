"""The timed stages of the bench (embedding floor, ingests, queries, a cold ``papernotes ask``), the RSS
sampler, and :class:`Measurements`, the raw figures they produce."""

from __future__ import annotations

import gc
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from scoring import K, score_retrieval
from workspace import clear_chroma_cache, fresh_data_dir, with_data_dir

from papernotes.corpus.errors import PapernotesError
from papernotes.retrieval.embeddings import make_embeddings
from papernotes.retrieval.evaluate import percentile, run_eval
from papernotes.retrieval.indexing import IngestReport, ingest
from papernotes.retrieval.search import HybridRetriever
from papernotes.retrieval.service import Notes
from papernotes.retrieval.settings import Settings


def log(msg: str) -> None:
    """A progress line on stderr (stdout is reserved for the result)."""
    sys.stderr.write(f"[bench {time.strftime('%H:%M:%S')}] {msg}\n")
    sys.stderr.flush()


def median(xs: list[float]) -> float:
    """The median of ``xs``, 0.0 for an empty list."""
    return float(statistics.median(xs)) if xs else 0.0


@dataclass
class Measurements:
    """The raw figures of one run, filled stage by stage; one list entry per repetition. Seconds unless
    the name says otherwise; ``noop`` and ``edits`` hold ``(seconds, chunks embedded)``."""

    floor_s: list[float] = field(default_factory=list)
    floor_cpu_s: list[float] = field(default_factory=list)
    model_load_s: list[float] = field(default_factory=list)
    cold_s: list[float] = field(default_factory=list)
    cold_cpu_s: list[float] = field(default_factory=list)
    peak_rss_mb: list[float] = field(default_factory=list)
    heavy_reps: int = 0
    cold_report: IngestReport | None = None
    noop: list[tuple[float, int]] = field(default_factory=list)
    edits: list[tuple[float, int]] = field(default_factory=list)
    queries: dict[str, Any] = field(default_factory=dict)
    cold_ask_s: list[float] = field(default_factory=list)
    baseline_s: list[float] = field(default_factory=list)
    baseline_chunks: int = 0
    baseline_scores: dict[str, Any] | None = None


class RssSampler:
    """Samples this process's resident set size (psutil) every ``interval`` seconds in a background thread
    while active (a context manager); ``peak_mb`` is the largest sample in MiB."""

    def __init__(self, interval: float = 0.02):
        self.proc = psutil.Process()
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.proc.memory_info().rss)
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self.peak = self.proc.memory_info().rss
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join()
        self.peak = max(self.peak, self.proc.memory_info().rss)

    @property
    def peak_mb(self) -> float:
        return self.peak / 2**20


def repeat_heavy(fn: Callable[[int], None], max_reps: int, budget_s: float | None) -> int:
    """Call ``fn(i)`` for i = 0, 1, … up to ``max_reps`` times; with a budget, stop once the calls so far
    took longer than ``budget_s`` seconds (always at least one call). Returns the number of calls."""
    t = time.perf_counter()
    n = 0
    while n < max_reps:
        fn(n)
        n += 1
        if budget_s is not None and time.perf_counter() - t > budget_s:
            break
    return n


def embed_floor(settings: Settings, texts: list[str]) -> tuple[float, float, float]:
    """Embed ``texts`` in one ``embed_documents`` call with a freshly made embedder whose model is loaded
    first.

    Returns
    -------
    ``(wall seconds, process CPU seconds, model load seconds)``; the first two exclude the load.

    Raises
    ------
    ModelUnavailableError
        when the embedder cannot be made.
    """
    emb = make_embeddings(settings)
    t = time.perf_counter()
    emb.embed_documents(["warm up"])
    load_s = time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    vecs = emb.embed_documents(texts)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    if len(vecs) != len(texts):
        raise PapernotesError(f"the embedder returned {len(vecs)} vectors for {len(texts)} texts")
    return wall, cpu, load_s


def cold_ingest(settings: Settings, sources: list[str]) -> tuple[IngestReport, float, float, float]:
    """One ``ingest`` into the (empty) data dir of ``settings``.

    Returns
    -------
    ``(report, wall seconds, process CPU seconds, peak RSS in MiB)``.
    """
    with RssSampler() as rss:
        t, c = time.perf_counter(), time.process_time()
        rep = ingest(settings, sources)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    return rep, wall, cpu, rss.peak_mb


def cold_rep(
    m: Measurements,
    cold_dirs: list[Path],
    work: Path,
    rep: int,
    models: Path | None,
    settings: Settings,
    sources: list[str],
) -> Path:
    """One cold ingest of ``sources`` into a fresh data dir ``cold<rep>`` under ``work`` (the previous
    rep's dir, the one in ``cold_dirs``, removed first), recorded in ``m``; returns the new data dir.
    Cold ingest comes first in a rep: in rep 1 nothing has been embedded in this process yet, so its
    peak RSS is that of a plain ingest (plus the benchmark's imports)."""
    if cold_dirs:
        shutil.rmtree(cold_dirs.pop(), ignore_errors=True)
        clear_chroma_cache()
    d = fresh_data_dir(work, f"cold{rep}", models)
    report, w, c, peak = cold_ingest(with_data_dir(settings, d), sources)
    m.cold_s.append(w)
    m.cold_cpu_s.append(c)
    m.peak_rss_mb.append(peak)
    m.cold_report = report
    cold_dirs.append(d)
    log(
        f"cold ingest rep {rep + 1}: {w:.2f} s ({c:.1f} s CPU), {report.chunks} chunks, "
        f"{report.added} embedded, peak RSS {peak:.0f} MiB"
    )
    return d


def floor_rep(m: Measurements, settings: Settings, texts: list[str], rep: int) -> None:
    """One embedding floor (:func:`embed_floor` of ``texts``) recorded in ``m``, garbage collected around."""
    gc.collect()
    w, c, load_s = embed_floor(settings, texts)
    m.floor_s.append(w)
    m.floor_cpu_s.append(c)
    m.model_load_s.append(load_s)
    log(f"embedding floor rep {rep + 1}: {w:.2f} s ({c:.1f} s CPU)")
    gc.collect()


def timed_ingest(settings: Settings, sources: list[str]) -> tuple[float, int]:
    """A re-ingest: ``(seconds, chunks embedded = added + updated)``."""
    t = time.perf_counter()
    rep = ingest(settings, sources)
    return time.perf_counter() - t, rep.added + rep.updated


def query_stage(settings: Settings, rows: list[dict[str, Any]], reps: int) -> dict[str, Any]:
    """Our query figures, all through papernotes' one retrieval path (:class:`Notes` over a
    :class:`HybridRetriever` with k = 5).

    Returns
    -------
    ``search_ms`` / ``ask_ms``: ``{"p50", "p95"}`` of warm ``Notes.search`` and extractive ``Notes.ask``
    over ``reps`` × the questions, milliseconds; ``answer_contains`` (0–1, as ``papernotes eval``);
    ``scores``: :func:`scoring.score_retrieval` of ``HybridRetriever.invoke``.

    Raises
    ------
    IndexMissingError
        when the data dir holds no index.
    """
    notes = Notes(settings, HybridRetriever.from_settings(settings, k=K))
    notes.search(rows[0]["question"])  # warm: model session, BM25 and store loaded
    notes.ask(rows[0]["question"], use_llm=False)
    search_ms: list[float] = []
    ask_ms: list[float] = []
    for _ in range(reps):
        for r in rows:
            t = time.perf_counter()
            notes.search(r["question"])
            search_ms.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            notes.ask(r["question"], use_llm=False)
            ask_ms.append((time.perf_counter() - t) * 1000)
    ev = run_eval(rows, lambda q: notes.ask(q, k=K, use_llm=False), K)
    return {
        "search_ms": _p50_p95(search_ms),
        "ask_ms": _p50_p95(ask_ms),
        "answer_contains": ev["answer_contains"],
        "scores": score_retrieval(rows, notes.retriever.invoke),
    }


def _p50_p95(ms: list[float]) -> dict[str, float]:
    return {"p50": round(percentile(ms, 50), 1), "p95": round(percentile(ms, 95), 1)}


def papernotes_exe() -> list[str]:
    """The installed console script (next to this interpreter, else on PATH), else ``python -m``."""
    here = Path(sys.executable).parent / "papernotes"
    if here.is_file():
        return [str(here)]
    found = shutil.which("papernotes")
    return [found] if found else [sys.executable, "-m", "papernotes.bot.cli"]


def cold_ask(data_dir: Path, question: str, reps: int) -> list[float]:
    """Wall seconds of ``papernotes ask QUESTION --no-llm`` as a fresh process (start to exit, the answer
    printed), one per repetition.

    Raises
    ------
    PapernotesError
        (one line) if the command fails or prints nothing.
    """
    env = {**os.environ, "PAPERNOTES_DATA_DIR": str(data_dir)}
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        p = subprocess.run(
            [*papernotes_exe(), "ask", question, "--no-llm"], env=env, capture_output=True, text=True, timeout=300
        )
        out.append(time.perf_counter() - t)
        if p.returncode != 0 or not p.stdout.strip():
            last = (p.stderr.strip().splitlines() or ["no output"])[-1]
            raise PapernotesError(f"cold `papernotes ask` failed (exit {p.returncode}): {last}")
    return out
