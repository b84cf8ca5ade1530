"""Shared fixtures: every test gets its own data dir (PAPERNOTES_DATA_DIR → tmp_path) and no LLM or
Discord settings from the environment; session fixtures build the fixture-notes index once and copy the
real-corpus index from a cache kept across runs (tests/index_cache.py)."""

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

from index_cache import CachedIndex, cached_index, copy_index  # noqa: E402

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
    """Settings with ``data_dir``, from the environment but never from a ``.env`` file; ``kw``
    overrides fields."""
    from papernotes.retrieval.settings import Settings

    # _env_file: a pydantic-settings init argument that mypy sees only through pydantic's mypy plugin
    return Settings(data_dir=data_dir, _env_file=None, **kw)  # type: ignore[call-arg]


@pytest.fixture(scope="session")
def models_cache(tmp_path_factory) -> Path:
    """One prepared copy of the offline embedding model files for the whole session."""
    from papernotes.retrieval.embeddings import prepare_minilm_files

    d = tmp_path_factory.mktemp("models")
    prepare_minilm_files(d)
    return d


def seed_models(models_cache: Path, data_dir: Path) -> None:
    """Copy the prepared model folder into a data dir (saves assembling it from the packages again)."""
    dst = data_dir / "models"
    if not dst.exists():
        shutil.copytree(models_cache, dst)


def assert_answered(notes, question: str, *texts: str):
    """Ask ``question`` (extractive) and assert it is answered, its answer holding every one of
    ``texts``; returns the answer."""
    a = notes.ask(question, use_llm=False)
    assert not a.refused and all(t in a.answer for t in texts), a.answer
    return a


def named_titles(notes, question: str) -> list[str]:
    """The titles of the catalog papers ``question`` names, as the retriever reads it."""
    return [notes.catalog[r].title for r in notes.retriever.understand(question).records]


def notes_of(folder: Path, data_dir: Path, models_cache: Path):
    """A :class:`~papernotes.retrieval.service.Notes` over ``folder`` ingested into ``data_dir`` (the
    embedder's files copied from ``models_cache``)."""
    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.service import Notes

    seed_models(models_cache, data_dir)
    s = make_settings(data_dir)
    ingest(s, [str(folder)])
    return Notes(s)


def notes_from_texts(root: Path, files: dict[str, str], models_cache: Path):
    """:func:`notes_of` over ``files`` (relative path → text) written under ``root/notes``, ingested into
    ``root/data``."""
    for rel, text in files.items():
        (root / "notes" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "notes" / rel).write_text(text, encoding="utf-8")
    return notes_of(root / "notes", root / "data", models_cache)


def _cached(source: Path, models_cache: Path) -> CachedIndex:
    """The cross-run cache entry of ``source``'s index, with the settings every test gets (no model,
    server or source settings from the environment: see ``_isolated_env``)."""
    with pytest.MonkeyPatch.context() as mp:
        for name in _CLEARED:
            mp.delenv(name, raising=False)
        return cached_index(source, make_settings(Path("unused")), models_cache)


def _session_copy(tmp_path_factory, entry: CachedIndex, name: str):
    """Settings of this session's copy of a cached index (tests may write to it)."""
    data = tmp_path_factory.mktemp(name)
    copy_index(entry, data)
    return make_settings(data)


@pytest.fixture()
def indexed(tmp_path, models_cache):
    """Settings of a data dir holding an index of a copy of the fixture notes (one test's own, to edit),
    and that copy."""
    from papernotes.retrieval.indexing import ingest

    notes = tmp_path / "notes"
    shutil.copytree(FIXTURE_NOTES, notes)
    data = tmp_path / "data"
    seed_models(models_cache, data)
    settings = make_settings(data)
    first = ingest(settings, [str(notes)])
    assert first.added == first.chunks > 0
    return settings, notes


@pytest.fixture(scope="session")
def fixture_index(tmp_path_factory, models_cache):
    """Settings of a data dir holding an index of tests/fixtures/notes (a copy of the cached one; many
    tests ingest these notes cold)."""
    return _session_copy(tmp_path_factory, _cached(FIXTURE_NOTES, models_cache), "fixture-index")


@pytest.fixture(scope="session")
def real_index_cache(models_cache) -> CachedIndex:
    """The cached index of the whole real corpus (../shared/corpus; see tests/index_cache.py): built
    (about a minute) only when the corpus, the indexing code, the settings or the libraries changed
    since the last run on this machine; test_index_cache.py compares it with a cold build every run.
    Skipped when the corpus is absent."""
    if not REAL_CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return _cached(REAL_CORPUS, models_cache)


@pytest.fixture(scope="session")
def real_index(tmp_path_factory, real_index_cache):
    """Settings of a data dir holding an index of the whole real corpus: this session's copy of the
    cached one."""
    return _session_copy(tmp_path_factory, real_index_cache, "real-index")


def pytest_collection_modifyitems(config, items):
    """Tests that use the real corpus are marked ``realcorpus`` (``-m "not realcorpus"`` skips them)."""
    for item in items:
        if "real_index_cache" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.realcorpus)
