"""``papernotes summarize VENUE [--topic llm] [--json] [--no-llm]``: every paper of a conference on a
topic, grouped by the notes' headings, with citation markers, a Sources list and an overview
(printed by :func:`papernotes.bot.summary_render.render_summary`).

Registered by ``bot/cli.py`` (which turns :class:`~papernotes.corpus.errors.PapernotesError` into one line).
"""

from __future__ import annotations

from typing import Annotated

import typer


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
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object instead of text.")] = False,
    no_llm: Annotated[
        bool, typer.Option("--no-llm", help="Build the overview without a model even if one is configured.")
    ] = False,
) -> None:
    """Summarize a conference's papers on a topic: complete, grouped, cited."""
    from papernotes.bot.cli import err, out, print_json, settings
    from papernotes.bot.summary_render import render_summary
    from papernotes.retrieval.summarize import summarize as run

    s = settings()
    use_llm = False if no_llm else None
    if as_json or not (s.llm_enabled and not no_llm):
        result = run(s, venue, topic, use_llm=use_llm)
    else:
        with err.status("summarizing with the model…") as status:

            def progress(stage: str, done: int, total: int) -> None:
                status.update(f"summarizing with the model: {stage} call {done} of ~{total}")

            result = run(s, venue, topic, use_llm=use_llm, progress=progress)
    if as_json:
        print_json(result.as_dict())
    else:
        render_summary(out, result)
