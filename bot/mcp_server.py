"""The notes as Model Context Protocol tools (``papernotes mcp``): ``search``, ``ask``, ``papers`` and
``summarize`` over stdio, with the official ``mcp`` SDK's :class:`~mcp.server.mcpserver.MCPServer`.

Read-only: the tools call the same functions as the CLI (:class:`~papernotes.retrieval.service.Notes`,
:func:`~papernotes.retrieval.summarize.summarize`) with the same settings and index, reopened after an
ingest (:class:`~papernotes.bot.notes_reload.NotesIndex`). Note text in a result is fenced as in the
model prompts (``<source id="N">…</source>``, fence tags inside escaped;
:mod:`~papernotes.retrieval.prompt_builder`) under :data:`~papernotes.retrieval.prompts.QUOTED_DATA_NOTE`,
so a client's model can tell the notes' words from instructions. A
:class:`~papernotes.corpus.errors.PapernotesError` (unknown venue, no index, …) becomes the tool's
one-line error. Stdout carries only the protocol (the SDK points file descriptor 1 at stderr while it
serves); logs go to stderr.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from papernotes.bot.notes_reload import NotesIndex
from papernotes.bot.render import source_line
from papernotes.corpus.errors import PapernotesError
from papernotes.corpus.models import PaperRecord
from papernotes.retrieval.answer import Answer, check_question
from papernotes.retrieval.filters import normalize_filters
from papernotes.retrieval.prompt_builder import fence, source_block
from papernotes.retrieval.prompts import EXTRACTIVE_LABEL, QUOTED_DATA_NOTE
from papernotes.retrieval.service import Notes
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.tokens import one_line

log = logging.getLogger("papernotes.mcp")
T = TypeVar("T")

#: Every tool only reads the index (MCP tool annotations: read-only, idempotent, no outside world).
READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

INSTRUCTIONS = (
    "Research-paper reading notes: search them, ask questions answered with numbered citations, list a "
    "venue's papers, or summarize a conference's papers on a topic. " + QUOTED_DATA_NOTE
)


def answer_text(a: Answer) -> str:
    """An answer as a tool result: the data note, the answer fenced as ``<source id="answer">`` with its
    ``[n]`` markers, any note about it, then each cited source fenced as ``<source id="n">`` (where it is
    in the notes, the paper, venue and link, then the quoted snippet)."""
    label = EXTRACTIVE_LABEL if a.mode == "extractive" and not a.refused else f"Answer (mode: {a.mode})"
    out = [QUOTED_DATA_NOTE, f"{label}:", fence("answer", a.answer)]
    if a.note:
        out.append(f"Note: {a.note}")
    if a.citations:
        out.append("Sources:")
        out += [fence(c.n, f"{source_line(c)}\n{c.snippet}") for c in a.citations]
    return "\n".join(out)


def search_text(res) -> str:
    """Search hits as a tool result: per hit its rank and scores, then the chunk fenced exactly as in
    the answer prompt (:func:`~papernotes.retrieval.prompt_builder.source_block`)."""
    out = [QUOTED_DATA_NOTE]
    if res.fallback:
        out.append("Nothing matched the filters; these are unfiltered results.")
    for h in res.hits:
        url = h.get("url") or ""
        out.append(f"[{h.rank}] score {h.score:.4f}{f' {url}' if url else ''}")
        out.append(source_block(h.rank, h))
    return "\n".join(out) if res.hits else "No results."


def papers_text(records: list[PaperRecord]) -> str:
    """Catalog records as a tool result: the count, then each paper fenced as ``<source id="n">`` (title,
    system, venue, affiliations, link, the notes' one-line summary)."""
    out = [QUOTED_DATA_NOTE, f"{len(records)} paper{'s' if len(records) != 1 else ''}"]
    for n, r in enumerate(records, 1):
        facts = " · ".join(x for x in (r.system or "", r.venue or "", ", ".join(r.affiliations), r.url or "") if x)
        out.append(fence(n, f"{r.title}\n{facts}\n{one_line(r.summary)}".strip()))
    return "\n".join(out)


def build_server(settings: Settings, index: NotesIndex | None = None) -> MCPServer:
    """The MCP server of the notes at ``settings`` (nothing is loaded until the first tool call).

    Parameters
    ----------
    settings
        The one settings object (data dir, model endpoint, …), as the CLI reads it.
    index
        The loaded notes to serve (tests); None to open ``settings``' index on first use.
    """
    notes_index = index or NotesIndex(settings)
    server: MCPServer = MCPServer("papernotes", instructions=INSTRUCTIONS)

    async def run(fn: Callable[[Notes], T]) -> T:
        """``fn(notes)`` in a worker thread; our errors become the tool's one-line error."""
        try:
            notes = await notes_index.get()
            return await asyncio.to_thread(fn, notes)
        except PapernotesError as e:
            log.info("tool error: %s", e)
            raise ToolError(str(e)) from None

    @server.tool(annotations=READ_ONLY)
    async def search(query: str, k: int = 5, venue: str | None = None) -> str:
        """Search the reading notes: the k best-matching passages (1-50), optionally only from one venue
        ("OSDI 2026", "osdi26", or a series such as "SOSP"), each with where it is in the notes."""
        k = max(1, min(50, k))

        def work(n: Notes) -> str:
            return search_text(n.search(query, k, normalize_filters(venue) if venue else None))

        return await run(work)

    @server.tool(annotations=READ_ONLY)
    async def ask(question: str, venue: str | None = None) -> str:
        """Ask the reading notes a question: an answer with numbered citation markers [n] and the cited
        sources (or "The notes don't cover this."). ``venue`` narrows to one conference."""

        def work(n: Notes) -> str:
            check_question(question)
            return answer_text(n.ask(question, filters=normalize_filters(venue) if venue else None))

        return await run(work)

    @server.tool(annotations=READ_ONLY)
    async def papers(venue: str | None = None, topic: str | None = None, search: str | None = None) -> str:
        """List papers of the notes' catalog: of one venue ("MLSys 2026", or a series such as "OSDI"),
        whose topic contains ``topic``, or whose title, system, summary or affiliations contain
        ``search``."""
        from papernotes.retrieval.stats import list_papers

        def work(_n: Notes) -> str:
            return papers_text(list_papers(settings, venue, None, topic, search))

        return await run(work)

    @server.tool(annotations=READ_ONLY)
    async def summarize(venue: str, topic: str = "llm") -> str:
        """Summarize a conference's papers on a topic (default "llm"; also "serving", "training", "moe",
        "rag", any word): every such paper, grouped by the notes' headings, with citation markers and
        a Sources list."""
        from papernotes.bot.summary_render import summary_markdown
        from papernotes.retrieval.summarize import summarize as run_summary

        def work(_n: Notes) -> str:
            return "\n".join(
                [QUOTED_DATA_NOTE, fence("summary", summary_markdown(run_summary(settings, venue, topic)))]
            )

        return await run(work)

    return server


def serve_stdio(settings: Settings) -> None:
    """Serve the tools over stdin/stdout until the client closes the connection; logs (warnings and
    up) go to stderr without colour."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    build_server(settings).run("stdio")
