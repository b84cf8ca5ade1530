"""Unit tests of bot/discord_format.py: splitting long text for Discord, answer formatting, embed limits."""

from __future__ import annotations

import random
import re

import discord
import pytest

from papernotes.bot.discord_format import (
    EMBED_DESCRIPTION,
    EMBED_FIELD_VALUE,
    EMBED_TOTAL,
    SOURCES_HEADING,
    answer_body,
    bracket_urls,
    fit_embed,
    format_answer,
    list_embed,
    source_line,
    split_message,
)
from papernotes.retrieval.answer import Answer, Citation
from papernotes.retrieval.prompts import EXTRACTIVE_LABEL, REFUSAL

MARKER_RE = re.compile(r"\[\d+(?:\s*[,–-]\s*\d+)*\]")
URL_RE = re.compile(r"https?://[^\s<>()\[\]]+")
FENCE_LINE_RE = re.compile(r"^\s{0,3}```", re.M)


def fences_balanced(part: str) -> bool:
    return len(FENCE_LINE_RE.findall(part)) % 2 == 0


def words(text: str) -> list[str]:
    """Whitespace tokens without fence lines (split parts add/remove only fences and whitespace)."""
    return [w for w in text.split() if not w.startswith("```")]


def check_parts(text: str, parts: list[str], limit: int) -> None:
    assert parts, "non-empty text gives at least one part"
    for p in parts:
        assert 0 < len(p) <= limit, (len(p), limit)
        assert fences_balanced(p), p
        assert not re.search(r"\[\d*$", p) and not re.match(r"^\d*\]", p), f"marker split: {p[-20:]!r}"
    assert words("\n".join(parts)) == words(text)
    joined_markers = [m for p in parts for m in MARKER_RE.findall(p)]
    assert joined_markers == MARKER_RE.findall(text)
    joined_urls = [u for p in parts for u in URL_RE.findall(p)]
    assert joined_urls == URL_RE.findall(text)


# --- splitter -------------------------------------------------------------------------------------


def test_short_text_is_one_part_and_empty_is_none():
    assert split_message("Hello [1].", 2000) == ["Hello [1]."]
    assert split_message("", 2000) == []
    assert split_message("\n\n  \n", 2000) == []


def test_limit_must_leave_room():
    with pytest.raises(ValueError):
        split_message("x" * 100, 10)


def test_prefers_paragraph_breaks():
    a, b, c = ("Alpha sentence number one. " * 20).strip(), ("Beta words here. " * 20).strip(), "Gamma."
    parts = split_message(f"{a}\n\n{b}\n\n{c}", len(a) + 20)
    assert parts[0] == a
    assert parts[1].startswith("Beta")
    check_parts(f"{a}\n\n{b}\n\n{c}", parts, len(a) + 20)


def test_long_paragraph_splits_at_sentence_ends_keeping_markers_with_their_sentence():
    sents = [f"Sentence {i} says something about KV caches [{i}]." for i in range(1, 80)]
    text = " ".join(sents)
    parts = split_message(text, 300)
    check_parts(text, parts, 300)
    for p in parts:
        assert p.endswith("]."), p[-30:]  # every cut after a full sentence with its marker


def test_marker_after_period_stays_with_its_sentence():
    text = ("Quokka pages the KV cache into blocks. [2] " * 40).strip()
    parts = split_message(text, 200)
    check_parts(text, parts, 200)
    assert all(p.endswith("[2]") for p in parts)


@pytest.mark.parametrize("limit", range(60, 140, 3))
def test_never_cuts_inside_a_marker_or_url_even_without_sentence_breaks(limit):
    # no sentence ends: only whitespace is available, and markers/urls sit everywhere near cuts
    chunk = "see [12] and [3, 4] at https://example.org/a/b?c=d_e and <https://x.example/y> [10–12] "
    text = (chunk * 12).strip()
    parts = split_message(text, limit)
    check_parts(text, parts, limit)
    for p in parts:
        assert p.count("<") == p.count(">")


def test_markdown_link_is_not_cut():
    text = ("word " * 30) + "[Quokka paper](https://example.org/quokka/paper.pdf) " + ("word " * 30)
    for limit in range(80, 200, 7):
        parts = split_message(text, limit)
        check_parts(text, parts, limit)
        assert sum("[Quokka paper](https://example.org/quokka/paper.pdf)" in p for p in parts) == 1


def test_code_block_is_closed_and_reopened_with_its_language():
    code = "\n".join(f"    x_{i} = compute({i})  # step {i}" for i in range(120))
    text = f"Intro paragraph [1].\n\n```python\n{code}\n```\n\nAfter the code [2]."
    parts = split_message(text, 500)
    check_parts(text, parts, 500)
    inner = list(parts[1:-1])
    assert len(parts) >= 4
    for p in inner:
        assert p.startswith("```python\n") and p.endswith("\n```")
    # indentation inside code survives the cut
    assert all(ln.startswith("    x_") for p in parts for ln in p.splitlines() if "x_" in ln)


def test_no_empty_code_block_when_fence_opens_near_the_cut():
    text = ("filler words " * 14).strip() + "\n```\n" + "\n".join(["line of code"] * 40) + "\n```"
    for limit in range(150, 260, 5):
        parts = split_message(text, limit)
        check_parts(text, parts, limit)
        assert not any(re.fullmatch(r"```\w*\n*```", p.strip()) for p in parts)


