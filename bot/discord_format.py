"""What the Discord bot says: answers, paper lists and error lines as Discord-sized messages and embeds.

Splitting long text into messages, formatting an :class:`~papernotes.retrieval.answer.Answer` with its
Sources list, fitting embeds, and the short user-facing texts. Limits come from Discord's API
documentation (https://discord.com/developers/docs/resources/message, "Create Message": content ≤ 2000
characters; "Embed Limits": title 256, description 4096, 25 fields, field name 256 / value 1024, footer
2048, author name 256, 6000 characters over a message's embeds). Pure functions only; no discord.py
network objects are needed except :class:`discord.Embed`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime

import discord

from papernotes.corpus.errors import PapernotesError
from papernotes.corpus.models import PaperRecord
from papernotes.retrieval.answer import Answer, Citation
from papernotes.retrieval.prompts import EXTRACTIVE_LABEL
from papernotes.retrieval.settings import Settings

#: Message content limit (characters).
MAX_CONTENT = 2000
#: Embed limits (characters; fields count).
EMBED_TITLE = 256
EMBED_DESCRIPTION = 4096
EMBED_FIELDS = 25
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FOOTER = 2048
EMBED_AUTHOR = 256
EMBED_TOTAL = 6000

#: A reply that would take more than this many messages is sent as a short message with the whole
#: reply attached as a Markdown file (``/summarize``, ``/papers``), where the bot may attach files.
MAX_REPLY_MESSAGES = 3
ATTACHED_TEXT = "The full list ({n}) is in the attached file `{name}`."

#: User-facing texts (short; the details go to the log).
TIMEOUT_TEXT = (
    "⏳ Sorry, that took too long (over {s:g} s): the notes or the model are busy. "
    "Please try again in a moment, or ask a narrower question."
)
GENERIC_ERROR = "❌ Something went wrong while answering; the bot's log has the details. Please try again."
COOLDOWN_TEXT = "⏳ Easy there: you can ask again in {s:.0f} s."
#: Said (ephemerally where Discord allows) to someone the settings do not let ask
#: (``discord_allowed_*``, ``discord_dms``).
NOT_ALLOWED_TEXT = (
    "🙏 Sorry, I can only answer questions from members with access to these notes, here or in an allowed "
    "server; please ask the server's admins if you think you should have it."
)
#: Added to an answer once a user has had ``discord_daily_model_answers`` model answers today.
DAILY_CAP_NOTE = (
    "you reached today's limit of {n} model-written answers, so this one is extractive (quoted from the "
    "notes); model answers resume tomorrow (UTC)"
)
#: Said ephemerally to a slash command in a channel where the bot may not post.
CANNOT_POST_TEXT = "I can't post in this channel, so only you see this answer."

#: The heading that starts the Sources list of a formatted answer (also used to cut it off when an
#: earlier answer is read back as conversation history).
SOURCES_HEADING = "**Sources**"

_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})([^\s`]*)")

#: Spans a split must never cut through: citation markers ([3], [1, 2], [4–6]), markdown links,
#: <url> links, bare URLs, Discord mentions/channels/emoji/timestamps, inline code.
_PROTECTED_RE = re.compile(
    r"\[\d+(?:\s*[,–-]\s*\d+)*\]"  # citation marker
    r"|\[[^\]\n]{0,300}\]\(<?[^)\s]{1,2000}>?\)"  # markdown link [text](url) / [text](<url>)
    r"|<https?://[^>\s]+>"  # <url>
    r"|https?://[^\s<>()\[\]]+(?:\([^\s<>()]*\)[^\s<>()\[\]]*)*"  # bare url (allows balanced parens)
    r"|<(?:@[!&]?|#|a?:\w+:|t:)[^>\s]{1,64}>"  # discord mention / channel / emoji / timestamp
    r"|`[^`\n]{1,300}`"  # inline code
)
#: A sentence end (optionally followed by closing quotes/brackets and citation markers).
_SENTENCE_END_RE = re.compile(r"[.!?…][\"'”’)\]]*(?:[ \t]?\[\d+(?:\s*[,–-]\s*\d+)*\])*(?=[ \t]+\S)")


def _open_fence(text: str) -> tuple[str, str] | None:
    """``(opening line, fence)`` (e.g. ``("```python", "```")``) of a code block still open at the end
    of ``text``, or ``None`` when every fence is closed."""
    opener: tuple[str, str] | None = None
    for line in text.split("\n"):
        m = _FENCE_RE.match(line)
        if not m:
            continue
        if opener is None:
            opener = (m.group(1) + m.group(2), m.group(1))
        elif m.group(1)[0] == opener[1][0] and len(m.group(1)) >= len(opener[1]) and not m.group(2):
            opener = None
    return opener


def _protected(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _PROTECTED_RE.finditer(text)]


def _inside(pos: int, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    for a, b in spans:
        if a < pos < b:
            return a, b
        if a >= pos:
            break
    return None


def _candidates(text: str, window: int) -> Iterable[list[int]]:
    """Cut positions ≤ ``window`` by preference: paragraph breaks, line breaks, sentence ends,
    whitespace. Each list is in descending order (prefer the fullest part)."""
    head = text[: window + 1]
    yield sorted((m.start() for m in re.finditer(r"\n[ \t]*\n", head)), reverse=True)
    yield sorted((m.start() for m in re.finditer(r"\n", head)), reverse=True)
    yield sorted((m.end() for m in _SENTENCE_END_RE.finditer(head) if m.end() <= window), reverse=True)
    yield sorted((m.start() for m in re.finditer(r"[ \t]+", head)), reverse=True)


def _cut_ok(text: str, cut: int, lo: int, spans: list[tuple[int, int]]) -> bool:
    if cut <= lo or _inside(cut, spans):
        return False
    head = text[:cut]
    if not head.strip():
        return False
    opener = _open_fence(head)
    # not right after an opening fence line: that would leave an empty code block
    return opener is None or head.rstrip().rsplit("\n", 1)[-1].strip() != opener[0]


def split_message(text: str, limit: int = MAX_CONTENT) -> list[str]:
    """Split ``text`` into parts of at most ``limit`` characters each.

    Cuts at paragraph breaks, else line breaks, else sentence ends, else whitespace, and only as a
    last resort inside a word; never inside a citation marker (``[12]``), a link or URL, a Discord
    mention or inline code (unless one such span alone exceeds the limit). A code block that spans
    a cut is closed (same fence) at the end of one part and reopened (same language) at the start of
    the next, so every part renders on its own.

    Parameters
    ----------
    text
        Markdown text of any length.
    limit
        Maximum characters per part (default :data:`MAX_CONTENT`, Discord's message limit).

    Returns
    -------
    list[str]
        The parts in order, each 1 to ``limit`` characters; ``[]`` for empty or blank text.

    Raises
    ------
    ValueError
        If ``limit`` < 40 (no room for fences and text).
    """
    if limit < 40:
        raise ValueError("limit must be at least 40 characters")
    text = (text or "").strip("\n")
    if not text.strip():
        return []
    parts: list[str] = []
    reopen = ""
    rest = text
    while True:
        cand = reopen + rest
        if len(cand) <= limit:
            if cand.strip():
                parts.append(cand)
            return parts
        longest = max((len(m.group(1)) for m in map(_FENCE_RE.match, cand[:limit].split("\n")) if m), default=3)
        window = limit - 1 - longest  # room to close a code block open at the cut
        lo = len(reopen)
        spans = _protected(cand[: window + 2 * MAX_CONTENT])  # spans reaching the window at most
        # the preferred boundary kind that still fills at least half a part, else the fullest cut
        best: list[int] = []
        for level in _candidates(cand, window):
            ok = next((pos for pos in level if _cut_ok(cand, pos, lo, spans)), None)
            if ok is not None:
                best.append(ok)
                if ok - lo >= (window - lo) // 2:
                    break
        cut = best[-1] if best and best[-1] - lo >= (window - lo) // 2 else (max(best) if best else None)
        if cut is None:  # no whitespace at all: cut inside a word, but not inside a protected span
            cut = window
            span = _inside(cut, spans)
            if span and span[0] > lo and cand[: span[0]].strip():
                cut = span[0]
        head = cand[:cut]
        opener = _open_fence(head)
        if opener is not None:
            parts.append(head.rstrip("\n") + "\n" + opener[1])
            reopen = opener[0] + "\n"
            rest = cand[cut:]
            rest = rest[1:] if rest.startswith("\n") else rest
        else:
            parts.append(head.rstrip())
            reopen = ""
            rest = cand[cut:].lstrip()
        if not rest.strip():
            return parts


def bracket_urls(text: str) -> str:
    """Wrap bare http(s) URLs in ``<…>`` so Discord shows no link preview (markdown links and
    already-bracketed URLs are left alone)."""
    out, last = [], 0
    for m in _PROTECTED_RE.finditer(text):
        s = m.group(0)
        if s.startswith("http"):
            out.append(text[last : m.start()])
            out.append(f"<{s}>")
            last = m.end()
    out.append(text[last:])
    return "".join(out)


def _escape(s: str | None) -> str:
    return discord.utils.escape_markdown(s or "", as_needed=True)


def source_line(c: Citation) -> str:
    """``[n] Page › Section — Paper (Venue) <url>`` for one citation (markdown escaped; the URL in
    ``<…>`` so Discord shows no preview; ``notes`` when the citation has neither page nor section)."""
    where = " › ".join(_escape(x) for x in (c.page_title, c.section) if x)
    paper = f" — {_escape(c.paper_title)}" if c.paper_title and c.paper_title != c.page_title else ""
    venue = f" ({_escape(c.venue)})" if c.venue else ""
    url = f" <{c.url}>" if c.url else ""
    return f"[{c.n}] {where or 'notes'}{paper}{venue}{url}"


def format_answer(a: Answer) -> str:
    """The Discord text of an answer: the answer, the standalone question searched for (when it
    differs from what was typed), a small label for an extractive answer, the note (e.g. why the model
    was not used), then the Sources list (:func:`source_line` per citation).
    A refusal is shown as-is (the shared REFUSAL phrase), without sources. The text may exceed one
    message: send it through :func:`split_message`."""
    lines = [a.answer.strip()]
    if a.searched:
        lines.append(f"-# searched for: {_escape(clip(' '.join(a.searched.split()), 300))}")
    if a.mode == "extractive" and not a.refused and not a.clarify:
        lines.append(f"-# {EXTRACTIVE_LABEL}")
    if a.note:
        lines.append(f"-# note: {a.note}")
    text = "\n".join(lines)
    if a.citations and not a.refused:
        text += f"\n\n{SOURCES_HEADING}\n" + "\n".join(source_line(c) for c in a.citations)
    return text


def answer_body(text: str) -> str:
    """An earlier bot answer read back from Discord, without its label/note lines and Sources list
    (for conversation history)."""
    body = text.split(f"\n{SOURCES_HEADING}", 1)[0]
    return "\n".join(ln for ln in body.splitlines() if not ln.startswith("-# ")).strip()


def clip(s: str, n: int) -> str:
    """``s`` cut to at most ``n`` characters, ending with "…" when cut."""
    return s if len(s) <= n else s[: max(0, n - 1)].rstrip() + "…"


def fit_embed(embed: discord.Embed) -> discord.Embed:
    """Clip an embed in place to Discord's limits (title 256, description 4096, ≤ 25 fields with
    name 256 / value 1024, footer 2048, author 256, 6000 in total — the description is shortened
    first, then trailing fields are dropped). Returns the same embed."""
    if embed.title:
        embed.title = clip(embed.title, EMBED_TITLE)
    if embed.description:
        embed.description = clip(embed.description, EMBED_DESCRIPTION)
    if embed.author and embed.author.name:
        embed.set_author(
            name=clip(embed.author.name, EMBED_AUTHOR), url=embed.author.url, icon_url=embed.author.icon_url
        )
    if embed.footer and embed.footer.text:
        embed.set_footer(text=clip(embed.footer.text, EMBED_FOOTER), icon_url=embed.footer.icon_url)
    fields = [
        (clip(f.name or "\u200b", EMBED_FIELD_NAME), clip(f.value or "\u200b", EMBED_FIELD_VALUE), f.inline)
        for f in embed.fields
    ][:EMBED_FIELDS]
    embed.clear_fields()
    for name, value, inline in fields:
        embed.add_field(name=name, value=value, inline=inline)
    over = len(embed) - EMBED_TOTAL
    if over > 0 and embed.description:
        embed.description = clip(embed.description, max(1, len(embed.description) - over))
    while len(embed) > EMBED_TOTAL and embed.fields:
        embed.remove_field(len(embed.fields) - 1)
    return embed


def list_embed(title: str, lines: list[str], footer: str | None = None, more: str = "… and {n} more") -> discord.Embed:
    """An embed whose description lists ``lines`` (one per line, each clipped to 400 characters), as
    many as fit in the description limit, ending with ``more`` (``{n}`` = lines left out) when some
    do not fit; the whole embed is fitted with :func:`fit_embed`."""
    out: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        line = clip(line, 400)
        tail = len(more.format(n=len(lines) - i)) + 1
        if used + len(line) + 1 + (tail if i < len(lines) - 1 else 0) > EMBED_DESCRIPTION:
            out.append(more.format(n=len(lines) - i))
            break
        out.append(line)
        used += len(line) + 1
    e = discord.Embed(title=title, description="\n".join(out) or "—")
    if footer:
        e.set_footer(text=footer)
    return fit_embed(e)


def papers_embed(records: Sequence[PaperRecord], what: str) -> discord.Embed:
    """The ``/papers`` list: one line per paper (its title linked to :attr:`PaperRecord.url
    <papernotes.corpus.models.Paper.url>` when it has one, else bold, then up to three affiliations),
    titled ``Papers — {what}`` with the number of papers in the footer (see :func:`list_embed`)."""
    lines = []
    for r in records:
        t = discord.utils.escape_markdown(r.title)
        t = f"[{t}]({r.url})" if r.url else f"**{t}**"
        aff = f" — {discord.utils.escape_markdown(', '.join(r.affiliations[:3]))}" if r.affiliations else ""
        lines.append(f"• {t}{aff}")
    return list_embed(f"Papers — {what}", lines, footer=f"{len(records)} papers in the notes")


def error_text(e: BaseException, settings: Settings) -> str:
    """The short user-facing text for an exception raised while answering: :data:`TIMEOUT_TEXT` for
    a ``TimeoutError`` (with ``settings.discord_answer_timeout_s``), the message of a
    :class:`~papernotes.corpus.errors.PapernotesError` after "❌", else :data:`GENERIC_ERROR` (the
    details of unexpected errors belong in the log, not in Discord)."""
    if isinstance(e, TimeoutError):
        return TIMEOUT_TEXT.format(s=settings.discord_answer_timeout_s)
    if isinstance(e, PapernotesError):
        return f"❌ {e}"
    return GENERIC_ERROR


def freshness_line(last: datetime | None, every_s: float | None, failed: bool) -> str:
    """The /help line on how current the notes are: when they were last refreshed (a Discord timestamp,
    shown in each reader's time zone), the refresh schedule, and whether the last scheduled refresh
    failed (the previous notes then keep answering)."""
    when = f"{discord.utils.format_dt(last, 'R')} ({discord.utils.format_dt(last, 'f')})" if last else "unknown"
    line = f"Notes last refreshed {when}"
    if every_s:
        line += f"; refreshed every {_duration(every_s)}"
    if failed:
        line += "; the last refresh failed, so the notes of that time still answer"
    return line + "."


def _duration(seconds: float) -> str:
    """``90`` → ``1.5 min``, ``3600`` → ``1 h``, ``45`` → ``45 s``."""
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"
