"""``papernotes chat``: an interactive session over the notes, with follow-up questions.

Each line is a question; earlier (question, answer) turns are kept so a follow-up ("how was it
evaluated?") is made standalone — by the model when one is configured (one condense call), else by
carrying the previous turn's paper and venue over (:func:`~papernotes.retrieval.service.carry_over`).
Commands: ``/reset`` forgets the conversation, ``/bad`` (``/good``) records feedback on the last answer
(:mod:`~papernotes.retrieval.feedback`; ``papernotes feedback`` lists it), ``/help``, ``/quit`` (or
``/exit``, Ctrl-D, Ctrl-C at the prompt) ends the session. A model's answer is shown once its citations
and links are checked (not streamed), and the standalone question searched for is shown when it differs
from the line typed. Lines are read with :func:`input`, so the session works on a terminal
(with line editing), under pexpect, and with piped stdin.
"""

from __future__ import annotations

import getpass
import uuid
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
    "Commands: /reset (forget the conversation), /bad or /good (feedback on the last answer), /help, "
    "/quit (or Ctrl-D)."
)
COMMANDS = "/reset, /bad, /good, /help, /quit"


class ChatSession:
    """A conversation: a :class:`~papernotes.retrieval.service.Notes`, retrieval options and the turns so far.

    ``use_llm``: None follows the settings, False forces extractive answers.
    """

    def __init__(self, notes, k: int | None = None, use_llm: bool | None = None):
        self.notes = notes
        self.k = k
        self.use_llm = use_llm
        self.history: list[tuple[str, str]] = []
        self.last: Answer | None = None
        self._turn_key = f"chat:{uuid.uuid4().hex}"
        self._turns = 0

    def ask(self, question: str, on_token: Callable[[str], None] | None = None) -> Answer:
        """Answer ``question`` in the context of the earlier turns and remember the turn.

        Raises any :class:`~papernotes.corpus.errors.PapernotesError` of :meth:`Notes.ask` (e.g. BadInputError).
        """
        a = self.notes.ask(question, k=self.k, history=self.history or None, use_llm=self.use_llm, on_token=on_token)
        if not a.clarify:  # a question back is not a turn to refer to
            self.history = (self.history + [(a.question, a.answer)])[-MAX_TURNS:]
        self.last = a
        self._turns += 1
        return a

    def feedback(self, value: int, user: str | None = None) -> bool:
        """Record a vote (+1 good, -1 bad) on the last answer in the data dir's feedback store, as
        ``user`` (default: the login name). Returns False when there is no answer yet."""
        from papernotes.retrieval.feedback import FeedbackStore

        if self.last is None:
            return False
        store = FeedbackStore(self.notes.settings.feedback_db)
        key = f"{self._turn_key}:{self._turns}"
        if store.answer_id(key) is None:
            store.record_answer(self.last, [key], place="chat")
        return store.vote(key, f"chat:{user or getpass.getuser()}", value)

    def reset(self) -> None:
        """Forget the conversation."""
        self.history = []
        self.last = None


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
    import sqlite3
    import sys

    from papernotes.bot.cli import err, notes, out
    from papernotes.bot.render import render_answer

    if sys.stdin.isatty():
        try:
            import readline  # noqa: F401 - line editing and history for input()
        except ImportError:
            pass
    session = ChatSession(notes(), k, False if no_llm else None)
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
            elif cmd in ("/bad", "/good"):
                try:
                    ok = session.feedback(-1 if cmd == "/bad" else 1)
                except (OSError, sqlite3.Error) as e:
                    err.print(f"error: could not record feedback: {e}", markup=False, highlight=False)
                    continue
                if ok:
                    out.print(f"[dim]feedback recorded ({'👎' if cmd == '/bad' else '👍'}); see papernotes feedback[/]")
                else:
                    err.print("error: no answer yet to give feedback on", markup=False)
            elif cmd in ("/help", "/?"):
                out.print(HELP, markup=False)
            else:
                err.print(f"error: unknown command {cmd}; commands are {COMMANDS}", markup=False)
            continue

        try:
            a = session.ask(line)
        except PapernotesError as e:
            err.print(f"error: {e}", markup=False, highlight=False)
            continue
        except KeyboardInterrupt:
            out.print("\n[dim](interrupted)[/]")
            continue
        render_answer(out, a)
        out.print()
