"""A guess typed after a question: the values the asker offers as the answer.

People ask and guess in one message: "sdchunter - which gpu model were the defective ones? h100 or
a100?", "vasa-1 - what dataset is it trained on? voxceleb?", "which switch chip (tomahawk?)". The guess
is a fragment that follows a complete question, ends in its own question mark and holds only
alternatives joined by "or", "+", "/" or commas, at least one of them a value: a word with letters and
digits ("a100", "gpt-5", "u280") or letters that are no common English word ("voxceleb", "megatron").
The names in a guess are values of what is asked, not papers the question is about ("flashps - which
diffusion models? sdxl or flux?" asks about FlashPS, not SDXL); a guess that the named papers' notes
never write is one no passage of them confirms (:func:`unconfirmed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from papernotes.corpus.normalize import CJK_CHARS, normalize, tokens, word_parts
from papernotes.retrieval.terms import AUXILIARIES, INTERROGATIVES, Key, english_word, lexical_terms, stem_term

#: Longest guess, in words other than the joiners (a guess is a few values, not a clause).
GUESS_MAX_WORDS = 4
#: Words that join a guess's alternatives or hedge it ("h100 or a100", "v100 + a100", "maybe llama").
JOINERS = frozenset({"or", "and", "+", "/", "&", "vs", "maybe", "perhaps", "like", "eg", "e.g.", "probably"})
#: Words that make a fragment a question or a continuation of one, not a guess ("and overall?", "is it
#: open source?"): interrogatives, auxiliaries and the openings of a follow-up. English closed-class words.
_ASKING = INTERROGATIVES | frozenset(AUXILIARIES) | frozenset({"also", "but", "plus", "about", "any", "anything"})
#: An amount as a value ("7b", "2x", "40%", "1.5"): a guess of one is read only when the question asks
#: no amount (the notes may state another amount: "splitwise throughput gain? 2x?").
_AMOUNT_RE = re.compile(r"\d[\d.,]*[^\W\d_]{0,2}%?|\d[\d.,]*%")
#: A model or part number: letters then digits ("a100", "H100", "MI350", "gpt-4", "u280", "t5").
_MODEL_NUMBER_RE = re.compile(r"[^\W\d_]{1,5}-?\d{1,4}[^\W\d_]?")
_PARENTHESIZED_RE = re.compile(r"\(([^()]+)\?\s*\)")


@dataclass(frozen=True)
class Guess:
    """The values a question offers as its answer.

    Attributes
    ----------
    words : (start, end) ranges of the question's words (whitespace-separated, with a letter or digit)
        that the guess covers, as :class:`~papernotes.retrieval.entities.PaperMention` counts them.
    alternatives : each alternative as typed ("h100", "alveo u280").
    amounts : True when every alternative is an amount ("7b?", "2x?").
    """

    words: tuple[tuple[int, int], ...]
    alternatives: tuple[str, ...]
    amounts: bool

    def covers(self, span: tuple[int, int]) -> bool:
        """True when the word range ``span`` lies inside the guess."""
        return any(a <= span[0] and span[1] <= b for a, b in self.words)


def _value(word: str) -> bool:
    """A word that can only be a value: letters and digits, or letters that are no common English word
    (:func:`~papernotes.retrieval.terms.english_word`)."""
    parts = word_parts(normalize(word))
    if not parts:
        return False
    if re.search(r"\d", word):
        return True
    return not all(english_word(p) for p in parts if p.isalpha())


def _alternatives(fragment: str) -> list[str] | None:
    """The alternatives of a fragment that can be part of a guess (no interrogative, auxiliary or
    follow-up word, at most :data:`GUESS_MAX_WORDS` words, Latin script), or None."""
    if re.search(f"[{CJK_CHARS}]", fragment) or not fragment.isascii():
        return None
    words = [w.strip(".,;:!\"'()[]") for w in fragment.replace(",", " , ").split()]
    words = [w for w in words if w]
    if any(w.lower() in _ASKING for w in words):
        return None
    out: list[list[str]] = [[]]
    for w in words:
        if w.lower() in JOINERS or w == ",":
            if out[-1]:
                out.append([])
        else:
            out[-1].append(w)
    alts = [" ".join(a) for a in out if a]
    if not alts or sum(len(a.split()) for a in alts) > GUESS_MAX_WORDS:
        return None
    return alts


def typed_guess(text: str) -> Guess | None:
    """The guess ``text`` ends with (fragments after its first question mark, each ending in one; else
    a few words after the last comma of a question asked with an interrogative: "which models did they
    test, llama?"), or one in brackets ("what switch chip (tomahawk?) and port speed"); None when there
    is none."""
    spans: list[tuple[int, int]] = []
    alts: list[str] = []
    # word positions as the paper resolver counts them: whitespace-separated words with letters or digits
    starts = [m.start() for m in re.finditer(r"\S+", text) if word_parts(normalize(m.group(0)))]

    def word_range(a: int, b: int) -> tuple[int, int]:
        inside = [i for i, s in enumerate(starts) if a <= s < b]
        return (inside[0], inside[-1] + 1) if inside else (0, 0)

    bracketed = list(_PARENTHESIZED_RE.finditer(text))
    # the question's marks; one inside brackets ends a bracketed guess, not the question
    marks = [
        m.start() for m in re.finditer(r"[?？]", text) if not any(b.start() <= m.start() < b.end() for b in bracketed)
    ]
    # fragments after the question: from the last one back, while each can be part of a guess
    for prev, end in reversed(list(zip(marks, marks[1:], strict=False))):
        found = _alternatives(text[prev + 1 : end])
        if found is None:
            break
        alts = found + alts
        spans.insert(0, word_range(prev + 1, end + 1))
    for m in bracketed:  # "(tomahawk?)", "(h100? a100?)"
        parts = [_alternatives(f) for f in re.split(r"[?？]", m.group(1))]
        if m.start() > 0 and all(f is not None for f in parts):
            alts += [a for f in parts for a in f or ()]
            spans.append(word_range(m.start(), m.end()))
    # … or after a comma ending the question: "agentix - which models did they test, llama?"
    if not alts and marks and marks[-1] == len(text.rstrip()) - 1:
        begin = marks[-2] + 1 if len(marks) > 1 else 0
        head, comma, tail = text[begin : marks[-1]].rpartition(",")
        found = _alternatives(tail) if comma else None
        if found is not None and any(w.lower() in INTERROGATIVES for w in re.findall(r"[A-Za-z]+", head)):
            alts, spans = found, [word_range(begin + len(head) + 1, marks[-1] + 1)]
    # at least one value among them: "and overall?", "aws?" or "seconds?" guess nothing that only the
    # paper's notes could hold
    if not any(_value(w) for a in alts for w in a.split()):
        return None
    spans = [s for s in spans if s != (0, 0)]
    if not alts or not spans:
        return None
    return Guess(tuple(spans), tuple(alts), all(_AMOUNT_RE.fullmatch(a.lower()) for a in alts))


def confirmed(alternative: str, own: AbstractSet[str]) -> bool:
    """True when the notes' terms ``own`` hold the alternative: all of its terms, or its words joined
    ("llama-2" as ``llama2``)."""
    terms = lexical_terms(alternative)
    joined = stem_term("".join(word_parts(normalize(alternative))))
    return bool(terms) and (all(t in own for t in terms) or joined in own)


def unconfirmed(
    guess: Guess | None,
    own: AbstractSet[str],
    names_field: Callable[[str], bool],
    keys: Sequence[Key] = (),
) -> bool:
    """True when ``guess`` offers values, none of which the named papers' notes write (``own``: the
    stemmed terms of their chunks): no passage of them confirms it, and none says which value it is.
    A guess that names a field of the paper's record ("github?", ``names_field``) is a lookup, not a
    value. A guessed word is also confirmed by the question's reading of it (``keys``, read against
    those notes: "like loc?" where they write "lines of code")."""
    if guess is None or not own:
        return False
    if any(names_field(w) for a in guess.alternatives for w in a.split()):
        return False
    read = {k.word: k for k in keys}

    def read_in_notes(alternative: str) -> bool:
        words = tokens(normalize(alternative), compounds=False)
        return bool(words) and all(w in read and read[w].covered(own) for w in words)

    return not any(confirmed(a, own) or read_in_notes(a) for a in guess.alternatives)


def states_another(guess: Guess, sentences: Iterable[str]) -> bool:
    """True when ``guess`` offers model numbers ("a100 or h100?") and one of ``sentences`` (the named
    papers' own) names a model number of its own ("on H100 GPUs" for "a100?"): the notes state a value
    of the kind guessed, another one, and answer the question."""
    if not all(_MODEL_NUMBER_RE.fullmatch(a) for a in guess.alternatives):
        return False
    return any(_MODEL_NUMBER_RE.fullmatch(w.strip(".,;:!?()[]\"'")) for s in sentences for w in s.split())
