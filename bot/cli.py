"""The ``papernotes`` command line (typer + rich). Thin: parses flags, calls ``retrieval``, renders.

Every :class:`~papernotes.corpus.errors.PapernotesError` becomes one ``error: …`` line on stderr and a non-zero
exit code; no traceback is shown.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from papernotes.bot.exports import PaperFormat, choices
from papernotes.corpus.errors import BadInputError, BadSourceError, PapernotesError
from papernotes.retrieval.ingest_warnings import split_warnings
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.summarize.results import plural

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Ask your research-paper reading notes: grounded answers with citations.",
)


class _Stdout(Console):
    """The terminal console; a reader that closes the pipe early (``papernotes papers | head``) ends the
    command quietly with exit 0 (rich's default exits 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        _quiet_stdout()
        raise SystemExit(0)


out = _Stdout(soft_wrap=True, highlight=False)
err = Console(stderr=True, highlight=False, soft_wrap=True)

K = Annotated[int | None, typer.Option("--k", min=1, max=50, help="Chunks to retrieve and cite.")]
JSON = Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")]
VENUE = Annotated[str | None, typer.Option("--venue", help="Only this venue, e.g. 'OSDI 2026' or 'osdi26'.")]
YEAR = Annotated[int | None, typer.Option("--year", help="Only this year.")]
TOPIC = Annotated[
    str | None,
    typer.Option(
        "--topic", help="Only what the notes file under a topic path containing this (chunks; for papers, papers)."
    ),
]
SOURCE = Annotated[str | None, typer.Option("--source", help="Only chunks whose source contains this.")]


def settings() -> Settings:
    """The settings, read from the environment and ``.env``; invalid values become a BadInputError."""
    from pydantic import ValidationError

    try:
        return Settings()
    except ValidationError as e:
        first = e.errors()[0]
        msg = str(first["msg"]).removeprefix("Value error, ")
        raise BadInputError(f"bad setting {'.'.join(str(x) for x in first['loc'])}: {msg}") from None


def notes():
    """The loaded notes; notices about the index (an unfinished ingest, parts that disagree) are
    printed first, one line each."""
    from papernotes.retrieval.service import Notes

    n = Notes(settings())
    show_notices(n.notices)
    return n


def show_notices(notices: list[str]) -> None:
    """Print each notice as one ``notice: …`` line on stderr."""
    for line in notices:
        err.print(f"[yellow]notice[/]: {line}", markup=True, highlight=False)


def show_warnings(warnings: list[str]) -> None:
    """Print an ingest's warnings on stderr, one per line under a count: ``warnings (N):`` then one
    ``  path: problem`` line each; the pages with only a heading (GitBook section index pages, many and
    harmless) under ``pages with only a heading, nothing to index (N):``, one path per line."""
    other, empty = split_warnings(warnings)
    for lines, head in ((other, "warnings"), (empty, "pages with only a heading, nothing to index")):
        if lines:
            err.print(f"[yellow]{head}[/] ({len(lines)}):", markup=True, highlight=False)
            for line in lines:
                err.print(f"  {line}", markup=False, highlight=False)


def _catalog_notices(s: Settings) -> None:
    """Notices of the commands that read only the catalog and counts (``papers``, ``stats``)."""
    from papernotes.retrieval.index_health import unfinished_ingest

    show_notices([n for n in [unfinished_ingest(s)] if n])


def print_json(obj) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=2) + "\n")


def _filters(venue, year, topic, source):
    from papernotes.retrieval.filters import normalize_filters

    return normalize_filters(venue, year, topic, source)


@app.command()
def ingest(
    sources: Annotated[
        list[str] | None, typer.Argument(help="Paths or git URLs (default: PAPERNOTES_SOURCES).")
    ] = None,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Drop the index and re-embed everything.")] = False,
    follow_external_links: Annotated[
        bool,
        typer.Option(
            "--follow-external-links", help="Also read notes behind symbolic links that lead outside a source folder."
        ),
    ] = False,
    watch: Annotated[
        str | None,
        typer.Option(
            "--watch",
            metavar="INTERVAL",
            help="Keep running: pull git sources and re-ingest every INTERVAL (90s, 5m, 1h); a failed round "
            "prints one line and keeps the previous index. Ctrl-C stops.",
        ),
    ] = None,
    as_json: JSON = False,
) -> None:
    """Read, chunk and index notes (incremental: unchanged chunks are not embedded again).

    Every ingest also checks that the index's parts agree and repairs them."""
    if any(not src.strip() for src in sources or []):
        raise BadSourceError("a source is empty: give a notes folder, a file or a git URL")
    if watch is not None:
        _watch(sources, watch, rebuild, follow_external_links, as_json)
        return
    _ingest_once(sources, rebuild, follow_external_links, as_json)


