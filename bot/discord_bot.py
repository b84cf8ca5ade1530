"""The Discord bot: a :class:`commands.Bot` subclass that loads the notes once in ``setup_hook`` and
a cog with ``/ask``, ``/summarize``, ``/papers``, ``/help``, plus questions by mention or DM (a
channel mention opens a thread; later messages in that thread are follow-ups with the thread as
conversation history).

Hygiene (Discord limits from https://discord.com/developers/docs): slash commands are deferred at
once (the interaction token lives 15 minutes; ``discord_answer_timeout_s`` gives up well before),
every message fits ``discord_max_chars``, nothing the notes or a model wrote can ping anyone
(``AllowedMentions.none()`` on the client), blocking work runs in worker threads under a cap of
``discord_max_concurrent`` at once, per-user cooldowns, and errors become one short message while
the details go to the log.

Index access: the bot only reads. Before each question it checks the BM25 ``chunks.json`` mtime
(written by every ingest); when it changed and no ingest holds the write lock, the notes are
reopened (see :class:`NotesIndex`).
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import re
from collections.abc import Callable
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands
from discord.ext import commands

from papernotes.bot.messages import (
    MAX_CONTENT,
    answer_body,
    bracket_urls,
    clip,
    format_answer,
    list_embed,
    split_message,
)
from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.retrieval.settings import Settings

log = logging.getLogger("papernotes.discord")
T = TypeVar("T")

#: User-facing texts (short; the details go to the log).
TIMEOUT_TEXT = (
    "⏳ Sorry, that took too long (over {s:g} s): the notes or the model are busy. "
    "Please try again in a moment, or ask a narrower question."
)
GENERIC_ERROR = "❌ Something went wrong while answering; the bot's log has the details. Please try again."
COOLDOWN_TEXT = "⏳ Easy there: you can ask again in {s:.0f} s."
EMPTY_MENTION = "Ask me something about the reading notes, e.g. `@{name} Which papers study KV caches?`"
ERROR_EMOJI = "❌"

HELP_TEXT = (
    "I answer questions from the research-paper reading notes, with numbered sources.\n\n"
    "**/ask** `question` `[venue]` — an answer with citations; `venue` narrows to one conference "
    "(e.g. `OSDI 2026`).\n"
    "**/summarize** `venue` `[topic]` — an overview of a conference's papers on a topic (default: LLM).\n"
    "**/papers** `venue` `[topic]` — the papers of a conference in the notes.\n"
    "**Mention me** with a question in a channel: I answer in a new thread, and everything you write "
    "in that thread is a follow-up (I remember the thread's earlier questions).\n"
    "**DM me** a question to ask privately.\n\n"
    "When the notes don't cover something I say so rather than guess."
)


# ----------------------------------------------------------------------------------------------
# index access
# ----------------------------------------------------------------------------------------------


def writer_active(settings: Settings) -> bool:
    """True while an ingest holds the data dir's write lock (``data_dir/write.lock``, an ``flock``
    taken by :func:`~papernotes.retrieval.store.write_lock`). Probes with a non-blocking shared lock released at
    once, so a starting ingest is never held up for more than an instant."""
    path = settings.data_dir / "write.lock"
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def forget_chroma_client(settings: Settings) -> None:
    """Drop chromadb's cached client system for the embedded store at ``settings.chroma_dir`` so the
    next ``PersistentClient`` reads the store afresh. chromadb caches one system per path
    (``SharedSystemClient``; key = the path string, as :func:`~papernotes.retrieval.store.make_client` passes
    it); objects made from the old one keep working. Falls back to the public
    ``clear_system_cache()`` (all paths) if that cache is not where it is expected."""
    from chromadb.api.shared_system_client import SharedSystemClient

    systems = getattr(SharedSystemClient, "_identifier_to_system", None)
    counts = getattr(SharedSystemClient, "_identifier_to_refcount", None)
    if isinstance(systems, dict) and isinstance(counts, dict):
        key = str(settings.chroma_dir)
        systems.pop(key, None)
        counts.pop(key, None)
    else:
        SharedSystemClient.clear_system_cache()


class NotesIndex:
    """The loaded :class:`~papernotes.retrieval.service.Notes`, reopened after an ingest.

    ``await get()`` returns the current notes. It compares the mtime of ``bm25_dir/chunks.json``
    (rewritten at the end of every ingest) with the one seen at load; when it changed and no ingest
    is running (:func:`writer_active`), the notes are rebuilt in a worker thread, reusing the loaded
    embedding model. With the embedded Chroma store, chromadb's per-path client cache is cleared
    first, because a cached client keeps serving the vectors it loaded before the ingest; questions
    already running keep their old ``Notes`` object to the end. A failed reload is logged and the
    old notes stay in use.
    """

    def __init__(self, settings: Settings, notes=None):
        self.settings = settings
        self._notes = notes
        self._seen = self._stamp() if notes is not None else None
        self._lock = asyncio.Lock()
        self.reloads = 0

    @property
    def current(self):
        """The notes loaded now (None before :meth:`load`), without checking for an ingest."""
        return self._notes

    @property
    def chunks_file(self):
        return self.settings.bm25_dir / "chunks.json"

    def _stamp(self) -> int | None:
        try:
            return self.chunks_file.stat().st_mtime_ns
        except OSError:
            return None

    def _open(self, old=None):
        """Build a fresh Notes (worker thread). Returns ``(notes, stamp)``."""
        from papernotes.retrieval.search import HybridRetriever
        from papernotes.retrieval.service import Notes

        stamp = self._stamp()
        if old is not None and not self.settings.chroma_url:
            forget_chroma_client(self.settings)
        emb = old.retriever.embeddings if old is not None else None
        return Notes(self.settings, retriever=HybridRetriever.from_settings(self.settings, embeddings=emb)), stamp

    async def load(self):
        """Load the notes if not loaded yet (raises IndexMissingError, EmbeddingMismatchError …)."""
        async with self._lock:
            if self._notes is None:
                self._notes, self._seen = await asyncio.to_thread(self._open)
        return self._notes

    def stale(self) -> bool:
        """True when an ingest finished since the notes were loaded."""
        return self._stamp() != self._seen and not writer_active(self.settings)

    async def get(self):
        """The current notes, reopened first if an ingest finished since they were loaded."""
        if self._notes is None:
            return await self.load()
        if self.stale():
            async with self._lock:
                if self.stale():
                    stamp = self._stamp()
                    try:
                        self._notes, self._seen = await asyncio.to_thread(self._open, self._notes)
                        self.reloads += 1
                        log.info("index changed on disk; notes reloaded")
                    except Exception as e:
                        self._seen = stamp  # do not retry until the index changes again
                        log.error(
                            "could not reload the notes after an ingest (%s: %s); keeping the previous ones",
                            type(e).__name__,
                            e,
                        )
        return self._notes


# ----------------------------------------------------------------------------------------------
# the bot
# ----------------------------------------------------------------------------------------------


class NotesTree(app_commands.CommandTree):
    """Command tree whose error handler answers with one short message (see :func:`send_error`)."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.CommandOnCooldown):
            text = COOLDOWN_TEXT.format(s=max(1.0, error.retry_after))
        elif isinstance(error, app_commands.CheckFailure):
            text = "You can't use this command here."
        else:
            orig = getattr(error, "original", error)
            if isinstance(orig, PapernotesError):
                text = f"❌ {orig}"
            else:
                cmd = interaction.command.qualified_name if interaction.command else "?"
                log.error("error in /%s (user %s)", cmd, interaction.user.id, exc_info=orig)
                text = GENERIC_ERROR
        await send_error(interaction, text)


