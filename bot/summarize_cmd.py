"""``papernotes summarize VENUE [--topic llm] [--format text|markdown|json] [-o FILE] [--no-llm]``: every
paper of a conference on a topic, grouped by the notes' headings, with citation markers, a Sources list
and an overview (printed by :func:`papernotes.bot.summary_render.render_summary`, or written as
Markdown or JSON by :func:`papernotes.bot.exports.summary_text`).

Registered by ``bot/cli.py`` (which turns :class:`~papernotes.corpus.errors.PapernotesError` into one line).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from papernotes.bot.exports import SummaryFormat, choices
from papernotes.corpus.errors import BadInputError


def summarize(
    venue: Annotated[str, typer.Argument(help="Conference, any spelling: 'MLSys 2026', 'mlsys26', \"OSDI '26\".")],
    topic: Annotated[
        str,
        typer.Option(
            "--topic",
            help="Topic: llm, diffusion, moe, rl, serving, training, rag, agents, compilers, dlrm, "
            "kv-cache, quantization, speculative-decoding, or any word.",
        ),
    ] = "llm",
    fmt: Annotated[
        SummaryFormat,
        typer.Option(
            "--format",
            parser=choices(SummaryFormat),
            help="text (the terminal view), markdown or json (the --json object).",
        ),
    ] = SummaryFormat.text,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the summary to this file (Markdown unless --format json)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="The same as --format json.")] = False,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Build the overview without a model even if one is configured.")
    ] = False,
) -> None:
    """Summarize a conference's papers on a topic: complete, grouped, cited."""
    from papernotes.bot.cli import err, out, settings
    from papernotes.bot.exports import summary_text
    from papernotes.bot.summary_render import render_summary
    from papernotes.retrieval.summarize import summarize as run
    from papernotes.retrieval.summarize.results import plural

    fmt = SummaryFormat.json if as_json else fmt
    if output is not None and fmt == SummaryFormat.text:
        fmt = SummaryFormat.markdown
    s = settings()
    use_llm = False if no_llm else None
    if fmt == SummaryFormat.json or not (s.llm_enabled and not no_llm):
        result = run(s, venue, topic, use_llm=use_llm)
    else:
        with err.status("summarizing with the model…") as status:

            def progress(stage: str, done: int, total: int) -> None:
                status.update(f"summarizing with the model: {stage} call {done} of ~{total}")

            result = run(s, venue, topic, use_llm=use_llm, progress=progress)
    if fmt == SummaryFormat.text:
        render_summary(out, result)
        return
    text = summary_text(result, fmt)
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as e:
        raise BadInputError(f"cannot write {output}: {e.strerror or e}") from None
    err.print(f"wrote {output} ({fmt.value}, {plural(result.paper_count, 'paper')})", markup=False, highlight=False)
