"""Lexical terms shared by the BM25 index, the refusal check and the extractive answerer: lower-cased
letter/digit runs, bm25s's English stop words removed, Snowball-stemmed (PyStemmer)."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD_RE = re.compile(r"[a-z0-9]+")

#: Words that only frame a question ("which paper in the notes …"); they carry no topic.
QUESTION_TEXT = (
    "which what who whom whose where when why how is are was were does do did the a an of in on for to "
    "paper papers notes note work works system systems study studies approach method describe "
    "summarize summary tell me about there any reading listed list give show find mention mentioned "
    "propose proposed present presented introduce introduced use used using can could would should "
    "much many report reported"
)


@lru_cache(maxsize=1)
def _stop_and_stem():
    import Stemmer  # PyStemmer: the Snowball English stemmer
    from bm25s.stopwords import STOPWORDS_EN  # the list bm25s.tokenize(stopwords="en") uses

    return frozenset(STOPWORDS_EN), Stemmer.Stemmer("english")


def lexical_terms(text: str) -> list[str]:
    """Stemmed, stop-word-free terms of ``text`` in order (``"Schedulers caching"`` → ``["schedul",
    "cach"]``)."""
    stop, stemmer = _stop_and_stem()
    return stemmer.stemWords([w for w in _WORD_RE.findall(text.lower()) if w not in stop])


@lru_cache(maxsize=1)
def question_words() -> frozenset[str]:
    """The stemmed :data:`QUESTION_TEXT` words."""
    return frozenset(lexical_terms(QUESTION_TEXT))


def question_terms(question: str) -> list[str]:
    """Terms of a question without the words that only frame it."""
    qw = question_words()
    return [t for t in lexical_terms(question) if t not in qw]


def stop_words() -> frozenset[str]:
    """bm25s's English stop words (lower-case)."""
    return _stop_and_stem()[0]


def stem(word: str) -> str:
    """Snowball English stem of one lower-cased word."""
    return _stop_and_stem()[1].stemWord(word)
