"""Clean output: an ingest's warnings one per line under a count, and no ANSI codes when output goes to a
file or pipe — neither from rich (the CLI) nor from logging (the Discord bot's log)."""

from __future__ import annotations

import logging
import os
import pty
import subprocess
import sys
from pathlib import Path

import discord
import pytest

from papernotes.bot.discord_client import setup_logging

BIN = Path(sys.executable).parent
ANSI = "\x1b["
#: Environment variables that ask rich for colour whatever the stream: a user's explicit request.
COLOUR_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "CLICOLOR_FORCE")


def cli(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in COLOUR_ENV}
    return subprocess.run(
        [str(BIN / "papernotes"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "PAPERNOTES_DATA_DIR": str(data_dir), "TERM": "xterm-256color"},
    )


def test_ingest_warnings_one_per_line_under_a_count(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "real.md").write_text("# Real\n\nThe wombat scheduler keeps every burrow busy.\n")
    for name in ("part-a", "part-b", "part-c"):  # section index pages: a heading and nothing else
        (notes / f"{name}.md").write_text(f"# {name}\n")
    (notes / "blob.md").write_bytes(b"\x00\x01\x02binary\x00")
    p = cli("ingest", str(notes), data_dir=tmp_path / "data")
    assert p.returncode == 0, p.stderr
    assert ANSI not in p.stderr and ANSI not in p.stdout
    lines = p.stderr.splitlines()
    at = lines.index("pages with only a heading, nothing to index (3):")
    listed = lines[at + 1 : at + 4]
    assert sorted(ln.strip() for ln in listed) == [f"notes/{n}.md" for n in ("part-a", "part-b", "part-c")]
    assert all(ln.startswith("  ") and "," not in ln for ln in listed)
    at = lines.index("warnings (1):")
    assert "blob.md" in lines[at + 1] and lines[at + 1].startswith("  ")
    # the summary counts the warnings listed, the heading-only pages apart
    assert "; 1 warning (3 pages with only a heading);" in p.stdout, p.stdout


def test_redirected_cli_output_has_no_ansi(fixture_index):
    data = fixture_index.data_dir
    for args in (
        ("papers", "--venue", "ToySys 2026"),
        ("ask", "What block size does Quokka use?"),
        ("summarize", "ToySys 2026"),
        ("stats",),
        ("papers", "--venue", "Nowhere 2026"),
    ):
        p = cli(*args, data_dir=data)
        assert p.stdout or p.stderr, args
        assert ANSI not in p.stdout and ANSI not in p.stderr, args


@pytest.fixture()
def clean_root_logger():
    root = logging.getLogger()
    saved, level = root.handlers[:], root.level
    root.handlers = []
    yield root
    root.handlers = saved
    root.setLevel(level)


def test_bot_log_to_a_file_is_plain_even_in_a_container(tmp_path, monkeypatch, clean_root_logger):
    """discord.py colours any stream inside a container; the bot's log to a file must stay plain."""
    monkeypatch.setattr(discord.utils, "is_docker", lambda: True)
    path = tmp_path / "bot.log"
    with path.open("w") as f:
        setup_logging(f)
        logging.getLogger("papernotes.discord").warning("cannot post in channel 1")
        for h in clean_root_logger.handlers:
            h.flush()
    text = path.read_text()
    assert "cannot post in channel 1" in text and "WARNING" in text
    assert ANSI not in text


def test_bot_log_to_a_terminal_is_coloured(clean_root_logger):
    """The same setup on a terminal (a pseudo-terminal here) keeps discord.py's colours."""
    primary, secondary = pty.openpty()
    try:
        with os.fdopen(secondary, "w", closefd=True) as tty:
            setup_logging(tty)
            logging.getLogger("papernotes.discord").warning("hello terminal")
            tty.flush()
            seen = os.read(primary, 4096).decode()
    finally:
        os.close(primary)
    assert "hello terminal" in seen and ANSI in seen
