"""``papernotes chat``: an interactive session over the notes, with follow-up questions.

Each line is a question; earlier (question, answer) turns are kept so a follow-up ("how was it
evaluated?") is made standalone — by the model when one is configured (one condense call), else by
carrying the previous turn's paper and venue over (:func:`~papernotes.retrieval.service.carry_over`).
Commands: ``/reset`` forgets the conversation, ``/help``, ``/quit`` (or ``/exit``, Ctrl-D, Ctrl-C at
the prompt) ends the session. Lines are read with :func:`input`, so the session works on a terminal
(with line editing), under pexpect, and with piped stdin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from papernotes.corpus.errors import PapernotesError

if TYPE_CHECKING:
    from papernotes.retrieval.answer import Answer

#: Turns kept for follow-ups (the condense prompt itself uses the last few).
MAX_TURNS = 8
PROMPT = "you> "
HELP = (
    "Ask a question about your notes. Follow-ups refer to the previous answer. "
    "Commands: /reset (forget the conversation), /help, /quit (or Ctrl-D)."
)


class ChatSession:
    """A conversation: a :class:`~papernotes.retrieval.service.Notes`, retrieval options and the turns so far.

    ``use_llm``: None follows the settings, False forces extractive answers.
    """

    def __init__(self, notes, k: int | None = None, use_llm: bool | None = None):
        self.notes = notes
        self.k = k
        self.use_llm = use_llm
        self.history: list[tuple[str, str]] = []

    def ask(self, question: str, on_token: Callable[[str], None] | None = None) -> Answer:
        """Answer ``question`` in the context of the earlier turns and remember the turn.

        Raises any :class:`~papernotes.corpus.errors.PapernotesError` of :meth:`Notes.ask` (e.g. BadInputError).
        """
        a = self.notes.ask(question, k=self.k, history=self.history or None, use_llm=self.use_llm, on_token=on_token)
        self.history = (self.history + [(a.question, a.answer)])[-MAX_TURNS:]
        return a

    def reset(self) -> None:
        """Forget the conversation."""
        self.history = []


def _read_line() -> str | None:
    """One line from stdin (None at end of input or Ctrl-C)."""
    try:
        return input(PROMPT)
    except (EOFError, KeyboardInterrupt):
        return None


def chat(
    k: Annotated[int | None, typer.Option("--k", min=1, max=50, help="Chunks to retrieve and cite.")] = None,
    no_llm: Annotated[bool, typer.Option("--no-llm", help="Answer extractively even with a model configured.")] = False,
) -> None:
    """Chat with your notes: questions and follow-ups; /reset forgets, /quit or Ctrl-D leaves."""
    import sys

    from papernotes.bot.cli import err, notes, out
    from papernotes.bot.render import render_answer

    if sys.stdin.isatty():
        try:
            import readline  # noqa: F401 - line editing and history for input()
        except ImportError:
            pass
    session = ChatSession(notes(), k, False if no_llm else None)
    streaming = session.notes.settings.llm_enabled and not no_llm
    out.print(f"[dim]{HELP}[/]")
    while True:
        line = _read_line()
        if line is None:
            out.print()
            break
        line = line.strip()
        if not line:
            continue
        if line.startswith("/"):
            cmd = line.split()[0].lower()
            if cmd in ("/quit", "/exit", "/q"):
                break
            if cmd == "/reset":
                session.reset()
                out.print("[dim]conversation cleared[/]")
            elif cmd in ("/help", "/?"):
                out.print(HELP, markup=False)
            else:
                err.print(f"error: unknown command {cmd}; commands are /reset, /help, /quit", markup=False)
            continue

        def stream(tok: str) -> None:
            out.print(tok, end="", markup=False)

        try:
            a = session.ask(line, on_token=stream if streaming else None)
        except PapernotesError as e:
            err.print(f"error: {e}", markup=False, highlight=False)
            continue
        except KeyboardInterrupt:
            out.print("\n[dim](interrupted)[/]")
            continue
        render_answer(out, a, streamed=streaming)
        out.print()
