"""The LangChain RAG quickstart as a baseline, on papernotes' embedder: every note file read as plain
text, ``RecursiveCharacterTextSplitter(1000, 200)`` (the splitter settings of LangChain's RAG tutorial,
https://python.langchain.com/docs/tutorials/rag/), ``Chroma.from_documents``, ``similarity_search(k=5)``
(k = 5, the cut-off both pipelines are scored at)."""

from __future__ import annotations

import bisect
import re
import time
from pathlib import Path

from langchain_chroma import Chroma
from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter
from scoring import K

from papernotes.retrieval.embeddings import make_embeddings
from papernotes.retrieval.settings import Settings

#: Suffixes the baseline reads (the same set as papernotes.corpus.readers.NOTE_SUFFIXES).
BASELINE_SUFFIXES = {".md", ".markdown", ".txt"}
#: The RAG tutorial's splitter settings (characters).
BASELINE_CHUNK_SIZE, BASELINE_CHUNK_OVERLAP = 1000, 200
#: One-line description of the pipeline, for the report.
PIPELINE = (
    f"RecursiveCharacterTextSplitter({BASELINE_CHUNK_SIZE}, {BASELINE_CHUNK_OVERLAP}) + "
    f"Chroma.from_documents + similarity_search(k={K}); same embedder"
)


def baseline_files(corpora: list[Path]) -> list[Path]:
    """Every .md/.markdown/.txt file under the corpora (hidden folders skipped), sorted per corpus: what
    ``DirectoryLoader(glob=…, loader_cls=TextLoader)`` would load. A corpus that is a file is taken as is."""
    files: list[Path] = []
    for c in corpora:
        if c.is_file():
            files.append(c)
            continue
        files += sorted(
            p
            for p in c.rglob("*")
            if p.is_file()
            and p.suffix.lower() in BASELINE_SUFFIXES
            and not any(part.startswith(".") for part in p.relative_to(c).parts)
        )
    return files


_H_ANY = re.compile(r"^ {0,3}(#{1,6})\s+(.+?)\s*#*\s*$")


def heading_index(text: str) -> tuple[list[tuple[int, str]], str | None]:
    """``([(character offset, title) of each level-1 heading outside code fences], the first heading of
    any level or None)``."""
    h1: list[tuple[int, str]] = []
    first = None
    fence = False
    pos = 0
    for ln in text.splitlines(keepends=True):
        s = ln.strip()
        if s.startswith(("```", "~~~")):
            fence = not fence
        elif not fence:
            m = _H_ANY.match(ln.rstrip("\n"))
            if m:
                title = m.group(2).strip()
                first = first or title
                if len(m.group(1)) == 1:
                    h1.append((pos, title))
        pos += len(ln)
    return h1, first


def annotate_baseline(chunks: list[Document], texts: dict[str, str]) -> None:
    """Give each baseline chunk the title metadata the old (title-metadata) scoring rule matches, in place:
    ``page_title`` = the level-1 heading in force where the chunk starts (the dump's page, or the file's
    own title), else the file's first heading, else the file name; ``paper_title`` = the level-1 heading
    in force where the chunk ends when that differs (a chunk straddling two dump pages can hit either).

    ``texts`` maps each chunk's ``source`` metadata to its file's text; chunks need ``start_index``."""
    idx = {src: heading_index(t) for src, t in texts.items()}
    for d in chunks:
        src = d.metadata["source"]
        h1, first = idx[src]
        fallback = first or Path(src).stem
        offs = [o for o, _ in h1]

        def at(pos: int, offs: list[int] = offs, h1: list[tuple[int, str]] = h1, fallback: str = fallback) -> str:
            i = bisect.bisect_right(offs, pos) - 1
            return h1[i][1] if i >= 0 else fallback

        start = int(d.metadata.get("start_index", 0))
        d.metadata["page_title"] = at(start)
        end_title = at(start + len(d.page_content) - 1)
        if end_title != d.metadata["page_title"]:
            d.metadata["paper_title"] = end_title


def baseline_ingest(settings: Settings, corpora: list[Path], persist: Path) -> tuple[Chroma, float, int]:
    """Run the quickstart's indexing: plain-read files → ``RecursiveCharacterTextSplitter(1000, 200,
    add_start_index=True)`` → ``Chroma.from_documents`` into ``persist`` with a fresh instance of our
    embedder (so the model load is paid, as in a cold papernotes ingest).

    Returns
    -------
    ``(store, seconds, chunks)``: the seconds cover reading, splitting and ``from_documents``, all but
    :func:`annotate_baseline` (scoring metadata the quickstart does not have).

    Raises
    ------
    ModelUnavailableError
        when the embedder cannot be made.
    """
    t0 = time.perf_counter()
    docs, texts = [], {}
    for f in baseline_files(corpora):
        try:
            text = f.read_text(encoding="utf-8")  # TextLoader(encoding="utf-8"); undecodable files skipped
        except (UnicodeDecodeError, OSError):
            continue
        texts[str(f)] = text
        docs.append(Document(page_content=text, metadata={"source": str(f)}))
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=BASELINE_CHUNK_SIZE, chunk_overlap=BASELINE_CHUNK_OVERLAP, add_start_index=True
    )
    chunks = splitter.split_documents(docs)
    read_split = time.perf_counter() - t0
    annotate_baseline(chunks, texts)
    t1 = time.perf_counter()
    store = Chroma.from_documents(
        chunks, embedding=make_embeddings(settings), persist_directory=str(persist), collection_name="baseline"
    )
    return store, read_split + time.perf_counter() - t1, len(chunks)


def baseline_search(store: Chroma, question: str) -> list[Document]:
    """The quickstart's retrieval: ``similarity_search(question, k=5)``, best first."""
    return store.similarity_search(question, k=K)
