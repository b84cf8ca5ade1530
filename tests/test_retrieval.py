"""Retrieval: incremental indexing, filters, auto-detected venues, refusal, store modes (embedded and a
real `chroma run` server), the single-writer lock, eval metrics, and the ask CLI end to end."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, REPO, make_settings, seed_models

from papernotes.retrieval.errors import EmbeddingMismatchError, StoreBusyError
from papernotes.retrieval.filters import Filters, build_where, detect_filters, matches_where, normalize_filters
from papernotes.retrieval.prompts import REFUSAL
from papernotes.retrieval.terms import lexical_terms

BIN = Path(sys.executable).parent


def run_cli(*args: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "papernotes"), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


@pytest.fixture()
def notes_copy(tmp_path) -> Path:
    dst = tmp_path / "notes"
    shutil.copytree(FIXTURE_NOTES, dst)
    return dst


@pytest.fixture()
def fresh(tmp_path, models_cache):
    data = tmp_path / "data"
    seed_models(models_cache, data)
    return make_settings(data)


# --- incremental indexing ------------------------------------------------------------------------


def test_reingest_unchanged_embeds_nothing(fresh, notes_copy):
    from papernotes.retrieval.indexing import ingest

    first = ingest(fresh, [str(notes_copy)])
    assert first.added == first.chunks > 0
    again = ingest(fresh, [str(notes_copy)])
    assert (again.added, again.updated, again.deleted) == (0, 0, 0)
    assert again.skipped == first.chunks


def test_edit_reembeds_only_changed_chunks_and_bm25_follows(fresh, notes_copy):
    from papernotes.retrieval.bm25 import BM25Index
    from papernotes.retrieval.indexing import ingest

    first = ingest(fresh, [str(notes_copy)])
    note = notes_copy / "site/reading-notes/conference/toysys-2026/quokka.md"
    note.write_text(note.read_text().replace("4.2K LoC of Rust", "4.2K LoC of Rust and 900 lines of Zig"))
    rep = ingest(fresh, [str(notes_copy)])
    assert 1 <= rep.added <= 2, rep  # the edited section only
    assert rep.deleted == rep.added
    assert rep.chunks == first.chunks
    texts = BM25Index.load(fresh.bm25_dir).texts
    assert any("900 lines of Zig" in t for t in texts)
    assert not any("4.2K LoC of Rust built" in t for t in texts)


def test_deleted_and_renamed_notes_leave_the_index(fresh, notes_copy):
    from papernotes.corpus.catalog import load_catalog
    from papernotes.retrieval.bm25 import BM25Index
    from papernotes.retrieval.indexing import ingest

    ingest(fresh, [str(notes_copy)])
    (notes_copy / "dump.txt").unlink()
    rep = ingest(fresh, [str(notes_copy)])
    assert rep.deleted > 0 and rep.added == 0
    bm = BM25Index.load(fresh.bm25_dir)
    assert not any(m["source"].startswith("notes/dump.txt") for m in bm.metadatas)
    assert not any("Emu" in r.title for r in load_catalog(fresh.catalog_path))
    # rename: old source disappears, new one appears; text is re-embedded under the new source
    (notes_copy / "pubs.txt").rename(notes_copy / "people.txt")
    rep = ingest(fresh, [str(notes_copy)])
    bm = BM25Index.load(fresh.bm25_dir)
    sources = {m["source"] for m in bm.metadatas}
    assert "notes/people.txt" in sources and "notes/pubs.txt" not in sources
    assert rep.added > 0 and rep.deleted == rep.added


def test_embedding_model_switch_is_refused_with_the_fix(fresh, notes_copy):
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from papernotes.retrieval.indexing import ingest

    ingest(fresh, [str(notes_copy)])

    class Named(DeterministicFakeEmbedding):
        name: str = "fake-384"

    other = Named(size=384)
    with pytest.raises(EmbeddingMismatchError) as e:
        ingest(fresh, [str(notes_copy)], embeddings=other)
    msg = str(e.value)
    assert "all-MiniLM-L6-v2" in msg and "fake-384" in msg and "--rebuild" in msg
    rep = ingest(fresh, [str(notes_copy)], embeddings=other, rebuild=True)
    assert rep.added == rep.chunks and rep.embedding_model == "fake-384"


def test_second_writer_gets_a_clear_message_fast(fresh):
    from papernotes.retrieval.store import write_lock

    s2 = fresh.model_copy(update={"store_lock_timeout": 0.5})
    code = (
        "import sys,time; from papernotes.retrieval.settings import Settings; from papernotes.retrieval.store import write_lock\n"
        f"s=Settings(data_dir={str(fresh.data_dir)!r}, _env_file=None)\n"
        "with write_lock(s):\n print('locked', flush=True); time.sleep(10)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "locked"
        t = time.monotonic()
        with pytest.raises(StoreBusyError) as e, write_lock(s2):
            pass
        assert time.monotonic() - t < 3
        assert "PAPERNOTES_CHROMA_URL" in str(e.value)
    finally:
        holder.kill()
        holder.wait()


# --- filters ---------------------------------------------------------------------------------------


def test_filter_builder_zero_one_many_clauses():
    assert build_where(Filters()) is None
    assert build_where(Filters(venue="OSDI 2026")) == {"venue": {"$eq": "OSDI 2026"}}
    w = build_where(Filters(venue="OSDI 2026", year=2026, topic="kv"), topics=["LLM › KV Cache", "Storage"])
    assert w is not None
    assert set(w) == {"$and"} and len(w["$and"]) == 3
    assert {"topic": {"$in": ["LLM › KV Cache"]}} in w["$and"]
    meta = {"venue": "OSDI 2026", "year": 2026, "topic": "LLM › KV Cache"}
    assert matches_where(meta, w)
    assert not matches_where({**meta, "year": 2025}, w)
    nothing = build_where(Filters(topic="nothing-like-this"), topics=["Storage"])
    assert nothing is not None and not matches_where(meta, nothing)


def test_venue_and_year_detection():
    assert detect_filters("Which papers at OSDI 2026 use KV caches?").venue == "OSDI 2026"
    assert detect_filters("what did OSDI'26 publish").venue == "OSDI 2026"
    assert detect_filters("papers on schedulers in 2025").year == 2025
    assert not detect_filters("compare OSDI 2026 and SOSP 2025")
    assert not detect_filters("how does paged attention work")
    assert normalize_filters("mlsys26").venue == "MLSys 2026"


def test_search_filters_pushed_to_both_sides(fixture_index):
    from papernotes.retrieval.service import Notes

    notes = Notes(fixture_index)
    res = notes.search("KV cache paging", k=10, filters=Filters(venue="ToySys 2026"))
    assert res.hits and all(h.get("venue") == "ToySys 2026" for h in res.hits)
    # the sparse side alone honours the same where
    where = notes.retriever.where(Filters(venue="MLSys 2025"))
    hits = notes.retriever.bm25.search(lexical_terms("KV"), 10, where)
    assert hits and all(notes.retriever.bm25.metadatas[p]["venue"] == "MLSys 2025" for p, _ in hits)
    res2 = notes.search("KV cache", k=10, filters=Filters(venue="ToySys 2026", topic="Scheduling"))
    assert res2.hits and all("Scheduling" in (h.get("topic") or "") for h in res2.hits)


@pytest.mark.parametrize(
    "question", ["KV cache paging", "Which ToySys 2026 papers page the KV cache?", "What does Quokka do at OSDI 2031?"]
)
def test_a_question_embedded_while_it_is_read_ranks_as_one_embedded_after(fixture_index, question):
    """A question given as text is embedded in a background thread while it is read; the ranking, the
    scores and the vector are those of reading it first and embedding it then (``vector`` given or not)."""
    from papernotes.retrieval.service import Notes

    r = Notes(fixture_index).retriever

    def ranked(res):
        return [(h.id, h.score, h.dense, h.bm25) for h in res.pool], res.query_vector

    overlapped = ranked(r.search(question))
    assert overlapped == ranked(r.search(r.understand(question)))
    assert overlapped == ranked(r.search(r.understand(question), vector=r.question_vector(question)))
    assert overlapped[1] == r.embeddings.embed_query(question)


def test_auto_detected_venue_and_fallback(fixture_index):
    from papernotes.retrieval.service import Notes

    notes = Notes(fixture_index)
    res = notes.search("Which ToySys 2026 papers page the KV cache?")
    assert res.detected and res.filters.venue == "ToySys 2026"
    assert all(h.get("venue") == "ToySys 2026" for h in res.hits)
    res = notes.search("What does Quokka do at OSDI 2031?")  # a venue the notes do not have
    assert res.fallback and res.hits
    a = notes.ask("Which ToySys 2026 papers page the KV cache?", k=5)
    assert a.filters == {"venue": "ToySys 2026"}


def test_refusal_off_topic_and_missing_attribute(fixture_index):
    from papernotes.retrieval.service import Notes

    notes = Notes(fixture_index)
    for q in (
        "What is the boiling point of ethanol at sea level?",
        "Which GPUs was Platypus evaluated on?",  # the notes say nothing of its evaluation
        "How many lines of code is Platypus?",  # nor of its implementation
        "What was MLSys 2025's acceptance rate?",  # not in the notes
        "What speedup does Wallaby report?",  # no numbers for Wallaby
        "What is the acceptance rate of the Moon Landing conference?",
    ):  # a name the notes lack
        a = notes.ask(q)
        assert a.refused and a.answer == REFUSAL and a.citations == [], (q, a.answer)
    a = notes.ask("How much higher throughput does Quokka reach than the contiguous baseline?")
    assert not a.refused and "3.7x" in a.answer
    assert a.citations and (a.citations[0].paper_title or "").startswith("Quokka")


# --- store modes -----------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def chroma_server(tmp_path):
    exe = BIN / "chroma"
    if not exe.exists():
        pytest.skip("chroma CLI not installed")
    port = _free_port()
    proc = subprocess.Popen(
        [str(exe), "run", "--path", str(tmp_path / "server"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    import urllib.request

    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
            break
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                pytest.fail("chroma run did not start")
            time.sleep(0.3)
    yield f"http://127.0.0.1:{port}"
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.mark.server
@pytest.mark.parametrize("mode", ["embedded", "server"])
def test_store_modes_index_search_and_noop(mode, request, fresh, notes_copy):
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.service import Notes

    s = fresh
    if mode == "server":
        ingest(fresh, [str(notes_copy)])  # an embedded index first: switching must fill the server
        s = fresh.model_copy(update={"chroma_url": request.getfixturevalue("chroma_server")})
    rep = ingest(s, [str(notes_copy)])
    assert rep.added == rep.chunks > 0
    assert ingest(s, [str(notes_copy)]).added == 0
    if mode == "server":
        from papernotes.retrieval.store import make_client

        client = make_client(s)
        assert client.get_collection(s.collection).count() == rep.chunks  # vectors live in the server
    a = Notes(s).ask("How much higher throughput does Quokka reach?")
    assert "3.7x" in a.answer


# --- eval ------------------------------------------------------------------------------------------


def test_eval_metrics_match_hand_computation(tmp_path):
    from papernotes.retrieval.answer import Answer
    from papernotes.retrieval.evaluate import run_eval

    rows = [
        {
            "id": "a",
            "type": "t1",
            "question": "q1",
            "gold_titles": ["Alpha: One"],
            "answer_must_contain": ["42", "blue"],
        },
        {"id": "b", "type": "t1", "question": "q2", "gold_titles": ["Beta", "Gamma"], "answer_must_contain": []},
        {"id": "c", "type": "t2", "question": "q3", "gold_titles": [], "answer_must_contain": []},
        {"id": "d", "type": "t2", "question": "q4", "gold_titles": ["Delta"], "answer_must_contain": ["x"]},
    ]
    canned = {
        "q1": Answer(
            "q1",
            "It is 42 and Blue-ish.",
            "extractive",
            retrieved=[{"paper_title": "Other"}, {"paper_title": "alpha ONE"}],
        ),
        "q2": Answer("q2", "…", "extractive", retrieved=[{"page_title": "Gamma"}, {"paper_title": "Zeta"}]),
        "q3": Answer("q3", REFUSAL, "extractive", refused=True),
        "q4": Answer("q4", REFUSAL, "extractive", refused=True, retrieved=[{"paper_title": "Delta"}]),
    }
    rep = run_eval(rows, lambda q: canned[q], k=5)
    # hit: a yes (rank 2), b yes (rank 1), d yes (rank 1) → 3/3; recall: 1, 1/2, 1 → 0.8333
    assert rep["hit_at_k"] == 1.0
    assert rep["recall_at_k"] == round((1 + 0.5 + 1) / 3, 4)
    assert rep["mrr"] == round((0.5 + 1 + 1) / 3, 4)
    assert rep["refusal_accuracy"] == 1.0  # c refused
    assert rep["false_refusal_rate"] == round(1 / 3, 4)  # d refused though answerable
    # contains: a has "42" and "blue" (word boundary: "Blue-ish" counts), d has none → (1 + 0) / 2
    assert rep["answer_contains"] == 0.5
    assert set(rep["misses"]) == {"d"}
    assert rep["by_type"]["t1"]["n"] == 2 and set(rep["latency_ms"]) == {"p50", "p95"}


@pytest.mark.parametrize(
    ("answer", "needle", "found"),
    [
        ("作者团队来自Meta AI，一作 Hugo Touvron", "Meta AI", True),  # Chinese right before a Latin name
        ("参数量为15 亿", "15 亿", True),
        ("遮盖75%的patch", "75%", True),
        ("uses a 4K context", "4k", True),
        ("uses a 64K context", "4K", False),  # inside a longer number
        ("the Metadata AI", "Meta AI", False),  # inside a longer word
        ("a cafébar", "café", False),
        # × and ÷ are signs among the Latin-1 letters: a number beside one ends there
        ("3.6 acceptance length, 2.6× decoding speedup", "2.6", True),
        ("512×512 videos at 40 FPS", "512", True),
        ("a 6÷2 split", "6", True),
        ("up to 12.6× faster", "2.6", False),  # still inside a longer number
        ("Ørsted and Åland", "rsted", False),  # Latin-1 letters still continue a word
    ],
)
def test_answer_contains_at_word_boundaries_of_each_script(answer, needle, found):
    from papernotes.retrieval.evaluate import contains

    assert contains(answer, needle) is found


def test_eval_cli_on_fixture_questions(fixture_index, tmp_path):
    qs = tmp_path / "qs.jsonl"
    qs.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {
                    "id": "1",
                    "type": "paper_fact",
                    "question": "How many lines of code is Quokka and what is it written in?",
                    "gold_titles": ["Quokka: Paged Attention for Marsupial Inference"],
                    "answer_must_contain": ["4.2K LoC"],
                },
                {
                    "id": "2",
                    "type": "unanswerable",
                    "question": "Which team won the football world cup final?",
                    "gold_titles": [],
                    "answer_must_contain": [],
                },
            ]
        )
        + "\n"
    )
    r = run_cli("eval", str(qs), "--json", env={"PAPERNOTES_DATA_DIR": str(fixture_index.data_dir)})
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert set(rep) >= {
        "n",
        "hit_at_k",
        "recall_at_k",
        "mrr",
        "refusal_accuracy",
        "false_refusal_rate",
        "answer_contains",
        "latency_ms",
        "by_type",
        "misses",
    }
    assert rep["n"] == 2 and rep["hit_at_k"] == 1.0 and rep["refusal_accuracy"] == 1.0
    assert rep["answer_contains"] == 1.0


# --- CLI end to end --------------------------------------------------------------------------------


def test_cli_ingest_and_ask_json_contract(tmp_path, notes_copy, models_cache):
    data = tmp_path / "cli-data"
    seed_models(models_cache, data)
    env = {"PAPERNOTES_DATA_DIR": str(data)}
    r = run_cli("ingest", str(notes_copy), env=env)
    assert r.returncode == 0, r.stderr
    assert "chunks" in r.stdout and "0 warnings" in r.stdout
    r = run_cli("ask", "How much higher throughput does Quokka reach than the contiguous baseline?", "--json", env=env)
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert set(a) >= {"question", "answer", "mode", "citations", "retrieved"}
    assert a["mode"] == "extractive" and "3.7x" in a["answer"]
    cite_keys = {"n", "page_title", "section", "paper_title", "venue", "url", "source", "snippet"}
    assert a["citations"] and all(set(c) >= cite_keys for c in a["citations"])
    assert [c["n"] for c in a["citations"]] == list(range(1, len(a["citations"]) + 1))
    for n in range(1, len(a["citations"]) + 1):
        assert f"[{n}]" in a["answer"]
    assert all(
        set(x) >= {"rank", "score", "page_title", "paper_title", "venue", "section", "source"} for x in a["retrieved"]
    )
    r = run_cli("ask", "What is the boiling point of ethanol?", "--json", env=env)
    assert json.loads(r.stdout)["answer"] == REFUSAL


@pytest.mark.parametrize(
    "args, needle",
    [
        (["ask", ""], "empty"),
        (["ask", "   "], "empty"),
        (["ask", "x", "--k", "0"], "--k"),
        (["ask", "x", "--bogus"], "--bogus"),
        (["ingest", "/nonexistent/notes"], "not found"),
        (["ask", "what is quokka?"], "papernotes ingest"),  # no index yet
        (["ask", "x", "--venue", "nonsense venue"], "venue"),
    ],
)
def test_cli_bad_input_is_one_line(args, needle, tmp_path):
    r = run_cli(*args, env={"PAPERNOTES_DATA_DIR": str(tmp_path / "empty")})
    assert r.returncode != 0
    assert "Traceback" not in r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), r.stderr
    assert needle.lower() in r.stderr.lower()


def test_cli_unknown_but_well_formed_venue_is_an_error(fixture_index):
    env = {"PAPERNOTES_DATA_DIR": str(fixture_index.data_dir)}
    for args in (
        ["ask", "what is quokka", "--venue", "FOO 2026"],
        ["search", "quokka", "--venue", "ToySys 2031"],
        ["papers", "--venue", "FOO 2026"],
    ):
        r = run_cli(*args, env=env)
        assert r.returncode == 2 and "Traceback" not in r.stderr, (args, r.stderr)
        assert r.stderr.startswith("error: unknown venue") and "the notes have" in r.stderr


def test_search_shows_its_filters_as_words(fixture_index):
    """`search` states the filters it applied in words ("filters: year 2026"), not as a Python dict."""
    r = run_cli("search", "quokka", "--year", "2026", env={"PAPERNOTES_DATA_DIR": str(fixture_index.data_dir)})
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[0]
    assert first.startswith("filters: year 2026") and "{" not in first, r.stdout


def test_question_about_a_venue_the_notes_lack_says_so(fixture_index):
    from papernotes.retrieval.service import Notes

    a = Notes(fixture_index).ask("Which OSDI 2031 papers page the KV cache?")
    assert a.refused and "OSDI 2031" in (a.note or "")


@pytest.mark.parametrize(
    "content, needle",
    [
        ('{"question": 42}\n', "must be a string"),
        ('{"question": "q", "gold_titles": "x"}\n', "list of strings"),
        (b"\xff\xfe\x00binary", "UTF-8"),
        (None, "directory"),
    ],
)
def test_eval_bad_files_are_one_line(tmp_path, content, needle):
    f = tmp_path / "qs.jsonl"
    if content is None:
        f.mkdir()
    elif isinstance(content, bytes):
        f.write_bytes(content)
    else:
        f.write_text(content)
    r = run_cli("eval", str(f), env={"PAPERNOTES_DATA_DIR": str(tmp_path / "d")})
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error:") and needle in r.stderr


def test_cli_only_unusable_files_is_an_error_with_the_warnings(tmp_path):
    notes = tmp_path / "bad-notes"
    notes.mkdir()
    (notes / "x.md").write_bytes(b"\x00\x01binary")
    (notes / "noise.md").write_bytes(bytes(range(128, 256)) * 8)  # text in no encoding
    r = run_cli("ingest", str(notes), env={"PAPERNOTES_DATA_DIR": str(tmp_path / "d")})
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert "x.md" in r.stderr and "noise.md" in r.stderr and "error: nothing was ingested" in r.stderr


def test_cli_empty_directory(tmp_path):
    (tmp_path / "empty-notes").mkdir()
    r = run_cli("ingest", str(tmp_path / "empty-notes"), env={"PAPERNOTES_DATA_DIR": str(tmp_path / "d")})
    assert r.returncode != 0 and "Traceback" not in r.stderr and "no notes" in r.stderr


# --- the real corpus ---------------------------------------------------------------------------------


@pytest.mark.realcorpus
def test_real_corpus_sysspec_question(real_index):
    r = run_cli(
        "ask",
        "In the paper arguing for LLM-generated file systems, what share of Ext4's commits "
        "were bug fixes or maintenance?",
        "--json",
        env={"PAPERNOTES_DATA_DIR": str(real_index.data_dir)},
    )
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert "82.4%" in a["answer"]
    assert any(
        c["paper_title"] and c["paper_title"].startswith("Sharpen the Spec") and c["venue"] == "FAST 2026"
        for c in a["citations"]
    )


@pytest.mark.realcorpus
@pytest.mark.parametrize(
    ("question", "flags", "answered"),
    [
        ("what is loongserve", ["--source", "seeds"], True),
        ("what is loongserve", ["--source", "awesome-papers-repo"], False),  # those notes never mention it
        ("what is jenga", ["--venue", "SOSP 2025"], True),
        ("what is jenga", ["--venue", "OSDI"], False),  # no Jenga at any OSDI
        ("who wrote distserve", ["--year", "2012"], False),
    ],
)
def test_given_filters_hold_for_a_named_paper_too(real_index, question, flags, answered):
    """``--source``/``--venue``/``--year`` hold for every chunk an answer cites, also when the question
    names a paper (whose other notes would otherwise be drawn on)."""
    r = run_cli("ask", question, *flags, "--json", env={"PAPERNOTES_DATA_DIR": str(real_index.data_dir)})
    assert r.returncode == 0, r.stderr
    a = json.loads(r.stdout)
    assert a["refused"] is not answered, a["answer"]
    if flags[0] == "--source":
        assert all(flags[1] in c["source"] for c in a["citations"]), a["citations"]
    if flags[0] == "--venue" and answered:
        assert all(c["venue"] == flags[1] for c in a["citations"]), a["citations"]


@pytest.mark.realcorpus
def test_real_corpus_held_split_of_the_calibration_set(real_index):
    """The answer models are fitted on the calibration set's fit split (eval/calibrate.py); this gates
    on the held split, which the fit never saw, and on retrieval over the development set."""
    from conftest import DEV_QA, REPO

    from papernotes.retrieval.evaluate import load_questions, run_eval
    from papernotes.retrieval.service import Notes

    notes = Notes(real_index)
    rows = [r for r in load_questions(REPO / "eval" / "calibration.jsonl") if r["split"] == "held"]
    assert len(rows) >= 150
    rep = run_eval(rows, lambda q: notes.ask(q, k=5, use_llm=False), 5)
    assert rep["hit_at_k"] >= 0.95
    # the answer/refuse decision, gated on its balanced accuracy (the mean of the accuracy on answerable
    # and on unanswerable questions), which does not move when the score trades one kind of error for
    # the other, and on neither kind collapsing
    assert (1 - rep["false_refusal_rate"] + rep["refusal_accuracy"]) / 2 >= 0.8
    assert rep["refusal_accuracy"] >= 0.7 and rep["false_refusal_rate"] <= 0.2
    assert rep["answer_contains"] >= 0.75
    # list recall: 0.87 on the earlier held split; 0.82 since it holds the blind casual rows (a German list
    # question, lists named by a group of systems rather than a topic)
    assert rep["list_recall"] >= 0.8
    if DEV_QA.is_file():
        dev = run_eval(load_questions(DEV_QA), lambda q: notes.ask(q, k=5, use_llm=False), 5)
        assert dev["hit_at_k"] >= 0.95


@pytest.mark.realcorpus
@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("wormhole simulator how many lines of code", None),  # its notes give speedups, not its size
        ("hived how many lines of code", "7,700+ lines"),
        ("how many lines of code is spotserve", "5.6K LoC"),
    ],
)
def test_real_corpus_the_noun_an_amount_is_asked_of_must_be_in_the_evidence(real_index, question, quoted):
    """ "how many *lines of code*": the noun the question counts (its focus, read on past "of") must be
    in the passage that answers; a paper's other amounts do not answer it."""
    from papernotes.retrieval.service import Notes

    a = Notes(real_index).ask(question, use_llm=False)
    assert a.refused is (quoted is None), a.answer
    assert quoted is None or quoted in a.answer, a.answer


