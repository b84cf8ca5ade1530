"""The bot's slash commands: ``/ask``, ``/summarize``, ``/papers``, ``/help`` (:class:`NotesCommands`),
their per-user cooldowns, and the command tree whose error handler answers with one short line.

Each command that computes is deferred at once (``defer(thinking=True)``; the interaction token lives
15 minutes, https://discord.com/developers/docs/interactions/receiving-and-responding), then answered
with follow-ups that each fit ``discord_max_chars`` — ephemerally in a channel where the bot may not
post. Users the settings do not allow get one polite ephemeral line (:func:`allowed_to_ask`). Errors
become one short ephemeral message while the details go to the log.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import logging
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import discord
from discord import app_commands
from discord.ext import commands

from papernotes.bot.discord_access import NotAllowed, can_attach, can_post, may_ask
from papernotes.bot.discord_format import (
    ATTACHED_TEXT,
    COOLDOWN_TEXT,
    DAILY_CAP_NOTE,
    GENERIC_ERROR,
    MAX_CONTENT,
    MAX_REPLY_MESSAGES,
    NOT_ALLOWED_TEXT,
    bracket_urls,
    clip,
    error_text,
    format_answer,
    freshness_line,
    papers_embed,
    split_message,
)
from papernotes.bot.exports import papers_markdown, summary_text
from papernotes.bot.summary_render import header_lines, summary_markdown
from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.retrieval.answer import Answer
from papernotes.retrieval.filters import Filters, normalize_filters
from papernotes.retrieval.refresh import last_refreshed
from papernotes.retrieval.service import Notes
from papernotes.retrieval.summarize.results import plural

if TYPE_CHECKING:
    from papernotes.bot.discord_client import PaperBot

log = logging.getLogger("papernotes.discord")
T = TypeVar("T")

#: The invite the bot needs (shown by /help and in the README): OAuth2 scopes and bot permissions.
INVITE_SCOPES = ("bot", "applications.commands")
NEEDED_PERMISSIONS = (
    "View Channels",
    "Send Messages",
    "Send Messages in Threads",
    "Create Public Threads",
    "Read Message History",
    "Add Reactions",
    "Embed Links",
    "Attach Files",
)

HELP_TEXT = (
    "I answer questions from the research-paper reading notes, with numbered sources.\n\n"
    "**/ask** `question` `[venue]` — an answer with citations; `venue` narrows to one conference "
    "(e.g. `OSDI 2026`).\n"
    "**/summarize** `venue` `[topic]` — an overview of a conference's papers on a topic (default: LLM).\n"
    "**/papers** `venue` `[topic]` — the papers of a conference in the notes.\n"
    "**Mention me** with a question in a channel: I answer in a new thread, and everything you write "
    "in that thread is a follow-up (I remember the thread's earlier questions).\n"
    "**DM me** a question to ask privately (I remember your earlier DM questions).\n"
    "React 👍 or 👎 to an answer to tell the notes' owner whether it was right.\n\n"
    "When the notes don't cover something I say so rather than guess.\n\n"
    "**Setup** — invite scopes: "
    + ", ".join(f"`{s}`" for s in INVITE_SCOPES)
    + "; permissions: "
    + ", ".join(NEEDED_PERMISSIONS)
    + ". In a channel where I may not post but may open threads, I answer in a thread."
)


async def send_error(interaction: discord.Interaction, text: str) -> None:
    """Answer an interaction with one short error line (clipped to :data:`MAX_CONTENT`), seen only by
    the user.

    Before any response it is an ephemeral response. After an ephemeral defer it replaces the
    "thinking…" message. After a public defer (whose visibility Discord fixed at the defer) the
    "thinking…" message is completed, the error sent as an ephemeral follow-up, and the public message
    deleted. A failure to send is logged, not raised.
    """
    text = clip(text, MAX_CONTENT)
    try:
        if not interaction.response.is_done():
            await interaction.response.send_message(text, ephemeral=True)
        elif interaction.extras.get("ephemeral", False):
            await interaction.edit_original_response(content=text, embed=None)
        else:
            await interaction.edit_original_response(content="…", embed=None)
            await interaction.followup.send(text, ephemeral=True)
            await interaction.delete_original_response()
    except discord.HTTPException as e:
        log.warning("could not send an error message to user %s: %s", interaction.user.id, e)


async def allowed_to_ask(interaction: discord.Interaction[PaperBot]) -> bool:
    """The ``app_commands.check`` of the commands that answer from the notes (see
    :func:`~papernotes.bot.discord_access.may_ask`).

    Raises
    ------
    NotAllowed
        When the user may not ask here (the tree's error handler says so, ephemerally).
    """
    if not await may_ask(interaction.client, interaction.user, interaction.guild, interaction.channel):
        raise NotAllowed("not allowed to ask here")
    return True


class NotesTree(app_commands.CommandTree):
    """Command tree whose error handler answers with one short message (see :func:`send_error`):
    the wait left on a cooldown, the message of a :class:`PapernotesError`, else a generic line with
    the traceback in the log."""

    async def on_error(self, interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
        if isinstance(error, app_commands.CommandOnCooldown):
            text = COOLDOWN_TEXT.format(s=max(1.0, error.retry_after))
        elif isinstance(error, NotAllowed):
            log.info("/%s from user %s: not allowed", getattr(interaction.command, "name", "?"), interaction.user.id)
            text = NOT_ALLOWED_TEXT
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


def _cooldown(interaction: discord.Interaction[PaperBot]) -> app_commands.Cooldown | None:
    """One command per ``discord_cooldown_s`` seconds per user (none when it is 0)."""
    per = interaction.client.settings.discord_cooldown_s
    return app_commands.Cooldown(1, per) if per > 0 else None


def _cooldown_key(interaction: discord.Interaction[PaperBot]) -> tuple[object, int]:
    return (interaction.client.cooldown_key, interaction.user.id)


def file_slug(*parts: str) -> str:
    """A file name stem from ``parts``: lower-case letters and digits joined by ``-`` (``"MLSys 2026",
    "llm"`` → ``"mlsys-2026-llm"``)."""
    return "-".join(w for p in parts for w in re.findall(r"[a-z0-9]+", p.lower())) or "notes"


def _venue_filter(venue: str | None) -> Filters | None:
    """The filter for a venue as typed (None for none).

    Raises
    ------
    BadInputError
        If the venue cannot be read (e.g. ``"the big one"``).
    """
    return normalize_filters(venue) if venue else None


class NotesCommands(commands.Cog):
    """``/ask``, ``/summarize``, ``/papers`` and ``/help``, with venue autocompletion.

    Parameters
    ----------
    bot
        The bot whose notes, settings and worker slots the commands use.
    """

    def __init__(self, bot: PaperBot):
        self.bot = bot

    async def _followup_text(self, interaction: discord.Interaction, text: str) -> list[discord.Message]:
        ephemeral = interaction.extras.get("ephemeral", False)
        sent: list[discord.Message] = []
        for part in split_message(text, self.bot.settings.discord_max_chars):
            sent.append(await interaction.followup.send(part, suppress_embeds=True, ephemeral=ephemeral, wait=True))
        return sent

    def _attach_allowed(self, interaction: discord.Interaction) -> bool:
        """Whether a file may go with the reply here (Attach Files; one warning line in the log when not)."""
        if can_attach(interaction.app_permissions, interaction.guild is None):
            return True
        log.warning(
            "cannot attach files in channel %s (guild %s): /%s sent as messages",
            interaction.channel_id,
            interaction.guild_id,
            getattr(interaction.command, "name", "?"),
        )
        return False

    def _too_long(self, text: str) -> bool:
        """Whether ``text`` would take more than :data:`MAX_REPLY_MESSAGES` messages."""
        return len(split_message(text, self.bot.settings.discord_max_chars)) > MAX_REPLY_MESSAGES

    async def _send_file(
        self, interaction: discord.Interaction, note: str, context: str, markdown: str, name: str, **kw: Any
    ) -> None:
        """One follow-up: ``note`` (saying what is attached), then ``context`` clipped to fit the message,
        with ``markdown`` attached as the file ``name``."""
        limit = self.bot.settings.discord_max_chars
        content = f"{note}\n{clip(context, limit - len(note) - 1)}" if context else clip(note, limit)
        await interaction.followup.send(
            content,
            file=discord.File(io.BytesIO(markdown.encode("utf-8")), filename=name),
            suppress_embeds=True,
            ephemeral=interaction.extras.get("ephemeral", False),
            **kw,
        )

    async def _defer(self, interaction: discord.Interaction) -> None:
        """Defer (thinking…): publicly where the bot may post in the channel, else ephemerally (with
        one warning line in the log)."""
        perms = interaction.app_permissions
        ephemeral = interaction.guild is not None and not can_post(
            perms, isinstance(interaction.channel, discord.Thread)
        )
        if ephemeral:
            log.warning(
                "cannot post in channel %s (guild %s): answering /%s ephemerally",
                interaction.channel_id,
                interaction.guild_id,
                getattr(interaction.command, "name", "?"),
            )
        interaction.extras["ephemeral"] = ephemeral
        await interaction.response.defer(thinking=True, ephemeral=ephemeral)

    async def _run_interaction(
        self, interaction: discord.Interaction, what: str, fn: Callable[[Notes], T] | Callable[[], Awaitable[T]]
    ) -> T | None:
        """Defer (thinking…; ephemerally where the bot may not post), then compute: ``fn(notes)`` off
        the loop, or ``await fn()`` for a coroutine function; on failure send one short ephemeral line
        (:func:`send_error`) and return None."""
        await self._defer(interaction)
        log.info("/%s from user %s in %s", what, interaction.user.id, interaction.channel_id)
        try:
            if inspect.iscoroutinefunction(fn):
                return await fn()
            return await self.bot.compute(fn)  # type: ignore[arg-type]
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
        """Venues of the catalog containing what was typed (at most 25, Discord's limit); none while
        the notes are not loaded or the catalog cannot be read."""
        notes = self.bot.index.current
        if notes is None:
            return []
        try:
            venues = sorted({r.venue for r in notes.catalog if r.venue})
        except Exception:
            return []
        cur = current.lower().strip()
        return [app_commands.Choice(name=v, value=v) for v in venues if cur in v.lower()][:25]

    @app_commands.command(name="ask", description="Ask the reading notes a question (answer with sources).")
    @app_commands.describe(question="Your question", venue="Only this venue, e.g. 'OSDI 2026'")
    @app_commands.check(allowed_to_ask)
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

        async def work() -> Answer:
            return await self.bot.answer(interaction.user.id, question, filters=filters)

        a = await self._run_interaction(interaction, "ask", work)
        if a is not None:
            sent = await self._followup_text(interaction, format_answer(a))
            where = (
                "dm"
                if interaction.guild_id is None
                else f"guild {interaction.guild_id} channel {interaction.channel_id}"
            )
            await self.bot.remember(a, sent, where)

    ask.autocomplete("venue")(venue_autocomplete)

    @app_commands.command(name="summarize", description="Overview of a conference's papers on a topic.")
    @app_commands.describe(venue="The venue, e.g. 'OSDI 2026'", topic="Topic (default: LLM)")
    @app_commands.check(allowed_to_ask)
    @app_commands.checks.dynamic_cooldown(_cooldown, key=_cooldown_key)
    async def summarize(self, interaction: discord.Interaction, venue: str, topic: str | None = None) -> None:
        try:
            _venue_filter(venue)
        except BadInputError as e:
            await send_error(interaction, f"❌ {e}")
            return
        settings = self.bot.settings
        # the overview is model-written too: it counts against the user's daily cap
        capped = settings.llm_enabled and not await asyncio.to_thread(self.bot.usage.take, interaction.user.id)

        def work(_notes: Notes) -> Any:
            from papernotes.retrieval.summarize import summarize as run_summary

            out = run_summary(settings, venue, topic=topic or "llm", use_llm=False if capped else None)
            if capped:
                note = DAILY_CAP_NOTE.format(n=settings.discord_daily_model_answers)
                out.note = f"{out.note}; {note}" if out.note else note
            return out

        s = await self._run_interaction(interaction, "summarize", work)
        if s is None:
            return
        text = bracket_urls(summary_markdown(s))
        if self._too_long(text) and self._attach_allowed(interaction):
            name = f"{file_slug(s.venue, s.topic)}.md"
            note = f"**{s.topic_label} at {s.venue}** — " + ATTACHED_TEXT.format(
                n=plural(s.paper_count, "paper"), name=name
            )
            await self._send_file(interaction, note, "\n".join(header_lines(s)), summary_text(s, "markdown"), name)
        else:
            await self._followup_text(interaction, text)

    summarize.autocomplete("venue")(venue_autocomplete)

    @app_commands.command(name="papers", description="The papers of a venue in the notes (short list).")
    @app_commands.describe(venue="The venue, e.g. 'OSDI 2026'", topic="Only papers whose topic contains this")
    @app_commands.check(allowed_to_ask)
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
        ephemeral = interaction.extras.get("ephemeral", False)
        if not recs:
            await interaction.followup.send(f"No papers for {what} in the notes.", ephemeral=ephemeral)
            return
        embed = papers_embed(recs, what)
        listing = papers_markdown(recs, what)
        if self._too_long(listing) and self._attach_allowed(interaction):
            name = f"papers-{file_slug(what)}.md"
            note = ATTACHED_TEXT.format(n=plural(len(recs), "paper"), name=name)
            await self._send_file(interaction, note, "", listing, name, embed=embed)
        else:
            await interaction.followup.send(embed=embed, ephemeral=ephemeral)

    papers.autocomplete("venue")(venue_autocomplete)

    @app_commands.command(name="help", description="What this bot does and how to ask.")
    async def help(self, interaction: discord.Interaction) -> None:
        embed = discord.Embed(title="papernotes", description=HELP_TEXT)
        bot = self.bot
        failed = bot.last_refresh is not None and bot.last_refresh.error is not None
        embed.add_field(
            name="Notes", value=freshness_line(last_refreshed(bot.settings), bot.refresh_s, failed), inline=False
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)
