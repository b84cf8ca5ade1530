"""Bad input: ingest completes, warns by file name, and loses nothing else. Each case writes its own
notes into tmp_path and ingests them into a fresh data dir (the prepared model files copied in)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_settings, seed_models

from papernotes.retrieval.bm25 import BM25Index
from papernotes.retrieval.indexing import ingest

GOOD = "# Good Note\n\nThe wombat scheduler keeps every burrow busy.\n"


def write(root: Path, rel: str, data: str | bytes) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data, encoding="utf-8")
    return p


@pytest.fixture
def settings(tmp_path, models_cache):
    data = tmp_path / "data"
    seed_models(models_cache, data)
    return make_settings(data)


def run(settings, notes: Path):
    """Ingest ``notes``; return (report, chunk texts, chunk metadatas) as stored in the index."""
    rep = ingest(settings, [str(notes)])
    bm = BM25Index.load(settings.bm25_dir)
    return rep, bm.texts, bm.metadatas


def warned(rep, name: str) -> list[str]:
    return [w for w in rep.warnings if name in w]


#: Notes in legacy encodings: (file name, text, encoding). The detected encoding must decode the bytes
#: back to exactly the text.
LEGACY = [
    ("short.md", "# Café\n\nCrème brûlée.\n", "cp1252"),
    ("legacy.md", "# Café notes\n\nZürich – naïve “quotes” about the capybara allocator.\n", "cp1252"),
    (
        "windows.md",
        "# Crème brûlée scheduling\n\nThe façade of the résumé service costs 5 € per request in Zürich.\n",
        "cp1252",
    ),
    (
        "cyrillic.md",
        "# Заметки о планировщике\n\nПланировщик держит каждую видеокарту занятой и переносит работу между "
        "узлами кластера, когда очередь пустеет.\n",
        "cp1251",
    ),
    ("wide.md", "# UTF-16 note\n\nSaved by an editor as UTF-16 with a byte order mark: Zürich.\n", "utf-16"),
]


@pytest.mark.parametrize("name,text,encoding", LEGACY, ids=[x[0] for x in LEGACY])
def test_non_utf8_note_is_decoded_with_a_warning_naming_the_encoding(settings, tmp_path, name, text, encoding):
    notes = tmp_path / "notes"
    write(notes, "good.md", GOOD)
    write(notes, name, text.encode(encoding))
    rep, texts, metas = run(settings, notes)
    (w,) = warned(rep, name)
    detected = w.split("decoded as ", 1)[1].split(" ", 1)[0]
    assert text.encode(encoding).decode(detected).lstrip("\ufeff") == text  # the right code page
    assert rep.files == 2 and rep.files_skipped == 0
    title, body = text.split("\n\n")
    (chunk,) = [t for t, m in zip(texts, metas, strict=True) if m["source"] == f"notes/{name}"]
    assert chunk == f"{title.removeprefix('# ')}\n{body.strip()}"


def test_cp1252_note_is_found_by_its_words(settings, tmp_path):
    from papernotes.retrieval.service import Notes

    notes = tmp_path / "notes"
    write(notes, "good.md", GOOD)
    for name, text, enc in LEGACY[1:3]:
        write(notes, name, text.encode(enc))
    run(settings, notes)
    n = Notes(settings)
    assert n.search("naïve capybara allocator in Zürich").hits[0].get("source") == "notes/legacy.md"
    assert n.search("résumé service façade").hits[0].get("source") == "notes/windows.md"
    a = n.ask("What does the résumé service cost per request?")
    assert "5 € per request" in a.answer


def test_bytes_in_no_encoding_are_skipped_by_name(settings, tmp_path):
    import random

    notes = tmp_path / "notes"
    write(notes, "good.md", GOOD)
    rnd = random.Random(7)
    write(notes, "noise.md", bytes(rnd.randrange(128, 256) for _ in range(2048)))
    rep, texts, _ = run(settings, notes)
    (w,) = warned(rep, "noise.md")
    assert "skipped" in w and "encoding" in w
    assert rep.files == 1 and rep.files_skipped == 1 and len(texts) == 1


def test_utf8_bom_is_dropped_and_title_correct(settings, tmp_path):
    notes = tmp_path / "notes"
    write(notes, "bom.md", b"\xef\xbb\xbf" + b"# BOM Title\n\nBody after a byte order mark.\n")
    write(notes, "bomfm.md", b"\xef\xbb\xbf" + b"---\ndescription: '#tagged'\n---\n# BOM With Front Matter\n\nx y z\n")
    rep, texts, metas = run(settings, notes)
    assert rep.warnings == []
    titles = {m["page_title"] for m in metas}
    assert titles == {"BOM Title", "BOM With Front Matter"}
    assert not any("\ufeff" in t for t in texts)
    assert any(m.get("tags") == "tagged" for m in metas)


def test_binary_file_named_md_is_skipped(settings, tmp_path):
    notes = tmp_path / "notes"
    write(notes, "good.md", GOOD)
    write(notes, "image.md", bytes(range(256)) * 8)
    rep, texts, _ = run(settings, notes)
    (w,) = warned(rep, "image.md")
    assert "binary" in w
    assert rep.files == 1 and len(texts) == 1 and "wombat" in texts[0]


@pytest.mark.parametrize(
    "name,content,reason",
    [
        ("empty.md", "", "empty"),
        ("blank.md", "  \n\n\t \n", "empty"),
        ("heading.md", "# Just A Heading\n", "no text"),
        ("frontonly.md", "---\ntitle: Nothing Else\ntags: [a]\n---\n", "only front matter"),
    ],
)
def test_empty_like_files_warn_and_the_rest_is_indexed(settings, tmp_path, name, content, reason):
    notes = tmp_path / "notes"
    write(notes, "good.md", GOOD)
    write(notes, name, content)
    rep, texts, metas = run(settings, notes)
    (w,) = warned(rep, name)
    assert reason in w
    assert [m["source"] for m in metas] == ["notes/good.md"]
    assert "wombat scheduler" in texts[0]


def test_front_matter_with_lists_empty_values_and_nested_maps(settings, tmp_path):
    notes = tmp_path / "notes"
    write(
        notes,
        "fm.md",
        "---\ntitle: Front Matter Page\ndescription:\ntags:\n  - systems\n  - '#gpu'\n"
        "authors: []\nempty_map: {}\nnested:\n  venue: {name: OSDI, year: 2026}\n  list: [1, [2, 3]]\n"
        "date: 2026-01-31\nnumber: 3.5\nflag: true\n---\n\nBody of the page about nested maps.\n",
    )
    write(notes, "badyaml.md", "---\ntitle: [unclosed\n---\n# Broken YAML Page\n\nStill indexed text.\n")
    rep, texts, metas = run(settings, notes)
    assert warned(rep, "fm.md") == []
    (w,) = warned(rep, "badyaml.md")
    assert "front matter" in w
    by_title = {m["page_title"]: m for m in metas}
    assert by_title["Front Matter Page"]["tags"] == "systems, gpu"
    assert any("Body of the page about nested maps." in t for t in texts)
    assert any("Still indexed text." in t for t in texts)
    for m in metas:  # what Chroma stored: flat scalars only
        assert all(isinstance(v, (str, int, float, bool)) for v in m.values())


def test_unclosed_code_fence_warns_and_keeps_the_text_after_it(settings, tmp_path):
    notes = tmp_path / "notes"
    write(
        notes,
        "fence.md",
        "# Fence Page\n\nBefore the code.\n\n```python\nx = 1\n\n## Later Heading\n\n"
        "Text after the fence is still here.\n",
    )
    rep, texts, _ = run(settings, notes)
    (w,) = warned(rep, "fence.md")
    assert "never closed" in w and "line 5" in w
    joined = "\n".join(texts)
    assert "Before the code." in joined and "Text after the fence is still here." in joined


def test_two_identical_sections_are_both_kept_with_distinct_ids(settings, tmp_path):
    notes = tmp_path / "notes"
    section = "## Results\n\nThroughput doubled on eight GPUs.\n\n"
    write(notes, "twice.md", "# Twice\n\n" + section + section)
    rep, texts, metas = run(settings, notes)
    assert rep.warnings == []
    same = [m for t, m in zip(texts, metas, strict=True) if t == "Twice › Results\nThroughput doubled on eight GPUs."]
    assert len(same) == 2
    assert same[0]["chunk_id"] != same[1]["chunk_id"]


def test_only_unreadable_files_still_completes(settings, tmp_path):
    notes = tmp_path / "notes"
    write(notes, "a.md", b"\x00\x01binary")
    write(notes, "b.md", "")
    rep = ingest(settings, [str(notes)])
    assert rep.chunks == 0 and rep.files_skipped == 2
    assert warned(rep, "a.md") and warned(rep, "b.md")


@pytest.mark.parametrize("blocked", ["marmot.md", "sub", "sub/deep.md"])
def test_a_note_that_cannot_be_read_for_now_keeps_its_earlier_index(settings, tmp_path, monkeypatch, blocked):
    """A file or folder that cannot be read during one ingest (a permission, a lock) is reported and its
    chunks and paper stay as the last ingest left them; the rest is updated; once readable, it is read."""
    from papernotes.corpus.catalog import load_catalog
    from papernotes.retrieval.service import Notes

    notes = tmp_path / "notes"
    write(
        notes,
        "marmot.md",
        "# Marmotdb: A Write-Optimized Store\n\n[Paper](https://doi.org/10.1145/9.9)\n\n"
        "Marmotdb reaches 3.1 GB/s of write throughput.\n",
    )
    write(
        notes,
        "sub/deep.md",
        "# Quokka: Paged KV Caches\n\n[Paper](https://doi.org/10.1145/9.8)\n\n"
        "Quokka pages KV caches in 16-token blocks.\n",
    )
    write(notes, "other.md", "# Wombat\n\nThe wombat scheduler keeps burrows busy.\n")
    first = ingest(settings, [str(notes)])
    target = notes / blocked
    real_read, real_scandir = Path.read_bytes, os.scandir

    def read_bytes(self):
        if self == target or target in self.parents:
            raise PermissionError(13, "Permission denied")
        return real_read(self)

    def scandir(path="."):
        if Path(path) == target:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(os, "scandir", scandir)
    write(notes, "other.md", "# Wombat\n\nThe wombat scheduler keeps burrows busy, now with 9 burrows.\n")
    rep = ingest(settings, [str(notes)])
    assert any(blocked in w and "kept" in w for w in rep.warnings), rep.warnings
    titles = {r.title for r in load_catalog(settings.catalog_path)}
    assert {"Marmotdb: A Write-Optimized Store", "Quokka: Paged KV Caches"} <= titles
    n = Notes(settings)
    assert "3.1 GB/s" in n.ask("What write throughput does Marmotdb reach?", use_llm=False).answer
    assert "16-token" in n.ask("how big are Quokka's KV cache pages?", use_llm=False).answer
    assert "9 burrows" in n.ask("how many burrows does the wombat scheduler keep busy?", use_llm=False).answer
    monkeypatch.undo()
    rep = ingest(settings, [str(notes)])
    assert rep.chunks == first.chunks and not rep.warnings


@pytest.mark.parametrize(
    "garbage",
    [
        bytes(range(256)) * 12,
        b"\xff\xfe\x00" + "caf\u00e9".encode("utf-16-be") * 3,
        b"",
        b"  \n\n \t\n",
        # a few stray bytes that some 8-bit code page decodes, with no language read in them
        b"\xff\xfe\xfd\xfc garbage \x80\x81",
        b"\x80\x81\x82 short",
        b"\x8d\x8f\x90 \xc0\xc1",
    ],
    ids=["binary", "no-encoding", "emptied", "only-whitespace", "stray-bytes", "short-stray", "control-range"],
)
def test_a_note_that_turned_into_binary_keeps_its_earlier_index(settings, tmp_path, garbage):
    """A note overwritten with bytes that are no text, or emptied (a bad sync, a wrong save), is reported
    and skipped, and what was indexed of it stays: the bad file loses nothing; the rest is updated."""
    from papernotes.retrieval.service import Notes

    notes = tmp_path / "notes"
    write(notes, "marmot.md", "# Marmotdb: A Write-Optimized Store\n\nMarmotdb reaches 3.1 GB/s of write throughput.\n")
    write(notes, "other.md", "# Wombat\n\nThe wombat scheduler keeps burrows busy.\n")
    first = ingest(settings, [str(notes)])
    write(notes, "marmot.md", garbage)
    rep = ingest(settings, [str(notes)])
    assert any("marmot.md" in w and "kept" in w for w in rep.warnings), rep.warnings
    assert first.chunks == 2
    assert "3.1 GB/s" in Notes(settings).ask("What write throughput does Marmotdb reach?", use_llm=False).answer


def test_a_yaml_alias_bomb_in_front_matter_is_read_key_by_key_and_the_rest_ingested(settings, tmp_path):
    """Nested YAML aliases ("billion laughs": 600 bytes that expand to gigabytes) are refused by the YAML
    reader; the front matter is recovered key by key with a warning, and the other notes are ingested."""
    levels = "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8))
    bomb = (
        f'---\na: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n{levels}title: Bomb Note\n---\n'
    )
    notes = tmp_path / "notes"
    write(notes, "bomb.md", bomb + "# Bomb Note\n\nThe bomb note talks about otters.\n")
    write(notes, "good.md", "# Quokka\n\nQuokka pages the KV cache in 16-token blocks.\n")
    rep, texts, metas = run(settings, notes)
    assert warned(rep, "bomb.md") and "YAML" in warned(rep, "bomb.md")[0]
    assert {m["source"] for m in metas} == {"notes/bomb.md", "notes/good.md"}
    assert max(map(len, texts)) < 2000  # nothing expanded


@pytest.mark.parametrize(
    "escape", ["\x1b[2J", "\x1b[31mred\x1b[0m", "\x1b]0;pwned\x07", "\x1b]8;;http://x\x1b\\", "\x07\x08\x7f\x9b"]
)
def test_terminal_escapes_in_a_note_are_no_text(settings, tmp_path, escape):
    """A note holding terminal escape sequences (a pasted colour code, a window-title OSC): they are not
    indexed, so no answer, table or export prints them back to a terminal."""
    notes = tmp_path / "notes"
    write(notes, "escaped.md", f"# Escaped{escape} Store\n\nThe escaped{escape} store writes 4 GB/s.\n")
    _, texts, metas = run(settings, notes)
    assert all("\x1b" not in t and not any(0x7F <= ord(c) <= 0x9F or ord(c) < 0x09 for c in t) for t in texts)
    assert "store writes 4 GB/s" in texts[0]


# --- the CLI ------------------------------------------------------------------------------------------


def cli(args: list[str], data: Path, **env: str) -> subprocess.CompletedProcess:
    e = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERNOTES_", "OPENAI_", "LC_", "LANG"))}
    e.update(PAPERNOTES_DATA_DIR=str(data), PYTHONIOENCODING="", **env)
    e.pop("PYTHONIOENCODING")
    return subprocess.run(
        [sys.executable, "-m", "papernotes.bot.cli", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        env=e,
        timeout=120,
    )


def test_ingest_under_c_locale_keeps_non_ascii_text(tmp_path, models_cache):
    data = tmp_path / "data"
    seed_models(models_cache, data)
    notes = tmp_path / "notes"
    write(notes, "zürich.md", "# Zürich — 東京 Notes\n\nKV caches in Zürich — résumé of 大模型推理.\n")
    write(notes, "legacy.md", "# Café Notes\n\nThe naïve façade.\n".encode("cp1252"))
    p = cli(["ingest", str(notes)], data, LANG="C", LC_ALL="C")
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    assert "legacy.md" in p.stderr and "cp1252" in p.stderr  # the warning names the file and encoding
    assert "2 files, 2 pages" in p.stdout
    bm = BM25Index.load(make_settings(data).bm25_dir)
    by_source = dict(zip((m["source"] for m in bm.metadatas), bm.texts, strict=True))
    assert by_source == {
        "notes/zürich.md": "Zürich — 東京 Notes\nKV caches in Zürich — résumé of 大模型推理.",
        "notes/legacy.md": "Café Notes\nThe naïve façade.",
    }


def test_cli_nonexistent_source_is_a_one_line_error(tmp_path):
    p = cli(["ingest", str(tmp_path / "does-not-exist")], tmp_path / "data")
    assert p.returncode != 0
    assert "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "does-not-exist" in lines[0]


def test_cli_empty_directory_is_a_one_line_error(tmp_path):
    (tmp_path / "empty").mkdir()
    p = cli(["ingest", str(tmp_path / "empty")], tmp_path / "data")
    assert p.returncode != 0
    assert "Traceback" not in p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "no notes" in lines[0]


@pytest.mark.parametrize("name", ["build.log", "notes.json", "paper.pdf", "x.bin"])
def test_a_single_file_that_is_no_notes_file_is_refused_by_name(settings, tmp_path, name):
    """A folder's walk reads only notes files; a single file given by name follows the same rule, so a
    build log is not indexed as notes (a file without a suffix is read as plain text)."""
    from papernotes.corpus.errors import BadSourceError

    path = write(tmp_path, name, "The wombat scheduler keeps every burrow busy.\n")
    with pytest.raises(BadSourceError, match="not a notes file"):
        ingest(settings, [str(path)])


@pytest.mark.parametrize("raw", ["what is dpo\x07\x1b[31m", "what is\x1b[31m dpo?", "what\x00 is dpo"])
def test_control_characters_are_no_part_of_a_question(raw):
    from papernotes.retrieval.answer import check_question

    assert check_question(raw).replace("  ", " ").rstrip("?") == "what is dpo"


@pytest.mark.parametrize("raw", [b"What is Mooncake\xff?", b"caf\xe9 router?", b"\x93quoted\x94 paper"])
def test_a_question_of_bytes_that_are_not_utf8_is_a_one_line_error(tmp_path, raw):
    # a shell hands such bytes to Python as lone surrogates ("surrogateescape")
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.answer import check_question

    with pytest.raises(BadInputError, match="not valid UTF-8"):
        check_question(os.fsdecode(raw))
    p = cli(["ask", os.fsdecode(raw)], tmp_path / "data")
    assert p.returncode == 2 and "Traceback" not in p.stderr and "not valid UTF-8" in p.stderr


@pytest.mark.parametrize("raw", [42, b"what is dpo?", 3.5, ["what is dpo?"]])
def test_a_question_that_is_not_text_is_a_one_line_error(raw):
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.answer import check_question

    with pytest.raises(BadInputError, match="must be text"):
        check_question(raw)


@pytest.mark.parametrize("raw", ["[" * 400_000, "<b>" * 10_000 + "what is dpo?", "what is dpo? " * 2_000])
def test_a_question_too_long_as_typed_is_refused_before_its_markup_is_read(raw, monkeypatch):
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval import answer

    def unread(text):
        raise AssertionError("markup rendered")

    monkeypatch.setattr(answer, "markup_stripped", unread)
    with pytest.raises(BadInputError, match="too long"):
        answer.check_question(raw)


@pytest.mark.parametrize(
    "flags, needle",
    [
        ({"venue": "SOSP 2024", "year": 2020}, "contradict"),
        ({"topic": ""}, "topic is empty"),
        ({"topic": "x" * 20000}, "topic is too long"),
        ({"venue": "osdi " * 4000}, "venue is too long"),
        ({"source": "y" * 300}, "source is too long"),
        ({"source": "  "}, "source is empty"),
    ],
)
def test_contradicting_or_empty_filters_are_one_line_errors(flags, needle):
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.filters import normalize_filters

    with pytest.raises(BadInputError, match=needle):
        normalize_filters(**flags)


@pytest.mark.parametrize("raw", [b"bad\xffname.md", b"caf\xe9-notes.md", b"\x93quoted\x94.md"])
def test_a_file_name_that_is_not_utf8_is_skipped_by_name_and_the_rest_ingested(settings, tmp_path, raw):
    """A name in another encoding (Latin-1, cp1252 quotes, stray bytes) cannot be stored as it is: that
    file is reported and skipped, the good note beside it is indexed."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "good.md").write_text("# Good note\n\nA scheduler that packs GPU jobs.\n", encoding="utf-8")
    (notes / os.fsdecode(raw)).write_text("# Bad name\n\nText.\n", encoding="utf-8")
    rep, texts, _ = run(settings, notes)
    assert any("not UTF-8" in w and "skipped" in w for w in rep.warnings), rep.warnings
    assert any("packs GPU jobs" in t for t in texts) and not any("Bad name" in t for t in texts)


