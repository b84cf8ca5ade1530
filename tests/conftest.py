"""Shared fixtures: every test gets its own data dir (PAPERNOTES_DATA_DIR → tmp_path) and no LLM or
Discord settings from the environment; session fixtures build small and real-corpus indexes once."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
FIXTURE_NOTES = TESTS / "fixtures" / "notes"
REAL_CORPUS = REPO.parent / "shared" / "corpus"
DEV_QA = REPO.parent / "shared" / "eval" / "dev_qa.jsonl"

sys.path.insert(0, str(TESTS))  # helpers such as openai_server

_CLEARED = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "DISCORD_TOKEN",
    "PAPERNOTES_CHROMA_URL",
    "PAPERNOTES_SOURCES",
    "PAPERNOTES_LLM_MODEL",
    "PAPERNOTES_EMBEDDING_MODEL",
)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path, monkeypatch):
    """Point the data dir at this test's tmp_path; drop model/bot/server settings; no .env reading."""
    monkeypatch.setenv("PAPERNOTES_DATA_DIR", str(tmp_path / "data"))
    for name in _CLEARED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # so a developer's ./.env is not read
    yield


def make_settings(data_dir: Path, **kw):
    from papernotes.retrieval.settings import Settings

    return Settings(data_dir=data_dir, _env_file=None, **kw)


@pytest.fixture(scope="session")
def models_cache(tmp_path_factory) -> Path:
    """One prepared copy of the offline embedding model files for the whole session."""
    from papernotes.retrieval.embeddings import prepare_minilm_files

    d = tmp_path_factory.mktemp("models")
    prepare_minilm_files(d)
    return d


def seed_models(models_cache: Path, data_dir: Path) -> None:
    """Copy the prepared model folder into a data dir (saves re-verifying the SHA256 each time)."""
    dst = data_dir / "models"
    if not dst.exists():
        shutil.copytree(models_cache, dst)


@pytest.fixture(scope="session")
def fixture_index(tmp_path_factory, models_cache):
    """Settings of a data dir holding an index of tests/fixtures/notes (built once per session)."""
    data = tmp_path_factory.mktemp("fixture-index")
    seed_models(models_cache, data)
    s = make_settings(data)
    from papernotes.retrieval.indexing import ingest

    ingest(s, [str(FIXTURE_NOTES)])
    return s


@pytest.fixture(scope="session")
def real_index(tmp_path_factory, models_cache):
    """Settings of a data dir holding an index of the whole real corpus (../shared/corpus); skipped
    when that folder is absent. Built once per session (about a minute)."""
    if not REAL_CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    data = tmp_path_factory.mktemp("real-index")
    seed_models(models_cache, data)
    s = make_settings(data)
    from papernotes.retrieval.indexing import ingest

    ingest(s, [str(REAL_CORPUS)])
    return s


def pytest_collection_modifyitems(config, items):
    """Tests that use the real corpus are marked ``realcorpus`` (``-m "not realcorpus"`` skips them)."""
    for item in items:
        if "real_index" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.realcorpus)
