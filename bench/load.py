#!/usr/bin/env python
"""Load benchmark: questions from concurrent clients through the service the Discord bot uses.

Usage::

    python bench/load.py [--corpus PATH ...] [--dev FILE] [--requests 200] [--clients 16] [--json]

Each client is a coroutine sending its questions one after another through the bot's own
:meth:`~papernotes.bot.discord_client.PaperBot.compute` (the bot never logs in): the current notes from
its :class:`~papernotes.bot.notes_reload.NotesIndex` (opened and warmed up before the first question,
reopened after an ingest), and the extractive ``Notes.ask`` in a worker thread once one of its
``discord_max_concurrent`` answer slots is free (first come, first served). Three runs over one index, loopback
only: the embedded store; a real ``chroma run`` server on 127.0.0.1 (started and stopped here); the same
server while another process re-ingests the notes with one note edited on every round. Each run reports
throughput (answers per second), p50/p95 latency (ms), failed requests, and answers citing a chunk the
store no longer held when the answer was made (checked by id right after each answer).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from measure import log, papernotes_exe
from workspace import analyses_of, base_settings, copy_corpora, fresh_data_dir, pick_edit, prepare_models, with_data_dir

from papernotes.bot.discord_client import PaperBot
from papernotes.corpus.errors import BadSourceError, PapernotesError
from papernotes.retrieval.evaluate import load_questions, percentile
from papernotes.retrieval.indexing import ingest
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.store import make_client

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_DEV = REPO.parent / "shared" / "eval" / "dev_qa.jsonl"


def load_run(settings: Settings, questions: list[str], requests: int, clients: int) -> dict[str, Any]:
    """``requests`` extractive answers (the questions in turn) from ``clients`` concurrent clients.

    Returns
    -------
    ``{"requests", "clients", "seconds", "throughput_per_s", "latency_ms": {"p50", "p95"}, "failed",
    "errors"`` (up to 5 one-line messages), ``"dangling_citations"`` (answers citing a chunk id the store
    did not hold right after the answer, though the answer had not found them in the store after it
    was made), ``"deleted_after_answer"`` (chunks the answer had found in the store, deleted in the
    instant before this check), ``"citations", "reloads"`` (notes reopened after an ingest),
    ``"slots"`` (answers computed at once)}``.
    """
    return asyncio.run(_load(settings, questions, requests, clients))


async def _load(settings: Settings, questions: list[str], requests: int, clients: int) -> dict[str, Any]:
    bot = PaperBot(settings)  # never logs in: only its notes and its answer slots are used
    await bot.index.load()  # as setup_hook does: opened and warmed up before the first question
    collection = make_client(settings).get_collection(settings.collection)
    todo = iter(range(requests))
    latencies: list[float] = []
    errors: list[str] = []
    dangling = cited = deleted_after = 0

    def answer(notes: Any, q: str) -> tuple[int, int, int]:
        """``(citations, citations of chunks the store does not hold now, those of them the answer had
        found in the store after it was made)`` of one answer: the last are chunks deleted by an ingest
        in the instant between the answer's own check and this one, not citations of deleted chunks."""
        a = notes.ask(q, use_llm=False)
        ids = [c.id for c in a.citations if c.id]
        held = set(collection.get(ids=ids, include=[])["ids"]) if ids else set()
        gone = sum(1 for i in ids if i not in held)
        return len(ids), gone, gone if a.citations_checked else 0

    async def client() -> None:
        nonlocal dangling, cited, deleted_after
        for i in todo:
            q = questions[i % len(questions)]
            t = time.perf_counter()
            try:
                n, gone, later = await bot.compute(partial(answer, q=q))
            except Exception as e:  # every failure is counted, whatever it is
                errors.append(f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                continue
            latencies.append((time.perf_counter() - t) * 1000)
            cited += n
            dangling += gone - later
            deleted_after += later

    t0 = time.perf_counter()
    await asyncio.gather(*(client() for _ in range(clients)))
    wall = time.perf_counter() - t0
    return {
        "requests": requests,
        "clients": clients,
        "seconds": round(wall, 2),
        "throughput_per_s": round(len(latencies) / wall, 2) if wall else None,
        "latency_ms": {"p50": round(percentile(latencies, 50), 1), "p95": round(percentile(latencies, 95), 1)},
        "failed": len(errors),
        "errors": errors[:5],
        "dangling_citations": dangling,
        "deleted_after_answer": deleted_after,
        "citations": cited,
        "reloads": bot.index.reloads,
        "slots": settings.discord_max_concurrent,
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def chroma_server(path: Path, timeout: float = 60.0):
    """A ``chroma run`` server on a free 127.0.0.1 port storing under ``path``; yields its URL and stops
    it on exit.

    Raises
    ------
    PapernotesError
        if the ``chroma`` command is missing or the server does not answer its heartbeat in ``timeout`` s.
    """
    exe = Path(sys.executable).parent / "chroma"
    if not exe.exists():
        raise PapernotesError("the `chroma` command is not installed next to this Python")
    port = _free_port()
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise PapernotesError("`chroma run` did not start") from None
                time.sleep(0.3)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@contextmanager
def reingesting(settings: Settings, sources: list[str], edit: Any):
    """Another process re-ingesting ``sources`` in a loop while the block runs, the edited note changing
    every round (``edit.apply``); yields a dict whose ``"rounds"`` is filled in on exit. The note is
    restored afterwards."""
    env = {**os.environ, "PAPERNOTES_DATA_DIR": str(settings.data_dir)}
    if settings.chroma_url:
        env["PAPERNOTES_CHROMA_URL"] = settings.chroma_url
    stats: dict[str, Any] = {"rounds": 0, "failed_rounds": 0}
    stop = False

    async def loop() -> None:
        n = 0
        while not stop:
            n += 1
            edit.apply(n)
            p = await asyncio.create_subprocess_exec(
                *papernotes_exe(), "ingest", *sources, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
            stats["rounds"] += 1
            stats["failed_rounds"] += int(await p.wait() != 0)

    import threading

    th = threading.Thread(target=lambda: asyncio.run(loop()), daemon=True)
    th.start()
    try:
        yield stats
    finally:
        stop = True
        th.join()
        edit.restore()


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The three load runs (see the module docstring) in a scratch folder removed afterwards.

    Raises
    ------
    BadSourceError
        for a missing corpus.
    PapernotesError
        when the index cannot be built or the Chroma server cannot be started.
    """
    corpora = [Path(c).expanduser().resolve() for c in (args.corpus or [DEFAULT_CORPUS])]
    for c in corpora:
        if not c.exists():
            raise BadSourceError(f"corpus not found: {c}")
    questions = [r["question"] for r in load_questions(Path(args.dev).expanduser())]
    work = Path(tempfile.mkdtemp(prefix="pn-load-", dir=args.workdir))
    try:
        s0 = base_settings()
        models = prepare_models(s0, work)
        copies = copy_corpora(corpora, work / "corpus")
        sources = [str(c) for c in copies]
        s = with_data_dir(s0, fresh_data_dir(work, "data", models))
        edit = pick_edit(analyses_of(s, sources), copies)
        ingest(s, sources)
        out: dict[str, Any] = {"loadavg_at_start": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count()}
        out["embedded"] = load_run(s, questions, args.requests, args.clients)
        log(f"embedded: {out['embedded']}")
        with chroma_server(work / "server") as url:
            srv = s.model_copy(update={"chroma_url": url})
            ingest(srv, sources)
            out["server"] = load_run(srv, questions, args.requests, args.clients)
            log(f"server: {out['server']}")
            with reingesting(srv, sources, edit) as rounds:
                out["server_during_reingest"] = load_run(srv, questions, args.requests, args.clients)
            out["server_during_reingest"]["reingest"] = rounds
            log(f"server during re-ingest: {out['server_during_reingest']}")
        out["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    """Parse the command line, run, print JSON (``--json``) or one line per run; returns the exit code."""
    p = argparse.ArgumentParser(prog="bench/load.py", description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--corpus", action="append", metavar="PATH", help=f"Notes (repeatable; default {DEFAULT_CORPUS}).")
    p.add_argument(
        "--dev", default=str(DEFAULT_DEV), metavar="FILE", help="Questions JSONL (`papernotes eval` format)."
    )
    p.add_argument("--requests", type=int, default=200, help="Questions per run (default 200).")
    p.add_argument("--clients", type=int, default=16, help="Concurrent clients (default 16).")
    p.add_argument("--workdir", default=None, help="Parent folder for scratch data (default: the system temp dir).")
    p.add_argument("--json", action="store_true", help="Print one JSON object.")
    args = p.parse_args(argv)
    if args.requests < 1 or args.clients < 1:
        p.error("--requests and --clients must be at least 1")
    try:
        result = run(args)
    except PapernotesError as e:
        sys.stderr.write(f"error: {e}\n")
        return getattr(e, "exit_code", 1) or 1
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2) + "\n")
    else:
        for name in ("embedded", "server", "server_during_reingest"):
            r = result[name]
            sys.stdout.write(
                f"{name}: {r['throughput_per_s']}/s, p50 {r['latency_ms']['p50']} ms, p95 {r['latency_ms']['p95']} ms, "
                f"{r['failed']} failed, {r['dangling_citations']} dangling citations\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