@pytest.mark.parametrize("source", ["", "   ", "\t"])
def test_an_empty_source_is_a_one_line_error_not_the_current_folder(tmp_path, source):
    p = cli(["ingest", source], tmp_path / "data")
    assert p.returncode == 2 and "source is empty" in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "data" / "bm25").exists()


@pytest.mark.parametrize("raw", ["?!?...,,, ;;; --- !!!", "🤔🤔🤔", "  \t  ", "\x1b[31m\x1b[0m\x07"])
def test_a_question_without_words_is_a_one_line_error_saying_so(raw):
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.answer import check_question

    with pytest.raises(BadInputError, match="empty|has no words"):
        check_question(raw)
    if raw.strip() and "\x1b" not in raw:
        with pytest.raises(BadInputError, match="has no words"):
            check_question(raw)


@pytest.mark.parametrize("topic", ["zzqqxx", "no such topic at all"])
def test_papers_with_a_topic_no_paper_has_is_an_error_not_an_empty_list(fixture_index, topic):
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.stats import list_papers

    with pytest.raises(BadInputError, match="no topic of the notes contains"):
        list_papers(fixture_index, topic=topic)
    assert list_papers(fixture_index)  # without the topic the catalog is listed


@pytest.mark.parametrize(
    "asked, given, contradicts",
    [
        ({"venue": "OSDI 2026"}, {"year": 2024}, True),
        ({"venue": "OSDI 2026"}, {"venue": "NSDI 2025"}, True),
        ({"series": "SOSP"}, {"series": "ATC"}, True),
        ({"year": 2023}, {"venue": "SOSP 2025"}, True),
        ({"venue": "OSDI 2026"}, {"year": 2026}, False),  # repeats it
        ({"series": "OSDI"}, {"venue": "OSDI 2024"}, False),  # narrows it
        ({}, {"year": 2020}, False),  # the question names none
    ],
)
def test_a_flag_that_contradicts_the_questions_own_venue_is_a_one_line_error(asked, given, contradicts):
    """A flag used to replace the venue the question names without a word ("Which OSDI 2026 papers …"
    with --year 2024 listed 2024 papers of every venue)."""
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.filters import Filters, check_against_question

    if contradicts:
        with pytest.raises(BadInputError, match="contradicts it"):
            check_against_question(Filters(**asked), Filters(**given))
    else:
        check_against_question(Filters(**asked), Filters(**given))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["papers", "--search", ""], "search text is empty"),
        (["papers", "--search", "   "], "search text is empty"),
        (["papers", "--json", "--format", "csv"], "two formats"),
        (["papers", "--json", "--format", "bibtex"], "two formats"),
        (["papers", "--topic", "zzqqxx"], "topics column of `papernotes papers`"),
    ],
)
def test_papers_flags_that_ask_nothing_or_two_things_are_one_line_errors(fixture_index, monkeypatch, args, message):
    from typer.testing import CliRunner

    from papernotes.bot.cli import app

    monkeypatch.setenv("PAPERNOTES_DATA_DIR", str(fixture_index.data_dir))
    from papernotes.corpus.errors import BadInputError

    res = CliRunner().invoke(app, args)  # the CLI's entry point prints a BadInputError as one line
    assert isinstance(res.exception, BadInputError) and message in str(res.exception), res.output
    assert CliRunner().invoke(app, ["papers", "--json"]).exit_code == 0  # the same flags, one format


