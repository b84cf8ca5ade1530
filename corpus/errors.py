"""The project's exception hierarchy: the base class and the errors of reading notes (the retrieval layer's
own errors are in :mod:`papernotes.retrieval.errors`).

Every error a user can cause or meet derives from :class:`PapernotesError`, whose message is written for
the user. The edges (CLI, Discord bot) turn these into one line / a short ephemeral reply; nothing else
shows a traceback.
"""

from __future__ import annotations


class PapernotesError(Exception):
    """Base class: ``str(err)`` is a complete, user-facing, one-line message."""

    exit_code: int = 1


class BadSourceError(PapernotesError):
    """A source path or URL does not exist, is empty, or cannot be read/cloned."""

    exit_code = 2


class BadInputError(PapernotesError):
    """A question, venue, flag value or eval file the user gave is unusable."""

    exit_code = 2
