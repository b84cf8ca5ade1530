"""Questions asked in messages (:class:`MessageQuestions`): a mention of the bot in a channel opens a
thread for the answer, later messages in a thread the bot opened are follow-ups (the thread is the
conversation history), and a DM is answered in the DM.

Each user may ask by message once per ``discord_cooldown_s`` seconds; errors become a ❌ reaction and
one short reply while the details go to the log.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING, Literal

import discord
from discord import app_commands
from discord.ext import commands

from papernotes.bot.discord_format import (
    COOLDOWN_TEXT,
    GENERIC_ERROR,
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
        if starter is None and isinstance(thread.parent, discord.TextChannel):
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
        text = clip(text, self.bot.settings.discord_max_chars)
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
        """Answer a question by DM, by mention (in a new thread when the channel allows one) or in
        the bot's thread (with the thread as history); other messages are ignored."""
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
        wait = self.message_cooldown(message.author.id)
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
        parts = split_message(format_answer(a), self.bot.settings.discord_max_chars)
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
