"""Scheduled refresh: the interval syntax and its one-line errors (``ingest --watch``, ``discord
--refresh``), and a running bot (discord.py's objects in SimCord) that pulls a local git source on its
schedule, answers the edited note's new text without a restart, and keeps its notes when a refresh
fails."""

from __future__ import annotations

import logging
import shutil
import subprocess
import sys

import pytest
from conftest import FIXTURE_NOTES, make_settings, seed_models
from discord_sim import QUESTION, run, texts, world

from papernotes.bot.discord_client import PaperBot
from papernotes.corpus.errors import BadInputError
from papernotes.retrieval.indexing import ingest
from papernotes.retrieval.refresh import last_refreshed, parse_interval

QUOKKA_NOTE = "site/reading-notes/conference/toysys-2026/quokka.md"
THROUGHPUT = "How much higher throughput does Quokka reach than the contiguous baseline?"


@pytest.mark.parametrize(
    ("text", "seconds"), [("90", 90), ("90s", 90), ("5m", 300), ("1.5h", 5400), ("1d", 86400), (" 2M ", 120)]
)
def test_intervals(text, seconds):
    assert parse_interval(text) == seconds


@pytest.mark.parametrize(
    "text",
    ["5x", "-1", "0", "0s", "", "m", "5 minutes", "1h30m", "nan", "99999999999999d", "400d", "1e30", "٣m", "５m"],
)
def test_bad_intervals_are_one_line_errors(text):
    with pytest.raises(BadInputError) as e:
        parse_interval(text)
    assert repr(text) in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    "argv", [["ingest", "--watch", "5x", "notes"], ["ingest", "--watch=-1", "notes"], ["discord", "--refresh=-1"]]
)
def test_cli_rejects_a_bad_interval_in_one_line(argv, tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "papernotes.bot.cli", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PAPERNOTES_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path)},
    )
    assert p.returncode != 0
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: bad interval"), p.stderr
    assert not (tmp_path / "data").exists()  # rejected before anything was read or written


def test_a_watch_whose_first_round_cannot_read_its_source_ends_in_one_line(tmp_path):
    """A source that does not exist ends `ingest --watch` as it ends `ingest`: exit 2, one line; the
    watch does not go on forever over nothing."""
    p = subprocess.run(
        [sys.executable, "-m", "papernotes.bot.cli", "ingest", "--watch", "5m", str(tmp_path / "missing")],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PAPERNOTES_DATA_DIR": str(tmp_path / "data"), "HOME": str(tmp_path)},
    )
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "missing" in lines[0], p.stderr


def _git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=notes", "-c", "user.email=notes@example.org", *args],
        check=True,
        capture_output=True,
    )


def test_bot_refresh_answers_the_edited_note_without_restart(tmp_path, models_cache, caplog):
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    repo = tmp_path / "notes-repo"
    shutil.copytree(FIXTURE_NOTES, repo)
    _git(repo, "init", "--quiet")
    _git(repo, "add", "-A")
    _git(repo, "commit", "--quiet", "-m", "notes")
    data = tmp_path / "data"
    seed_models(models_cache, data)
    s = make_settings(data, discord_cooldown_s=0, sources=[f"file://{repo}"])
    ingest(s)  # clones the repo under the data dir
    first = last_refreshed(s)
    bot = PaperBot(s, refresh_s=0.5)

    async def scenario(env):
        async def refreshes_after(n: int) -> None:
            # the schedule runs on SimCord's virtual clock: advancing it by the interval runs the next
            # refresh and waits for it (a real ingest in a worker thread) to finish
            for _ in range(5):
                if bot.refreshes >= n:
                    return
                await env.advance_time(0.5)
            raise AssertionError(f"{n - bot.refreshes} refreshes did not run")

        _, ch, (alice,) = world(env)
        before = await alice.slash(ch, "ask", question=THROUGHPUT)
        note = repo / QUOKKA_NOTE
        note.write_text(note.read_text(encoding="utf-8").replace("3.7x", "5.2x"), encoding="utf-8")
        _git(repo, "commit", "--quiet", "-am", "new throughput figure")
        await refreshes_after(bot.refreshes + 1)
        after = await alice.slash(ch, "ask", question=THROUGHPUT)
        helped = await alice.slash(ch, "help")
        # the source breaks: the refresh fails, the bot keeps answering from the notes it has
        shutil.rmtree(repo)
        caplog.clear()
        await refreshes_after(bot.refreshes + 1)
        broken = await alice.slash(ch, "ask", question=QUESTION)
        helped_broken = await alice.slash(ch, "help")
        return before, after, helped, broken, helped_broken

    with caplog.at_level(logging.ERROR, logger="papernotes.refresh"):
        before, after, helped, broken, helped_broken = run(bot, scenario, settle_timeout=120)
    assert "3.7x" in "\n".join(texts(before))
    body = "\n".join(texts(after))
    assert "5.2x" in body and "3.7x" not in body
    assert bot.index.reloads >= 1
    last = last_refreshed(s)
    assert last is not None and first is not None and last > first
    notes_field = helped.response.embeds[0].fields[0].value
    assert "Notes last refreshed <t:" in notes_field and "every 0.5 s" in notes_field
    assert "failed" not in notes_field
    assert "16-token blocks" in "\n".join(texts(broken))
    failed = [r for r in caplog.records if r.name == "papernotes.refresh"]
    assert failed and all("\n" not in r.getMessage() for r in failed)
    assert "keeping the previous index" in failed[0].getMessage()
    assert "the last refresh failed" in helped_broken.response.embeds[0].fields[0].value


def test_ingest_watch_reingests_an_edit_on_schedule(tmp_path, models_cache):
    import os
    import signal
    import threading

    notes = tmp_path / "notes"
    shutil.copytree(FIXTURE_NOTES, notes)
    data = tmp_path / "data"
    seed_models(models_cache, data)
    env = {**os.environ, "PAPERNOTES_DATA_DIR": str(data)}
    p = subprocess.Popen(
        [sys.executable, "-m", "papernotes.bot.cli", "ingest", "--watch", "1s", str(notes)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # a test worker may run with SIGINT ignored, which a child inherits (and then Python installs no
        # KeyboardInterrupt handler): give the watch the terminal's default, as a shell would
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(p.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    try:
        wait_for(lambda: len(lines) >= 1, p)
        note = notes / QUOKKA_NOTE
        note.write_text(note.read_text(encoding="utf-8").replace("3.7x", "5.2x"), encoding="utf-8")
        wait_for(lambda: any(" 0 added" not in ln for ln in lines[1:]), p)
    finally:
        p.send_signal(signal.SIGINT)
        p.wait(60)  # a round under way finishes its embedding call first
    first, edited = lines[0], next(ln for ln in lines[1:] if " 0 added" not in ln)
    assert " 0 added" not in first and "chunks:" in first  # the first round indexed everything
    assert ": 1 added" in edited or ": 2 added" in edited  # a later round embedded only the edit
    assert p.returncode == 0  # Ctrl-C ends a watch cleanly


def wait_for(pred, proc, timeout: float = 120) -> None:
    """Poll ``pred`` until it holds; fails if ``proc`` exits or ``timeout`` seconds pass."""
    import time

    deadline = time.monotonic() + timeout
    while not pred():
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.2)
