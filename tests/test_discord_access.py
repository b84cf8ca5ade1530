"""The bot in a shared server: permissions (threads-only channels, nowhere to post, best-effort typing),
who may ask (guilds, channels, roles, DMs), the daily cap on model answers, 👍/👎 feedback through raw
reaction events, DM history, the clarifying question and ephemeral slash-command errors — through
discord.py's real objects against SimCord's offline Discord (see ``discord_sim``), with the loopback
OpenAI-compatible server as the model where one is needed."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import discord
import discord_sim
from discord_sim import QUESTION, bot_settings, run, texts, world
from openai_server import OpenAICompatServer, Reply

from papernotes.bot.discord_client import PaperBot
from papernotes.bot.discord_commands import INVITE_SCOPES, NEEDED_PERMISSIONS
from papernotes.bot.discord_format import DAILY_CAP_NOTE, NOT_ALLOWED_TEXT, SOURCES_HEADING
from papernotes.corpus.errors import PapernotesError
from papernotes.retrieval.feedback import FeedbackStore
from papernotes.retrieval.prompts import CLARIFY, EXTRACTIVE_LABEL
from papernotes.retrieval.usage import DailyCap

notes = discord_sim.notes  # the fixture index's notes (pytest collects fixtures from module attributes)

BIN = Path(sys.executable).parent
THREADS_ONLY = discord.PermissionOverwrite(
    send_messages=False, create_public_threads=True, send_messages_in_threads=True
)
NOWHERE = discord.PermissionOverwrite(send_messages=False, create_public_threads=False, send_messages_in_threads=False)


def fresh_bot(settings, notes, tmp_path: Path, cap: int | None = None) -> PaperBot:
    """A bot whose feedback and usage stores live in this test's tmp_path."""
    bot = PaperBot(settings, notes)
    bot.feedback = FeedbackStore(tmp_path / "feedback.sqlite")
    bot.usage = DailyCap(tmp_path / "usage.sqlite", settings.discord_daily_model_answers if cap is None else cap)
    return bot


def recording(notes, monkeypatch) -> list[tuple[str, dict]]:
    calls: list[tuple[str, dict]] = []
    orig = notes.ask

    def ask(question, **kw):
        calls.append((question, kw))
        return orig(question, **kw)

    monkeypatch.setattr(notes, "ask", ask)
    return calls


def errors_logged(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


# ----------------------------------------------------------------------------------------------
# permissions
# ----------------------------------------------------------------------------------------------


def test_threads_only_channel_gets_its_answer_in_a_new_thread(fixture_index, notes, tmp_path, caplog):
    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)

    async def scenario(env):
        guild, _, (alice,) = world(env)
        ch = guild.create_text_channel("threads-only", overwrites={guild.me: THREADS_ONLY})
        asked = await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
        threads = ch.threads
        top = [m for m in ch.history() if m.author.id == env.bot.user.id and m.type == discord.MessageType.default]
        return asked.id, threads, [m.content for m in threads[0].history()] if threads else [], top

    with caplog.at_level(logging.INFO, logger="papernotes.discord"):
        asked_id, threads, in_thread, top = run(bot, scenario)
    assert len(threads) == 1 and threads[0].id == asked_id  # opened from the question itself
    body = "\n".join(in_thread)
    assert "16-token blocks" in body and SOURCES_HEADING in body
    assert top == []  # nothing at the top level, where the bot may not post
    assert errors_logged(caplog) == []


def test_where_the_bot_can_post_nowhere_one_warning_and_no_traceback(fixture_index, notes, tmp_path, caplog):
    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)

    async def scenario(env):
        guild, _, (alice,) = world(env)
        ch = guild.create_text_channel("read-only", overwrites={guild.me: NOWHERE})
        await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
        mention = (list(ch.history()), ch.threads)
        r = await alice.slash(ch, "ask", question=QUESTION)
        return mention, r

    with caplog.at_level(logging.DEBUG, logger="papernotes.discord"):
        (history, threads), r = run(bot, scenario)
    assert len(history) == 1 and threads == [] and not history[0].reactions  # nothing posted, no ❌
    warnings = [rec for rec in caplog.records if rec.levelno == logging.WARNING]
    assert len(warnings) == 2  # one line for the mention, one for the slash command
    assert "send_messages" in warnings[0].getMessage() and "\n" not in warnings[0].getMessage()
    assert errors_logged(caplog) == []
    # the slash command is answered, but only the asker sees it
    assert r.ephemeral and "16-token blocks" in "\n".join(texts(r))