def _watch(sources: list[str] | None, interval: str, rebuild: bool, follow_external_links: bool, as_json: bool) -> None:
    """``ingest --watch``: one ingest now, then one every ``interval`` (only the first may rebuild);
    a failed later round is one ``error: …`` line and the schedule goes on; Ctrl-C stops it (exit code 0).

    Raises
    ------
    BadInputError
        for a bad interval, when no source is given or configured, or when the first round fails on
        bad input (a source that does not exist).
    PapernotesError
        any other failure of the first round (as a plain ``ingest`` would raise it).
    """
    import time

    from papernotes.retrieval.refresh import parse_interval

    seconds = parse_interval(interval)
    if not (sources or settings().sources):
        raise BadInputError("no sources: give one (`papernotes ingest PATH`) or set PAPERNOTES_SOURCES")
    try:
        # the first round is an ingest like any: a bad source ends the watch with its one-line error
        # (there may be no previous index to keep); later rounds fail alone, the schedule goes on
        _ingest_once(sources, rebuild, follow_external_links, as_json)
        while True:
            time.sleep(seconds)
            try:
                _ingest_once(sources, False, follow_external_links, as_json)
            except PapernotesError as e:
                err.print(f"error: {e} (the previous index is kept)", markup=False, highlight=False)
    except KeyboardInterrupt:  # Ctrl-C is how a watch ends: a clean stop
        err.print("stopped", markup=False)


def _ingest_once(sources: list[str] | None, rebuild: bool, follow_external_links: bool, as_json: bool) -> None:
    """One ingest with a progress bar and the summary line (see :func:`ingest`)."""
    from papernotes.retrieval.indexing import ingest as run_ingest

    s = settings()
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=as_json or not err.is_terminal,
    ) as bar:
        tasks: dict[str, TaskID] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(
                    {"read": "reading", "chunk": "chunking", "embed": "embedding"}[stage], total=total
                )
            bar.update(tasks[stage], completed=done, total=total)

        rep = run_ingest(s, sources, rebuild=rebuild, progress=progress, follow_external_links=follow_external_links)
    if as_json:
        print_json(rep.as_dict())
    else:
        show_warnings(rep.warnings)
    if rep.files == 0:
        raise BadSourceError(f"nothing was ingested: all {rep.files_skipped} files were skipped (see the warnings)")
    if as_json:
        return
    hidden = f"; {rep.hidden_skipped} hidden folders/files skipped" if rep.hidden_skipped else ""
    resumed = f"; completed the ingest started {rep.resumed}" if rep.resumed else ""
    repaired = f"; repaired: {'; '.join(rep.repaired)}" if rep.repaired else ""
    warned, empty = split_warnings(rep.warnings)
    headings = f" ({plural(len(empty), 'page')} with only a heading)" if empty else ""
    out.print(
        f"{plural(rep.files, 'file')}, {plural(rep.pages, 'page')}, {plural(rep.chunks, 'chunk')}: "
        f"{rep.added} added (embedded), {rep.skipped} unchanged, {rep.deleted} deleted; {plural(rep.papers, 'paper')}; "
        f"{plural(len(warned), 'warning')}{headings}{hidden}{resumed}{repaired}; {rep.seconds:.1f} s",
        markup=False,
    )


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question.")],
    k: K = None,
    venue: VENUE = None,
    year: YEAR = None,
    topic: TOPIC = None,
    source: SOURCE = None,
    as_json: JSON = False,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Answer extractively even if a model is configured.")
    ] = False,
) -> None:
    """Answer a question from the notes, with citations."""
    from papernotes.bot.render import render_answer
    from papernotes.retrieval.answer import check_question

    check_question(question)
    f = _filters(venue, year, topic, source)
    n = notes()
    # not streamed: a model's reply is shown only after its citations and links are checked
    a = n.ask(question, k=k, filters=f if f else None, use_llm=False if no_llm else None)
    if as_json:
        print_json(a.as_dict())
    else:
        render_answer(out, a)


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="Search text.")],
    k: K = None,
    venue: VENUE = None,
    year: YEAR = None,
    topic: TOPIC = None,
    source: SOURCE = None,
    as_json: JSON = False,
) -> None:
    """Retrieval only: ranked chunks with scores and metadata."""
    from papernotes.bot.render import render_search
    from papernotes.retrieval.answer import retrieved_rows

    f = _filters(venue, year, topic, source)
    res = notes().search(query, k, f if f else None)
    if as_json:
        rows = retrieved_rows(res.hits)
        for r, h in zip(rows, res.hits, strict=True):
            r["text"] = h.text
        print_json({"query": res.query, "filters": res.filters.as_dict(), "fallback": res.fallback, "results": rows})
    else:
        render_search(out, res)


