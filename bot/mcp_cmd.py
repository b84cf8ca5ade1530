"""``papernotes mcp``: serve the notes as Model Context Protocol tools over stdio (see
:mod:`~papernotes.bot.mcp_server`). The SDK is imported only when the command runs."""

from __future__ import annotations


def mcp() -> None:
    """Serve search, ask, papers and summarize as read-only MCP tools over stdin/stdout.

    For IDE assistants and desktop chat apps; same settings and index as the CLI."""
    from papernotes.bot.cli import settings
    from papernotes.bot.mcp_server import serve_stdio

    serve_stdio(settings())