def test_typing_refused_never_aborts_an_answer(fixture_index, notes, tmp_path, monkeypatch, caplog):
    async def refuse(self, channel_id):
        raise discord.Forbidden(type("R", (), {"status": 403, "reason": "Forbidden"})(), "Missing Permissions")

    monkeypatch.setattr(discord.http.HTTPClient, "send_typing", refuse)
    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
        return [m.content for m in ch.threads[0].history()]

    with caplog.at_level(logging.INFO, logger="papernotes.discord"):
        answer = run(bot, scenario)
    assert "16-token blocks" in "\n".join(answer)
    assert errors_logged(caplog) == []


def test_help_lists_permissions_and_invite_scopes(fixture_index, notes, tmp_path):
    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        return await alice.slash(ch, "help")

    r = run(bot, scenario)
    text = r.response.embeds[0].description
    assert r.ephemeral
    assert all(p in text for p in NEEDED_PERMISSIONS) and all(f"`{s}`" in text for s in INVITE_SCOPES)
    assert "Create Public Threads" in text and "applications.commands" in text


def test_an_error_after_the_defer_is_seen_only_by_the_asker(fixture_index, notes, tmp_path, monkeypatch):
    def broken(*a, **kw):
        raise PapernotesError("the index is being rebuilt")

    monkeypatch.setattr(notes, "ask", broken)
    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        r = await alice.slash(ch, "ask", question=QUESTION)
        public = [m.content for m in ch.history() if m.author.id == env.bot.user.id]
        return r, public

    r, public = run(bot, scenario)
    errors = [f for f in r.followups if "the index is being rebuilt" in f.content]
    assert len(errors) == 1 and errors[0].flags.ephemeral
    assert public == []  # the public "thinking…" message is gone; nothing public remains


# ----------------------------------------------------------------------------------------------
# who may ask
# ----------------------------------------------------------------------------------------------


def test_member_outside_the_allowed_roles_gets_the_polite_line_and_no_answer(
    fixture_index, notes, tmp_path, monkeypatch
):
    calls = recording(notes, monkeypatch)
    holder: dict[str, int] = {}

    async def scenario(env):
        guild = env.create_guild()
        ch = guild.create_text_channel("general")
        readers = guild.create_role("readers")
        holder["role"] = readers.id
        env.bot.settings = env.bot.settings.model_copy(update={"discord_allowed_roles": [readers.id]})
        alice = guild.add_member(env.create_user("alice"), roles=[readers])
        mallory = guild.add_member(env.create_user("mallory"))
        denied_slash = await mallory.slash(ch, "ask", question=QUESTION)
        await mallory.send(ch, f"{env.bot.user.mention} {QUESTION}")
        denied_mention = ch.last_message.content
        await mallory.send_dm(QUESTION)
        denied_dm = mallory.user.dm_channel.last_message.content
        allowed = await alice.slash(ch, "ask", question=QUESTION)
        assert [type(e).__name__ for e in env.errors] == ["NotAllowed"]  # the check's failure, handled
        return denied_slash, denied_mention, denied_dm, allowed, ch.threads

    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)
    denied_slash, denied_mention, denied_dm, allowed, threads = run(bot, scenario)
    assert denied_slash.ephemeral and denied_slash.response.content == NOT_ALLOWED_TEXT
    assert not denied_slash.deferred and denied_slash.followups == []
    assert denied_mention == NOT_ALLOWED_TEXT and threads == []
    assert denied_dm == NOT_ALLOWED_TEXT
    assert len(calls) == 1  # only alice's question was answered
    assert "16-token blocks" in "\n".join(texts(allowed))


def test_dms_only_for_members_of_an_allowed_guild_or_off(fixture_index, notes, tmp_path):
    async def scenario(env):
        guild, _, (member,) = world(env, "member")
        other = env.create_guild()
        outsider = other.add_member(env.create_user("outsider"))
        env.bot.settings = env.bot.settings.model_copy(update={"discord_allowed_guilds": [guild.id]})
        await member.send_dm(QUESTION)
        await outsider.send_dm(QUESTION)  # a member of a guild the bot is in, but not an allowed one
        stranger = env.create_user("stranger")
        await stranger.send_dm(QUESTION)
        first = [member.user.dm_channel.last_message.content, outsider.user.dm_channel.last_message.content]
        first.append(stranger.dm_channel.last_message.content)
        env.bot.settings = env.bot.settings.model_copy(update={"discord_dms": "off"})
        await member.send_dm("What does Numbat spill to SSD?")
        return first, member.user.dm_channel.last_message.content

    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)
    (member, outsider, stranger), off = run(bot, scenario)
    assert "16-token blocks" in member
    assert outsider == NOT_ALLOWED_TEXT and stranger == NOT_ALLOWED_TEXT and off == NOT_ALLOWED_TEXT


