"""Tests for corpus.readers: GitBook directories, front matter, one-file dumps, publication pages and
git URL sources (cloned from a local repository)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import FIXTURE_NOTES, make_settings

from papernotes.corpus.chunking import analyze_page
from papernotes.corpus.errors import BadSourceError
from papernotes.corpus.readers import (
    hashtags,
    is_git_url,
    read_path,
    read_source,
    site_path_for,
    split_dump,
    split_front_matter,
)


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def make_gitbook(root: Path) -> Path:
    """A small GitBook whose SUMMARY order differs from alphabetical order."""
    write(
        root,
        "SUMMARY.md",
        "# Table of contents\n\n* [Welcome](README.md)\n\n## Lists\n\n"
        "* [Zebra Systems](paper-list/zebra.md)\n* [Aardvark Systems](paper-list/aardvark.md)\n"
        "* [Conference](reading-notes/conf/README.md)\n"
        "  * [Deep Dive Title From Summary](reading-notes/conf/deep.md)\n",
    )
    write(root, "README.md", "# Welcome\n\nHello reader.\n")
    write(root, "paper-list/zebra.md", "# Zebra Systems\n\nStriped text.\n")
    write(root, "paper-list/aardvark.md", "# Aardvark Systems\n\nBurrowing text.\n")
    write(root, "reading-notes/conf/README.md", "# Conference\n\nConference text.\n")
    # no level-1 heading: the SUMMARY.md label is the title
    write(root, "reading-notes/conf/deep.md", "## Notes\n\nDeep text.\n")
    write(root, "unlisted.md", "# Unlisted Page\n\nNot in the summary.\n")
    write(root, "image.png", "not a note")
    write(root, ".hidden/secret.md", "# Hidden\n\nnever read\n")
    return root


def test_gitbook_summary_order_titles_and_site_paths(tmp_path):
    book = make_gitbook(tmp_path / "book")
    r = read_path(book)
    assert r.warnings == []
    assert [p.title for p in r.pages] == [
        "Welcome",
        "Zebra Systems",
        "Aardvark Systems",
        "Conference",
        "Deep Dive Title From Summary",
        "Unlisted Page",  # not in SUMMARY.md: after the listed pages
    ]
    by_title = {p.title: p for p in r.pages}
    assert by_title["Zebra Systems"].site_path == "paper-list/zebra"
    assert by_title["Conference"].site_path == "reading-notes/conf"
    assert by_title["Deep Dive Title From Summary"].site_path == "reading-notes/conf/deep"
    assert by_title["Zebra Systems"].source == "book/paper-list/zebra.md"
    assert r.files_read == 6  # SUMMARY.md (the table of contents), the .png and .hidden/ are not pages
    assert not any("SUMMARY" in p.source or "Hidden" in p.title for p in r.pages)
    orders = [p.order for p in r.pages]
    assert orders == sorted(orders)


def test_gitbook_nested_in_a_larger_folder_keeps_order_and_site_paths(tmp_path):
    make_gitbook(tmp_path / "corpus" / "book")
    write(tmp_path / "corpus", "loose.md", "# Loose Note\n\nOutside the book.\n")
    r = read_path(tmp_path / "corpus")
    titles = [p.title for p in r.pages]
    assert titles.index("Zebra Systems") < titles.index("Aardvark Systems")
    assert "Deep Dive Title From Summary" in titles
    by_title = {p.title: p for p in r.pages}
    assert by_title["Aardvark Systems"].site_path == "paper-list/aardvark"
    assert by_title["Aardvark Systems"].source == "corpus/book/paper-list/aardvark.md"
    assert by_title["Loose Note"].site_path == ""  # not part of a GitBook
    assert "Table of contents" not in titles


def test_site_path_for():
    assert site_path_for("README.md") == ""
    assert site_path_for("a/b/README.md") == "a/b"
    assert site_path_for("a/c.md") == "a/c"


def test_page_url_in_chunk_metadata(tmp_path):
    book = make_gitbook(tmp_path / "book")
    page = next(p for p in read_path(book).pages if p.title == "Zebra Systems")
    chunks = analyze_page(page, site_url="https://notes.example.org/").chunks
    assert chunks and all(c.metadata["page_url"] == "https://notes.example.org/paper-list/zebra" for c in chunks)
    assert all("page_url" not in c.metadata for c in analyze_page(page).chunks)  # no site URL: no link


def test_page_url_from_settings_site_url(tmp_path):
    from papernotes.retrieval.indexing import analyze_pages

    book = make_gitbook(tmp_path / "book")
    pages = read_path(book).pages
    s = make_settings(tmp_path / "data", site_url="https://site.example")
    analyses = analyze_pages(pages, s, count=lambda t: len(t.split()) + 2, cache_path=None)
    urls = {a.page.title: {c.metadata.get("page_url") for c in a.chunks} for a in analyses}
    assert urls["Deep Dive Title From Summary"] == {"https://site.example/reading-notes/conf/deep"}
    assert urls["Unlisted Page"] == {"https://site.example/unlisted"}


def test_front_matter_metadata_and_hashtag_tags(tmp_path):
    write(
        tmp_path / "n",
        "a.md",
        "---\ndescription: >-\n  Notes on #kv_cache and #llm_serving, see issue 12#3\n"
        "tags: [gpu, '#scheduling']\ndate: 2024-03-01\nauthors:\n  - Ada\n  - Bob\n"
        "extra:\n  level: 2\n---\n\n# Cached\n\nBody text.\n",
    )
    (page,) = read_path(tmp_path / "n").pages
    assert page.title == "Cached"
    assert page.front_matter["date"] == "2024-03-01"
    assert page.front_matter["authors"] == ["Ada", "Bob"]
    assert page.front_matter["extra"] == {"level": 2}
    assert page.tags == ["kv_cache", "llm_serving", "gpu", "scheduling"]
    assert page.markdown.lstrip().startswith("# Cached") and "description" not in page.markdown
    (chunk,) = analyze_page(page).chunks
    assert chunk.metadata["tags"] == "kv_cache, llm_serving, gpu, scheduling"


def test_front_matter_title_used_when_there_is_no_heading(tmp_path):
    write(tmp_path / "n", "x.md", "---\ntitle: Front Matter Title\n---\nJust a paragraph.\n")
    (page,) = read_path(tmp_path / "n").pages
    assert page.title == "Front Matter Title"


def test_hashtags_helper():
    assert hashtags(r"\#model\_serving #kv_cache x#notatag #kv_cache") == ["model_serving", "kv_cache"]
    assert hashtags("see https://x.org/a#frag and C# and &#123;") == []


def test_front_matter_that_is_not_a_map_is_kept_as_text():
    meta, body, problem = split_front_matter("---\n- one\n- two\n---\n# T\n\nbody\n")
    assert meta == {} and "- one" in body and "# T" in body and problem
    meta, body, problem = split_front_matter("---\n\nJust a rule at the top.\n\n---\n\nmore\n")
    assert "Just a rule at the top." in body and "more" in body
    meta, body, problem = split_front_matter("---\nkey: [unclosed\n---\nbody\n")
    assert meta == {"key": "[unclosed"} and body == "body" and problem is not None and "key by key" in problem
    meta, body, problem = split_front_matter("---\n---\n# T\n")
    assert (meta, body.strip(), problem) == ({}, "# T", None)


DUMP = """\
Preface text before any page.

