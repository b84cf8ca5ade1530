"""Notes laid out as people keep them: vaults with symbolic links and hidden folders, and notes whose
front matter is followed by a preamble (a TL;DR) before the first heading. Ingested for real (the CLI
in a fresh process, or ``ingest()``), then asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_settings, seed_models

from papernotes.retrieval.bm25 import BM25Index


def cli(args: list[str], data: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERNOTES_", "OPENAI_"))}
    env["PAPERNOTES_DATA_DIR"] = str(data)
    return subprocess.run(
        [sys.executable, "-m", "papernotes.bot.cli", *args], capture_output=True, text=True, env=env, timeout=300
    )


@pytest.fixture
def data(tmp_path, models_cache) -> Path:
    d = tmp_path / "data"
    seed_models(models_cache, d)
    return d


def test_ingest_follows_links_inside_the_root_and_skips_the_rest_with_warnings(tmp_path, data):
    """A monorepo-style vault: a linked shared-notes folder outside the root, a link to a secrets
    folder, a broken link, a link into a hidden folder, and Obsidian/git/trash folders."""
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.md").write_text("# App\n\nobsidian settings text\n")
    (vault / ".trash").mkdir()
    (vault / ".trash" / "gone.md").write_text("# Gone\n\na deleted note\n")
    (vault / ".git").mkdir()
    (vault / ".attic" / "papers").mkdir(parents=True)
    (vault / ".attic" / "papers" / "quokka.md").write_text("# Quokka\n\nQuokka pages the KV cache in blocks.\n")
    (vault / "own.md").write_text("# Own\n\nThe wombat scheduler keeps every burrow busy.\n")
    (tmp_path / "shared-notes").mkdir()
    (tmp_path / "shared-notes" / "capy.md").write_text("# Capybara\n\nThe capybara allocator pools arenas.\n")
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "token.md").write_text("# Token\n\nsecret-token-123\n")
    os.symlink("../shared-notes", vault / "linked")
    os.symlink("../secrets", vault / "keys")
    os.symlink("nowhere.md", vault / "dead.md")
    os.symlink(".attic/papers", vault / "papers")

    p = cli(["ingest", str(vault)], data)
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    at = lines.index("warnings (3):")  # a count, then one warning per line
    warnings = [ln.strip() for ln in lines[at + 1 :] if ln.startswith("  ")]
    assert len(warnings) == 3
    assert any("vault/linked" in w and "outside" in w and "--follow-external-links" in w for w in warnings)
    assert any("vault/keys" in w and "outside" in w for w in warnings)
    assert any("vault/dead.md" in w and "broken link" in w and "nowhere.md" in w for w in warnings)
    summary = p.stdout.strip().splitlines()[-1]
    assert summary.startswith("2 files, 2 pages") and "3 warnings; 4 hidden folders/files skipped" in summary
    bm = BM25Index.load(make_settings(data).bm25_dir)
    assert sorted(m["source"] for m in bm.metadatas) == ["vault/own.md", "vault/papers/quokka.md"]
    assert not any("secret-token" in t or "obsidian" in t for t in bm.texts)

    p = cli(["ingest", str(vault), "--follow-external-links", "--json"], data)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert rep["files"] == 4 and rep["hidden_skipped"] == 4
    assert [w for w in rep["warnings"] if "vault/" in w] == [w for w in rep["warnings"] if "dead.md" in w]
    a = cli(["ask", "What does the capybara allocator pool?"], data)
    assert a.returncode == 0 and "pools arenas" in a.stdout, a.stdout + a.stderr


TLDR_NOTE = """---
title: Long-context retrieval
tags: [retrieval, long-context]
---
TL;DR: a few retrieval heads copy the needle from a million-token context; pruning them breaks recall.

# Method

We probe every attention head with needle-in-a-haystack prompts and score how often it copies the needle.
"""

OTHER_NOTES = {
    "scheduler.md": "# Wombat scheduler\n\nThe wombat scheduler keeps every burrow busy by stealing work from "
    "idle GPUs.\n\n## Evaluation\n\nIt improves throughput by 30 percent on a 64-GPU cluster.\n",
    "kv.md": "---\ntitle: KV cache compression\n---\n# Overview\n\nQuantizing the KV cache to 2 bits halves memory "
    "with little loss in accuracy.\n",
}


@pytest.mark.parametrize(
    "extra",
    ["", "\n# Results\n\nFewer than five percent of heads are retrieval heads, in every model family tested.\n"],
    ids=["one-heading", "two-headings"],
)
def test_the_tldr_preamble_answers_the_tldr_question(tmp_path, data, extra):
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.service import Notes

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "long-context.md").write_text(TLDR_NOTE + extra)
    for name, text in OTHER_NOTES.items():
        (notes / name).write_text(text)
    settings = make_settings(data)
    ingest(settings, [str(notes)])
    n = Notes(settings)
    for q in (
        "What is the TL;DR of the long-context retrieval paper?",
        "What is the tl;dr of the long-context retrieval note?",
    ):
        a = n.ask(q)
        assert not a.refused, q
        assert "a few retrieval heads copy the needle from a million-token context" in a.answer
        assert a.citations[0].page_title == "Long-context retrieval" and a.citations[0].section == ""