def test_channel_allow_list_covers_its_threads(fixture_index, notes, tmp_path, monkeypatch):
    calls = recording(notes, monkeypatch)

    async def scenario(env):
        guild, ch, (alice,) = world(env)
        elsewhere = guild.create_text_channel("random")
        env.bot.settings = env.bot.settings.model_copy(update={"discord_allowed_channels": [ch.id]})
        await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
        await alice.send(ch.threads[0], "how much higher is its throughput?")  # a thread of an allowed channel
        denied = await alice.slash(elsewhere, "ask", question=QUESTION)
        assert [type(e).__name__ for e in env.errors] == ["NotAllowed"]  # the check's failure, handled
        return denied

    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)
    denied = run(bot, scenario)
    assert len(calls) == 2 and denied.response.content == NOT_ALLOWED_TEXT and denied.ephemeral


def test_the_daily_cap_switches_to_extractive_answers(fixture_index, tmp_path):
    from papernotes.retrieval.service import Notes

    with OpenAICompatServer(default=Reply("Quokka pages the KV cache into 16-token blocks [1].")) as server:
        s = fixture_index.model_copy(
            update={"openai_base_url": server.base_url, "llm_timeout": 5.0, "discord_daily_model_answers": 2}
        )
        bot = fresh_bot(bot_settings(s), Notes(s), tmp_path)

        async def scenario(env):
            _, ch, (alice, bob) = world(env, "alice", "bob")
            out = [texts(await alice.slash(ch, "ask", question=QUESTION)) for _ in range(3)]
            await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
            out.append([m.content for m in ch.threads[0].history()])
            out.append(texts(await bob.slash(ch, "ask", question=QUESTION)))  # bob has his own count
            out.append(texts(await alice.slash(ch, "summarize", venue="ToySys 2026")))  # model-written too
            return ["\n".join(t) for t in out]

        a1, a2, a3, mention, b1, summary = run(bot, scenario, settle_timeout=60)  # 6 answers on a busy machine
        answer_calls = len(server.chat_requests())
    note = DAILY_CAP_NOTE.format(n=2)
    for t in (a1, a2, b1):
        assert "16-token blocks [1]." in t and EXTRACTIVE_LABEL not in t and note not in t
    for t in (a3, mention):
        assert EXTRACTIVE_LABEL in t and note in t
    assert "mode: extractive" in summary and note in summary
    assert answer_calls == 3  # alice twice, bob once; the capped answers called no model


# ----------------------------------------------------------------------------------------------
# feedback
# ----------------------------------------------------------------------------------------------


def test_thumbs_down_lands_in_the_feedback_file_and_exports_as_an_eval_line(fixture_index, notes, tmp_path):
    bot = fresh_bot(bot_settings(fixture_index), notes, tmp_path)
    store = bot.feedback

    async def scenario(env):
        guild, ch, (alice, bob) = world(env, "alice", "bob")
        await alice.send(ch, f"{env.bot.user.mention} {QUESTION}")
        thread = ch.threads[0]
        answer = [m for m in thread.history() if m.author.id == env.bot.user.id][0]
        await bob.react(answer, "👍")
        await bob.react(answer, "👎")  # switching updates his vote
        await alice.react(answer, "👎")
        await alice.react(answer, "🎉")  # other emojis: ignored
        await alice.react(thread.history()[0] if thread.history()[0].id != answer.id else answer, "🎉")
        steps = [sorted(f.vote for f in store.feedback())]
        await bob.unreact(answer, "👍")  # removing the 👍 he replaced keeps his 👎
        steps.append(sorted(f.vote for f in store.feedback()))
        await bob.unreact(answer, "👎")  # removing his vote deletes it
        steps.append(sorted(f.vote for f in store.feedback()))
        await answer.add_reaction("👍")  # the bot's own reaction: ignored
        steps.append(sorted(f.vote for f in store.feedback()))
        r = await alice.slash(ch, "ask", question="What does Numbat spill to SSD?")
        first = r.response or r.followups[0]
        await bob.react(first, "👎")  # a slash answer (the completed "thinking…" message)
        own = await alice.send(ch, "thanks!")
        await bob.react(own, "👎")  # not an answer: ignored
        return steps

    steps = run(bot, scenario)
    assert steps == [[-1, -1], [-1, -1], [-1], [-1]]
    votes = store.feedback()
    assert [(f.question, f.vote) for f in votes] == [(QUESTION, -1), ("What does Numbat spill to SSD?", -1)]
    assert all(len(f.user_hash) == 32 and not f.user_hash.isdigit() for f in votes)
    assert "16-token blocks" in votes[0].answer and votes[0].citations[0]["paper_title"]

    # `papernotes feedback` lists it; `--export` writes eval JSONL that `papernotes eval` reads
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PAPERNOTES_"))}
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    (tmp_path / "feedback.sqlite").rename(data / "feedback.sqlite")
    env.update(PAPERNOTES_DATA_DIR=str(data), NO_COLOR="1", COLUMNS="200")
    listed = subprocess.run([str(BIN / "papernotes"), "feedback"], capture_output=True, text=True, env=env, timeout=60)
    assert listed.returncode == 0 and QUESTION in listed.stdout and "2 votes" in listed.stdout
    out = tmp_path / "bad.jsonl"
    exported = subprocess.run(
        [str(BIN / "papernotes"), "feedback", "--export", str(out)], capture_output=True, text=True, env=env, timeout=60
    )
    assert exported.returncode == 0, exported.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["question"] for r in rows] == [QUESTION, "What does Numbat spill to SSD?"]
    assert all(r["type"] == "feedback_bad" and r["needs_review"] and r["gold_titles"] == [] for r in rows)
    from papernotes.retrieval.evaluate import load_questions

    assert [r["question"] for r in load_questions(out)] == [QUESTION, "What does Numbat spill to SSD?"]


