"""The load benchmark's invariants on the fixture notes (bench/load.py, small): concurrent clients
through the bot's :class:`NotesIndex` and ``Notes.ask``, in embedded mode and against a real ``chroma run``
server while another process re-ingests an edited note. Only what does not depend on the machine is
asserted: every request is answered, and no answer cites a chunk the store no longer holds."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, REPO, make_settings, seed_models

sys.path.insert(0, str(REPO / "bench"))  # the bench's modules import each other by plain name

from load import chroma_server, load_run, reingesting  # noqa: E402
from workspace import analyses_of, pick_edit  # noqa: E402

from papernotes.retrieval.indexing import ingest  # noqa: E402

QUESTIONS = [
    "How much higher throughput does Quokka reach by paging the KV cache?",
    "What block size does Quokka use?",
    "Which diffusion system reuses denoiser features across adjacent steps?",
    "Which inference engine is the Quokka system built on?",
    "What does the weather look like on Mars?",  # refused: no citations
]


def _clean(r: dict, requests: int) -> None:
    assert r["failed"] == 0, r["errors"]
    assert r["dangling_citations"] == 0
    assert r["requests"] == requests and r["citations"] > 0


def test_embedded_load_answers_every_request(fixture_index):
    _clean(load_run(fixture_index, QUESTIONS, requests=32, clients=16), 32)


@pytest.mark.server
def test_server_load_during_a_reingest_cites_only_live_chunks(tmp_path, models_cache):
    if not (Path(sys.executable).parent / "chroma").exists():
        pytest.skip("chroma CLI not installed")
    copy = tmp_path / "notes"
    shutil.copytree(FIXTURE_NOTES, copy)
    data = tmp_path / "data"
    seed_models(models_cache, data)
    sources = [str(copy)]
    with chroma_server(tmp_path / "server") as url:
        s = make_settings(data, chroma_url=url)
        ingest(s, sources)
        edit = pick_edit(analyses_of(s, sources), [copy])
        with reingesting(s, sources, edit) as rounds:
            during = load_run(s, QUESTIONS, requests=32, clients=16)
    _clean(during, 32)
    assert rounds["rounds"] >= 1 and rounds["failed_rounds"] == 0
    assert "benchmark appended" not in edit.path.read_text(encoding="utf-8")  # the note was restored
