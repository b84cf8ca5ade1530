"""The built wheel installs one top-level package, ``papernotes`` (the folders corpus/, retrieval/ and
bot/ map to papernotes.corpus/.retrieval/.bot), and its console script runs from a fresh venv."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
# not part of the source tree: the dev venv, caches, build output, mypy's symlink tree
_NOT_SOURCE = shutil.ignore_patterns(
    ".venv", ".git", ".typecheck", "*.egg-info", "build", "dist", "__pycache__", ".*_cache"
)


def run(cmd: list[str | Path], cwd: Path, env: dict[str, str] | None = None) -> str:
    """Run a command; its stdout, or a failure showing its output."""
    p = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        pytest.fail(f"{cmd} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the repo (an in-tree build writes build/ and *.egg-info), with
    the test environment's setuptools (no download)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(REPO, src, ignore=_NOT_SOURCE)
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", tmp / "dist", src], tmp)
    (whl,) = (tmp / "dist").glob("papernotes-*.whl")
    return whl


def test_wheel_holds_only_the_papernotes_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/", 1)[0] for n in names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"papernotes"}
    assert len(top) == 2  # papernotes/ and its one .dist-info
    for module in ("papernotes/corpus/readers.py", "papernotes/retrieval/search.py", "papernotes/bot/cli.py"):
        assert module in names


def test_wheel_in_a_fresh_venv_runs_papernotes_help(wheel, tmp_path):
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path)
    python = venv / "bin" / "python"
    run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel], tmp_path)
    site = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).strip())
    # the third-party dependencies come from this test run's environment: its site-packages as plain
    # sys.path entries (.pth lines are appended to sys.path; .pth files inside them are not run, so the
    # dev venv's editable finder for papernotes stays out)
    ours = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    (site / "test_deps.pth").write_text("".join(f"{p}\n" for p in ours))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"PYTHONNOUSERSITE": "1"}
    outside = tmp_path / "elsewhere"
    outside.mkdir()

    where = run(
        [python, "-c", "import papernotes, papernotes.bot.cli as c; print(*papernotes.__path__, c.__file__)"],
        outside,
        env,
    ).split()
    assert where and all(Path(p).is_relative_to(site) for p in where), where

    out = run([venv / "bin" / "papernotes", "--help"], outside, env)
    for command in ("ingest", "ask", "search", "chat", "discord"):
        assert command in out