def test_votes_survive_a_restart_and_dm_answers_count(fixture_index, notes, tmp_path):
    settings = bot_settings(fixture_index)
    ids: dict[str, int] = {}

    async def ask(env):
        _, _, (dora,) = world(env, "dora")
        await dora.send_dm(QUESTION)
        ids["answer"] = dora.user.dm_channel.last_message.id
        return dora

    run(fresh_bot(settings, notes, tmp_path), ask)

    async def react_later(env):  # a new process: empty message cache, the same feedback file
        _, _, (dora,) = world(env, "dora")
        await dora.send_dm(QUESTION)
        answer = dora.user.dm_channel.last_message
        await dora.user.set_reaction(answer, "👎", reacted=True)
        return answer.id

    second = run(fresh_bot(settings, notes, tmp_path), react_later)
    store = FeedbackStore(tmp_path / "feedback.sqlite")
    assert store.answer_id(ids["answer"]) is not None and store.answer_id(second) is not None
    assert [(f.vote, f.place) for f in store.feedback()] == [(-1, "dm")]


# ----------------------------------------------------------------------------------------------
# conversation state
# ----------------------------------------------------------------------------------------------


def test_dm_follow_up_uses_the_earlier_dm_question(fixture_index, notes, tmp_path, monkeypatch):
    calls = recording(notes, monkeypatch)

    async def scenario(env):
        _, _, (dora,) = world(env, "dora")
        await dora.send_dm(QUESTION)
        await dora.send_dm("how much higher is its throughput?")
        return [m.content for m in dora.user.dm_channel.history()]

    msgs = run(fresh_bot(bot_settings(fixture_index), notes, tmp_path), scenario)
    assert calls[0] == (QUESTION, {"history": []}) or calls[0][1].get("history") in (None, [])
    q2, kw = calls[1]
    assert q2 == "how much higher is its throughput?"
    assert kw["history"] and kw["history"][0][0] == QUESTION and "16-token blocks" in kw["history"][0][1]
    assert "3.7x" in msgs[-1]  # answered about Quokka
    assert "-# searched for: how much higher is its throughput? (Quokka" in msgs[-1]


def test_context_free_follow_up_gets_the_clarifying_question(fixture_index, notes, tmp_path):
    async def scenario(env):
        _, ch, (alice,) = world(env)
        await alice.send(ch, f"{env.bot.user.mention} what about its evaluation?")
        mention = [m.content for m in ch.threads[0].history()]
        r = await alice.slash(ch, "ask", question="How was it evaluated?")
        await alice.send_dm("what about that paper's evaluation?")
        return mention, texts(r), alice.user.dm_channel.last_message.content

    mention, slash, dm = run(fresh_bot(bot_settings(fixture_index), notes, tmp_path), scenario)
    for body in (mention[-1], "\n".join(slash), dm):
        assert body.startswith(CLARIFY) and "Koala-100" not in body and SOURCES_HEADING not in body


def test_readme_invite_integer_is_the_needed_permissions():
    """The README's permissions integer is exactly :data:`NEEDED_PERMISSIONS` (Attach Files included)."""
    perms = discord.Permissions.none()
    for name in NEEDED_PERMISSIONS:
        attr = name.lower().replace(" ", "_")
        attr = attr if hasattr(perms, attr) else attr.removesuffix("s")  # "View Channels" → view_channel
        setattr(perms, attr, True)
    assert perms.attach_files
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert f"permissions integer {perms.value})" in readme
