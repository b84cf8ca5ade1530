"""``papernotes feedback``: the 👍/👎 votes on answers (Discord reactions, ``papernotes chat``'s
``/bad`` and ``/good``), listed, or exported as ``papernotes eval`` JSONL with ``--export``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from papernotes.corpus.errors import BadInputError


def feedback(
    export: Annotated[
        Path | None, typer.Option("--export", help="Write the votes as eval JSONL (one line per answer) to this file.")
    ] = None,
    bad: Annotated[bool, typer.Option("--bad", help="Only 👎 votes.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON list instead of text.")] = False,
) -> None:
    """List feedback on answers (👍/👎), or export it as eval questions."""
    from rich.table import Table

    from papernotes.bot.cli import out, print_json, settings
    from papernotes.retrieval.feedback import FeedbackStore

    store = FeedbackStore(settings().feedback_db)
    vote = -1 if bad else None
    if export is not None:
        try:
            n = store.export_eval(export, vote)
        except OSError as e:
            raise BadInputError(f"cannot write {export}: {e.strerror or e}") from None
        out.print(f"{n} eval line{'' if n == 1 else 's'} written to {export}", markup=False, highlight=False)
        return
    rows = store.feedback(vote)
    if as_json:
        print_json([f.as_dict() for f in rows])
        return
    if not rows:
        out.print("no feedback yet (react 👍/👎 to the bot's answers, or /bad in papernotes chat)")
        return
    t = Table("vote", "question", "answer", "where")
    for f in rows:
        answer = " ".join(f.answer.split())
        t.add_row("👍" if f.vote > 0 else "👎", f.question, answer[:160] + ("…" if len(answer) > 160 else ""), f.place)
    out.print(t)
    out.print(f"{len(rows)} vote{'' if len(rows) == 1 else 's'}")