# Alpha Page

Alpha body links to [Beta Page](/reading-notes/beta-page).

```
# fenced hash line, not a page
```

~~~md
# also fenced
~~~

# Beta Page

Beta body.

# Alpha Page

A second page with the same title and different text.

# Beta Page

## Only Sub

Second beta body.
"""


def test_split_dump_at_level_one_headings_outside_fences():
    pages = split_dump(DUMP)
    assert [t for t, _ in pages] == ["", "Alpha Page", "Beta Page", "Alpha Page", "Beta Page"]
    assert "# fenced hash line, not a page" in pages[1][1] and "# also fenced" in pages[1][1]
    assert "".join(md for _, md in pages) == DUMP  # nothing lost, nothing duplicated


def test_dump_pages_with_the_same_title_stay_distinct(tmp_path):
    write(tmp_path / "seeds", "dump.txt", DUMP)
    r = read_path(tmp_path / "seeds")
    titles = [p.title for p in r.pages]
    expected_titles = [m for m in re.findall(r"^# (.+)$", DUMP, re.M) if "fenced" not in m]
    assert titles == ["dump"] + expected_titles  # the preface page is named after the file
    sources = [p.source for p in r.pages]
    assert len(set(sources)) == len(sources) and all(s.startswith("seeds/dump.txt#") for s in sources)
    assert r.pages[2].site_path == "reading-notes/beta-page"  # from the dump's own internal link
    chunks = [c for p in r.pages for c in analyze_page(p).chunks]
    alpha_texts = [c.text for c in chunks if c.metadata["page_title"] == "Alpha Page"]
    assert any("Alpha body" in t for t in alpha_texts)
    assert any("same title and different text" in t for t in alpha_texts)
    alpha_sources = {c.metadata["source"] for c in chunks if c.metadata["page_title"] == "Alpha Page"}
    assert len(alpha_sources) == 2
    assert len({c.id for c in chunks}) == len(chunks)


def test_fixture_dump_pages(tmp_path):
    r = read_path(FIXTURE_NOTES / "dump.txt")
    text = (FIXTURE_NOTES / "dump.txt").read_text(encoding="utf-8")
    outside = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    assert [p.title for p in r.pages] == re.findall(r"^# (.+)$", outside, re.M)
    assert len({p.source for p in r.pages}) == len(r.pages)


def test_same_title_dump_pages_are_both_in_the_index(fixture_index):
    from papernotes.retrieval.bm25 import BM25Index

    bm = BM25Index.load(fixture_index.bm25_dir)
    texts = [t for t, m in zip(bm.texts, bm.metadatas, strict=True) if m["page_title"] == "Diffusion Models"]
    sources = {m["source"] for m in bm.metadatas if m["page_title"] == "Diffusion Models"}
    assert sources == {"notes/dump.txt#diffusion-models", "notes/dump.txt#diffusion-models~2"}
    assert any("Emu: Caching Denoisers" in t for t in texts)
    assert any("A second page with the same title" in t for t in texts)


PUBS = """\
Quentin Quoll

