"""The edges: the ``papernotes`` CLI and the Discord bot. Thin: they call ``retrieval`` and render."""