class PaperBot(commands.Bot):
    """The papernotes bot. ``notes`` may be given (tests, or to share one loaded index); otherwise
    ``setup_hook`` loads ``Notes(settings)``."""

    def __init__(self, settings: Settings, notes=None, **kwargs: Any):
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
        self.slots: asyncio.Semaphore | None = None
        self.cooldown_key = object()  # separates this bot's cooldown buckets from other instances'
        self._msg_cooldowns: dict[int, app_commands.Cooldown] = {}

    async def setup_hook(self) -> None:
        self.slots = asyncio.Semaphore(self.settings.discord_max_concurrent)
        await self.index.load()
        await self.add_cog(NotesCog(self))
        gid = self.settings.discord_guild_id
        if gid:
            guild = discord.Object(id=gid)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), gid)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands (they can take a while to appear)", len(synced))

    async def on_ready(self) -> None:
        log.info("logged in as %s (id %s) in %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds))

    async def on_message(self, message: discord.Message) -> None:
        """No prefix commands: questions in messages are handled by :class:`NotesCog`."""
        return

    async def compute(self, fn: Callable[[Any], T]) -> T:
        """Run ``fn(notes)`` in a worker thread, at most ``discord_max_concurrent`` at once, giving
        up after ``discord_answer_timeout_s`` seconds (waiting for a slot included).

        Raises TimeoutError on timeout (the worker finishes in the background and only then frees
        its slot), and whatever ``fn`` raises.
        """
        assert self.slots is not None, "setup_hook has not run"

        async def go() -> T:
            notes = await self.index.get()
            await self.slots.acquire()
            try:
                task = asyncio.ensure_future(asyncio.to_thread(fn, notes))
            except BaseException:
                self.slots.release()
                raise
            task.add_done_callback(self._slot_done)
            return await asyncio.shield(task)

        return await asyncio.wait_for(go(), self.settings.discord_answer_timeout_s)

    def _slot_done(self, task: asyncio.Future) -> None:
        assert self.slots is not None
        self.slots.release()
        if not task.cancelled() and task.exception() is not None:
            log.debug("worker finished with %s", type(task.exception()).__name__)

    def message_cooldown(self, user_id: int) -> float | None:
        """Seconds the user must wait before asking by message again, or None (and count this one)."""
        per = self.settings.discord_cooldown_s
        if per <= 0:
            return None
        now = discord.utils.utcnow().timestamp()
        for k in [k for k, v in self._msg_cooldowns.items() if v.get_tokens(now) >= v.rate]:
            del self._msg_cooldowns[k]  # full buckets: nothing to remember
        bucket = self._msg_cooldowns.setdefault(user_id, app_commands.Cooldown(1, per))
        return bucket.update_rate_limit(now)


def _cooldown(interaction: discord.Interaction) -> app_commands.Cooldown | None:
    per = interaction.client.settings.discord_cooldown_s  # type: ignore[attr-defined]
    return app_commands.Cooldown(1, per) if per > 0 else None


def _cooldown_key(interaction: discord.Interaction):
    return (getattr(interaction.client, "cooldown_key", None), interaction.user.id)


async def send_error(interaction: discord.Interaction, text: str) -> None:
    """One short error message: ephemeral (only the user sees it) when nothing was sent yet; after
    the public defer it replaces the "thinking…" message (Discord fixes a deferred response's
    visibility at the defer, and the first follow-up always completes that message)."""
    text = clip(text, MAX_CONTENT)
    try:
        if not interaction.response.is_done():
            await interaction.response.send_message(text, ephemeral=True)
        else:
            await interaction.edit_original_response(content=text, embed=None)
    except discord.HTTPException as e:
        log.warning("could not send an error message to user %s: %s", interaction.user.id, e)


def error_text(e: BaseException, settings: Settings) -> str:
    """The short user-facing text for an exception raised while answering."""
    if isinstance(e, TimeoutError):
        return TIMEOUT_TEXT.format(s=settings.discord_answer_timeout_s)
    if isinstance(e, PapernotesError):
        return f"❌ {e}"
    return GENERIC_ERROR


def _venue_filter(venue: str | None):
    from papernotes.retrieval.filters import normalize_filters

    return normalize_filters(venue) if venue else None


def thread_name(question: str) -> str:
    """A thread title from a question (Discord allows 1–100 characters)."""
    q = re.sub(r"\s+", " ", question).strip() or "question"
    return q if len(q) <= 90 else q[:89].rstrip() + "…"


class NotesCog(commands.Cog):
    """Slash commands and message questions."""

    def __init__(self, bot: PaperBot):
        self.bot = bot

    # --- helpers --------------------------------------------------------------------------------
    @property
    def limit(self) -> int:
        return self.bot.settings.discord_max_chars

    async def _followup_text(self, interaction: discord.Interaction, text: str) -> None:
        for part in split_message(text, self.limit):
            await interaction.followup.send(part, suppress_embeds=True)

    async def _run_interaction(self, interaction: discord.Interaction, what: str, fn: Callable[[Any], T]) -> T | None:
        """Defer (thinking…), compute ``fn(notes)`` off the loop; on failure replace the "thinking…"
        message with one short line and return None."""
        await interaction.response.defer(thinking=True)
        log.info("/%s from user %s in %s", what, interaction.user.id, interaction.channel_id)
        try:
            return await self.bot.compute(fn)
        except Exception as e:
            if not isinstance(e, (TimeoutError, PapernotesError)):
                log.error("/%s failed (user %s)", what, interaction.user.id, exc_info=e)
            else:
                log.info("/%s: %s", what, type(e).__name__)
            await send_error(interaction, error_text(e, self.bot.settings))
            return None

    async def venue_autocomplete(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Venues of the catalog containing what was typed (at most 25, Discord's limit)."""
        notes = self.bot.index.current
        if notes is None:
            return []
        try:
            venues = sorted({r.venue for r in notes.catalog if r.venue})
        except Exception:
            return []
        cur = current.lower().strip()
        return [app_commands.Choice(name=v, value=v) for v in venues if cur in v.lower()][:25]

    # --- slash commands -------------------------------------------------------------------------
    @app_commands.command(name="ask", description="Ask the reading notes a question (answer with sources).")
    @app_commands.describe(question="Your question", venue="Only this venue, e.g. 'OSDI 2026'")
    @app_commands.checks.dynamic_cooldown(_cooldown, key=_cooldown_key)
    async def ask(
        self, interaction: discord.Interaction, question: app_commands.Range[str, 1, 2000], venue: str | None = None
    ) -> None:
        from papernotes.retrieval.answer import check_question

        try:
            check_question(question)
            filters = _venue_filter(venue)
        except BadInputError as e:
            await send_error(interaction, f"❌ {e}")
            return
        a = await self._run_interaction(interaction, "ask", lambda n: n.ask(question, filters=filters))
        if a is not None:
            await self._followup_text(interaction, format_answer(a))

    ask.autocomplete("venue")(venue_autocomplete)

    @app_commands.command(name="summarize", description="Overview of a conference's papers on a topic.")
    @app_commands.describe(venue="The venue, e.g. 'OSDI 2026'", topic="Topic (default: LLM)")
    @app_commands.checks.dynamic_cooldown(_cooldown, key=_cooldown_key)
    async def summarize(self, interaction: discord.Interaction, venue: str, topic: str | None = None) -> None:
        try:
            _venue_filter(venue)
        except BadInputError as e:
            await send_error(interaction, f"❌ {e}")
            return
        settings = self.bot.settings

        def work(_notes):
            from papernotes.retrieval.summarize import summarize as run_summary

            return run_summary(settings, venue, topic=topic or "llm")

        s = await self._run_interaction(interaction, "summarize", work)
        if s is not None:
            await self._followup_text(interaction, bracket_urls(s.to_markdown()))

    summarize.autocomplete("venue")(venue_autocomplete)

    @app_commands.command(name="papers", description="The papers of a venue in the notes (short list).")
    @app_commands.describe(venue="The venue, e.g. 'OSDI 2026'", topic="Only papers whose topic contains this")
    @app_commands.checks.dynamic_cooldown(_cooldown, key=_cooldown_key)
    async def papers(self, interaction: discord.Interaction, venue: str, topic: str | None = None) -> None:
        try:
            f = _venue_filter(venue)
        except BadInputError as e:
            await send_error(interaction, f"❌ {e}")
            return
        v = f.venue if f else venue
        recs = await self._run_interaction(interaction, "papers", lambda n: n.papers(venue=v, topic=topic))
        if recs is None:
            return
        what = f"{recs[0].venue if recs and recs[0].venue else v}" + (f" · {topic}" if topic else "")
        if not recs:
            await interaction.followup.send(f"No papers for {what} in the notes.")
            return
        lines = []
        for r in recs:
            t = discord.utils.escape_markdown(r.title)
            t = f"[{t}]({r.links.get('paper') or next(iter(r.links.values()))})" if r.links else f"**{t}**"
            aff = f" — {discord.utils.escape_markdown(', '.join(r.affiliations[:3]))}" if r.affiliations else ""
            lines.append(f"• {t}{aff}")
        embed = list_embed(f"Papers — {what}", lines, footer=f"{len(recs)} papers in the notes")
        await interaction.followup.send(embed=embed)

    papers.autocomplete("venue")(venue_autocomplete)

    @app_commands.command(name="help", description="What this bot does and how to ask.")
    async def help(self, interaction: discord.Interaction) -> None:
        embed = discord.Embed(title="papernotes", description=HELP_TEXT)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    # --- questions in messages ------------------------------------------------------------------
    def _trigger(self, message: discord.Message) -> str | None:
        """``"dm"``, ``"thread"`` (a message in a thread the bot opened), ``"mention"``, or None."""
        me = self.bot.user
        if me is None:
            return None
        if message.guild is None:
            return "dm"
        ch = message.channel
        if isinstance(ch, discord.Thread) and ch.owner_id == me.id:
            return "thread"
        role = message.guild.self_role  # the bot's own role: mentioning it counts as mentioning the bot
        if me in message.mentions or (role is not None and role in message.role_mentions):
            return "mention"
        return None

    def _strip(self, message: discord.Message) -> str:
        """The question: the message text without the bot's user or role mention."""
        content = message.content
        me = self.bot.user
        if me is not None:
            content = re.sub(rf"<@!?{me.id}>", " ", content)
        role = message.guild.self_role if message.guild is not None else None
        if role is not None:
            content = content.replace(role.mention, " ")
        return re.sub(r"\s+", " ", content).strip()

    async def _history(self, message: discord.Message, max_turns: int = 4) -> list[tuple[str, str]]:
        """Earlier (question, answer) turns of the bot's thread the message is in: the thread's
        starter message, then its messages before this one (users' messages are questions, the
        bot's following messages their answer)."""
        thread = message.channel
        assert isinstance(thread, discord.Thread)
        me = self.bot.user
        assert me is not None
        msgs = [m async for m in thread.history(limit=40, before=message, oldest_first=False)]
        msgs.reverse()
        starter = thread.starter_message
        if starter is None and thread.parent is not None:
            try:
                starter = await thread.parent.fetch_message(thread.id)
            except discord.HTTPException:
                starter = None
        seq = ([starter] if starter is not None else []) + msgs
        turns: list[tuple[str, str]] = []
        q: str | None = None
        ans: list[str] = []
        for m in seq:
            if m.author.id == me.id:
                if q is not None:
                    ans.append(m.content)
            elif not m.author.bot:
                if q is not None and ans:
                    turns.append((q, answer_body("\n".join(ans))[:1500]))
                q, ans = self._strip(m), []
        if q is not None and ans:
            turns.append((q, answer_body("\n".join(ans))[:1500]))
        return turns[-max_turns:]

    async def _fail(self, message: discord.Message, text: str) -> None:
        """React with ❌ and reply with one short line."""
        text = clip(text, self.limit)
        try:
            await message.add_reaction(ERROR_EMOJI)
        except discord.HTTPException:
            pass
        try:
            await message.reply(text, mention_author=False)
        except discord.HTTPException as e:
            log.warning("could not reply with an error in channel %s: %s", message.channel.id, e)

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot or message.type not in (discord.MessageType.default, discord.MessageType.reply):
            return
        kind = self._trigger(message)
        if kind is None:
            return
        question = self._strip(message)
        if not question or not re.search(r"\w", question):
            if kind != "thread":
                await message.reply(
                    EMPTY_MENTION.format(name=self.bot.user.name if self.bot.user else "bot"), mention_author=False
                )
            return
        wait = self.bot.message_cooldown(message.author.id)
        if wait is not None:
            await message.reply(COOLDOWN_TEXT.format(s=max(1.0, wait)), mention_author=False)
            return
        log.info("%s question from user %s in %s", kind, message.author.id, message.channel.id)
        try:
            async with message.channel.typing():
                history = await self._history(message) if kind == "thread" else None
                a = await self.bot.compute(lambda n: n.ask(question, history=history))
        except Exception as e:
            if not isinstance(e, (TimeoutError, PapernotesError)):
                log.error("message question failed (user %s)", message.author.id, exc_info=e)
            await self._fail(message, error_text(e, self.bot.settings))
            return
        parts = split_message(format_answer(a), self.limit)
        target: discord.abc.Messageable = message.channel
        reply_to: discord.Message | None = message
        if kind == "mention" and isinstance(message.channel, discord.TextChannel):
            try:
                target = await message.create_thread(name=thread_name(question), auto_archive_duration=1440)
                reply_to = None
            except discord.HTTPException as e:
                log.info("could not open a thread in %s (%s); replying in the channel", message.channel.id, e)
        try:
            for i, part in enumerate(parts):
                if i == 0 and reply_to is not None:
                    await reply_to.reply(part, mention_author=False, suppress_embeds=True)
                else:
                    await target.send(part, suppress_embeds=True)
        except discord.HTTPException as e:
            log.warning("could not send an answer in %s: %s", getattr(target, "id", "?"), e)
            await self._fail(message, GENERIC_ERROR)


def run_bot(settings: Settings, notes=None) -> None:
    """Run the bot until interrupted (blocking). Uses ``settings.discord_token``.

    Raises
    ------
    BadInputError
        if no token is set, or Discord rejects it.
    PapernotesError
        if the Message Content intent is not enabled for the application, or the notes cannot be
        loaded (IndexMissingError …).
    """
    if settings.discord_token is None or not settings.discord_token.get_secret_value().strip():
        raise BadInputError(
            "no Discord bot token: set DISCORD_TOKEN in the environment or in .env "
            "(Developer Portal › your application › Bot › Reset Token)"
        )
    token = settings.discord_token.get_secret_value().strip()
    if not logging.getLogger().handlers:  # keep an application's (or pytest's) logging as it is
        discord.utils.setup_logging(level=logging.INFO)

    async def main() -> None:
        async with PaperBot(settings, notes) as bot:
            await bot.start(token)

    try:
        asyncio.run(main())
    except (discord.LoginFailure, discord.PrivilegedIntentsRequired, discord.HTTPException) as e:
        raise startup_error(e) from None
    except aiohttp.ClientError as e:
        raise PapernotesError(f"cannot reach Discord ({type(e).__name__}: {e}); check the network") from None


def startup_error(e: discord.DiscordException) -> PapernotesError:
    """The one-line error for a failure to start: a rejected token (LoginFailure → BadInputError),
    the Message Content intent not enabled (PrivilegedIntentsRequired), or another HTTP error."""
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