@pytest.mark.parametrize(("query", "message"), [("", "the query is empty"), ("???", "the query has no words")])
def test_an_empty_search_query_is_called_a_query(fixture_index, monkeypatch, query, message):
    from typer.testing import CliRunner

    from papernotes.bot.cli import app
    from papernotes.corpus.errors import BadInputError

    monkeypatch.setenv("PAPERNOTES_DATA_DIR", str(fixture_index.data_dir))
    res = CliRunner().invoke(app, ["search", query])
    assert isinstance(res.exception, BadInputError) and str(res.exception).startswith(message), res.output
    assert "search for something" in str(res.exception)


def test_counts_in_the_ingest_line_are_singular_for_one():
    from papernotes.retrieval.summarize.results import plural

    assert [plural(n, "warning") for n in (0, 1, 2)] == ["0 warnings", "1 warning", "2 warnings"]


def test_eval_skips_questions_marked_needs_review(tmp_path, models_cache):
    """`feedback --export` writes a 👎 as a question marked needs_review, with no gold yet: eval skips
    it with a notice instead of scoring it as a refusal mistake; a file of only such rows is an error."""
    data = tmp_path / "data"
    seed_models(models_cache, data)
    notes = tmp_path / "notes"
    write(notes, "quokka.md", "# Quokka: Paged Attention\n\nQuokka pages the KV cache in 16-token blocks.\n")
    assert cli(["ingest", str(notes)], data).returncode == 0
    rows = [
        {"id": "a", "question": "how big are quokka's blocks?", "gold_titles": [], "answer_must_contain": []},
        {"id": "b", "question": "who wrote it?", "gold_titles": [], "needs_review": True},
    ]
    qa = tmp_path / "qa.jsonl"
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    p = cli(["eval", str(qa), "--json"], data)
    assert p.returncode == 0, p.stderr
    assert "1 question(s) marked needs_review skipped" in p.stderr
    assert json.loads(p.stdout)["n"] == 1
    qa.write_text(json.dumps(rows[1]) + "\n", encoding="utf-8")
    p = cli(["eval", str(qa)], data)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert [ln for ln in p.stderr.splitlines() if ln.strip()][-1].startswith("error: ")


