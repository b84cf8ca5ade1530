"""The notes, the index and the data dir agree — or a command says exactly why not.

Each case damages a real index on disk (a copy of the fixture-notes index, or one ingested here) the way
a user or the machine would — a part deleted, an ingest killed, the data dir read-only or its disk
full — and runs the real ``papernotes`` commands in fresh processes, as a user would.

Read-only and full data dirs are made with real mounts in a private mount namespace (``unshare -rm``:
a read-only bind mount, a small tmpfs); the tests are skipped where the kernel does not allow that.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, make_settings, seed_models

from papernotes.retrieval.indexing import INDEX_BATCH

QUESTION = "How much higher throughput does Quokka reach than the contiguous baseline?"
ANSWER = "3.7x"


def cli(args: list[str], data: Path, timeout: float = 180) -> subprocess.CompletedProcess:
    """Run ``papernotes ARGS`` in a fresh process against the data dir ``data``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERNOTES_", "OPENAI_"))}
    env["PAPERNOTES_DATA_DIR"] = str(data)
    return subprocess.run(
        [sys.executable, "-m", "papernotes.bot.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def one_error_line(p: subprocess.CompletedProcess) -> str:
    """The single ``error: …`` line of a failed command (asserting there is exactly one, no traceback)."""
    assert p.returncode != 0, p.stdout
    assert "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), p.stderr
    return lines[0]


def snapshot(data: Path) -> dict:
    """What each part of the index in ``data`` holds: vector-store ids, keyword-index ids, record
    manager keys, the catalog and the per-source counts. (chromadb caches an opened store per path for
    the life of a process: the cache is cleared so the store is read as it is on disk now.)"""
    import chromadb
    from chromadb.api.shared_system_client import SharedSystemClient

    from papernotes.retrieval.indexing import record_manager

    s = make_settings(data)
    SharedSystemClient.clear_system_cache()
    try:
        coll = chromadb.PersistentClient(path=str(s.chroma_dir)).get_collection(s.collection)
        vectors = sorted(coll.get(include=[])["ids"])
    finally:
        SharedSystemClient.clear_system_cache()
    return {
        "vectors": vectors,
        "bm25": sorted(json.loads((s.bm25_dir / "chunks.json").read_text())["ids"]),
        "records": sorted(record_manager(s).list_keys()),
        "catalog": json.loads(s.catalog_path.read_text()),
        "sources": json.loads((data / "sources.json").read_text()),
    }


@pytest.fixture
def fixture_data(fixture_index, tmp_path) -> Path:
    """A data dir of this test holding a clean build of the fixture notes' index."""
    data = tmp_path / "data"
    shutil.copytree(fixture_index.data_dir, data)
    return data


# --- a part of the index deleted ----------------------------------------------------------------------

#: part → (what to delete, the query command that must name it, the word the repair line uses)
DAMAGE = {
    "vector store": ("chroma", ["ask", QUESTION], "vector store"),
    "keyword index": ("bm25", ["search", "Quokka"], "keyword index"),
    "paper catalog": ("catalog.json", ["papers"], "catalog"),
}


@pytest.mark.parametrize("part", list(DAMAGE))
def test_a_deleted_part_is_named_by_queries_and_healed_by_the_next_ingest(fixture_data, part):
    clean = snapshot(fixture_data)
    name, query, word = DAMAGE[part]
    target = fixture_data / name
    shutil.rmtree(target) if target.is_dir() else target.unlink()

    line = one_error_line(cli(query, fixture_data))
    assert part in line and "missing" in line
    assert f"run `papernotes ingest {FIXTURE_NOTES.resolve()}`" in line  # the repair command, runnable

    p = cli(["ingest", str(FIXTURE_NOTES)], fixture_data)
    assert p.returncode == 0, p.stderr
    summary = p.stdout.strip().splitlines()[-1]
    assert "repaired:" in summary and word in summary.split("repaired:", 1)[1]
    assert snapshot(fixture_data) == clean  # every part as a clean build has it

    a = cli(["ask", QUESTION, "--json"], fixture_data)
    assert a.returncode == 0, a.stderr
    assert ANSWER in json.loads(a.stdout)["answer"]
    assert "notice" not in a.stderr


#: a file of the index written over with garbage → the part the error names
GARBLED = {"catalog.json": "paper catalog", "bm25/chunks.json": "keyword index", "index.json": "manifest"}


@pytest.mark.parametrize("name", list(GARBLED))
def test_a_garbled_part_is_named_by_every_query_and_healed_by_the_next_ingest(fixture_data, name):
    clean = snapshot(fixture_data)
    (fixture_data / name).write_text("{broken", encoding="utf-8")
    for query in (["ask", QUESTION], ["papers"], ["stats"], ["summarize", "HotOS 2031"]):
        if query == ["papers"] and name.startswith("bm25"):
            continue  # the paper list reads the catalog only
        line = one_error_line(cli(query, fixture_data))
        assert GARBLED[name] in line and ("cannot be read" in line), (query, line)
        assert f"run `papernotes ingest {FIXTURE_NOTES.resolve()}`" in line
    p = cli(["ingest", str(FIXTURE_NOTES)], fixture_data)
    assert p.returncode == 0, p.stderr
    assert snapshot(fixture_data) == clean
    a = cli(["ask", QUESTION, "--json"], fixture_data)
    assert a.returncode == 0 and ANSWER in json.loads(a.stdout)["answer"], a.stderr


def test_a_truncated_keyword_index_file_is_named_and_the_next_ingest_rebuilds_it(fixture_data):
    """A keyword-index file cut short (a full disk, a copy interrupted): queries name the keyword index
    in one line; a plain ingest notices it (nothing else changed) and rebuilds it without re-embedding."""
    terms = fixture_data / "bm25" / "terms.npz"
    data = terms.read_bytes()
    terms.write_bytes(data[: len(data) // 2])
    line = one_error_line(cli(["ask", QUESTION], fixture_data))
    assert "keyword index" in line and "cannot be read" in line, line
    p = cli(["ingest", str(FIXTURE_NOTES)], fixture_data)
    assert p.returncode == 0 and "keyword index rebuilt" in p.stdout + p.stderr, p.stdout + p.stderr
    assert "0 added" in p.stdout + p.stderr
    a = cli(["ask", QUESTION, "--json"], fixture_data)
    assert a.returncode == 0 and ANSWER in json.loads(a.stdout)["answer"], a.stderr


@pytest.mark.parametrize("name", ["entries.json", "sources.json"])
def test_a_garbled_ingest_record_is_written_again_by_the_next_ingest(fixture_data, name):
    """The ingest's own records (the paper entries per source, the per-source stats): garbled, the next
    ingest reads every source again and writes them anew, embedding nothing; queries go on meanwhile."""
    clean = snapshot(fixture_data)
    (fixture_data / name).write_text("{broken", encoding="utf-8")
    assert cli(["stats"], fixture_data).returncode == 0
    p = cli(["ingest", str(FIXTURE_NOTES), "--json"], fixture_data)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert json.loads(p.stdout)["added"] == 0
    assert snapshot(fixture_data) == clean
    assert json.loads((fixture_data / name).read_text(encoding="utf-8"))  # written again
    a = cli(["ask", QUESTION, "--json"], fixture_data)
    assert a.returncode == 0 and ANSWER in json.loads(a.stdout)["answer"], a.stderr


def _garble(path: Path) -> None:
    """Overwrite every 97th byte of ``path`` (a damaged disk block, a bad copy): SQLite's header goes too."""
    data = bytearray(path.read_bytes())
    for i in range(0, len(data), 97):
        data[i] ^= 0xA5
    path.write_bytes(bytes(data))


def test_a_damaged_vector_store_is_named_and_rebuild_sets_it_aside(fixture_data):
    """chroma.sqlite3 damaged (SQLite: "file is not a database"): queries and a plain ingest name the
    vector store and the ``--rebuild`` command in one line; that command moves the damaged store aside
    (kept) and builds a new one that answers."""
    _garble(fixture_data / "chroma" / "chroma.sqlite3")
    for command in (["ask", QUESTION], ["ingest", str(FIXTURE_NOTES)]):
        line = one_error_line(cli(command, fixture_data))
        assert "vector store" in line and "cannot be read" in line, line
        assert f"run `papernotes ingest --rebuild {FIXTURE_NOTES.resolve()}`" in line, line
    p = cli(["ingest", "--rebuild", str(FIXTURE_NOTES)], fixture_data)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert len(list(fixture_data.glob("chroma.damaged-*/chroma.sqlite3"))) == 1  # kept, not deleted
    a = cli(["ask", QUESTION, "--json"], fixture_data)
    assert a.returncode == 0 and ANSWER in json.loads(a.stdout)["answer"], a.stderr


def test_chromas_internal_error_on_opening_the_store_is_the_damaged_vector_store(fixture_data, monkeypatch):
    """Opening the store for a query fails inside chromadb (measured on the real notes with a segment's
    ``header.bin`` emptied: "Error loading hnsw index", raised by the collection's count): the one-line
    damaged-vector-store error with the rebuild command, not "unexpected InternalError"."""
    from chromadb.api.models.Collection import Collection
    from chromadb.errors import InternalError

    from papernotes.retrieval.errors import IndexDamagedError
    from papernotes.retrieval.search import HybridRetriever

    def fail(self):
        raise InternalError("Error executing plan: Error creating hnsw segment reader: Error loading hnsw index")

    monkeypatch.setattr(Collection, "count", fail)
    with pytest.raises(IndexDamagedError, match=r"vector store.*Error loading hnsw index.*ingest --rebuild"):
        HybridRetriever.from_settings(make_settings(fixture_data))


@pytest.mark.parametrize(("part", "aside"), [("chroma/chroma.sqlite3", "chroma.damaged-*"), ("bm25", "bm25.damaged-*")])
def test_a_part_replaced_by_a_file_or_folder_is_set_aside_by_the_rebuild(fixture_data, part, aside):
    """The store's SQLite file replaced by a folder, the keyword index's folder by a file: the rebuild
    moves the stray part aside (kept) and the index answers again — never the same error line after the
    command it names."""
    path = fixture_data / part
    if path.is_dir():
        shutil.rmtree(path)
        path.write_text("junk\n")
    else:
        path.unlink()
        path.mkdir()
    line = one_error_line(cli(["ask", QUESTION], fixture_data))
    assert "cannot be read" in line and "not a" in line, line  # not "missing"
    assert ("--rebuild" in line) == part.startswith("chroma"), line  # the command that repairs it
    p = cli(["ingest", "--rebuild", str(FIXTURE_NOTES)], fixture_data)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    assert len(list(fixture_data.glob(aside))) == 1  # kept, not deleted
    a = cli(["ask", QUESTION, "--json"], fixture_data)
    assert a.returncode == 0 and ANSWER in json.loads(a.stdout)["answer"], a.stderr


def test_a_damaged_record_manager_is_set_aside_and_re_recorded_without_re_embedding(fixture_data):
    clean = snapshot(fixture_data)
    _garble(fixture_data / "records.sqlite")
    p = cli(["ingest", str(FIXTURE_NOTES), "--json"], fixture_data)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    rep = json.loads(p.stdout)
    assert rep["added"] == 0 and any("record manager" in r for r in rep["repaired"]), rep
    assert list(fixture_data.glob("records.sqlite.damaged-*"))
    assert snapshot(fixture_data) == clean


@pytest.mark.parametrize(
    "damage",
    [
        lambda bm25: (bm25 / "terms.npz").unlink(),
        lambda bm25: (bm25 / "terms.npz").write_bytes(os.urandom(300)),
        lambda bm25: (bm25 / "vectors.npy").unlink(),
        lambda bm25: (bm25 / "vectors.npy").write_bytes((bm25 / "vectors.npy").read_bytes()[:100]),
    ],
    ids=["terms-deleted", "terms-random", "vectors-deleted", "vectors-truncated"],
)
def test_a_keyword_index_file_queries_work_around_is_rebuilt_by_the_next_ingest(fixture_data, damage):
    """Files whose loss queries survive (postings re-tokenized, vectors asked of the store) on every
    load: a plain ingest notices them and rebuilds them, embedding nothing; the next ingest finds
    nothing to repair."""
    damage(fixture_data / "bm25")
    p = cli(["ingest", str(FIXTURE_NOTES), "--json"], fixture_data)
    rep = json.loads(p.stdout)
    assert rep["added"] == 0 and any("keyword index" in r for r in rep["repaired"]), rep
    again = json.loads(cli(["ingest", str(FIXTURE_NOTES), "--json"], fixture_data).stdout)
    assert again["repaired"] == [], again


def test_deleted_record_manager_is_re_recorded_without_re_embedding(fixture_data):
    clean = snapshot(fixture_data)
    (fixture_data / "records.sqlite").unlink()
    p = cli(["ingest", str(FIXTURE_NOTES), "--json"], fixture_data)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert rep["added"] == 0 and rep["deleted"] == 0  # the vectors were kept, not embedded again
    assert any("record manager" in r for r in rep["repaired"])
    assert snapshot(fixture_data) == clean


def test_orphaned_vectors_and_stale_records_are_repaired(fixture_data):
    """Vectors no record knows of (and that no source gives) are deleted; records whose vector is gone
    are embedded again."""
    clean = snapshot(fixture_data)
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        import chromadb
        from papernotes.retrieval.settings import Settings
        s = Settings(data_dir=Path(sys.argv[1]), _env_file=None)
        coll = chromadb.PersistentClient(path=str(s.chroma_dir)).get_collection(s.collection)
        ids = sorted(coll.get(include=[])["ids"])
        coll.delete(ids=ids[:3])
        coll.add(ids=["orphan-1", "orphan-2"], embeddings=[[0.1] * 384, [0.2] * 384], documents=["a", "b"],
                 metadatas=[{"source": "x"}, {"source": "y"}])
        """
    )
    p = subprocess.run([sys.executable, "-c", script, str(fixture_data)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    p = cli(["ingest", str(FIXTURE_NOTES), "--json"], fixture_data)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert rep["added"] == 3
    repaired = " ".join(rep["repaired"])
    assert "missing 3 recorded chunks" in repaired and "2 orphaned vectors deleted" in repaired
    assert snapshot(fixture_data) == clean


# --- an ingest killed halfway ---------------------------------------------------------------------------


KILL_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from papernotes.retrieval.indexing import INDEX_BATCH, ingest
    from papernotes.retrieval.settings import Settings

    def progress(stage, done, total):
        if stage == "embed" and done > INDEX_BATCH:  # the second batch is embedded, not yet written
            os.kill(os.getpid(), signal.SIGKILL)

    ingest(Settings(data_dir=Path(sys.argv[1]), _env_file=None), sys.argv[2:], progress=progress)
    """
)


def killed_ingest(data: Path, *sources: Path) -> None:
    """Run an ingest of ``sources`` that is killed (SIGKILL) after its first batch of ``INDEX_BATCH``
    chunks was written and while the next one is being embedded."""
    p = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(data), *map(str, sources)], capture_output=True)
    assert p.returncode == -signal.SIGKILL, p.stderr


def many_notes(root: Path, n: int) -> Path:
    root.mkdir()
    for i in range(n):
        (root / f"n{i:03}.md").write_text(f"# Topic {i}\n\nNote {i} on the capybara allocator, chapter {i}.\n")
    return root


def test_killed_ingest_is_noticed_by_the_next_command_and_completed_by_the_next_ingest(tmp_path, models_cache):
    data = tmp_path / "data"
    seed_models(models_cache, data)
    base = tmp_path / "base"
    base.mkdir()
    (base / "wombat.md").write_text("# Wombat\n\nThe wombat scheduler keeps every burrow busy.\n")
    p = cli(["ingest", str(base)], data)
    assert p.returncode == 0, p.stderr
    n = INDEX_BATCH + 44  # more than one of index()'s batches
    notes = many_notes(tmp_path / "notes", n)
    killed_ingest(data, base, notes)

    a = cli(["ask", "What does the wombat scheduler do?"], data)
    assert a.returncode == 0 and "keeps every burrow busy" in a.stdout, a.stderr
    notice = [ln for ln in a.stderr.splitlines() if ln.strip()]
    assert len(notice) == 1 and notice[0].startswith("notice: the last ingest did not finish (started ")
    assert f"run `papernotes ingest {base} {notes}` to complete it" in notice[0]

    p = cli(["ingest", str(base), str(notes), "--json"], data)
    assert p.returncode == 0, p.stderr
    rep = json.loads(p.stdout)
    assert rep["resumed"] and rep["chunks"] == n + 1
    # the killed ingest indexed only the n new notes (the wombat note was unchanged); the batch of them
    # written before the kill is not embedded again
    assert rep["added"] == n - INDEX_BATCH
    after = snapshot(data)
    assert len(after["vectors"]) == n + 1 and after["vectors"] == after["bm25"] == after["records"]

    a = cli(["search", "capybara allocator chapter 7"], data)
    assert a.returncode == 0 and "Note 7 on the capybara allocator" in a.stdout
    assert a.stderr.strip() == ""  # no notice any more


def test_first_ingest_killed_is_named_by_queries(tmp_path, models_cache):
    data = tmp_path / "data"
    seed_models(models_cache, data)
    notes = many_notes(tmp_path / "notes", INDEX_BATCH + 44)
    killed_ingest(data, notes)
    line = one_error_line(cli(["search", "capybara"], data))
    assert "the last ingest did not finish (started " in line
    assert f"run `papernotes ingest {notes}` to complete it" in line


def test_running_ingest_is_noticed_as_running(fixture_data):
    """While an ingest holds the write lock, its marker means "running", not "did not finish"."""
    import fcntl

    settings = make_settings(fixture_data)
    (fixture_data / "ingest-in-progress.json").write_text(json.dumps({"started": "2026-01-02 03:04:05 UTC"}))
    fd = os.open(fixture_data / "write.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        from papernotes.retrieval.indexing import unfinished_ingest

        assert unfinished_ingest(settings) == (
            "an ingest is running (started 2026-01-02 03:04:05 UTC); answers come from the index as it was before it"
        )
    finally:
        os.close(fd)
    assert "did not finish (started 2026-01-02 03:04:05 UTC)" in (unfinished_ingest(settings) or "")


def test_queries_during_the_first_ingest_say_there_is_no_index_yet(tmp_path):
    """The first ingest of an empty data dir is running (its marker, the write lock held, no part of the
    index written): a query says there is no index yet, not that answers come from an earlier one."""
    import fcntl

    data = tmp_path / "data"
    data.mkdir()
    (data / "ingest-in-progress.json").write_text(json.dumps({"started": "2026-01-02 03:04:05 UTC"}))
    fd = os.open(data / "write.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        line = one_error_line(cli(["ask", QUESTION], data))
    finally:
        os.close(fd)
    assert "no index" in line and "first ingest is running (started 2026-01-02 03:04:05 UTC)" in line, line
    assert "as it was before" not in line


def test_a_running_rebuild_is_noticed_as_a_rebuild(fixture_data):
    """During ``ingest --rebuild`` the index is being written anew: the notice does not promise the
    old index's answers."""
    import fcntl

    from papernotes.retrieval.indexing import unfinished_ingest

    settings = make_settings(fixture_data)
    marker = {"started": "2026-01-02 03:04:05 UTC", "rebuild": True}
    (fixture_data / "ingest-in-progress.json").write_text(json.dumps(marker))
    fd = os.open(fixture_data / "write.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        notice = unfinished_ingest(settings) or ""
        assert "--rebuild is running" in notice and "being rebuilt" in notice and "as it was before" not in notice
    finally:
        os.close(fd)


def test_chromas_internal_error_is_the_damaged_vector_store_with_the_rebuild_command(fixture_data):
    """chromadb's own ``InternalError`` during an ingest (measured on the real notes: a segment folder
    deleted gives "Error executing plan: Internal error: Error finding id") is one line naming the
    vector store and ``ingest --rebuild``; other errors and a Chroma server's are not translated."""
    from chromadb.errors import InternalError

    from papernotes.retrieval.store import store_internal_error

    settings = make_settings(fixture_data)
    err = store_internal_error(settings, InternalError("Error executing plan: Internal error: Error finding id"))
    assert err is not None
    assert "vector store" in str(err) and "Error finding id" in str(err) and "ingest --rebuild" in str(err)
    assert store_internal_error(settings, ValueError("x")) is None
    assert (
        store_internal_error(settings.model_copy(update={"chroma_url": "http://127.0.0.1:1"}), InternalError("x"))
        is None
    )


# --- read-only and full data dirs (real mounts in a private mount namespace) --------------------------


def _namespaces_work() -> bool:
    if not shutil.which("unshare"):
        return False
    p = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt 2>/dev/null || exit 3"],
        capture_output=True,
    )
    return p.returncode == 0


needs_mounts = pytest.mark.skipif(not _namespaces_work(), reason="no private mount namespaces (unshare -rm) here")


def in_namespace(script: str, data: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run a shell ``script`` in a private mount namespace with ``$P`` the papernotes command and
    ``$D`` the data dir (``PAPERNOTES_DATA_DIR``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERNOTES_", "OPENAI_"))}
    env.update(PAPERNOTES_DATA_DIR=str(data), D=str(data), P=f"{sys.executable} -m papernotes.bot.cli")
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=timeout
    )


def sections(out: str) -> dict[str, str]:
    """Output of a namespace script split at its ``== name`` marker lines."""
    parts: dict[str, str] = {}
    name = ""
    for line in out.splitlines():
        if line.startswith("== "):
            name = line[3:].strip()
            parts[name] = ""
        else:
            parts[name] = parts.get(name, "") + line + "\n"
    return parts


@needs_mounts
def test_queries_work_on_a_read_only_data_dir_and_ingest_names_it(fixture_data, tmp_path):
    """Queries read a temporary copy of the store; ingest, and a query that cannot make that copy (every
    temp dir read-only too), stop with one line naming the data dir and the fix."""
    # a temp dir of this test's own: the copies other processes make meanwhile are not counted
    own_tmp = tmp_path / "tmp"
    own_tmp.mkdir()
    script = f"""
    export TMPDIR="{own_tmp}"
    mount --bind -o ro "$D" "$D" || exit 99
    echo "== ask"; $P ask "{QUESTION}" 2>&1; echo "rc=$?"
    echo "== papers"; $P papers --json 2>&1 | head -c 200; echo
    echo "== ingest"; $P ingest {FIXTURE_NOTES} 2>&1; echo "rc=$?"
    ls -d "$TMPDIR"/papernotes-ro-* 2>/dev/null | wc -l
    for t in /tmp /var/tmp "$TMPDIR"; do mount --bind -o ro $t $t || exit 99; done
    echo "== no temp room"; $P ask "{QUESTION}" 2>&1; echo "rc=$?"
    """
    p = in_namespace(script, fixture_data)
    assert p.returncode == 0, p.stdout + p.stderr
    out = sections(p.stdout)
    assert ANSWER in out["ask"] and "rc=0" in out["ask"] and "error" not in out["ask"]
    assert out["papers"].startswith("[")
    ingest_lines = [ln for ln in out["ingest"].splitlines() if ln.strip()]
    assert ingest_lines[-1] == "0"  # the temporary copies were removed when the queries exited
    for name, lines in (("ingest", ingest_lines[:-1]), ("no temp room", out["no temp room"].splitlines())):
        lines = [ln for ln in lines if ln.strip()]
        assert lines[-1] == "rc=1" and len(lines) == 2 and "Traceback" not in out[name], out[name]
        assert lines[0].startswith("error: ") and str(fixture_data) in lines[0] and "read-only" in lines[0]
    assert "PAPERNOTES_DATA_DIR" in out["ingest"]  # the fix


@needs_mounts
@pytest.mark.parametrize("free_kb", [0, 48])
def test_full_disk_stops_ingest_clearly_keeps_the_old_index_and_the_next_ingest_completes(
    tmp_path, models_cache, free_kb
):
    """The data dir is a 4 MB tmpfs (the model files linked in from outside it); after a first ingest
    the disk is filled to ``free_kb`` KB free and a larger ingest runs."""
    data = tmp_path / "data"
    data.mkdir()
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir()
    new.mkdir()
    (old / "wombat.md").write_text("# Wombat\n\nThe wombat scheduler keeps every burrow busy.\n")
    for i in range(40):
        (new / f"n{i}.md").write_text(f"# Topic {i}\n\nNote {i} on the capybara allocator, chapter {i}.\n")
    script = f"""
    mount -t tmpfs -o size=4m tmpfs "$D" || exit 99
    ln -s {models_cache} "$D/models"
    $P ingest {old} >/dev/null 2>&1 || exit 98
    free=$(df -k "$D" | tail -1 | awk '{{print $4}}')
    dd if=/dev/zero of="$D/filler" bs=1k count=$((free - {free_kb})) 2>/dev/null
    echo "== full ingest"; $P ingest {new} {old} 2>&1; echo "rc=$?"
    echo "== old answers"; $P ask "What does the wombat scheduler do?" 2>&1; echo "rc=$?"
    rm "$D/filler"
    echo "== next ingest"; $P ingest {new} {old} --json 2>/dev/null; echo "rc=$?"
    echo "== new answers"; $P ask "What is note 7 on the capybara allocator about?" 2>&1; echo "rc=$?"
    """
    p = in_namespace(script, data)
    assert p.returncode == 0, p.stdout + p.stderr
    out = sections(p.stdout)
    lines = [ln for ln in out["full ingest"].splitlines() if ln.strip()]
    assert len(lines) == 2 and lines[1] == "rc=1" and "Traceback" not in out["full ingest"], out["full ingest"]
    assert lines[0].startswith("error: ingest stopped: the disk of the data dir") and str(data) in lines[0]
    assert "is full" in lines[0] and "previous index is kept" in lines[0]
    assert "keeps every burrow busy" in out["old answers"] and "rc=0" in out["old answers"]
    rep = json.loads(out["next ingest"].rsplit("rc=", 1)[0])
    assert rep["chunks"] == 41 and rep["added"] == 40  # the old note was kept, the new ones embedded
    assert "chapter 7" in out["new answers"] and "rc=0" in out["new answers"]


def test_recorded_keys_are_the_record_managers_keys_of_its_namespace_only(tmp_path):
    from papernotes.retrieval.index_update import recorded_keys
    from papernotes.retrieval.indexing import record_manager

    s = make_settings(tmp_path / "data")
    other = make_settings(tmp_path / "data", collection="other_notes")
    rm, rm_other = record_manager(s), record_manager(other)  # one SQLite file, two namespaces
    rm.update([f"k{i}" for i in range(30)], group_ids=[f"g{i % 3}" for i in range(30)])
    rm_other.update(["k0", "x1"], group_ids=["g0", "g9"])
    assert sorted(recorded_keys(rm)) == sorted(rm.list_keys()) == sorted(f"k{i}" for i in range(30))
    assert sorted(recorded_keys(rm_other)) == ["k0", "x1"]
    rm.delete_keys(["k3", "k4"])
    assert sorted(recorded_keys(rm)) == sorted(rm.list_keys())


def test_the_read_only_copy_of_the_store_is_writable_and_removable(tmp_path):
    """A data dir made read-only by its modes (``chmod -R a-w``): the temporary copy a query reads must
    not keep those modes, or chromadb cannot open it and the exit cannot remove it."""
    import stat

    from papernotes.retrieval.store import _read_only_copy

    s = make_settings(tmp_path / "data")
    (s.chroma_dir / "seg").mkdir(parents=True)
    (s.chroma_dir / "chroma.sqlite3").write_bytes(b"x")
    (s.chroma_dir / "seg" / "data.bin").write_bytes(b"y")
    for p in [s.chroma_dir / "chroma.sqlite3", s.chroma_dir / "seg" / "data.bin"]:
        p.chmod(0o444)
    for d in [s.chroma_dir / "seg", s.chroma_dir]:
        d.chmod(0o555)
    try:
        copy = _read_only_copy(s)
        for p in [copy, copy / "seg", copy / "chroma.sqlite3", copy / "seg" / "data.bin"]:
            assert stat.S_IMODE(p.stat().st_mode) & stat.S_IWUSR, p
        shutil.rmtree(copy.parent)
        assert not copy.parent.exists()
    finally:
        for d in [s.chroma_dir, s.chroma_dir / "seg"]:
            d.chmod(0o755)
