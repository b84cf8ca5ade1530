"""The bot's slash commands (/ask, /help, /papers, /summarize), long answers and cooldowns, driven through
discord.py's real objects against SimCord's offline Discord (see ``discord_sim``)."""

from __future__ import annotations

import logging
import re
import socket

import discord
import discord_sim
from discord_sim import QUESTION, bot_settings, run, stored, texts, world

from papernotes.bot import discord_format
from papernotes.bot.discord_client import PaperBot
from papernotes.bot.discord_format import COOLDOWN_TEXT, SOURCES_HEADING, bracket_urls
from papernotes.retrieval.prompts import EXTRACTIVE_LABEL, REFUSAL

#: The fixture index's notes, loaded once per test module (pytest collects fixtures from module attributes).
notes = discord_sim.notes

MARKER_RE = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")


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
    from papernotes.bot.summary_render import summary_markdown
    from papernotes.retrieval.summarize import summarize

    expected = bracket_urls(summary_markdown(summarize(fixture_index, "ToySys 2026", topic="llm")))
    body = "\n".join(texts(r))
    assert body.replace("\n", "") == expected.replace("\n", "")
    assert "Quokka: Paged Attention for Marsupial Inference" in body
    assert all(len(t) <= 2000 for t in texts(r))
    # Unknown venue: found after the defer, so the "thinking…" message becomes the one-line error
    assert texts(bad) == [texts(bad)[0]] and texts(bad)[0].startswith("❌ ") and "\n" not in texts(bad)[0]


# ----------------------------------------------------------------------------------------------
# long answers
# ----------------------------------------------------------------------------------------------

LONG_CODE = "\n".join(f"kv_blocks.append(allocate(block_size=16))  # page {i}" for i in range(45))


def long_reply(n_chars: int = 4500) -> str:
    paras: list[str] = []
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
    assert bot.allowed_mentions is not None and bot.allowed_mentions.to_dict() == {"parse": []}


# ----------------------------------------------------------------------------------------------
# cooldowns, model failures, refusals
# ----------------------------------------------------------------------------------------------


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


def test_refusal_is_the_shared_phrase(fixture_index, notes):
    bot = PaperBot(bot_settings(fixture_index), notes)

    async def scenario(env):
        _, ch, (alice,) = world(env)
        return await alice.slash(ch, "ask", question="How do volcanoes form on Mars?")

    r = run(bot, scenario)
    assert texts(r) == [REFUSAL]


# ----------------------------------------------------------------------------------------------
# long /summarize and /papers replies: a Markdown file instead of many messages
# ----------------------------------------------------------------------------------------------


def sent(result) -> list:
    """The messages of an interaction: its response (the deferred message, once edited) and follow-ups."""
    return ([result.response] if result.response is not None else []) + list(result.followups)


def test_long_summary_and_paper_list_come_as_a_markdown_file(fixture_index, notes, caplog):
    """With messages of at most 200 characters the fixture's summary would take more than three: it
    comes as one message with the whole summary attached; where the bot may not attach files it is
    split into messages as before (one warning in the log)."""
    from papernotes.bot.exports import papers_markdown
    from papernotes.bot.summary_render import summary_markdown
    from papernotes.retrieval.summarize import summarize

    bot = PaperBot(bot_settings(fixture_index, discord_max_chars=200), notes)

    async def scenario(env):
        guild, ch, (alice,) = world(env)
        no_files = guild.create_text_channel(
            "no-files", overwrites={guild.me: discord.PermissionOverwrite(attach_files=False)}
        )
        s = await alice.slash(ch, "summarize", venue="ToySys 2026")
        p = await alice.slash(ch, "papers", venue="ToySys 2026")
        files = {}
        for r in (s, p):
            for f in sent(r):
                for a in f.attachments:
                    files[a.filename] = (await a.read()).decode("utf-8")
        split = await alice.slash(no_files, "summarize", venue="ToySys 2026")
        return s, p, files, split

    with caplog.at_level(logging.WARNING, logger="papernotes.discord"):
        s, p, files, split = run(bot, scenario)
    expected = summary_markdown(summarize(fixture_index, "ToySys 2026", topic="llm"))
    assert len(discord_format.split_message(bracket_urls(expected), 200)) > 3  # the case being tested
    (reply,) = sent(s)
    assert [a.filename for a in reply.attachments] == ["toysys-2026-llm.md"]
    assert "attached" in reply.content and len(reply.content) <= 200
    assert files["toysys-2026-llm.md"] == expected + "\n"
    recs = notes.papers(venue="ToySys 2026")
    (listing,) = sent(p)
    assert listing.embeds and listing.embeds[0].title == "Papers — ToySys 2026"
    assert files["papers-toysys-2026.md"] == papers_markdown(recs, "ToySys 2026")
    assert all(not f.attachments for f in sent(split)) and len(sent(split)) > 3
    assert re.sub(r"\s", "", "".join(texts(split))) == re.sub(r"\s", "", bracket_urls(expected))
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "cannot attach files" in warnings[0]
