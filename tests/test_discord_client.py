"""The bot's client: worker concurrency and timeouts, reopening the notes after an ingest, startup
errors, intents and command sync, driven through discord.py's real objects against SimCord's offline
Discord (see ``discord_sim``)."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
import time

import discord
import discord_sim
import pytest
import simcord
from discord_sim import QUESTION, bot_settings, run, stored, texts, unsettled, until, world

from papernotes.bot.discord_client import PaperBot, startup_error
from papernotes.bot.discord_format import SOURCES_HEADING, TIMEOUT_TEXT, error_text
from papernotes.bot.notes_reload import writer_active
from papernotes.corpus.errors import BadInputError, PapernotesError
from papernotes.retrieval.prompts import REFUSAL

#: The fixture index's notes, loaded once per test module (pytest collects fixtures from module attributes).
notes = discord_sim.notes


# ----------------------------------------------------------------------------------------------
# concurrency, timeout
# ----------------------------------------------------------------------------------------------


def test_slow_asks_do_not_block_help(fixture_index, notes, monkeypatch):
    orig = notes.ask
    spans: list[tuple[float, float]] = []

    def slow(*a, **kw):
        start = time.perf_counter()
        time.sleep(2)
        try:
            return orig(*a, **kw)
        finally:
            spans.append((start, time.perf_counter()))

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
    # the two 2-second asks ran side by side: each started before the other ended (wall-clock totals
    # depend on the machine's load; the overlap does not)
    assert len(spans) == 2 and max(s for s, _ in spans) < min(e for _, e in spans)


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


def test_timeout_gives_up_and_keeps_the_slot_until_the_worker_ends(fixture_index, notes):
    # Plain asyncio (SimCord settles executor work before it moves any timer, so a timeout cannot
    # race a worker thread there); the user-facing text is error_text's.
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
        for _ in range(100):  # the worker ends and gives its slot back
            if not bot.slots.locked():
                break
            await asyncio.sleep(0.05)
        freed = not bot.slots.locked()
        again = await bot.compute(lambda n: n is notes)  # the slot serves the next question
        return ex.value, waited, held, freed, again

    err, waited, held, freed, again = asyncio.run(main())
    assert 0.25 < waited < 1.5 and held and freed and again
    assert error_text(err, s) == TIMEOUT_TEXT.format(s=0.3) and "over 0.3 s" in error_text(err, s)


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
    assert bot.allowed_mentions is not None and bot.allowed_mentions.to_dict() == {"parse": []}


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
