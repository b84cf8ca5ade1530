"""Short names formed from a paper's title: "DDPM" for "Denoising Diffusion Probabilistic Models".

People name papers by abbreviations the title never spells out: DDPM, PPO, MoCo ("Momentum Contrast for
…"), SimCLR ("A Simple Framework for Contrastive Learning of Visual Representations"), DPO, CoT. The test
follows the idea of Schwartz & Hearst (2003), "A simple algorithm for identifying abbreviation definitions
in biomedical text" (PSB 2003): the short form's characters are found, in order, in the long form, the
first one at the start of a word. It is stricter than theirs because here the long form is a whole title
and the short form a word typed in a question, not a parenthesis right after its definition: the short
form is cut into pieces of one to three letters that are each a proper *start* of a title word (so "ddpm" is d|d|p|m and "simclr" is
sim|c|l|r), the first piece starts the title, there are at least two pieces,
and the title words skipped between pieces are at most half as many as the pieces (function words are
not counted): "Apple" is no abbreviation of "Ansor: Generating High-Performance Tensor Programs for Deep
Learning" (a|p|p|le skips four words for four pieces).
"""

from __future__ import annotations

import re
from functools import lru_cache

from papernotes.corpus.normalize import normalize

#: Shortest and longest abbreviation looked for (letters and digits).
MIN_LENGTH = 3
MAX_LENGTH = 10
#: Longest piece taken from one title word: "sim" of "Simple" (SimCLR), but "evalute" is a misspelt word,
#: not "evalu" + "te" of "Evaluation of Text-to-Video …".
MAX_PIECE = 3
#: Function words a title may skip between an abbreviation's pieces without counting as skipped
#: (the "of" of "Chain of Thought" may also give a piece: CoT).
_FUNCTION_WORDS = frozenset(
    "a an the of for in on at to from with by via and or is are as your you all its into over under "
    "towards toward".split()
)
_ARTICLES = frozenset({"a", "an", "the"})
_TITLE_WORD_RE = re.compile(r"[^\W_]+")


@lru_cache(maxsize=8192)
def _long_forms(title: str) -> tuple[tuple[str, ...], ...]:
    """Word sequences an abbreviation may stand for: the whole title and, when it has a colon, the part
    before it (the subtitle after it is no name); words are normalized and split at hyphens
    ("Chain-of-Thought" → chain, of, thought)."""
    text = normalize(title)
    sides = [text, text.split(":", 1)[0]] if ":" in text else [text]
    forms = []
    for side in sides:
        words = tuple(_TITLE_WORD_RE.findall(side))
        while words and words[0] in _ARTICLES:  # "A Simple Framework …" starts at "simple"
            words = words[1:]
        if len(words) >= 2:
            forms.append(words)
    return tuple(dict.fromkeys(forms))


def _pieces(short: str, words: tuple[str, ...], start: int, pieces: int, skipped: int) -> bool:
    """True when ``short`` can be cut into starts of ``words[start:]`` in order (see the module)."""
    if not short:
        return pieces >= 2 and 2 * skipped <= pieces
    for i in range(start, len(words)):
        if i > start and pieces == 0:
            return False  # the first piece starts the long form
        word = words[i]
        if word in _ARTICLES:
            continue  # "a", "the" give no piece ("raft" is no a|f|t of "… Datasets: A Fault-Tolerant …")
        longest = 0
        while longest < min(len(word) - 1, len(short)) and word[longest] == short[longest]:
            longest += 1  # a proper start: "nics" is no nic|s of "The NIC should be part of the OS"
        if len(word) == 1 and short[0] == word:
            longest = 1
        for n in range(min(longest, MAX_PIECE), 0, -1):  # the longest start first: "sim" before "s"
            if _pieces(short[n:], words, i + 1, pieces + 1, skipped):
                return True
        if word not in _FUNCTION_WORDS:
            skipped += 1
            if skipped > pieces + len(short):  # more skips than pieces could ever make up for
                return False
    return False


def abbreviates(short: str, title: str) -> bool:
    """True when the typed word ``short`` abbreviates the paper title ``title``.

    ``short`` is one word as typed ("ddpm", "MoCo", "SimCLR"); it is normalized, must be
    :data:`MIN_LENGTH`–:data:`MAX_LENGTH` letters and digits with at least two letters, and must not be a
    word of the title itself ("deep" does not abbreviate "Deep Residual Learning …").

    >>> abbreviates("ddpm", "Denoising Diffusion Probabilistic Models")
    True
    >>> abbreviates("SimCLR", "A Simple Framework for Contrastive Learning of Visual Representations")
    True
    >>> abbreviates("mask", "Masked Autoencoders Are Scalable Vision Learners")
    False
    """
    key = "".join(_TITLE_WORD_RE.findall(normalize(short)))
    if not (MIN_LENGTH <= len(key) <= MAX_LENGTH) or sum(ch.isalpha() for ch in key) < 2:
        return False
    forms = _long_forms(title)
    if any(key in words for words in forms):
        return False
    return any(_pieces(key, words, 0, 0, 0) for words in forms)
