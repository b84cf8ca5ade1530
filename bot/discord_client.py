"""The Discord client: a :class:`commands.Bot` subclass that loads the notes once in ``setup_hook``,
adds the slash commands (:mod:`~papernotes.bot.discord_commands`) and the message questions
(:mod:`~papernotes.bot.discord_threads`), and runs the blocking retrieval work off the event loop.

Hygiene (Discord limits from https://discord.com/developers/docs): nothing the notes or a model wrote
can ping anyone (``AllowedMentions.none()`` on the client), blocking work runs in worker threads under
a cap of ``discord_max_concurrent`` at once and gives up after ``discord_answer_timeout_s`` (well
before the 15-minute life of an interaction token), and the notes are reopened after an ingest
(:class:`~papernotes.bot.notes_reload.NotesIndex`).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from collections.abc import Callable
from typing import Any, TextIO, TypeVar

import aiohttp
import discord
from discord.ext import commands, tasks

from papernotes.bot.discord_commands import NotesCommands, NotesTree
from papernotes.bot.discord_feedback import ReactionFeedback
from papernotes.bot.discord_format import DAILY_CAP_NOTE
from papernotes.bot.discord_threads import MessageQuestions
from papernotes.bot.notes_reload import NotesIndex
from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.retrieval.answer import Answer
from papernotes.retrieval.feedback import FeedbackStore
from papernotes.retrieval.refresh import RefreshOutcome, refresh_once
from papernotes.retrieval.service import Notes
from papernotes.retrieval.settings import Settings
from papernotes.retrieval.usage import DailyCap

log = logging.getLogger("papernotes.discord")
T = TypeVar("T")


class PaperBot(commands.Bot):
    """The papernotes bot.

    Parameters
    ----------
    settings
        The ``discord_*`` settings (limits, cooldown, timeout, guild) and where the index lives.
    notes
        Notes already loaded (tests, or to share one loaded index); otherwise ``setup_hook`` loads them.
    **kwargs
        Passed on to :class:`discord.ext.commands.Bot`.

    Attributes
    ----------
    index : NotesIndex
        The loaded notes, reopened after an ingest.
    slots : asyncio.Semaphore
        At most ``discord_max_concurrent`` answers computed at once; the others wait their turn in the
        order they came (an asyncio semaphore wakes its waiters first come, first served).
    cooldown_key : object
        Separates this bot's slash-command cooldown buckets from other instances'.
    feedback : FeedbackStore
        The answers the bot sent (by message id) and the 👍/👎 votes on them (``data_dir/feedback.sqlite``).
    usage : DailyCap
        Model-written answers per user per day (``discord_daily_model_answers``; ``data_dir/usage.sqlite``).
    """

    def __init__(self, settings: Settings, notes: Notes | None = None, refresh_s: float | None = None, **kwargs: Any):
        discord.VoiceClient.warn_nacl = discord.VoiceClient.warn_dave = False  # no voice: no warnings
        intents = discord.Intents.default()
        intents.message_content = True  # follow-ups in the bot's threads need the text (privileged)
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions.none(),
            tree_cls=NotesTree,
            **kwargs,
        )
        self.settings = settings
        self.index = NotesIndex(settings, notes)
        self.slots = asyncio.Semaphore(settings.discord_max_concurrent)
        self.cooldown_key = object()
        self.feedback = FeedbackStore(settings.feedback_db)
        self.usage = DailyCap(settings.usage_db, settings.discord_daily_model_answers)
        self.refresh_s = refresh_s
        self.last_refresh: RefreshOutcome | None = None
        self.refreshes = 0
        self._refresh_loop: tasks.Loop | None = None

    async def setup_hook(self) -> None:
        """Load the notes, add the cogs and sync the slash commands (to ``discord_guild_id`` at once
        when set, else globally).

        Raises
        ------
        IndexMissingError, EmbeddingMismatchError, StoreUnavailableError
            If the notes cannot be loaded (see :meth:`NotesIndex.load`).
        """
        await self.index.load()
        await self.add_cog(NotesCommands(self))
        await self.add_cog(MessageQuestions(self))
        await self.add_cog(ReactionFeedback(self))
        if self.refresh_s:
            self._refresh_loop = tasks.loop(seconds=self.refresh_s)(self.refresh_notes)
            self._refresh_loop.start()
        gid = self.settings.discord_guild_id
        if gid:
            guild = discord.Object(id=gid)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), gid)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (they can take a while to appear)", len(synced))

    async def refresh_notes(self) -> RefreshOutcome:
        """One scheduled refresh (``--refresh``): pull git sources and re-ingest incrementally in a worker
        thread with the loaded embedding model, then reopen the notes if the index changed. Questions keep
        being answered from the previous notes meanwhile; the new ones replace them in one assignment
        (:meth:`NotesIndex.get`). A failed refresh is logged as one line and the previous notes stay.

        Returns
        -------
        RefreshOutcome
            The ingest report, or the one-line error.
        """
        current = self.index.current
        emb = current.retriever.embeddings if current is not None else None
        outcome = await asyncio.to_thread(refresh_once, self.settings, None, emb)
        self.last_refresh = outcome
        self.refreshes += 1
        if outcome.report is not None:
            await self.index.get(wait=True)  # reopened here, not by the next question
            r = outcome.report
            log.info(
                "notes refreshed in %.1f s: %d chunks, %d embedded, %d deleted",
                outcome.seconds,
                r.chunks,
                r.added,
                r.deleted,
            )
        return outcome

    async def close(self) -> None:
        """Stop the refresh schedule (an ingest already running finishes), then close the client."""
        if self._refresh_loop is not None:
            self._refresh_loop.cancel()
        await super().close()

    async def on_ready(self) -> None:
        log.info("logged in as %s (id %s) in %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds))

    async def on_message(self, message: discord.Message) -> None:
        """No prefix commands: questions in messages are handled by :class:`MessageQuestions`."""
        return

    async def answer(self, user_id: int, question: str, **kw: Any) -> Answer:
        """Answer ``question`` for ``user_id`` off the event loop (:meth:`compute`), with a model only
        while the user is under the daily cap (:class:`~papernotes.retrieval.usage.DailyCap`); past
        it the answer is extractive with :data:`~papernotes.bot.discord_format.DAILY_CAP_NOTE`.

        Parameters
        ----------
        user_id
            Who asks (their count is kept under a hash).
        question
            The question as typed.
        **kw
            Passed on to :meth:`Notes.ask <papernotes.retrieval.service.Notes.ask>` (``filters``,
            ``history``).

        Returns
        -------
        Answer
            The answer.

        Raises
        ------
        TimeoutError, PapernotesError
            As :meth:`compute` and ``Notes.ask``.
        """
        capped = False
        if self.settings.llm_enabled:
            capped = not await asyncio.to_thread(self.usage.take, user_id)
        a = await self.compute(lambda n: n.ask(question, use_llm=False if capped else None, **kw))
        if capped:
            note = DAILY_CAP_NOTE.format(n=self.settings.discord_daily_model_answers)
            a.note = f"{a.note}; {note}" if a.note else note
        return a

    async def remember(self, a: Answer, messages: list[discord.Message], place: str) -> None:
        """Record an answer shown in ``messages`` for 👍/👎 feedback (a failure is logged, not raised)."""
        if not messages or a.clarify:
            return
        try:
            await asyncio.to_thread(self.feedback.record_answer, a, [m.id for m in messages], place)
        except Exception as e:  # feedback is never worth failing an answer
            log.warning("could not record the answer for feedback: %s", e)

    async def compute(self, fn: Callable[[Notes], T]) -> T:
        """Run ``fn(notes)`` in a worker thread, at most ``discord_max_concurrent`` at once.

        Parameters
        ----------
        fn
            Blocking work on the current notes (reopened first if an ingest finished).

        Returns
        -------
        T
            What ``fn`` returns.

        Raises
        ------
        TimeoutError
            After ``discord_answer_timeout_s`` seconds, waiting for a slot included (the worker
            finishes in the background and only then frees its slot).
        Exception
            Whatever ``fn`` raises.
        """
        slots = self.slots

        async def go() -> T:
            notes = await self.index.get()
            await slots.acquire()
            try:
                task = asyncio.ensure_future(asyncio.to_thread(fn, notes))
            except BaseException:
                slots.release()
                raise
            task.add_done_callback(self._slot_done)
            return await asyncio.shield(task)

        return await asyncio.wait_for(go(), self.settings.discord_answer_timeout_s)

    def _slot_done(self, task: asyncio.Future) -> None:
        self.slots.release()
        if not task.cancelled() and task.exception() is not None:
            log.debug("worker finished with %s", type(task.exception()).__name__)


def run_bot(settings: Settings, notes: Notes | None = None, refresh_s: float | None = None) -> None:
    """Run the bot until interrupted (blocking). Uses ``settings.discord_token``.

    Parameters
    ----------
    settings
        With ``discord_token`` set.
    notes
        Notes already loaded; None to load them at startup.
    refresh_s
        Seconds between scheduled refreshes of ``settings.sources`` (:meth:`PaperBot.refresh_notes`);
        None for none.

    Raises
    ------
    BadInputError
        If no token is set, or Discord rejects it.
    PapernotesError
        If the Message Content intent is not enabled for the application, Discord cannot be reached,
        or the notes cannot be loaded (IndexMissingError …).
    """
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        raise BadInputError(
            "no Discord bot token: set DISCORD_TOKEN in the environment or in .env "
            "(Developer Portal › your application › Bot › Reset Token)"
        )
    token = settings.discord_token.get_secret_value().strip()
    if not logging.getLogger().handlers:  # keep an application's (or pytest's) logging as it is
        setup_logging(sys.stderr)

    async def main() -> None:
        async with PaperBot(settings, notes, refresh_s=refresh_s) as bot:
            await bot.start(token)

    try:
        asyncio.run(main())
    except (discord.LoginFailure, discord.PrivilegedIntentsRequired, discord.HTTPException) as e:
        raise startup_error(e) from None
    except aiohttp.ClientError as e:
        raise PapernotesError(f"cannot reach Discord ({type(e).__name__}: {e}); check the network") from None


#: The log line format when the log is not a terminal (discord.py's own plain format).
LOG_FORMAT = "[{asctime}] [{levelname:<8}] {name}: {message}"


def setup_logging(stream: TextIO) -> None:
    """Log INFO and up to ``stream`` through discord.py's ``setup_logging``: in colour only when
    ``stream`` is a terminal, plain lines otherwise. (discord.py alone also colours a file or pipe
    inside a container, so a log redirected to a file would carry ANSI codes.)"""
    handler = logging.StreamHandler(stream)
    if stream.isatty():
        discord.utils.setup_logging(handler=handler, level=logging.INFO)
    else:
        plain = logging.Formatter(LOG_FORMAT, "%Y-%m-%d %H:%M:%S", style="{")
        discord.utils.setup_logging(handler=handler, formatter=plain, level=logging.INFO)


def startup_error(e: discord.DiscordException) -> PapernotesError:
    """The one-line error for a failure to start.

    Parameters
    ----------
    e
        What discord.py raised while logging in or connecting.

    Returns
    -------
    PapernotesError
        A :class:`BadInputError` for a rejected token (``LoginFailure``); a ``PapernotesError`` naming
        the Message Content intent (``PrivilegedIntentsRequired``), or the HTTP status of another
        refused request.
    """
    if isinstance(e, discord.LoginFailure):
        return BadInputError(
            "Discord rejected the bot token (DISCORD_TOKEN): copy it again from the "
            "Developer Portal › your application › Bot › Reset Token"
        )
    if isinstance(e, discord.PrivilegedIntentsRequired):
        return PapernotesError(
            "the bot needs the Message Content intent: enable it in the Developer "
            "Portal › your application › Bot › Privileged Gateway Intents"
        )
    status = getattr(e, "status", "?")
    return PapernotesError(
        f"Discord refused a request at startup (HTTP {status}); check the token and "
        "the bot's invite scopes (bot, applications.commands)"
    )
