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
) -> None:
    """Run the Discord bot (token from DISCORD_TOKEN or .env) until Ctrl-C."""
    from papernotes.bot.cli import settings as load_settings
    from papernotes.bot.discord_client import run_bot

    s = load_settings()
    if guild_id is not None:
        s = s.model_copy(update={"discord_guild_id": guild_id})
    run_bot(s)
