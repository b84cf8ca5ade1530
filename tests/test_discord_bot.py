"""The Discord bot driven through discord.py's real objects against SimCord's offline Discord.

Each test builds a fresh :class:`PaperBot` on its own event loop (``asyncio.run``) over the shared
``fixture_index`` notes; users act through SimCord actors (slash commands, messages, DMs), and the
assertions read what the bot sent (messages, embeds, reactions, threads, REST requests).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import socket
import subprocess
import sys
import threading
import time

import discord
import pytest
import simcord

from papernotes.bot.discord_bot import (
    COOLDOWN_TEXT,
    GENERIC_ERROR,
    TIMEOUT_TEXT,
    PaperBot,
    startup_error,
    thread_name,
    writer_active,
)
from papernotes.bot.messages import SOURCES_HEADING, bracket_urls
from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.retrieval.prompts import EXTRACTIVE_LABEL, REFUSAL

QUESTION = "What block size does Quokka use?"
MARKER_RE = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")


@pytest.fixture(scope="module")
def notes(fixture_index):
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


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# ----------------------------------------------------------------------------------------------
# /ask, /help, /papers, /summarize
# ----------------------------------------------------------------------------------------------


def test_ask_defers_then_answers_with_sources(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        n0 = len(env.http_requests)
        r = await alice.slash(ch, "ask", question=QUESTION)
        reqs = [(e.method, e.path, e.json) for e in env.http_requests[n0:]]
        return r, reqs

    r, reqs = run(bot, scenario)
    callbacks = [j for m, p, j in reqs if p.endswith("/callback")]
    assert callbacks == [{"type": 5}]  # deferred ("thinking…") and nothing else as the response
    first_followup = next(i for i, (m, p, j) in enumerate(reqs) if p.startswith("/webhooks/"))
    assert reqs.index(next(x for x in reqs if x[1].endswith("/callback"))) < first_followup
    body = "\n".join(texts(r))
    assert not r.ephemeral
    assert "16-token blocks" in body  # from the fixture notes' TL;DR
    assert EXTRACTIVE_LABEL in body and SOURCES_HEADING in body
    assert "<https://toysys.example.org/2026/quokka>" in body  # angle brackets: no preview
    for _m, p, j in reqs:
        if p.startswith("/webhooks/") and j and "content" in j:
            assert j["allowed_mentions"] == {"parse": []}
            assert j.get("flags", 0) & discord.MessageFlags(suppress_embeds=True).value
    assert all(len(t) <= 2000 for t in texts(r))


def test_ask_bad_venue_is_one_ephemeral_line_without_defer(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        return await alice.slash(ch, "ask", question=QUESTION, venue="the big one")

    r = run(bot, scenario)
    assert r.ephemeral and not r.deferred
    assert r.response.content.startswith("❌ cannot read venue 'the big one'")
    assert "\n" not in r.response.content


def test_help_and_papers(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        return (
            await alice.slash(ch, "help"),
            await alice.slash(ch, "papers", venue="toysys-2026"),
            await alice.slash(ch, "papers", venue="ToySys 2026", topic="no such topic"),
            await alice.autocomplete(ch, "ask", "venue", "toy", question=QUESTION),
        )

    h, p, none, choices = run(bot, scenario)
    assert [c["value"] for c in choices] == ["ToySys 2026"]
    assert h.ephemeral and "/ask" in h.response.embeds[0].description
    e = p.response.embeds[0]
    assert e.title == "Papers — ToySys 2026"
    assert "Quokka: Paged Attention for Marsupial Inference" in e.description
    assert len(e.description) <= 4096 and len(e) <= 6000
    assert e.footer.text == f"{e.description.count('• ')} papers in the notes"
    assert none.response.content == "No papers for ToySys 2026 · no such topic in the notes."


def test_summarize_uses_the_summarizer(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        return await alice.slash(ch, "summarize", venue="ToySys 2026"), await alice.slash(
            ch, "summarize", venue="Nowhere 1999"
        )

    r, bad = run(bot, scenario)
    from papernotes.retrieval.summarize import summarize

    expected = bracket_urls(summarize(fixture_index, "ToySys 2026", topic="llm").to_markdown())
    body = "\n".join(texts(r))
    assert body.replace("\n", "") == expected.replace("\n", "")
    assert "Quokka: Paged Attention for Marsupial Inference" in body
    assert all(len(t) <= 2000 for t in texts(r))
    # Unknown venue: found after the defer, so the "thinking…" message becomes the one-line error
    assert texts(bad) == [texts(bad)[0]] and texts(bad)[0].startswith("❌ ") and "\n" not in texts(bad)[0]


# ----------------------------------------------------------------------------------------------
# long answers, mentions
# ----------------------------------------------------------------------------------------------

LONG_CODE = "\n".join(f"kv_blocks.append(allocate(block_size=16))  # page {i}" for i in range(45))


def long_reply(n_chars: int = 4500) -> str:
    paras = []
    i = 0
    while len("\n\n".join(paras)) < n_chars:
        i += 1
        paras.append(
            f"Quokka pages the KV cache into 16-token blocks, point {i} [1]. "
            f"It reaches 3.7x higher throughput than the baseline [2]. @everyone see <@&123> too [1]."
        )
        if i == 6:
            paras.append(f"```python\n{LONG_CODE}\n```")
    return "\n\n".join(paras)


def test_long_llm_answer_with_code_block_arrives_in_valid_parts_and_pings_nobody(fixture_index, notes):
    from openai_server import OpenAICompatServer, Reply

    text = long_reply()
    assert len(text) >= 4500
    with OpenAICompatServer() as server:
        server.enqueue(Reply(text))
        s = fixture_index.model_copy(
            update={
                "openai_base_url": server.base_url,
                "discord_cooldown_s": 0,
                "llm_max_retries": 0,
                "llm_timeout": 10,
            }
        )
        from papernotes.retrieval.service import Notes

        bot = PaperBot(s, Notes(s, retriever=notes.retriever))

        async def scenario(env):
            guild, ch, (alice,) = world(env)
            role = guild.create_role("everyone-ish", mentionable=True)
            r = await alice.slash(ch, "ask", question=QUESTION)
            return r, [stored(env, m.message) for m in ([r.response] + r.followups)], role

        r, records, role = run(bot, scenario)
    parts = texts(r)
    assert len(parts) >= 3
    for p in parts:
        assert len(p) <= 2000
        assert len(re.findall(r"^```", p, re.M)) % 2 == 0, p
        assert not re.search(r"\[\d*$", p) and not re.match(r"^\d*\]", p)
    joined = "\n".join(parts)
    assert "kv_blocks.append(allocate(block_size=16))  # page 44" in joined  # the code block is all there
    assert list(MARKER_RE.findall(joined.split(SOURCES_HEADING)[0])) == [
        m for m in MARKER_RE.findall(text) if m != "[123]"
    ]
    assert "@everyone" in joined
    for rec in records:  # the text mentions everyone and a role, but nobody was pinged
        assert rec.mention_everyone is False and rec.ping_user_ids == [] and rec.ping_role_ids == []
    assert bot.allowed_mentions.to_dict() == {"parse": []}


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


# ----------------------------------------------------------------------------------------------
# concurrency, cooldown, timeout, failures
# ----------------------------------------------------------------------------------------------


def test_slow_asks_do_not_block_help(fixture_index, notes, monkeypatch):
    orig = notes.ask

    def slow(*a, **kw):
        time.sleep(2)
        return orig(*a, **kw)

    monkeypatch.setattr(notes, "ask", slow)
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice, bob, carol) = world(env, "alice", "bob", "carol")
        t0 = time.perf_counter()
        with unsettled(env):
            a1 = await alice.slash(ch, "ask", question=QUESTION)
            a2 = await bob.slash(ch, "ask", question="How much higher is Quokka's throughput?")
            await until(lambda: a1.deferred and a2.deferred, 1.0)  # both acknowledged at once
            h = await carol.slash(ch, "help")
            help_s = await until(lambda: h.response is not None, 1.0)
        busy = not a1.followups and a1.response.content == "" and not a2.followups
        await env.settle(timeout=15)
        return help_s, busy, time.perf_counter() - t0, a1, a2

    help_s, busy, total, a1, a2 = run(bot, scenario)
    assert help_s < 1.0 and busy  # /help answered while both asks were still thinking
    assert "16-token" in "\n".join(texts(a1)) and SOURCES_HEADING in "\n".join(texts(a2))
    assert total < 3.9  # the two 2-second asks ran side by side


def test_concurrent_answers_are_capped(fixture_index, notes, monkeypatch):
    lock = threading.Lock()
    now = [0]
    peak = [0]
    orig = notes.ask

    def counted(*a, **kw):
        with lock:
            now[0] += 1
            peak[0] = max(peak[0], now[0])
        try:
            time.sleep(0.3)
            return orig(*a, **kw)
        finally:
            with lock:
                now[0] -= 1

    monkeypatch.setattr(notes, "ask", counted)
    bot = PaperBot(bot_settings(fixture_index, discord_max_concurrent=2), notes)

    async def scenario(env):
        _, ch, users = world(env, "a", "b", "c", "d", "e")
        with unsettled(env):
            rs = [await u.slash(ch, "ask", question=QUESTION) for u in users]
        await env.settle(timeout=15)
        return rs

    rs = run(bot, scenario)
    assert peak[0] == 2
    assert all(SOURCES_HEADING in "\n".join(texts(r)) for r in rs)


def test_cooldown_on_second_quick_ask(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index, discord_cooldown_s=30), notes)

    async def scenario(env):
        _, ch, (alice, bob) = world(env, "alice", "bob")
        first = await alice.slash(ch, "ask", question=QUESTION)
        second = await alice.slash(ch, "ask", question="And the throughput?")
        other = await bob.slash(ch, "ask", question=QUESTION)
        errors = env.errors  # inspected: the cooldown reached the tree's error handler
        await env.advance_time(31)
        again = await alice.slash(ch, "ask", question=QUESTION)
        await bob.send(ch, f"{env.bot.user.mention} {QUESTION}")
        await bob.send(ch, f"{env.bot.user.mention} and how fast is it?")
        return first, second, other, errors, again, ch.last_message.content, len(ch.threads)

    first, second, other, errors, again, last, n_threads = run(bot, scenario)
    assert n_threads == 1 and re.fullmatch(COOLDOWN_TEXT.replace("{s:.0f}", r"\d+"), last)  # by message too
    assert SOURCES_HEADING in "\n".join(texts(first))
    assert second.ephemeral and not second.deferred
    assert re.fullmatch(COOLDOWN_TEXT.replace("{s:.0f}", r"\d+"), second.response.content)
    assert [type(e).__name__ for e in errors] == ["CommandOnCooldown"]
    assert SOURCES_HEADING in "\n".join(texts(other))  # per user
    assert SOURCES_HEADING in "\n".join(texts(again))  # and it expires


def test_timeout_gives_up_and_keeps_the_slot_until_the_worker_ends(fixture_index, notes):
    # Plain asyncio (SimCord settles executor work before it moves any timer, so a timeout cannot
    # race a worker thread there); the user-facing text is error_text's.
    from papernotes.bot.discord_bot import error_text

    s = bot_settings(fixture_index, discord_answer_timeout_s=0.3, discord_max_concurrent=1)
    bot = PaperBot(s, notes)
    release = threading.Event()

    async def main():
        bot.slots = asyncio.Semaphore(1)
        t0 = time.perf_counter()
        with pytest.raises(TimeoutError) as ex:
            await bot.compute(lambda n: release.wait(5))
        waited = time.perf_counter() - t0
        held = bot.slots.locked()  # the worker still runs: its slot is not given away
        release.set()
        await asyncio.sleep(0.2)
        answer = await bot.compute(lambda n: n.ask(QUESTION))
        return ex.value, waited, held, answer

    err, waited, held, answer = asyncio.run(main())
    assert 0.25 < waited < 1.5 and held
    assert error_text(err, s) == TIMEOUT_TEXT.format(s=0.3) and "over 0.3 s" in error_text(err, s)
    assert "16-token blocks" in answer.answer


def test_llm_failure_gives_extractive_answer_with_note(fixture_index, notes):
    from papernotes.retrieval.service import Notes

    s = fixture_index.model_copy(
        update={
            "openai_base_url": f"http://127.0.0.1:{closed_port()}/v1",
            "llm_timeout": 2,
            "llm_max_retries": 0,
            "discord_cooldown_s": 0,
        }
    )
    bot = PaperBot(s, Notes(s, retriever=notes.retriever))

    async def scenario(env):
        _, ch, (alice,) = world(env)
        return await alice.slash(ch, "ask", question=QUESTION)

    r = run(bot, scenario)
    body = "\n".join(texts(r))
    assert "16-token blocks" in body and EXTRACTIVE_LABEL in body
    assert re.search(r"^-# note: model not used: .*127\.0\.0\.1", body, re.M)


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
        world(env)
        user = env.create_user("dora")
        await user.send_dm(QUESTION)
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


def test_refusal_is_the_shared_phrase(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        return await alice.slash(ch, "ask", question="How do volcanoes form on Mars?")

    r = run(bot, scenario)
    assert texts(r) == [REFUSAL]


# ----------------------------------------------------------------------------------------------
# index reloads after an ingest from the CLI
# ----------------------------------------------------------------------------------------------

THYLACINE = """# Thylacine: Striped Prefetching for Tasmanian Tensors

