"""Which interpreter ``make install`` builds the venv with (scripts/find-python.sh): ``python3`` when it
is 3.11 or newer, else the newest ``python3.1x`` on PATH, else one line and a failure. PATH points at a
folder of fake interpreters that answer the script's version check as the named version would."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO

SCRIPT = REPO / "scripts" / "find-python.sh"
SH = shutil.which("sh") or "/bin/sh"


def fake_python(folder: Path, name: str, version: tuple[int, int], marker: Path | None = None) -> None:
    """An executable ``name`` that passes ``-c CHECK`` when ``version`` >= 3.11 and otherwise, when
    ``marker`` is given, writes its name and arguments there (and fails, stopping make)."""
    ok = 0 if version >= (3, 11) else 1
    record = f'echo "{name} $*" > "{marker}"' if marker else ""
    p = folder / name
    p.write_text(f'#!{SH}\nif [ "$1" = "-c" ]; then exit {ok}; fi\n{record}\nexit 1\n')
    p.chmod(0o755)


def find(path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([SH, str(SCRIPT)], env={"PATH": path}, capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize(
    ("fakes", "expected"),
    [
        ({"python3": (3, 12), "python3.13": (3, 13)}, "python3"),  # python3 new enough: taken as it is
        ({"python3": (3, 9), "python3.12": (3, 12), "python3.13": (3, 13)}, "python3.13"),
        ({"python3.12": (3, 12)}, "python3.12"),  # no python3 at all
        ({"python3": (3, 10), "python3.10": (3, 10), "python3.11": (3, 11)}, "python3.11"),
    ],
)
def test_selection(tmp_path, fakes, expected):
    for name, version in fakes.items():
        fake_python(tmp_path, name, version)
    r = find(str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).name == expected


def test_newest_across_path_folders(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    fake_python(a, "python3.12", (3, 12))
    fake_python(b, "python3.14", (3, 14))
    fake_python(a, "python3", (3, 8))
    assert find(f"{a}:{b}").stdout.strip() == str(b / "python3.14")


def test_a_listed_interpreter_that_does_not_run_is_skipped(tmp_path):
    fake_python(tmp_path, "python3.12", (3, 12))
    broken = tmp_path / "python3.13"
    broken.write_text(f"#!{SH}\nexit 127\n")
    broken.chmod(0o755)
    assert Path(find(str(tmp_path)).stdout.strip()).name == "python3.12"


def test_none_found_is_one_line(tmp_path):
    fake_python(tmp_path, "python3", (3, 9))
    fake_python(tmp_path, "python3.10", (3, 10))
    r = find(str(tmp_path))
    assert r.returncode == 1
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1
    assert "3.11" in r.stderr


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_install_uses_the_selection(tmp_path):
    """``make install`` in a copy of the Makefile calls the chosen interpreter (a fake that records its
    arguments and fails) and stops with the one line when none is found."""
    make = shutil.which("make") or "make"
    work = tmp_path / "repo"
    (work / "scripts").mkdir(parents=True)
    shutil.copy(REPO / "Makefile", work)
    shutil.copy(SCRIPT, work / "scripts")
    (work / "pyproject.toml").write_text("")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "called"
    fake_python(bin_dir, "python3", (3, 10))
    fake_python(bin_dir, "python3.13", (3, 13), marker)
    r = subprocess.run([make, "-C", str(work), "install"], env={"PATH": str(bin_dir)}, capture_output=True, text=True)
    assert r.returncode != 0
    assert marker.read_text().split() == ["python3.13", "-m", "venv", ".venv"]
    (bin_dir / "python3.13").unlink()
    marker.unlink()
    r = subprocess.run([make, "-C", str(work), "install"], env={"PATH": str(bin_dir)}, capture_output=True, text=True)
    assert r.returncode != 0
    assert not marker.exists()
    assert "needs Python 3.11 or newer" in r.stderr
