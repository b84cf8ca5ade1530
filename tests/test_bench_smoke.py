"""Smoke test of bench/run.py: one repetition over the fixture notes, JSON contract and the incremental
ingest invariants (no-op embeds nothing; a one-sentence edit embeds some but not all chunks)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, REPO

BENCH = REPO / "bench" / "run.py"

QUOKKA = "Quokka: Paged Attention for Marsupial Inference"
DEV = [
    {
        "id": "s1",
        "type": "paper_fact",
        "question": "How much higher throughput does Quokka reach by paging the KV cache?",
        "gold_titles": [QUOKKA],
        "answer_must_contain": ["3.7x"],
    },
    {
        "id": "s2",
        "type": "paper_fact",
        "question": "Which inference engine is the Quokka system built on?",
        "gold_titles": [QUOKKA],
        "answer_must_contain": ["Kangaroo"],
    },
    {
        "id": "s3",
        "type": "paper_fact",
        "question": "Which diffusion system reuses denoiser features across adjacent steps?",
        "gold_titles": ["Emu: Caching Denoisers for Fast Diffusion"],
        "answer_must_contain": [],
    },
]

NUMBERS = (
    "chunks",
    "embed_floor_s",
    "cold_ingest_s",
    "overhead_ratio",
    "peak_rss_mb",
    "noop_reingest_s",
    "noop_embedded",
    "edit_reingest_s",
    "edit_embedded",
    "cold_ask_s",
    "hit_at_5",
    "ingest_ratio_vs_baseline",
    "hit_ratio_vs_baseline",
)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _run_bench(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PAPERNOTES_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, str(BENCH), *extra], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
    )


def test_bench_json_contract_on_fixture_notes(tmp_path):
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in DEV), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    p = _run_bench(
        tmp_path, "--json", "--reps", "1", "--corpus", str(FIXTURE_NOTES), "--dev", str(dev), "--workdir", str(work)
    )
    assert p.returncode == 0, p.stderr[-2000:]
    r = json.loads(p.stdout)

    for key in NUMBERS:
        assert _is_num(r[key]), (key, r[key])
    for key in ("search_ms", "ask_ms"):
        assert set(r[key]) >= {"p50", "p95"}
        assert all(_is_num(v) and v > 0 for v in (r[key]["p50"], r[key]["p95"])), r[key]
        assert r[key]["p50"] <= r[key]["p95"]
    assert _is_num(r["baseline"]["ingest_s"]) and r["baseline"]["ingest_s"] > 0
    assert _is_num(r["baseline"]["hit_at_5"]) and 0 <= r["baseline"]["hit_at_5"] <= 1
    assert 0 <= r["hit_at_5"] <= 1

    # incremental ingest: nothing re-embedded on a no-op; the edit re-embeds part of one note only
    assert r["noop_embedded"] == 0
    assert 1 <= r["edit_embedded"] < r["chunks"]
    assert r["edit_embedded"] <= r["edit_note"]["note_chunks"]
    assert r["edit_note"]["source"].endswith("quokka.md")
    assert r["chunks"] == r["cold_embedded"] > 0
    assert r["overhead_ratio"] == pytest.approx(r["cold_ingest_s"] / r["embed_floor_s"], rel=0.01)
    assert r["reps"]["cold_ingest"] == 1 and r["reps"]["queries"] == 1
    # the edit happened in the benchmark's copy, never in the fixture itself
    assert (
        "benchmark appended" not in (FIXTURE_NOTES / "site/reading-notes/conference/toysys-2026/quokka.md").read_text()
    )
    assert not any(work.iterdir())  # scratch folder removed


def test_bench_missing_corpus_is_one_line_error(tmp_path):
    dev = tmp_path / "dev.jsonl"
    dev.write_text(json.dumps(DEV[0]) + "\n", encoding="utf-8")
    p = _run_bench(tmp_path, "--json", "--reps", "1", "--corpus", str(tmp_path / "nope"), "--dev", str(dev))
    assert p.returncode != 0
    assert p.stdout == ""
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert lines == [f"error: corpus not found: {tmp_path / 'nope'}"], p.stderr