## Meta Info

Presented in [ToySys 2026](https://toysys.example.org/2026/thylacine).

## Understanding the paper

Thylacine prefetches striped tensor tiles and cuts stall time by 58% on Koala-100 GPUs. @everyone \
should read it.
"""


def test_cli_ingest_while_the_bot_runs_is_picked_up(tmp_path, models_cache, monkeypatch):
    from conftest import FIXTURE_NOTES, make_settings, seed_models

    from papernotes.retrieval.indexing import ingest
    from papernotes.retrieval.store import write_lock

    data = tmp_path / "data"
    seed_models(models_cache, data)
    s = make_settings(data, discord_cooldown_s=0)
    ingest(s, [str(FIXTURE_NOTES)])
    extra = tmp_path / "more-notes"
    extra.mkdir()
    (extra / "thylacine.md").write_text(THYLACINE, encoding="utf-8")
    bot = PaperBot(s)  # loads the notes itself in setup_hook
    question = "How much does Thylacine cut stall time?"

    async def scenario(env):
        _, ch, (alice,) = world(env)
        before = await alice.slash(ch, "ask", question=question)
        # an ingest in progress (write lock held, chunks.json already rewritten): no reload yet
        with write_lock(s):
            os.utime(s.bm25_dir / "chunks.json")
            locked = await alice.slash(ch, "ask", question=QUESTION)
            reloads_while_locked = bot.index.reloads
        proc = subprocess.Popen(
            [sys.executable, "-m", "papernotes.bot.cli", "ingest", str(extra)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        during = await alice.slash(ch, "ask", question=QUESTION)  # answers while the ingest runs
        out, err = await asyncio.to_thread(proc.communicate, timeout=120)
        assert proc.returncode == 0, err
        reloads = bot.index.reloads
        after = await alice.slash(ch, "ask", question=question)
        reloads = bot.index.reloads - reloads
        rec = [stored(env, m.message) for m in [after.response] + after.followups]
        return before, locked, reloads_while_locked, during, after, rec, reloads

    before, locked, reloads_while_locked, during, after, rec, reloads = run(bot, scenario)
    assert texts(before) == [REFUSAL]
    assert "16-token blocks" in "\n".join(texts(locked)) and reloads_while_locked == 0
    assert "16-token blocks" in "\n".join(texts(during))
    body = "\n".join(texts(after))
    assert "58%" in body and "Thylacine" in body
    assert reloads == 1  # reopened once, for the question after the ingest
    assert "@everyone" in body and not any(r.mention_everyone for r in rec)  # note text pings nobody
    assert not writer_active(s)


# ----------------------------------------------------------------------------------------------
# startup
# ----------------------------------------------------------------------------------------------


def _main(monkeypatch, capsys, *args):
    from papernotes.bot.cli import main

    monkeypatch.setattr(sys, "argv", ["papernotes", "discord", *args])
    with pytest.raises(SystemExit) as ex:
        main()
    return ex.value.code, capsys.readouterr().err


def test_missing_token_is_one_line(monkeypatch, capsys):
    code, err = _main(monkeypatch, capsys)
    assert code == 2
    assert err.strip().splitlines() == [err.strip()]
    assert "set DISCORD_TOKEN" in err and "Traceback" not in err


def test_wrong_token_is_one_line_without_leaking_it(monkeypatch, capsys, caplog):
    token = "MTIz.wrong-token-value.abcdefghijklmnop"
    monkeypatch.setenv("DISCORD_TOKEN", token)
    seen = []

    async def reject(self, tok):  # the HTTP layer: Discord answers 401 to GET /users/@me
        seen.append(tok)
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", reject)
    with caplog.at_level(logging.DEBUG):
        code, err = _main(monkeypatch, capsys)
    assert seen == [token]
    assert code == 2
    assert err.strip() == (
        "error: Discord rejected the bot token (DISCORD_TOKEN): copy it again from the "
        "Developer Portal › your application › Bot › Reset Token"
    )
    assert token not in err and token not in caplog.text


def test_startup_error_messages():
    assert isinstance(startup_error(discord.LoginFailure("x")), BadInputError)
    e = startup_error(discord.PrivilegedIntentsRequired(shard_id=None))
    assert isinstance(e, PapernotesError) and "Message Content intent" in str(e)


def test_intents_and_mentions_configuration(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)
    assert bot.intents.message_content and bot.intents.guild_messages and bot.intents.dm_messages
    assert bot.allowed_mentions.to_dict() == {"parse": []}


def test_guild_id_syncs_commands_to_that_guild_only(fixture_index, notes):
    gid = 4242424242424242
    bot = PaperBot(bot_settings(fixture_index, discord_guild_id=gid), notes)

    async def main():
        env = simcord.Env(bot)
        guild = env.create_guild(id=gid)
        await env.start()
        try:
            with env.time_context():
                ch = guild.create_text_channel("general")
                alice = guild.add_member(env.create_user("alice"))
                r = await alice.slash(ch, "ask", question=QUESTION)
                syncs = [e.path for e in env.http_requests if e.method == "PUT" and e.path.endswith("/commands")]
                return r, syncs
        finally:
            await env.shutdown()

    r, syncs = asyncio.run(main())
    assert syncs and all(f"/guilds/{gid}/commands" in p for p in syncs)
    assert "16-token blocks" in "\n".join(texts(r))
