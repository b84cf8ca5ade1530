"""An ingest's warnings (one line each), read as the ingest's summary line counts them: pages with
nothing to index but their title — GitBook section index pages, many and harmless — apart from the
rest. Shared by the ``ingest`` and ``stats`` commands, so that both give one figure."""

from __future__ import annotations

#: The end of the warning of a page with nothing to index but its title (GitBook section index pages).
EMPTY_PAGE = "has no text to index"


def split_warnings(warnings: list[str]) -> tuple[list[str], list[str]]:
    """``(warnings, heading-only pages)`` of an ingest's warnings: the pages with nothing to index but
    their title (their paths) apart from the rest, which the ingest's summary line counts."""
    empty = [w.split(": page ", 1)[0] for w in warnings if w.endswith(EMPTY_PAGE)]
    return [w for w in warnings if not w.endswith(EMPTY_PAGE)], empty
