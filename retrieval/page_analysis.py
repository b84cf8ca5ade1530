"""Pages to chunks and paper entries with the parse cache: each page's content key (its fields and the
chunking settings), the parser's code version, and :func:`analyze_pages`, which chunks only the pages
whose key the cache lacks."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from papernotes.corpus.chunking import PageAnalysis, analyze_page
from papernotes.corpus.models import Page, PaperEntry
from papernotes.retrieval.parse_cache import LazyList, ParseCache
from papernotes.retrieval.settings import Settings


def _analysis_key(page: Page, sig: str) -> str:
    h = hashlib.sha1()
    for part in (
        sig,
        page.source,
        page.origin,
        page.title,
        page.site_path,
        page.markdown,
        json.dumps(page.tags),
        repr(sorted(((str(k), v) for k, v in page.front_matter.items()), key=lambda kv: kv[0])),
        repr(page.publications),
        repr(page.cited),
    ):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()


@lru_cache(maxsize=1)
def parser_version() -> str:
    """Hash of the corpus package's source: a new parser invalidates cached pages and analyses."""
    from papernotes import corpus

    h = hashlib.sha1()
    for f in sorted(Path(corpus.__file__).parent.glob("*.py")):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def chunk_signature(settings: Settings) -> str:
    """The chunking settings a page's analysis depends on, as one string (part of :func:`page_key`)."""
    return f"{settings.chunk_tokens}|{settings.chunk_overlap}|{settings.site_url}|{settings.embedding_model}"


def page_key(page: Page, settings: Settings) -> str:
    """A page's content key (SHA-1 hex of its fields and the chunking settings): equal keys, equal chunks."""
    return _analysis_key(page, chunk_signature(settings))


def analyze_pages(
    pages: list[Page],
    settings: Settings,
    count,
    cache_path: Path | None,
    keys: list[str] | None = None,
    keep: set[str] | None = None,
) -> list[PageAnalysis]:
    """Chunk every page, reusing cached analyses of unchanged pages (keyed by page content and the
    chunking settings, :func:`page_key`; ``keys`` gives them when the caller has them already) so a
    no-op re-ingest does not re-parse.

    The cache is two :class:`~papernotes.retrieval.parse_cache.ParseCache` files written only for the
    keys that changed: ``cache_path`` holds each page's paper entries and chunk count, read whole, and
    ``<cache_path stem>-chunks.sqlite`` its chunks, read only when a cached page's chunks are used
    (:class:`~papernotes.retrieval.parse_cache.LazyList`): an ingest that re-indexes a few sources reads
    only their chunks. Only the heads of ``pages`` are read; ``keep`` names further cached keys to keep
    (the pages of origins not read this time)."""
    sig = chunk_signature(settings)
    if keys is None:
        keys = [_analysis_key(p, sig) for p in pages]
    heads = ParseCache(cache_path, parser_version()) if cache_path else None
    bodies = (
        ParseCache(cache_path.with_name(cache_path.stem + "-chunks.sqlite"), parser_version()) if cache_path else None
    )
    cached: dict[str, tuple[list[PaperEntry], bool, int]] = {}
    if heads is not None:
        heads.load_keys()
        cached = heads.get_many(keys)
    have_bodies = bodies.load_keys() if bodies else set()
    out: list[PageAnalysis] = []
    fresh_heads: dict[str, tuple[list[PaperEntry], bool, int]] = {}
    fresh_bodies: dict[str, Any] = {}
    for p, key in zip(pages, keys, strict=True):
        head = cached.get(key)
        if head is not None and bodies is not None and key in have_bodies:
            entries, deep, n = head
            a = PageAnalysis(p, LazyList(n, partial(bodies.get, key)), entries, deep)
        else:
            a = analyze_page(
                p,
                count=count,
                max_tokens=settings.chunk_tokens,
                overlap=settings.chunk_overlap,
                site_url=settings.site_url,
            )
        fresh_heads[key] = (a.entries, a.is_deep_note, len(a.chunks))
        fresh_bodies[key] = a.chunks
        out.append(a)
    if heads is not None and bodies is not None:
        kept = set(keep or ())
        bodies.save_keys(kept | fresh_bodies.keys(), fresh_bodies)  # chunks first: a head needs its chunks
        heads.save_keys(kept | fresh_heads.keys(), fresh_heads)
    return out