@pytest.mark.parametrize("value", ["", "   ", "FILE", "FILE/sub", "DANGLING"])
def test_a_data_dir_that_is_empty_or_a_file_is_a_one_line_error(tmp_path, monkeypatch, value):
    """An empty PAPERNOTES_DATA_DIR would put the index in the current directory; a file, a path below a
    file or a link to nothing cannot hold one."""
    if value.startswith("FILE"):
        (tmp_path / "a-file").write_text("x", encoding="utf-8")
        value = str(tmp_path / value.replace("FILE", "a-file"))
    elif value == "DANGLING":
        (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
        value = str(tmp_path / "dangling")
    notes = tmp_path / "notes"
    write(notes, "a.md", "# Quokka\n\nQuokka pages the KV cache.\n")
    work = tmp_path / "cwd"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERNOTES_", "OPENAI_"))}
    for args in (["ingest", str(notes)], ["stats"], ["ask", "what is quokka?"]):
        p = subprocess.run(
            [sys.executable, "-m", "papernotes.bot.cli", *args],
            capture_output=True,
            text=True,
            env={**env, "PAPERNOTES_DATA_DIR": value},
            cwd=work,
            timeout=120,
        )
        assert p.returncode == 2 and "Traceback" not in p.stderr, (args, p.stderr)
        assert p.stderr.strip().startswith("error: bad setting data_dir"), p.stderr
    assert list(work.iterdir()) == []  # nothing written where the command ran


def test_a_venue_that_is_too_long_is_a_one_line_error_that_does_not_echo_it():
    from papernotes.corpus.errors import BadInputError
    from papernotes.corpus.venues import resolve_venue

    with pytest.raises(BadInputError, match="venue is too long") as e:
        resolve_venue("OSDI " + "x" * 20000, ["OSDI 2024"])
    assert len(str(e.value)) < 200


def test_a_summary_topic_that_is_too_long_is_a_one_line_error():
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.summarize.topics import resolve_topic

    with pytest.raises(BadInputError, match="topic is too long"):
        resolve_topic("serving " * 3000)
    assert resolve_topic("kv cache").key  # an ordinary topic still reads


def test_a_source_given_twice_is_read_and_counted_once(settings, tmp_path):
    notes = tmp_path / "notes"
    write(notes, "a.md", "# Quokka\n\nQuokka pages the KV cache in 16-token blocks.\n")
    write(notes, "b.md", "# Wombat\n\nThe wombat scheduler keeps burrows busy.\n")
    once = ingest(settings, [str(notes)])
    twice = ingest(settings, [str(notes), str(notes / ".." / "notes"), str(notes)])
    assert (twice.files, twice.pages, twice.chunks) == (once.files, once.pages, once.chunks) == (2, 2, 2)
    assert twice.added == twice.deleted == 0


def test_entries_named_like_notes_that_are_no_files_are_reported_and_skipped(settings, tmp_path):
    """A pipe named ``pipe.md`` (reading it would wait forever) and, with external links followed, a link
    to a device (``/dev/zero``: endless bytes) are each reported and skipped; the rest is ingested."""
    notes = tmp_path / "notes"
    write(notes, "good.md", GOOD)
    os.mkfifo(notes / "pipe.md")
    (notes / "zero.md").symlink_to("/dev/zero")
    from papernotes.retrieval.indexing import ingest

    rep = ingest(settings, [str(notes)], follow_external_links=True)
    assert warned(rep, "pipe.md") and "not a regular file" in warned(rep, "pipe.md")[0]
    assert warned(rep, "zero.md") and "no regular file" in warned(rep, "zero.md")[0]
    assert rep.files == 1 and rep.files_skipped == 2


@pytest.mark.parametrize("source", ["/dev/null", "/dev/zero"])
def test_a_device_given_as_the_source_is_one_clear_error(tmp_path, models_cache, source):
    data = tmp_path / "data"
    seed_models(models_cache, data)
    p = cli(["ingest", source], data)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert (
        p.stderr.strip() == f"error: {source} is neither a notes file nor a folder of notes (a device, pipe or socket)"
    )