@pytest.mark.realcorpus
@pytest.mark.parametrize(
    ("question", "group"), [("what has meta published", "Meta"), ("papers by xinwei fu", "Xinwei Fu")]
)
def test_real_corpus_a_groups_list_holds_every_paper_it_is_from(real_index, question, group):
    """A person's or group's papers are chosen from the whole catalog by who they are from (authors,
    affiliations, the pages listing them), not from the passages a search for the name finds."""
    from papernotes.retrieval.service import Notes
    from papernotes.retrieval.terms import lexical_terms

    notes = Notes(real_index)
    a = notes.ask(question, use_llm=False)
    want = {
        r.title
        for r in notes.catalog
        if set(lexical_terms(group))
        <= set(lexical_terms(" ".join([*r.authors, *r.affiliations, *(t.split(" › ", 1)[0] for t in r.topics)])))
    }
    assert a.kind == "list" and {c.paper_title for c in a.citations} == want


@pytest.mark.realcorpus
def test_real_corpus_held_split_of_the_group_framings(real_index, monkeypatch):
    """Whether a question naming a person or group asks for their papers is decided by a threshold fitted
    on the fit split of eval/group_framings.jsonl (eval/calibrate.py); this gates on its held split:
    the framings asked with a group of the real notes in their slot."""
    monkeypatch.syspath_prepend(str(REPO / "eval"))
    import calibrate  # type: ignore[import-not-found]  # eval/ is no package

    from papernotes.retrieval.lists import group_threshold
    from papernotes.retrieval.service import Notes

    rows = calibrate.group_rows(Notes(real_index), splits=("held",))["held"]
    assert len(rows) >= 150
    got = calibrate.threshold_scores(rows, group_threshold())
    assert got["balanced_accuracy"] >= 0.8 and got["tpr"] >= 0.7 and got["tnr"] >= 0.8, got


