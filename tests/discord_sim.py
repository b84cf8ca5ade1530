"""Shared helpers of the Discord bot tests: a :class:`PaperBot` run against SimCord's offline Discord.

Each test builds a fresh bot on its own event loop (``asyncio.run``) over the shared ``fixture_index``
notes; users act through SimCord actors (slash commands, messages, DMs), and the assertions read what
the bot sent (messages, embeds, reactions, threads, REST requests). A test module takes the ``notes``
fixture by naming it at module level (``notes = discord_sim.notes``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
import simcord

QUESTION = "What block size does Quokka use?"


@pytest.fixture(scope="module")
def notes(fixture_index):
    """Notes over the fixture index (``tests/fixtures/notes``)."""
    from papernotes.retrieval.service import Notes

    return Notes(fixture_index)


def bot_settings(base, **kw):
    return base.model_copy(update={"discord_cooldown_s": 0, **kw})


def run(bot, scenario, **env_options):
    """Run ``scenario(env)`` with ``bot`` attached to a fresh SimCord world; uninspected bot errors
    fail the test (SimCord's teardown check)."""

    async def main():
        async with simcord.run(bot, **env_options) as env:
            return await scenario(env)

    return asyncio.run(main())


def world(env, *names):
    guild = env.create_guild()
    channel = guild.create_text_channel("general")
    users = [guild.add_member(env.create_user(n)) for n in (names or ("alice",))]
    return guild, channel, users


def texts(result) -> list[str]:
    """The content of an interaction's response and follow-ups, in order."""
    out = [result.response.content] if result.response is not None else []
    return out + [f.content for f in result.followups]


def stored(env, message):
    """SimCord's record of a sent message (for who was actually pinged)."""
    return env.backend.get_message(message.channel.id, message.id)


@contextlib.contextmanager
def unsettled(env):
    """Let actor verbs return right after dispatching (no waiting for the bot), so several
    interactions can be in flight at once."""
    orig = env._settle_internal

    async def skip(**kw):
        return None

    env._settle_internal = skip
    try:
        yield
    finally:
        env._settle_internal = orig


async def until(pred, timeout: float = 5.0) -> float:
    """Seconds until ``pred()`` is true (polling the loop); fails after ``timeout``."""
    t0 = time.perf_counter()
    while not pred():
        if time.perf_counter() - t0 > timeout:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)
    return time.perf_counter() - t0