@app.command()
def papers(
    venue: VENUE = None,
    year: YEAR = None,
    topic: TOPIC = None,
    search_text: Annotated[
        str | None, typer.Option("--search", help="Text in title, system, summary, affiliations or aliases.")
    ] = None,
    fmt: Annotated[
        PaperFormat,
        typer.Option(
            "--format",
            parser=choices(PaperFormat),
            help="table (the terminal view), json, csv (UTF-8 with BOM), bibtex or markdown.",
        ),
    ] = PaperFormat.table,
    as_json: Annotated[bool, typer.Option("--json", help="The same as --format json.")] = False,
) -> None:
    """List papers from the catalog, or export them as a reading list (BibTeX, CSV, Markdown, JSON)."""
    from papernotes.bot.exports import export_papers
    from papernotes.bot.render import render_papers
    from papernotes.retrieval.stats import list_papers

    _filters(venue, year, None, None)  # validates the venue spelling and the year range
    if search_text is not None and not search_text.strip():
        raise BadInputError("the search text is empty: give a word to look for or leave --search out")
    if as_json and fmt not in (PaperFormat.table, PaperFormat.json):
        raise BadInputError(f"--json and --format {fmt.value} ask for two formats: give one")
    s = settings()
    recs = list_papers(s, venue, year, topic, search_text)
    _catalog_notices(s)
    fmt = PaperFormat.json if as_json else fmt
    if fmt == PaperFormat.table:
        render_papers(out, recs)
    else:
        what = " · ".join(str(x) for x in (venue, year, topic, search_text) if x)
        sys.stdout.write(export_papers(recs, fmt, what))


@app.command()
def stats(as_json: JSON = False) -> None:
    """Counts of files, pages, chunks and papers, and papers per venue."""
    from papernotes.bot.render import render_stats
    from papernotes.retrieval.stats import index_stats

    s = settings()
    st = index_stats(s)
    _catalog_notices(s)
    if as_json:
        print_json(st)
    else:
        render_stats(out, st)


@app.command(name="eval")
def evaluate(
    file: Annotated[
        Path, typer.Argument(help="JSONL questions (id, type, question, gold_titles, answer_must_contain).")
    ],
    k: Annotated[int, typer.Option("--k", min=1, max=50, help="Cut-off for hit@k / recall@k / MRR.")] = 5,
    as_json: JSON = False,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Score extractive answers even if a model is configured.")
    ] = False,
) -> None:
    """Score retrieval and answers on a question set."""
    from papernotes.bot.render import render_eval
    from papernotes.retrieval.evaluate import load_questions, run_eval

    rows = load_questions(file)
    unlabelled = [r for r in rows if r.get("needs_review")]
    if unlabelled:  # a 👎 exported by `feedback --export` before anyone wrote down the right answer
        rows = [r for r in rows if not r.get("needs_review")]
        show_notices([f"{len(unlabelled)} question(s) marked needs_review skipped: label them, then drop the mark"])
        if not rows:
            raise BadInputError(f"{file}: every question is marked needs_review; label them first")
    n = notes()
    rep = run_eval(rows, lambda q: n.ask(q, k=k, use_llm=False if no_llm else None), k)
    if as_json:
        print_json(rep)
    else:
        render_eval(out, rep, k)


def _register_optional() -> None:
    """Commands living in their own modules (chat, summarize, discord, feedback, mcp)."""
    import importlib

    for mod, name in (
        ("papernotes.bot.chat", "chat"),
        ("papernotes.bot.summarize_cmd", "summarize"),
        ("papernotes.bot.discord_cmd", "discord"),
        ("papernotes.bot.feedback_cmd", "feedback"),
        ("papernotes.bot.mcp_cmd", "mcp"),
    ):
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name == mod:
                continue
            raise
        app.command(name=name)(getattr(m, name))


_register_optional()


def _quiet_stdout() -> None:
    """Point stdout at the null device so the interpreter's final flush into a closed pipe raises nothing
    (the recipe of the Python docs, "Note on SIGPIPE" in the signal module)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def main() -> None:
    """Console-script entry point: run the app, turning our errors into one line and an exit code."""
    try:
        app(standalone_mode=False)
    except PapernotesError as e:
        err.print(f"error: {e}", markup=False, highlight=False)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        sys.exit(130)
    except BrokenPipeError:  # `papernotes papers | head`: the reader has what it wanted
        _quiet_stdout()
        sys.exit(0)
    except (typer.Exit, SystemExit) as e:
        code = getattr(e, "exit_code", getattr(e, "code", 0))
        sys.exit(code or 0)
    except Exception as e:  # click usage errors and anything unexpected: one line, no traceback
        if hasattr(e, "format_message") and hasattr(e, "exit_code"):  # click/typer usage errors
            err.print(f"error: {e.format_message()}", markup=False, highlight=False)
            sys.exit(e.exit_code)
        if type(e).__name__ == "Abort":
            err.print("aborted", markup=False)
            sys.exit(1)
        err.print(
            f"error: unexpected {type(e).__name__}: {e} (run with PAPERNOTES_DEBUG=1 for details)",
            markup=False,
            highlight=False,
        )
        import os

        if os.environ.get("PAPERNOTES_DEBUG"):
            raise
        sys.exit(1)


if __name__ == "__main__":
    main()
