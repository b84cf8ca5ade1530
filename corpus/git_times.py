"""When the notes of a git source last changed: the commit time of each file, so the catalog can prefer
the newer of two notes on one paper (see :func:`~papernotes.corpus.catalog.build_catalog`)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from papernotes.corpus.models import Page

#: Longest wait for ``git log`` on a clone (seconds); past it the pages carry no commit time.
GIT_LOG_TIMEOUT = 60.0


def commit_times(repo: Path, timeout: float = GIT_LOG_TIMEOUT) -> dict[str, int]:
    """``{path inside the repository (POSIX): committer time of the newest commit that changed it,
    in seconds since the epoch}`` from one ``git log`` over the checked-out history (a shallow clone's
    one commit dates every file). Empty when ``repo`` is no git work tree, git is missing or too slow."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(repo), "log", "--format=%x00%ct", "--name-only", "--no-renames"],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={"GIT_TERMINAL_PROMPT": "0", "PATH": os.environ.get("PATH", "/usr/bin:/bin")},
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return {}
    if proc.returncode != 0:
        return {}
    times: dict[str, int] = {}
    when = 0
    for line in proc.stdout.splitlines():
        if line.startswith("\x00"):
            when = int(line[1:].strip() or 0)
        elif line.strip():
            times.setdefault(line.strip(), when)  # newest first: the first time seen is the latest
    return times


def date_pages(pages: Iterable[Page], repo: Path, times: dict[str, int]) -> None:
    """Set each page's ``committed`` from ``times`` (:func:`commit_times` of ``repo``); a page's
    ``source`` is ``"<repo folder name>/<path>[#part]"``."""
    prefix = repo.name + "/"
    for page in pages:
        path = page.source.split("#", 1)[0]
        page.committed = times.get(path.removeprefix(prefix))
