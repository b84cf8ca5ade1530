"""Smoke test of bench/run.py: one repetition over the fixture notes, JSON contract and the incremental
ingest invariants (no-op embeds nothing; a one-sentence edit embeds some but not all chunks); and unit
tests of the bench's scoring rules (bench/scoring.py) on hand-made chunks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, REPO
from langchain_core.documents import Document

BENCH = REPO / "bench" / "run.py"
sys.path.insert(0, str(BENCH.parent))  # the bench's modules import each other by plain name

from scoring import score_by_text, score_by_title_metadata, score_retrieval  # noqa: E402

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
    "hit_ratio_vs_baseline_by_title_metadata",
)
#: Retrieval scores, 0–1, of both pipelines under both rules.
RATES = (
    "hit_at_5",
    "recall_at_5",
    "mrr",
    "hit_at_5_by_title_metadata",
    "recall_at_5_by_title_metadata",
    "mrr_by_title_metadata",
)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _run_bench(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PAPERNOTES_DATA_DIR": str(tmp_path / "data")}
    return subprocess.run(
        [sys.executable, str(BENCH), *extra], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
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
    for key in RATES:  # both pipelines, scored by the title-in-text rule and the old metadata rule
        for side in (r, r["baseline"]):
            assert _is_num(side[key]) and 0 <= side[key] <= 1, (key, side[key])
    assert r["hit_ratio_vs_baseline"] == pytest.approx(r["hit_at_5"] / r["baseline"]["hit_at_5"], abs=0.001)
    assert r["hit_ratio_vs_baseline_by_title_metadata"] == pytest.approx(
        r["hit_at_5_by_title_metadata"] / r["baseline"]["hit_at_5_by_title_metadata"], abs=0.001
    )
    assert set(r["scoring"]) == {"rule", "by_title_metadata"}

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


# --- the scoring rules ------------------------------------------------------------------------------

EMU = "Emu: Caching Denoisers for Fast Diffusion"


def _row(*gold: str) -> dict:
    return {"id": "q", "type": "t", "question": "?", "gold_titles": list(gold), "answer_must_contain": []}


def test_title_in_text_finds_a_bullet_title_the_metadata_lacks():
    # a baseline-like chunk: its page's level-1 heading as metadata, the paper only as a bullet in its
    # text, written with other case and punctuation than the gold title
    bullet = Document(
        page_content="# ToySys 2026\n\n## LLM\n\n- **quokka - paged attention for marsupial inference** (Wombat U)",
        metadata={"page_title": "ToySys 2026"},
    )
    other = Document(page_content=f"# ToySys 2026\n\n- {EMU}", metadata={"page_title": "ToySys 2026"})
    row = _row(QUOKKA)

    assert score_by_title_metadata(row, [other, bullet], 5)["hit"] == 0.0
    by_text = score_by_text(row, [other, bullet], 5)
    assert (by_text["hit"], by_text["recall"], by_text["rr"]) == (1.0, 1.0, 0.5)
    assert score_by_text(row, [other, bullet], 1)["hit"] == 0.0  # found below the cut-off only


def test_title_in_text_needs_the_whole_title():
    # the metadata rule matches a chunk labelled with the title even when its text does not hold it
    labelled = Document(page_content="Quokka pages the KV cache.", metadata={"paper_title": QUOKKA})
    assert score_by_title_metadata(_row(QUOKKA), [labelled], 5)["hit"] == 1.0
    assert score_by_text(_row(QUOKKA), [labelled], 5)["hit"] == 0.0


def test_title_in_text_recall_of_a_list_question():
    koala = "Koala: Tree-Structured Speculation"
    docs = [
        Document(page_content="# ToySys 2026\n- Quokka: Paged Attention for Marsupial Inference\n- Wombat: burrows"),
        Document(page_content=f"# ToySys 2026\n- {EMU.upper()}"),
    ]
    s = score_by_text(_row(QUOKKA, EMU, koala), docs, 5)
    assert s["hit"] == 1.0 and s["rr"] == 1.0
    assert s["recall"] == pytest.approx(2 / 3)
    assert score_by_text(_row(), docs, 5) == {"id": "q", "type": "t", "answerable": False, "refused": False}


def test_score_retrieval_averages_both_rules_over_answerable_questions():
    bullet = Document(page_content=f"# ToySys 2026\n- {QUOKKA}", metadata={"page_title": "ToySys 2026"})
    own = Document(page_content=f"# {EMU}\nTL;DR: feature caching.", metadata={"page_title": EMU})
    found = {"quokka?": [bullet], "emu?": [own], "nothing?": [bullet]}
    rows = [
        {**_row(QUOKKA), "id": "a", "question": "quokka?"},
        {**_row(EMU), "id": "b", "question": "emu?"},
        {**_row(), "id": "c", "question": "nothing?"},
    ]
    s = score_retrieval(rows, lambda q: found[q])
    assert (s["hit_at_5"], s["recall_at_5"], s["mrr"], s["misses"]) == (1.0, 1.0, 1.0, [])
    assert (s["hit_at_5_by_title_metadata"], s["misses_by_title_metadata"]) == (0.5, ["a"])
    assert s["search_ms"]["p50"] >= 0


def test_scale_bench_on_fixture_notes(tmp_path):
    dev = tmp_path / "dev.jsonl"
    dev.write_text("".join(json.dumps(r) + "\n" for r in DEV), encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    out, png = tmp_path / "scale.json", tmp_path / "scale.png"
    p = _run_bench(
        tmp_path,
        "--json",
        "--reps",
        "1",
        "--scale",
        "2",
        "--corpus",
        str(FIXTURE_NOTES),
        "--dev",
        str(dev),
        "--workdir",
        str(work),
        "--out",
        str(out),
        "--plot",
        str(png),
    )
    assert p.returncode == 0, p.stderr[-2000:]
    r = json.loads(p.stdout)
    assert json.loads(out.read_text()) == r
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (e,) = r["scales"]
    assert e["scale"] == 2 and e["sources"] == 2
    dup = e["near_duplicates"]
    # one distractor copy: about as many chunks as the notes, none a near-copy of a real chunk
    assert 0 < dup["distractor_chunks"] < e["chunks"] and dup["near_duplicates"] == 0
    assert dup["max_cosine"] < dup["threshold"]
    assert e["noop_embedded"] == 0 and 1 <= e["edit_embedded"] <= e["edit_note"]["note_chunks"]
    assert e["chunks"] == e["cold_embedded"]
    assert {"read", "chunk", "index", "embed", "bm25", "catalog"} <= set(e["stages_cold"])
    assert 0 < e["stages_cold"]["embed"] <= e["stages_cold"]["index"]
    assert _is_num(e["hit_at_5"]) and 0 <= e["hit_at_5"] <= 1
    assert e["overhead_ratio"] == pytest.approx(e["cold_ingest_s"] / e["embed_floor_s"], rel=0.01)
    assert len(r["loadavg_at_start"]) == 3
    assert not any(work.iterdir())  # scratch folder removed
    assert "benchmark appended" not in "".join(f.read_text() for f in FIXTURE_NOTES.rglob("*.md"))


def test_queries_bench_on_a_kept_fixture_index(tmp_path, models_cache):
    """bench/queries.py times warm searches on a kept index (its ``cold0`` data dir) with the chunks'
    vectors in memory, and writes each question's ranking."""
    from conftest import make_settings, seed_models

    from papernotes.retrieval.indexing import ingest

    data = tmp_path / "kept" / "cold0"
    seed_models(models_cache, data)
    ingest(make_settings(data), [str(FIXTURE_NOTES)])
    dev, ranks = tmp_path / "dev.jsonl", tmp_path / "ranks.json"
    dev.write_text("".join(json.dumps(r) + "\n" for r in DEV), encoding="utf-8")
    p = subprocess.run(
        [sys.executable, str(BENCH.parent / "queries.py"), "--index", str(tmp_path / "kept"), "--reps", "2"]
        + ["--dev", str(dev), "--ranks", str(ranks), "--json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    r = json.loads(p.stdout)
    assert r["vectors_in_memory"] is True and r["searches"] == 2 * len(DEV) and r["chunks"] > 0
    assert 0 < r["search_ms"]["p50"] <= r["search_ms"]["p95"]
    assert 0 <= r["search_cpu_ms"]["p50"] <= r["search_cpu_ms"]["p95"]
    got = json.loads(ranks.read_text())
    assert set(got) == {row["question"] for row in DEV}
    assert all(0 < ids.index("|") <= 5 for ids in got.values())
    missing = subprocess.run(
        [sys.executable, str(BENCH.parent / "queries.py"), "--index", str(tmp_path / "absent")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode != 0 and "no cold0 data dir" in missing.stderr
