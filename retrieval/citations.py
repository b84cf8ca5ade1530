"""Citation markers in model replies: one parser, two policies.

A marker is a bracket whose inside starts with a digit, optionally after ``^`` or ``Source``: ``[1]``,
``[1, 2]``, ``[2-3]``, ``[^1]``, ``[Source 1]``, and malformed ones like ``[1a]``; a Markdown link
text (``[1](http…)``) is not a marker. :func:`rewrite_markers` parses every marker and rewrites it
through a policy:

* :func:`validate_citations` (answers): numbers must name one of the prompt's sources and are
  renumbered 1, 2, … in order of first use;
* :func:`clean_markers` (conference summaries): numbers must name a paper of the summary and keep
  their number (a paper's position in the whole summary).
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: A bracketed marker starting with a digit (see the module docstring); group 1 is its inside.
MARKER_RE = re.compile(r"\[(?:\^|sources?\s*)?(\d[^\[\]\n]{0,20})\](?!\()", re.IGNORECASE)
_PART_RE = re.compile(r"^\s*(\d{1,4})(?:\s*[-–]\s*(\d{1,4}))?\s*$")
#: Longest range a marker may span (``[2-22]``); a longer one is treated as malformed.
MAX_RANGE = 20
_GONE = "\x00"  # stands for a removed marker until the spacing around it is fixed


def marker_numbers(inner: str) -> list[int] | None:
    """Numbers in a marker's inside, in order (``"1, 3"`` → [1, 3]; ``"2-4"`` → [2, 3, 4]; ``;``
    separates like ``,``); None when malformed (``"1a"``, a reversed range, a range over
    :data:`MAX_RANGE`, a number over 4 digits)."""
    nums: list[int] = []
    for part in re.split(r"[,;]", inner):
        m = _PART_RE.match(part)
        if not m:
            return None
        a = int(m[1])
        b = int(m[2]) if m[2] else a
        if b < a or b - a > MAX_RANGE:
            return None
        nums.extend(range(a, b + 1))
    return nums


def _remove_gone(text: str) -> str:
    """Delete removed-marker sentinels with the space before them when punctuation or a line end
    follows (``"fast [9]."`` → ``"fast."``); elsewhere leave one space."""

    def fix(m: re.Match[str]) -> str:
        after = text[m.end() : m.end() + 1]
        if not after or after in ".,;:!?)]}\n":
            return ""
        return " " if (m.group(1) or m.group(2)) else ""

    return re.sub(rf"([ \t]*){_GONE}(?:[ \t]*{_GONE})*([ \t]*)", fix, text)


def rewrite_markers(text: str, policy: Callable[[int], int | None]) -> tuple[str, int]:
    """Rewrite every citation marker of ``text``: each number ``n`` becomes ``[policy(n)]``, or is
    removed when ``policy(n)`` is None; repeats inside one marker are merged (``[1, 2]`` → ``[1][2]``)
    and so are adjacent equal markers (``[1] [1]`` → ``[1]``). A marker left empty, or malformed, is
    removed with the space before it when punctuation follows.

    ``policy`` is called once per number, in reading order. Returns ``(text stripped, dropped)``:
    ``dropped`` counts removed numbers plus malformed markers.
    """
    dropped = 0

    def repl(m: re.Match[str]) -> str:
        nonlocal dropped
        nums = marker_numbers(m.group(1))
        if nums is None:
            dropped += 1
            return _GONE
        kept: list[int] = []
        for x in nums:
            new = policy(x)
            if new is None:
                dropped += 1
            elif new not in kept:
                kept.append(new)
        return "".join(f"[{k}]" for k in kept) or _GONE

    out = _remove_gone(MARKER_RE.sub(repl, text))
    out = re.sub(r"(\[\d+\])(?:\s*\1)+", r"\1", out)
    return out.strip(), dropped


def validate_citations(text: str, n_sources: int) -> tuple[str, list[int], int]:
    """Check the markers of a model's answer against ``n_sources`` prompt sources.

    Returns ``(text, order, dropped)``: ``text`` with invalid markers removed and valid ones
    renumbered 1, 2, … in order of first use (``[3] … [1] … [3]`` → ``[1] … [2] … [1]``; ``[1, 2]`` →
    ``[1][2]``); ``order`` the original source numbers in that order (``order[i]`` is new ``[i+1]``);
    ``dropped`` the number of removed references — out of range (``[0]``, ``[4]`` of 3) or malformed
    (``[1a]``), one per bad number or malformed marker.
    """
    order: list[int] = []

    def renumber(n: int) -> int | None:
        if not 1 <= n <= n_sources:
            return None
        if n not in order:
            order.append(n)
        return order.index(n) + 1

    out, dropped = rewrite_markers(text, renumber)
    return out, order, dropped


def clean_markers(text: str, allowed: set[int]) -> tuple[str, int]:
    """Keep only the marker numbers in ``allowed`` (the summary's paper numbers ``n``), unrenumbered:
    they are positions in the whole summary. ``[1, 2]`` and ``[3-5]`` become ``[1][2]`` /
    ``[3][4][5]``. Returns ``(text, dropped)`` as :func:`rewrite_markers`."""
    return rewrite_markers(text, lambda n: n if n in allowed else None)
