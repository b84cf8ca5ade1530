"""Reading lists out of the catalog: ``papernotes papers --format json|csv|bibtex|markdown`` (the table
is :func:`papernotes.bot.render.render_papers`), and conference summaries as files
(``papernotes summarize --format markdown|json -o FILE``)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, TypeVar

import click

from papernotes.bot.bibtex_export import bibtex_keys, to_bibtex
from papernotes.corpus.models import PaperRecord
from papernotes.retrieval.tokens import one_line

if TYPE_CHECKING:  # the summary pipeline's package imports LangChain: only when a summary is written
    from papernotes.retrieval.summarize.results import ConferenceSummary


F = TypeVar("F", bound=StrEnum)


class PaperFormat(StrEnum):
    """``papers --format`` choices (``table`` is the terminal view)."""

    table = "table"
    json = "json"
    csv = "csv"
    bibtex = "bibtex"
    markdown = "markdown"


def choices(kind: type[F]) -> Callable[[str], F]:
    """A typer ``parser`` for a ``--format`` flag: the member of ``kind`` named by the value (any case).

    Raises
    ------
    click.BadParameter
        The value names no member; the message lists the choices ("'yaml' is not one of table, json, …").
    """

    def parse(value: str) -> F:
        if isinstance(value, kind):
            return value
        for m in kind:
            if m.value == str(value).strip().casefold():
                return m
        raise click.BadParameter(f"{value!r} is not one of {', '.join(m.value for m in kind)}", param_hint="'--format'")

    return parse


class SummaryFormat(StrEnum):
    """``summarize --format`` choices (``text`` is the terminal view)."""

    text = "text"
    markdown = "markdown"
    json = "json"


#: CSV columns, in order (``key`` is the BibTeX key of the same export).
CSV_COLUMNS = ("key", "title", "system", "venue", "year", "authors", "affiliations", "url", "summary", "topics")
#: First characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection"):
#: such cells get a leading apostrophe, which spreadsheets show as text and do not display.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def papers_json(records: Sequence[PaperRecord]) -> str:
    """The ``papers --json`` list (one object per record, every field), as text."""
    return json.dumps([r.to_dict() for r in records], ensure_ascii=False, indent=2) + "\n"


def _inert(cell: str) -> str:
    """A cell a spreadsheet shows as text: prefixed with ``'`` when it starts like a formula."""
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def papers_csv(records: Sequence[PaperRecord]) -> str:
    """The records as CSV with a header row (:data:`CSV_COLUMNS`; lists joined with ``"; "``), starting
    with a UTF-8 byte-order mark (so spreadsheets read it as UTF-8) and with formula-like cells made
    inert (:data:`FORMULA_STARTS`)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for r, key in zip(records, bibtex_keys(records), strict=True):
        row = [
            key,
            r.title,
            r.system or "",
            r.venue or "",
            str(r.year or ""),
            "; ".join(r.authors),
            "; ".join(r.affiliations),
            r.url or "",
            one_line(r.summary),
            "; ".join(r.topics),
        ]
        w.writerow([_inert(c) for c in row])
    return "\ufeff" + buf.getvalue()


def _md(text: str) -> str:
    """Text safe inside a Markdown line: characters that would start markup escaped."""
    return "".join("\\" + c if c in "\\`*_[]<>|#" else c for c in " ".join(text.split()))


def papers_markdown(records: Sequence[PaperRecord], what: str = "") -> str:
    """The records as a Markdown reading list: a heading (``what``, e.g. the filters), then per paper
    a numbered line with the title linked to the paper, the system, venue and affiliations, the notes'
    one-line summary, and the notes' citations (the places in the notes that mention it, each with
    its file)."""
    out = [
        f"# Papers{f' — {_md(what)}' if what else ''}",
        "",
        f"{len(records)} paper{'s' if len(records) != 1 else ''}",
    ]
    for n, r in enumerate(records, 1):
        title = f"[{_md(r.title)}](<{r.url}>)" if r.url else _md(r.title)
        facts = [f"**{_md(r.system)}**" if r.system else "", _md(r.venue or ""), _md(", ".join(r.affiliations))]
        out += ["", f"{n}. {title}" + "".join(f" · {f}" for f in facts if f)]
        if r.summary:
            out.append(f"   {_md(one_line(r.summary))}")
        cites = [_md(t) for t in r.topics] or [_md(s) for s in r.sources]
        if cites:
            out.append(f"   Notes: {'; '.join(cites)}" + (f" (`{r.sources[0]}`)" if r.sources and r.topics else ""))
    return "\n".join(out) + "\n"


def export_papers(records: Sequence[PaperRecord], fmt: str, what: str = "") -> str:
    """The records in ``fmt`` (a :class:`PaperFormat` but ``table``), as text.

    Raises
    ------
    ValueError
        For another format (the CLI offers only these).
    """
    if fmt == "json":
        return papers_json(records)
    if fmt == "csv":
        return papers_csv(records)
    if fmt == "bibtex":
        return to_bibtex(records)
    if fmt == "markdown":
        return papers_markdown(records, what)
    raise ValueError(f"no export format {fmt!r}")


def summary_text(s: ConferenceSummary, fmt: str) -> str:
    """The summary as ``markdown`` (:func:`~papernotes.bot.summary_render.summary_markdown`) or
    ``json`` (the ``summarize --json`` object; ``ConferenceSummary.from_dict`` reads it back).

    Raises
    ------
    ValueError
        For another format.
    """
    from papernotes.bot.summary_render import summary_markdown

    if fmt == "markdown":
        return summary_markdown(s) + "\n"
    if fmt == "json":
        return json.dumps(s.as_dict(), ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"no summary file format {fmt!r}")