def test_collapse_keeps_the_better_of_near_copies_and_short_chunks_unless_the_same():
    """Near-copies (term overlap ≥ 0.9 of the smaller set, both with 8+ terms) and chunks with the same
    terms collapse into the better-ranked one; short chunks that merely share terms do not."""
    from papernotes.retrieval.search import Hit, collapse

    words = [f"w{i}" for i in range(20)]
    terms = {
        "a": set(words[:10]),
        "a-copy": set(words[:10]) | {"extra"},  # 10 of 10 shared: a copy with a line added
        "b": set(words[:5]) | set(words[10:15]),  # half shared: another text
        "s": {"x", "y", "z"},
        "s-other": {"x", "y", "q"},  # short and alike by chance
        "s-same": {"x", "y", "z"},
    }
    hits = [Hit(i, i, {"source": f"{i}.md"}, 1.0 / (n + 1), group=f"page:{i}") for n, i in enumerate(terms)]
    kept, pool = collapse(hits, 10, 1, (), lambda h: terms[h.id])
    assert [h.id for h in pool] == ["a", "b", "s", "s-other"]
    assert pool[0].also == ["a-copy.md"] and pool[2].also == ["s-same.md"]
    assert [h.id for h in kept] == [h.id for h in pool]


@pytest.mark.parametrize("question", ["What is Witcher?", "what is durinn", "witcher sosp21?"])
def test_a_publication_page_line_of_venue_and_authors_is_no_description(real_index, question):
    """A researcher's publication page gives each paper a line "SOSP 2021 · Xinwei Fu, Wook-Hee Kim, …":
    who wrote it and where, which the lead line gives, so it is not quoted again as what the paper is."""
    from papernotes.retrieval.service import Notes

    a = Notes(real_index).ask(question, use_llm=False)
    assert not a.refused, a.answer
    assert not any(line.split(" · ")[0].strip() in {"SOSP 2021", "OSDI 2022"} for line in a.answer.splitlines()[1:]), (
        a.answer
    )
