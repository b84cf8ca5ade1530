"""Questions in messages: mentions open threads, follow-ups in the bot's threads, DMs, and message
errors, driven through discord.py's real objects against SimCord's offline Discord (see ``discord_sim``)."""

from __future__ import annotations

import logging

import discord_sim
from discord_sim import QUESTION, bot_settings, run, stored, world

from papernotes.bot.discord_client import PaperBot
from papernotes.bot.discord_format import GENERIC_ERROR, SOURCES_HEADING
from papernotes.bot.discord_threads import thread_name

#: The fixture index's notes, loaded once per test module (pytest collects fixtures from module attributes).
notes = discord_sim.notes


def test_everyone_in_a_message_answer_pings_nobody(fixture_index, notes, monkeypatch):
    from papernotes.retrieval.answer import Answer

    bot = PaperBot(bot_settings(fixture_index), notes)

    def ask(question, **kw):
        return Answer(question=question, answer=f"@everyone look: <@{alice_id[0]}> and @here [1]", mode="extractive")

    monkeypatch.setattr(notes, "ask", ask)
    alice_id = []

    async def scenario(env):
        _, ch, (alice,) = world(env)
        alice_id.append(alice.id)
        await alice.send(ch, f"{env.bot.user.mention} who should read this?")
        thread = ch.threads[0]
        return [stored(env, m) for m in thread.history()]

    recs = run(bot, scenario)
    assert recs and "@everyone" in recs[0].content
    assert all(not r.mention_everyone and not r.ping_user_ids and not r.ping_role_ids for r in recs)


def test_message_error_reacts_and_replies_briefly(fixture_index, notes, monkeypatch, caplog):
    def broken(*a, **kw):
        raise RuntimeError("kaboom in the retriever")

    monkeypatch.setattr(notes, "ask", broken)
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        msg = await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
        reacts = [e.path for e in env.http_requests if e.method == "PUT" and "/reactions/" in e.path]
        return list(ch.history()), msg.id, ch.threads, reacts

    with caplog.at_level(logging.ERROR, logger="papernotes.discord"):
        history, asked_id, threads, reacts = run(bot, scenario)
    asked = next(m for m in history if m.id == asked_id)
    assert [(str(r.emoji), r.count) for r in asked.reactions] == [("❌", 1)]
    assert len(reacts) == 1 and reacts[0].endswith("/@me") and f"/messages/{asked_id}/" in reacts[0]
    reply = history[-1]
    assert reply.content == GENERIC_ERROR and reply.reference.message_id == asked_id
    assert threads == []
    assert "kaboom in the retriever" in caplog.text  # details in the log, not in Discord


# ----------------------------------------------------------------------------------------------
# mentions, threads, DMs
# ----------------------------------------------------------------------------------------------


def test_mention_opens_thread_and_followup_uses_history(fixture_index, notes, monkeypatch):
    calls = []
    orig = notes.ask

    def recording(question, **kw):
        calls.append((question, kw.get("history")))
        return orig(question, **kw)

    monkeypatch.setattr(notes, "ask", recording)
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        guild, ch, (alice,) = world(env)
        other_bot = guild.add_member(env.create_user("otherbot", bot=True))
        await other_bot.send(ch, f"{env.bot.user.mention} {QUESTION}")  # ignored: a bot
        await alice.send(ch, "just chatting, no mention")  # ignored: not for us
        await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
        thread = ch.threads[0]
        first = [m.content for m in thread.history()]
        await alice.send(thread, "how much higher is its throughput?")
        return thread, first, [(m.author.id, m.content) for m in thread.history()], env.bot.user.id

    thread, first, history, me = run(bot, scenario)
    assert thread.name == thread_name(QUESTION)
    assert len(calls) == 2
    assert calls[0] == (QUESTION, None)
    q2, hist = calls[1]
    assert q2 == "how much higher is its throughput?"
    assert hist and hist[0][0] == QUESTION  # the earlier question is the context
    assert "16-token blocks" in hist[0][1] and SOURCES_HEADING not in hist[0][1]
    assert "16-token blocks" in "\n".join(first)
    assert history[-1][0] == me and SOURCES_HEADING in history[-1][1]  # the follow-up was answered


def test_dm_question_is_answered_in_the_dm(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, _, (dora,) = world(env, "dora")  # DMs are answered for members of a guild the bot is in
        await dora.send_dm(QUESTION)
        user = dora.user
        return [(m.author.bot, m.content) for m in user.dm_channel.history()]

    msgs = run(bot, scenario)
    assert msgs[0] == (False, QUESTION)
    assert msgs[1][0] and "16-token blocks" in msgs[1][1]


def test_empty_mention_gets_a_hint(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        await alice.send(ch, env.bot.user.mention)
        return ch.last_message.content, ch.threads

    last, threads = run(bot, scenario)
    assert last.startswith("Ask me something about the reading notes") and threads == []