Quentin Quoll, Research Scientist, Example Labs

Bio

I work on file systems.

Publications

• Burrow: Crash-Consistent Tunnels for Flash
  Quentin Quoll, Rita Rosella, and Sam Sugarglider
  In Proceedings of the 21st USENIX Conference on File and Storage Technologies (FAST 2023)
  [paper | slides]

• Pouch: Small Objects in Big Stores
  Rita Rosella and Quentin Quoll
  In Proceedings of the 31st ACM Symposium on Operating Systems Principles (SOSP 2025)
  [paper]
"""


def test_plain_text_publication_page_gives_records(tmp_path):
    write(tmp_path / "pubs", "quoll.txt", PUBS)
    (page,) = read_path(tmp_path / "pubs").pages
    assert page.title == "Quentin Quoll"
    assert [(p.title, p.venue, p.year) for p in page.publications] == [
        ("Burrow: Crash-Consistent Tunnels for Flash", "FAST 2023", 2023),
        ("Pouch: Small Objects in Big Stores", "SOSP 2025", 2025),
    ]
    assert page.publications[0].authors == ["Quentin Quoll", "Rita Rosella", "Sam Sugarglider"]
    a = analyze_page(page)
    pubs = [c for c in a.chunks if c.metadata["kind"] == "publication"]
    assert [c.metadata["paper_title"] for c in pubs] == [p.title for p in page.publications]
    assert pubs[1].metadata["venue"] == "SOSP 2025" and pubs[1].metadata["year"] == 2025
    assert any("I work on file systems." in c.text for c in a.chunks)  # the rest of the page is kept
    # the same text as a .md file is a plain page, not a publication page
    write(tmp_path / "md", "quoll.md", PUBS)
    (md_page,) = read_path(tmp_path / "md").pages
    assert md_page.publications == []


def test_missing_source_and_empty_directory(tmp_path):
    with pytest.raises(BadSourceError, match="source not found"):
        read_path(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "pic.png").write_bytes(b"\x89PNG")
    with pytest.raises(BadSourceError, match="no notes"):
        read_path(tmp_path / "empty")


# --- git sources -------------------------------------------------------------------------------------


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def test_git_url_source_clone_then_pull(tmp_path):
    repo = tmp_path / "upstream"
    make_gitbook(repo)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "first")
    url = repo.resolve().as_uri()  # file:///…/upstream
    assert is_git_url(url) and not is_git_url(str(repo))
    repos_dir = tmp_path / "repos"

    r1 = read_source(url, repos_dir)
    assert r1.origin == url
    assert "Zebra Systems" in [p.title for p in r1.pages]
    assert {p.origin for p in r1.pages} == {url}
    assert next(p for p in r1.pages if p.title == "Zebra Systems").site_path == "paper-list/zebra"
    assert "New Page" not in [p.title for p in r1.pages]
    clones = [d for d in repos_dir.iterdir() if (d / ".git").is_dir()]
    assert len(clones) == 1

    write(repo, "paper-list/new.md", "# New Page\n\nAdded upstream after the first clone.\n")
    write(repo, "paper-list/zebra.md", "# Zebra Systems\n\nStripes updated.\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "second")

    r2 = read_source(url, repos_dir)
    titles = [p.title for p in r2.pages]
    assert "New Page" in titles
    assert "Stripes updated." in next(p for p in r2.pages if p.title == "Zebra Systems").markdown
    assert [d for d in repos_dir.iterdir() if (d / ".git").is_dir()] == clones  # pulled, not re-cloned


def test_git_urls_with_the_same_slug_get_their_own_clones(tmp_path):
    urls = []
    for name in ("notes_repo", "notes-repo"):  # both slugify to "notes-repo"
        repo = tmp_path / name
        write(repo, "page.md", f"# Page Of {name}\n\nText.\n")
        _git(repo, "init", "-q", "-b", "main")
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", "first")
        urls.append(repo.resolve().as_uri())
    repos_dir = tmp_path / "repos"
    titles = [[p.title for p in read_source(u, repos_dir).pages] for u in urls]
    assert titles == [["Page Of notes_repo"], ["Page Of notes-repo"]]


def test_git_url_that_cannot_be_cloned_is_a_one_line_error(tmp_path):
    url = (tmp_path / "no-such-repo").resolve().as_uri()
    with pytest.raises(BadSourceError) as e:
        read_source(url, tmp_path / "repos")
    assert "git could not fetch" in str(e.value) and "\n" not in str(e.value)


# --- links and hidden folders -------------------------------------------------------------------------


def make_linked_vault(tmp_path: Path) -> Path:
    """A vault with links of every kind: inside the root (to a hidden folder, to a folder and a file
    already read, a cycle), leaving the root (a shared-notes folder, a secrets folder), broken (a
    missing file, a missing folder, a self-loop), and hidden folders and files."""
    vault = tmp_path / "vault"
    write(vault, "a.md", "# Alpha\n\nalpha text\n")
    write(vault, "sub/in.md", "# Inner\n\ninner text\n")
    write(vault, ".archive/papers/arch.md", "# Archived\n\narchived text\n")
    write(vault, ".obsidian/workspace.md", "# Workspace\n\nobsidian state\n")
    write(vault, ".trash/old.md", "# Old\n\ndeleted note\n")
    write(vault, ".git/info.md", "# Git\n\ngit internals\n")
    write(vault, ".draft.md", "# Draft\n\nhidden draft\n")
    write(tmp_path, "shared-notes/s.md", "# Shared\n\nshared text\n")
    write(tmp_path, "secrets/id.md", "# Key\n\nBEGIN PRIVATE KEY\n")
    links = {
        "papers": ".archive/papers",  # inside, to a hidden folder: read through the link
        "again": "sub",  # inside, a folder already read
        "sub/loop": "..",  # a cycle
        "in-link.md": "sub/in.md",  # a file already read
        "linked": "../shared-notes",  # leaves the root
        "keys": "../secrets",  # leaves the root
        "broken.md": "missing.md",
        "gone": "no-such-folder",
        "self.md": "self.md",
    }
    for name, target in links.items():
        os.symlink(target, vault / name)
    return vault


def test_links_inside_the_root_are_followed_once_and_the_others_warned(tmp_path):
    vault = make_linked_vault(tmp_path)
    r = read_path(vault)
    assert sorted(p.source for p in r.pages) == ["vault/a.md", "vault/papers/arch.md", "vault/sub/in.md"]
    warnings = {w.source: w.message for w in r.warnings}
    assert set(warnings) == {"vault/linked", "vault/keys", "vault/broken.md", "vault/gone", "vault/self.md"}
    for name in ("linked", "keys"):
        assert "outside" in warnings[f"vault/{name}"] and "--follow-external-links" in warnings[f"vault/{name}"]
    for name in ("broken.md", "gone", "self.md"):
        assert warnings[f"vault/{name}"].startswith("broken link")
    assert "missing.md" in warnings["vault/broken.md"]
    assert sorted(r.hidden_skipped) == [
        "vault/.archive",
        "vault/.draft.md",
        "vault/.git",
        "vault/.obsidian",
        "vault/.trash",
    ]
    assert not any("PRIVATE KEY" in p.markdown or "obsidian" in p.markdown for p in r.pages)


def test_follow_external_links_reads_notes_behind_links_leaving_the_root(tmp_path):
    vault = make_linked_vault(tmp_path)
    r = read_path(vault, follow_external_links=True)
    assert sorted(p.source for p in r.pages) == [
        "vault/a.md",
        "vault/keys/id.md",
        "vault/linked/s.md",
        "vault/papers/arch.md",
        "vault/sub/in.md",
    ]
    assert not any("outside" in w.message for w in r.warnings)
    assert {w.source for w in r.warnings} == {"vault/broken.md", "vault/gone", "vault/self.md"}


def test_a_folder_reached_twice_through_links_is_read_once(tmp_path):
    """Two links to one folder outside the root, and a link back into the root from inside it."""
    write(tmp_path, "shared/x.md", "# X\n\nx text\n")
    write(tmp_path, "vault/v.md", "# V\n\nv text\n")
    os.symlink("../shared", tmp_path / "vault" / "one")
    os.symlink("../shared", tmp_path / "vault" / "two")
    os.symlink("../vault", tmp_path / "shared" / "back")
    r = read_path(tmp_path / "vault", follow_external_links=True)
    assert sorted(p.source for p in r.pages) == ["vault/one/x.md", "vault/v.md"]
    assert r.warnings == []


# --- the preamble: text between the front matter and the first heading -----------------------------------

PREAMBLE_NOTES = {
    "one-heading": "---\ntitle: Long-context retrieval\n---\nTL;DR: retrieval heads copy the needle.\n\n"
    "# Method\n\nWe probe attention heads.\n",
    "two-headings": "---\ntitle: Long-context retrieval\ntags: [llm]\n---\n\nTL;DR: retrieval heads copy the needle.\n\n"
    "# Method\n\nWe probe attention heads.\n\n# Results\n\nFive percent of heads retrieve.\n",
    "two-paragraphs": "---\ntitle: Long-context retrieval\n---\nTL;DR: retrieval heads copy the needle.\n\n"
    "Key idea: prune them and recall breaks.\n\n# Method\n\nWe probe attention heads.\n",
}


@pytest.mark.parametrize("name", list(PREAMBLE_NOTES))
def test_preamble_is_the_pages_own_chunk_under_the_front_matter_title(tmp_path, name):
    write(tmp_path / "notes", f"{name}.md", PREAMBLE_NOTES[name])
    (page,) = read_path(tmp_path / "notes").pages
    assert page.title == "Long-context retrieval"
    chunks = analyze_page(page).chunks
    pre = [c for c in chunks if "TL;DR" in c.text]
    assert len(pre) == 1 and pre[0].metadata["section"] == ""
    assert pre[0].text.startswith("Long-context retrieval\nTL;DR: retrieval heads copy the needle.")
    assert "attention heads" not in pre[0].text
    (method,) = [c for c in chunks if c.metadata["section"] == "Method"]
    assert method.text == "Long-context retrieval › Method\nWe probe attention heads."


def test_mdx_and_quarto_notes_are_read(tmp_path):
    (tmp_path / "orca.mdx").write_text(
        "---\ntitle: Orca\n---\n\nimport Tabs from '@theme/Tabs';\n\nIteration-level scheduling.\n", encoding="utf-8"
    )
    (tmp_path / "vllm.qmd").write_text("---\ntitle: vLLM\n---\n\nPaged KV cache.\n", encoding="utf-8")
    (tmp_path / "data.csv").write_text("a,b\n", encoding="utf-8")
    assert sorted(p.title for p in read_path(tmp_path).pages) == ["Orca", "vLLM"]
