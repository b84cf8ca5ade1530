"""Questions asked in messages (:class:`MessageQuestions`): a mention of the bot in a channel opens a
thread for the answer, later messages in a thread the bot opened are follow-ups (the thread is the
conversation history), and a DM is answered in the DM (the DM's earlier questions are its history).

Only users the settings allow may ask (:mod:`~papernotes.bot.discord_access`); others get one polite
line. The bot checks its permissions first: in a "threads only" channel (no Send Messages, but Create
Public Threads and Send Messages in Threads) the answer goes to a new thread; where it may post nowhere
it logs one warning line. The typing indicator is best-effort. Each user may ask by message once per
``discord_cooldown_s`` seconds; errors become a ❌ reaction and one short reply while the details go to
the log. Sent answers are recorded for 👍/👎 feedback (:mod:`~papernotes.bot.discord_feedback`).
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from papernotes.bot.discord_access import answer_place, can_post, may_ask, missing_for, typing
from papernotes.bot.discord_format import (
    COOLDOWN_TEXT,
    GENERIC_ERROR,
    NOT_ALLOWED_TEXT,
    answer_body,
    clip,
    error_text,
    format_answer,
    split_message,
)
from papernotes.corpus.errors import PapernotesError

if TYPE_CHECKING:
    from papernotes.bot.discord_client import PaperBot

log = logging.getLogger("papernotes.discord")

EMPTY_MENTION = "Ask me something about the reading notes, e.g. `@{name} Which papers study KV caches?`"
ERROR_EMOJI = "❌"

#: How a message reached the bot.
Trigger = Literal["dm", "thread", "mention"]


def thread_name(question: str) -> str:
    """A thread title from a question: whitespace collapsed, at most 90 characters (Discord allows
    1–100), ending with "…" when cut; ``"question"`` for a blank one."""
    q = re.sub(r"\s+", " ", question).strip() or "question"
    return q if len(q) <= 90 else q[:89].rstrip() + "…"


class MessageQuestions(commands.Cog):
    """Answers questions asked by mention, in the bot's threads, and by DM.

    Parameters
    ----------
    bot
        The bot whose notes, settings and worker slots the answers use.
    """

    def __init__(self, bot: PaperBot):
        self.bot = bot
        self._cooldowns: dict[int, app_commands.Cooldown] = {}

    def message_cooldown(self, user_id: int) -> float | None:
        """Seconds the user must wait before asking by message again, or None (and count this one).

        One question per ``discord_cooldown_s`` seconds per user (no limit when it is 0); buckets
        that are full again are forgotten.
        """
        per = self.bot.settings.discord_cooldown_s
        if per <= 0:
            return None
        now = discord.utils.utcnow().timestamp()
        for k in [k for k, v in self._cooldowns.items() if v.get_tokens(now) >= v.rate]:
            del self._cooldowns[k]  # full buckets: nothing to remember
        bucket = self._cooldowns.setdefault(user_id, app_commands.Cooldown(1, per))
        return bucket.update_rate_limit(now)

    def _trigger(self, message: discord.Message) -> Trigger | None:
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
        """Earlier (question, answer) turns of the conversation the message is in — the bot's thread
        (its starter message, then its messages before this one) or the DM channel (its messages
        before this one): users' messages are questions, the bot's following messages their answer.
        Both read the last 40 messages and keep ``max_turns`` turns."""
        channel = message.channel
        me = self.bot.user
        assert me is not None
        msgs = [m async for m in channel.history(limit=40, before=message, oldest_first=False)]
        msgs.reverse()
        starter = None
        if isinstance(channel, discord.Thread):
            starter = channel.starter_message
            if starter is None and isinstance(channel.parent, discord.TextChannel):
                try:
                    starter = await channel.parent.fetch_message(channel.id)
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

    async def _say(self, message: discord.Message, text: str, react: bool = False) -> None:
        """Reply to ``message`` with one short line (and a ❌ reaction when ``react``), where the bot
        may post; otherwise one warning line in the log."""
        text = clip(text, self.bot.settings.discord_max_chars)
        if react:
            try:
                await message.add_reaction(ERROR_EMOJI)
            except discord.HTTPException:
                pass
        place = answer_place(message, new_thread=False)
        try:
            if place == "here":
                await message.reply(text, mention_author=False)
            elif place == "thread":
                thread = await message.create_thread(name=thread_name(self._strip(message)), auto_archive_duration=60)
                await thread.send(text)
            else:
                self._cannot_post(message)
        except discord.HTTPException as e:
            log.warning("could not reply in channel %s: %s", message.channel.id, e)

    async def _fail(self, message: discord.Message, text: str) -> None:
        """React with ❌ and reply with one short line."""
        await self._say(message, text, react=True)

    def _cannot_post(self, message: discord.Message) -> None:
        log.warning(
            "cannot answer user %s in channel %s: the bot lacks %s there",
            message.author.id,
            message.channel.id,
            ", ".join(missing_for(message)) or "the permissions to post",
        )

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Answer a question by DM (with the DM's earlier questions as history), by mention (in a new
        thread when the bot may open one, else in the channel) or in the bot's thread (with the thread
        as history), for users allowed to ask (:func:`~papernotes.bot.discord_access.may_ask`); other
        messages are ignored. Where the bot may post nowhere it logs one warning line."""
        if message.author.bot or message.type not in (discord.MessageType.default, discord.MessageType.reply):
            return
        kind = self._trigger(message)
        if kind is None:
            return
        if not await may_ask(self.bot, message.author, message.guild, message.channel):
            log.info("%s question from user %s in %s: not allowed", kind, message.author.id, message.channel.id)
            await self._say(message, NOT_ALLOWED_TEXT)
            return
        place = answer_place(message, new_thread=kind == "mention")
        if place == "nowhere":
            self._cannot_post(message)
            return
        question = self._strip(message)
        if not question or not re.search(r"\w", question):
            if kind != "thread":
                await self._say(message, EMPTY_MENTION.format(name=self.bot.user.name if self.bot.user else "bot"))
            return
        wait = self.message_cooldown(message.author.id)
        if wait is not None:
            await self._say(message, COOLDOWN_TEXT.format(s=max(1.0, wait)))
            return
        log.info("%s question from user %s in %s", kind, message.author.id, message.channel.id)
        try:
            async with typing(message.channel, allowed=place == "here"):
                history = await self._history(message) if kind in ("thread", "dm") else None
                a = await self.bot.answer(message.author.id, question, history=history)
        except Exception as e:
            if not isinstance(e, (TimeoutError, PapernotesError)):
                log.error("message question failed (user %s)", message.author.id, exc_info=e)
            await self._fail(message, error_text(e, self.bot.settings))
            return
        parts = split_message(format_answer(a), self.bot.settings.discord_max_chars)
        target: discord.abc.Messageable = message.channel
        reply_to: discord.Message | None = message
        if place == "thread":
            try:
                target = await message.create_thread(name=thread_name(question), auto_archive_duration=1440)
                reply_to = None
            except discord.HTTPException as e:
                if not can_post(message.channel.permissions_for(message.guild.me), False):  # type: ignore[union-attr]
                    log.warning("could not open a thread in %s (%s) and may not post there", message.channel.id, e)
                    return
                log.info("could not open a thread in %s (%s); replying in the channel", message.channel.id, e)
        sent: list[discord.Message] = []
        try:
            for i, part in enumerate(parts):
                if i == 0 and reply_to is not None:
                    sent.append(await reply_to.reply(part, mention_author=False, suppress_embeds=True))
                else:
                    sent.append(await target.send(part, suppress_embeds=True))
        except discord.HTTPException as e:
            log.warning("could not send an answer in %s: %s", getattr(target, "id", "?"), e)
            await self._fail(message, GENERIC_ERROR)
        where = "dm" if message.guild is None else f"guild {message.guild.id} channel {message.channel.id}"
        await self.bot.remember(a, sent, where)
