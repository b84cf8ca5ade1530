"""Who may ask the bot, where it may answer, and a typing indicator that never gets in the way.

* :func:`may_ask` — the ``discord_allowed_guilds`` / ``_channels`` / ``_roles`` and ``discord_dms``
  settings (empty lists allow everyone in the guilds the bot was invited to);
* :func:`answer_place` — where a message question can be answered given the bot's permissions in the
  channel: in the channel, in a new thread (a "threads only" channel), or nowhere;
* :func:`typing` — the typing indicator, best-effort: a refused or failed trigger is logged at debug
  level and the answer goes on.

Permissions from https://discord.com/developers/docs/topics/permissions: posting in a channel needs
View Channel and Send Messages; in a thread, Send Messages in Threads; opening a thread from a message,
Create Public Threads; a reply (a message reference) needs Read Message History; a file, Attach Files.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands

if TYPE_CHECKING:
    from papernotes.bot.discord_client import PaperBot

log = logging.getLogger("papernotes.discord")

#: Where a message question is answered: in the channel or thread it was asked in, in a new thread
#: opened from it, or nowhere (the bot may not post there).
Place = Literal["here", "thread", "nowhere"]

#: Seconds between typing triggers (Discord shows the indicator for about 10 s).
TYPING_EVERY_S = 8.0


class NotAllowed(app_commands.CheckFailure):
    """The user may not ask here (see :func:`may_ask`); answered with one polite ephemeral line."""


def _has_role(member: discord.Member | None, roles: list[int]) -> bool:
    if member is None:
        return False
    return not roles or any(r.id in roles for r in member.roles)


async def _member(guild: discord.Guild, user_id: int) -> discord.Member | None:
    """The guild's member with this id (from the cache, else fetched; None when not a member).

    Raises
    ------
    discord.HTTPException
        Never: any failure to fetch is logged and counts as "not a member".
    """
    member = guild.get_member(user_id)
    if member is not None:
        return member
    try:
        return await guild.fetch_member(user_id)
    except discord.NotFound:
        return None
    except discord.HTTPException as e:
        log.warning("could not look up user %s in guild %s: %s", user_id, guild.id, e)
        return None


async def may_ask(
    bot: PaperBot,
    user: discord.User | discord.Member,
    guild: discord.Guild | None,
    channel: discord.abc.Messageable | discord.abc.GuildChannel | discord.Thread | None,
) -> bool:
    """Whether ``user`` may ask in ``channel`` of ``guild`` (``guild`` None: a DM).

    In a guild: the guild is in ``discord_allowed_guilds``, the channel (a thread's parent) in
    ``discord_allowed_channels`` and the member has one of ``discord_allowed_roles`` — each list
    allowing everything when empty. In a DM: ``discord_dms`` is ``"members"`` and the user is a member
    of an allowed guild the bot is in (with an allowed role when roles are set).

    Parameters
    ----------
    bot
        The bot (settings and guilds).
    user
        Who asks.
    guild
        Where (None for a DM).
    channel
        The channel or thread of the question.

    Returns
    -------
    bool
        True when the question may be answered.
    """
    s = bot.settings
    if guild is None:
        if s.discord_dms == "off":
            return False
        for g in bot.guilds:
            if s.discord_allowed_guilds and g.id not in s.discord_allowed_guilds:
                continue
            if _has_role(await _member(g, user.id), s.discord_allowed_roles):
                return True
        return False
    if s.discord_allowed_guilds and guild.id not in s.discord_allowed_guilds:
        return False
    if s.discord_allowed_channels:
        cid = (
            getattr(channel, "parent_id", None) if isinstance(channel, discord.Thread) else getattr(channel, "id", None)
        )
        if cid not in s.discord_allowed_channels:
            return False
    if not s.discord_allowed_roles:
        return True
    member = user if isinstance(user, discord.Member) else await _member(guild, user.id)
    return _has_role(member, s.discord_allowed_roles)


def can_post(perms: discord.Permissions, in_thread: bool) -> bool:
    """Whether ``perms`` allow posting in a channel (``in_thread``: a thread)."""
    if not perms.view_channel:
        return False
    return perms.send_messages_in_threads if in_thread else perms.send_messages


def can_attach(perms: discord.Permissions, in_dm: bool) -> bool:
    """Whether the bot may attach a file to a reply (``perms``: its permissions in the channel; in a
    DM, always)."""
    return in_dm or perms.attach_files


def answer_place(message: discord.Message, new_thread: bool) -> Place:
    """Where the bot can answer ``message``: ``"thread"`` when ``new_thread`` is wanted (a mention in
    a text channel) and it may open a public thread and post in it, else ``"here"`` when it may post
    in the message's channel, else ``"thread"`` when it may open a thread and post there though not in
    the channel (a "threads only" channel), else ``"nowhere"``. DMs are always ``"here"``."""
    ch = message.channel
    if message.guild is None or not isinstance(ch, (discord.TextChannel, discord.Thread)):
        return "here"
    perms = ch.permissions_for(message.guild.me)
    if isinstance(ch, discord.Thread):
        return "here" if can_post(perms, True) else "nowhere"
    threads = perms.view_channel and perms.create_public_threads and perms.send_messages_in_threads
    if new_thread and threads:
        return "thread"
    if can_post(perms, False):
        return "here"
    return "thread" if threads else "nowhere"


def missing_for(message: discord.Message) -> list[str]:
    """Names of the posting permissions the bot lacks in ``message``'s channel (for the log)."""
    ch = message.channel
    if message.guild is None or not isinstance(ch, (discord.TextChannel, discord.Thread)):
        return []
    perms = ch.permissions_for(message.guild.me)
    wanted = ["view_channel", "send_messages", "send_messages_in_threads", "create_public_threads"]
    return [p for p in wanted if not getattr(perms, p)]


@contextlib.asynccontextmanager
async def typing(channel: discord.abc.Messageable, allowed: bool = True) -> AsyncIterator[None]:
    """Show the typing indicator in ``channel`` while the block runs, best-effort: nothing is sent
    when not ``allowed`` (the bot may not post there), and a failed trigger (e.g. 403) stops the
    indicator with a debug log line instead of raising."""

    async def keep_typing() -> None:
        while True:
            try:
                await channel.typing()  # one trigger (discord.py's Typing.__await__)
            except (discord.HTTPException, discord.ClientException) as e:
                log.debug("typing indicator not shown in %s: %s", getattr(channel, "id", "?"), e)
                return
            await asyncio.sleep(TYPING_EVERY_S)

    task = asyncio.create_task(keep_typing()) if allowed else None
    try:
        yield
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
