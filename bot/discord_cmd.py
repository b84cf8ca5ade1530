"""``papernotes discord``: run the Discord bot (see :mod:`~papernotes.bot.discord_client`).

This module defines the typer command function ``discord`` (registered by :mod:`~papernotes.bot.cli`), so the
discord.py package is imported under another name inside functions only.
"""

from __future__ import annotations

from typing import Annotated

import typer


def discord(
    guild_id: Annotated[
        int | None,
        typer.Option(
            "--guild-id",
            help="Sync slash commands to this server at once (default: PAPERNOTES_DISCORD_GUILD_ID; "
            "without one, commands are synced globally).",
        ),
    ] = None,
    refresh: Annotated[
        str | None,
        typer.Option(
            "--refresh",
            metavar="INTERVAL",
            help="Pull git sources and re-ingest PAPERNOTES_SOURCES every INTERVAL (90s, 5m, 1h) while the bot "
            "runs; a failed refresh keeps the previous notes.",
        ),
    ] = None,
) -> None:
    """Run the Discord bot (token from DISCORD_TOKEN or .env) until Ctrl-C."""
    from papernotes.bot.cli import settings as load_settings
    from papernotes.bot.discord_client import run_bot
    from papernotes.corpus.errors import BadInputError
    from papernotes.retrieval.refresh import parse_interval

    refresh_s = parse_interval(refresh) if refresh is not None else None
    s = load_settings()
    if refresh_s and not s.sources:
        raise BadInputError("--refresh needs sources to pull: set PAPERNOTES_SOURCES (paths or git URLs)")
    if guild_id is not None:
        s = s.model_copy(update={"discord_guild_id": guild_id})
    run_bot(s, refresh_s=refresh_s)