def test_tilde_fences_and_unclosed_fence():
    text = "~~~\n" + "\n".join(["abc def"] * 100)  # never closed: each part is still balanced
    parts = split_message(text, 120)
    assert all(len(p) <= 120 for p in parts)
    assert all(p.startswith("~~~\n") for p in parts)
    assert all(p.endswith("\n~~~") for p in parts[:-1])


def test_overlong_token_is_hard_split():
    text = "a" * 5000
    parts = split_message(text, 2000)
    assert [len(p) for p in parts][:2] == [1996, 1996]
    assert "".join(parts) == text


def test_overlong_url_alone_is_split_rather_than_looping():
    url = "https://example.org/" + "p" * 3000
    parts = split_message(f"see {url} end", 2000)
    assert all(len(p) <= 2000 for p in parts)
    assert "".join(parts).replace(" ", "") == f"see{url}end"


@pytest.mark.parametrize("seed", range(40))
def test_random_documents_split_validly(seed):
    rnd = random.Random(seed)
    blocks = []
    for _ in range(rnd.randint(5, 40)):
        kind = rnd.random()
        if kind < 0.15:
            lang = rnd.choice(["", "python", "rust"])
            blocks.append(
                f"```{lang}\n"
                + "\n".join(
                    f"{'  ' * rnd.randint(0, 3)}stmt_{rnd.randint(0, 999)}(x)" for _ in range(rnd.randint(1, 60))
                )
                + "\n```"
            )
        elif kind < 0.25:
            blocks.append(
                "\n".join(f"- item {rnd.randint(0, 99)} [{rnd.randint(1, 20)}]" for _ in range(rnd.randint(1, 15)))
            )
        else:
            sents = []
            for _ in range(rnd.randint(1, 12)):
                ws = [
                    rnd.choice(
                        [
                            "KV",
                            "cache",
                            "paged",
                            "attention",
                            "Quokka",
                            "throughput",
                            "3.7x",
                            "GPU",
                            "https://example.org/p/" + str(rnd.randint(0, 99)),
                            "[7]",
                            "`inline code`",
                            "<https://toysys.example.org/2026>",
                            "[Doc](https://d.example/x)",
                        ]
                    )
                    for _ in range(rnd.randint(3, 25))
                ]
                sents.append(" ".join(ws) + rnd.choice([".", "!", "?", ". [3]", " [4]."]))
            blocks.append(" ".join(sents))
    text = "\n\n".join(blocks)
    limit = rnd.choice([200, 500, 2000])
    parts = split_message(text, limit)
    check_parts(text, parts, limit)


# --- formatting -----------------------------------------------------------------------------------


def _cit(n, url="https://toysys.example.org/2026/quokka", page="Quokka: Paged Attention", section="TL;DR"):
    return Citation(
        n=n,
        page_title=page,
        section=section,
        paper_title=page,
        venue="ToySys 2026",
        url=url,
        source="x.md",
        snippet="…",
    )


def test_format_answer_extractive_with_note_and_sources():
    a = Answer(
        question="q",
        answer="Quokka pages the KV cache [1].",
        mode="extractive",
        citations=[_cit(1), _cit(2, url=None, page="Serving *Systems*", section=None)],
        note="model not used: cannot connect",
    )
    text = format_answer(a)
    assert text.startswith("Quokka pages the KV cache [1].")
    assert EXTRACTIVE_LABEL in text and "note: model not used: cannot connect" in text
    sources = text.split(SOURCES_HEADING, 1)[1]
    assert "[1] Quokka: Paged Attention › TL;DR (ToySys 2026) <https://toysys.example.org/2026/quokka>" in sources
    assert "[2] Serving \\*Systems* (ToySys 2026)" in sources  # markdown escaped, no url
    assert answer_body(text) == "Quokka pages the KV cache [1]."


def test_format_answer_refusal_has_no_sources_or_label():
    a = Answer(question="q", answer=REFUSAL, mode="extractive", citations=[_cit(1)], refused=True)
    assert format_answer(a) == REFUSAL


def test_source_line_brackets_url():
    assert source_line(_cit(3)).endswith("<https://toysys.example.org/2026/quokka>")


def test_bracket_urls_leaves_links_alone():
    s = "a https://x.example/1 b <https://y.example/2> c [t](https://z.example/3)"
    assert bracket_urls(s) == "a <https://x.example/1> b <https://y.example/2> c [t](https://z.example/3)"


# --- embeds ---------------------------------------------------------------------------------------


def test_fit_embed_clips_to_discord_limits():
    e = discord.Embed(title="t" * 300, description="d" * 5000)
    for i in range(30):
        e.add_field(name=f"f{i}", value="v" * 2000)
    e.set_footer(text="f" * 3000)
    fit_embed(e)
    assert e.title is not None and e.description is not None
    assert len(e.title) <= 256 and len(e.description) <= EMBED_DESCRIPTION
    assert len(e.fields) <= 25 and all(f.value is not None and len(f.value) <= EMBED_FIELD_VALUE for f in e.fields)
    assert len(e) <= EMBED_TOTAL


def test_list_embed_says_how_many_are_left_out():
    lines = [f"• Paper number {i} with a fairly long title about inference systems" for i in range(500)]
    e = list_embed("Papers — ToySys 2026", lines, footer="500 papers")
    assert e.description is not None
    assert len(e.description) <= EMBED_DESCRIPTION and len(e) <= EMBED_TOTAL
    m = re.search(r"… and (\d+) more$", e.description)
    assert m and int(m.group(1)) + e.description.count("• Paper") == 500
