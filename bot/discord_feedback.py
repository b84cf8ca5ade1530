"""👍/👎 reactions on the bot's answers, recorded as feedback (:class:`ReactionFeedback`).

Listens to the raw reaction events (``on_raw_reaction_add`` / ``_remove``), which arrive for every
message — also after a restart or once the message has left discord.py's message cache — and looks the
message up in the bot's persistent table of answers
(:class:`~papernotes.retrieval.feedback.FeedbackStore`). The bot's own reactions, other bots', other
emojis and messages that carried no answer are ignored; one vote per user per answer (switching
updates it, removing it deletes it); DMs included.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from papernotes.retrieval.feedback import VOTES

if TYPE_CHECKING:
    from papernotes.bot.discord_client import PaperBot

log = logging.getLogger("papernotes.discord")


class ReactionFeedback(commands.Cog):
    """Votes from reactions on the bot's answers.

    Parameters
    ----------
    bot
        The bot whose ``feedback`` store holds its answers.
    """

    def __init__(self, bot: PaperBot):
        self.bot = bot

    def _vote(self, payload: discord.RawReactionActionEvent) -> int | None:
        """The vote a reaction stands for, or None when it is not one to count."""
        me = self.bot.user
        if me is None or payload.user_id == me.id:
            return None
        if payload.member is not None and payload.member.bot:
            return None
        return VOTES.get(str(payload.emoji))

    @commands.Cog.listener()
    async def on_raw_reaction_add(self, payload: discord.RawReactionActionEvent) -> None:
        """Record 👍/👎 on an answer (replacing the user's earlier vote on it)."""
        vote = self._vote(payload)
        if vote is None:
            return
        try:
            if await asyncio.to_thread(self.bot.feedback.vote, payload.message_id, payload.user_id, vote):
                log.info("feedback %s on message %s", "👍" if vote > 0 else "👎", payload.message_id)
        except Exception as e:
            log.warning("could not record feedback on message %s: %s", payload.message_id, e)

    @commands.Cog.listener()
    async def on_raw_reaction_remove(self, payload: discord.RawReactionActionEvent) -> None:
        """Delete the user's vote when they take that reaction back."""
        vote = self._vote(payload)
        if vote is None:
            return
        try:
            await asyncio.to_thread(self.bot.feedback.unvote, payload.message_id, payload.user_id, vote)
        except Exception as e:
            log.warning("could not remove feedback on message %s: %s", payload.message_id, e)
