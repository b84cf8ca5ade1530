"""Question words the notes never use, read as the notes' word they misspell or abbreviate.

People type questions quickly: "databse", "distribued", "attn", "univ", "impl". Such a word matches no
chunk, so it would count as a name the notes lack and push the question towards a refusal. A
:class:`Vocabulary` of the notes' own words (normalized, unstemmed, with the number of chunks each occurs
in) gives such a word the one word of the notes it most plausibly stands for:

- a **misspelling**: a word of the notes within one edit (two for words of nine letters or more) in the
  Damerau–Levenshtein distance (insertion, deletion, substitution, transposition; computed by
  rapidfuzz), the closest first and then the most frequent — for a non-word only: a common English
  word the notes do not use ("turing", one edit from "tuning") is meant as typed;
- an **abbreviation**: for a word of four or five letters that is not a common English word, the most
  frequent common English word of the notes at least three letters longer that the word abbreviates in
  one of the two usual ways: a truncation (its beginning: "univ" → "university", "impl" →
  "implementation") or a contraction (its first letter, then only consonants found in it in order:
  "attn" → "attention", "mgmt" → "management"). A short unknown name ("orca", "vidur") is neither.
  A word the notes do use reads so only when the longer word is a term of the field (:meth:`Vocabulary.
  shorthand`): "perf" is "performance" even in notes where a paper is called "PeRF".

- a **compound name shortened**: for a non-word of :data:`MIN_CONTRACTED` letters or more with no
  other reading, the most frequent word of the notes, no common English word, whose beginning it
  writes out (four letters and half its own at least) and whose rest it abbreviates as above:
  "flashattn" → "flashattention", "pagedattn" → "pagedattention" (a name and the word "attn"
  typed as one word), "fastertrans" → "fastertransformer".

- a **spelling by sound**: for a non-word of :data:`MIN_SOUNDED` letters or more with no other reading,
  the common English word of the notes that has the same Metaphone key (L. Philips, "Hanging on the
  Metaphone", *Computer Language* 7(12), 1990; computed by jellyfish) and a key of
  :data:`MIN_SOUND_CODES` codes or more, within a third of the longer word's letters in edits: "thruput"
  → "throughput" (both ``0RPT``, three insertions). A key of fewer codes is shared by too many words.
  This is the sounds-like step of spelling correctors such as GNU Aspell, after the near-miss one.

A word that reads both ways ("accel": one edit from "accl", or "accelerator" cut short) takes the reading
the notes use in more chunks, the word's prior as in a noisy-channel spelling corrector.

Only words typed in lower case are read this way: a capitalized word not in the notes is taken as the
name it looks like (an unknown name is a reason to refuse, never to be "corrected" into a known one).
Words of fewer than four letters are never read this way (too many words of the notes are near them).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from functools import cached_property, lru_cache

import jellyfish
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from papernotes.corpus.normalize import tokens
from papernotes.retrieval.terms import Key, english_word, field_term_chunks, lexical_terms

#: Shortest word read as a misspelling or an abbreviation.
MIN_LETTERS = 4
#: Longest word read as an abbreviation.
MAX_ABBREVIATION = 5
#: Shortest word read as a compound name written out then shortened (:func:`contracts`), and fewest
#: letters it must write out.
MIN_CONTRACTED = 6
MIN_CONTRACTED_PREFIX = 4
#: Shortest word read as spelt by sound, and fewest Metaphone codes its key must have.
MIN_SOUNDED = 5
MIN_SOUND_CODES = 4


def max_edits(word: str) -> int:
    """Edits allowed between a misspelt word and the notes' word: 0 under 5 letters, 1 up to 8, 2 from 9."""
    return 0 if len(word) < 5 else 1 if len(word) < 9 else 2


_VOWELS = frozenset("aeiouy")


def abbreviates(short: str, word: str) -> bool:
    """True when ``short`` is a truncation of ``word`` (its beginning) or a contraction (its first letter
    followed by consonants of ``word`` in order): "univ"/"university", "attn"/"attention"."""
    if word.startswith(short):
        return True
    if any(c in _VOWELS for c in short[1:]):
        return False
    return _first_then_in_order(short, word)


def contracts(short: str, word: str) -> bool:
    """True when ``short`` writes out the beginning of ``word`` — at least
    :data:`MIN_CONTRACTED_PREFIX` letters and half its own — and abbreviates the rest: nothing more
    (a truncation) or consonants of the rest in order (a contraction, as "attn" is of "attention"), with
    ``word`` at least two letters longer: "flashattn" / "flashattention", "deepspd" / "deepspeed"."""
    if len(word) < len(short) + 2:
        return False
    p = 0
    while p < len(short) and short[p] == word[p]:
        p += 1
    if p < max(MIN_CONTRACTED_PREFIX, (len(short) + 1) // 2):
        return False
    rest = iter(word[p:])
    return not any(c in _VOWELS for c in short[p:]) and all(c in rest for c in short[p:])


def _first_then_in_order(short: str, word: str) -> bool:
    """``short`` and ``word`` share their first letter and ``short``'s other letters are in ``word``'s
    rest, in order."""
    if short[0] != word[0]:
        return False
    rest = iter(word[1:])
    return all(c in rest for c in short[1:])


class Vocabulary:
    """The words of the notes with their document frequency.

    Parameters
    ----------
    texts
        The chunk texts; each counts a word once.
    is_english
        Tells whether a word is a common English word (an abbreviation expands only to one).
    """

    def __init__(self, texts: Iterable[str], is_english: Callable[[str], bool]) -> None:
        df: Counter[str] = Counter()
        chunks = 0
        for text in texts:
            df.update({t for t in tokens(text, compounds=False) if t.isalpha()})
            chunks += 1
        self._field_chunks = field_term_chunks(chunks)
        self.df = df
        self._words = list(df)
        self._is_english = is_english

    def __contains__(self, word: str) -> bool:
        return word in self.df

    def variant(self, typed: str) -> str | None:
        """The notes' word that ``typed`` (one word as written in a question) misspells or abbreviates,
        or None: when ``typed`` is in the notes (unless it is short for a term of the field,
        :meth:`shorthand`), is not all lower-case letters, is shorter than
        :data:`MIN_LETTERS`, or nothing is close enough (see the module docstring)."""
        if not typed.isalpha() or not typed.islower() or len(typed) < MIN_LETTERS:
            return None
        return self._variant(typed)

    @lru_cache(maxsize=4096)  # noqa: B019 - one Vocabulary per loaded index; it lives as long as the index
    def _variant(self, word: str) -> str | None:
        if word in self.df:
            return self._shorthand(word)  # "perf", though a paper "PeRF" puts it in the notes
        readings: list[str] = []
        # only a non-word is read as a misspelling: a word of the general lexicon not in the notes ("turing"
        # near "tuning") is meant as typed (the non-word/real-word error distinction of spelling correction)
        edits = 0 if self._is_english(word) else max_edits(word)
        if edits:
            near = process.extract(
                word, self._words, scorer=DamerauLevenshtein.distance, score_cutoff=edits, limit=None
            )
            if near:
                readings.append(min(near, key=lambda m: (m[1], -self.df[m[0]], m[0]))[0])
        if (longer := self._expanded(word)) is not None:
            readings.append(longer)
        if not readings and edits and len(word) >= MIN_CONTRACTED:
            readings += self._contracted(word)
        if not readings and edits and len(word) >= MIN_SOUNDED:
            readings += self._sounded(word)
        # a short word can read both ways ("accel": "accl" one edit away, or "accelerator" abbreviated):
        # the reading the notes use more often wins (the word's prior, as in a noisy-channel speller)
        return max(readings, key=lambda w: self.df[w]) if readings else None

    @cached_property
    def _by_sound(self) -> dict[str, list[str]]:
        """The notes' common English words by their Metaphone key (keys of :data:`MIN_SOUND_CODES` codes
        or more), computed once, when a question first has a word to read by sound."""
        keys: dict[str, list[str]] = {}
        for w in self._words:
            if len(w) >= MIN_SOUNDED - 1 and len(key := jellyfish.metaphone(w)) >= MIN_SOUND_CODES:
                keys.setdefault(key, []).append(w)
        return keys

    def _sounded(self, word: str) -> list[str]:
        """The closest of the notes' words that sound like ``word`` (the same Metaphone key) within a third
        of the longer one's letters in edits, as a list of at most one word."""
        near = [
            (d, w)
            for w in self._by_sound.get(jellyfish.metaphone(word), ())
            if (d := DamerauLevenshtein.distance(word, w)) <= max(len(word), len(w)) // 3
        ]
        return [min(near, key=lambda m: (m[0], -self.df[m[1]], m[1]))[1]] if near else []

    def _contracted(self, word: str) -> list[str]:
        """The most frequent word of the notes, no common English word, that ``word`` (a non-word of
        :data:`MIN_CONTRACTED` letters or more) shortens after writing out its beginning: a compound
        name typed with its last part abbreviated ("flashattn" / "flashattention", "pagedattn" /
        "pagedattention") or cut short ("fastertrans" / "fastertransformer"); see :func:`contracts`.
        A list of at most one word."""
        stem = word[:MIN_CONTRACTED_PREFIX]
        longer = [w for w in self._words if w.startswith(stem) and contracts(word, w) and not self._is_english(w)]
        return [max(longer, key=lambda w: (self.df[w], w))] if longer else []

    def _expanded(self, word: str) -> str | None:
        """The most frequent common English word of the notes at least three letters longer that
        ``word`` (of at most :data:`MAX_ABBREVIATION` letters, no common English word itself) abbreviates,
        or None."""
        if len(word) > MAX_ABBREVIATION or self._is_english(word):
            return None
        longer = [w for w in self._words if len(w) >= len(word) + 3 and abbreviates(word, w) and self._is_english(w)]
        return max(longer, key=lambda w: (self.df[w], w)) if longer else None

    def shorthand(self, typed: str) -> str | None:
        """The notes' word that ``typed`` (one lower-case word of :data:`MIN_LETTERS` to
        :data:`MAX_ABBREVIATION` letters, no common English word) abbreviates when that word is a term of
        the field (:func:`~papernotes.retrieval.terms.field_term_chunks`), whether or not the notes also
        use ``typed``: "perf" is short for "performance" in notes where "performance" is such a term,
        though "PeRF" names a paper there. None otherwise."""
        if not typed.isalpha() or not typed.islower() or len(typed) < MIN_LETTERS:
            return None
        return self._shorthand(typed)

    @lru_cache(maxsize=4096)  # noqa: B019 - one Vocabulary per loaded index; it lives as long as the index
    def _shorthand(self, word: str) -> str | None:
        longer = self._expanded(word)
        return longer if longer is not None and self.df[longer] > self._field_chunks else None


#: Shortest stemmed term read as the beginning of a longer word of the named paper's notes
#: (:func:`read_against`): "acc" is ``accuraci``; two letters begin too many words.
MIN_TRUNCATION = 3

#: Longest lower-case word read as a shorthand of a word of the named paper's notes (:func:`read_against`).
MAX_SHORTHAND = 5


def shorthand_of(short: str, term: str) -> bool:
    """True when ``short`` is a shorthand of ``term`` (both lower-case letters): the same first letter,
    then ``short``'s other letters in ``term`` in order, ``term`` at least two letters longer ("hw" /
    ``hardwar``, "avg" / ``averag``, "tput" / ``throughput``)."""
    return len(term) >= len(short) + 2 and _first_then_in_order(short, term)


#: Fewest letters of a word read as the initials of a phrase of the named paper's notes ("cfg"); two
#: letters have too many readings.
MIN_INITIALS = 3


@lru_cache(maxsize=256)
def _alpha_words(text: str) -> tuple[str, ...]:
    """The normalized words of ``text`` made of letters only (a chunk's, read once for every question
    word :func:`spelled_out` tries against it)."""
    return tuple(w for w in tokens(text, compounds=False) if w.isalpha())


def spelled_out(initials: str, texts: Iterable[str]) -> list[tuple[str, ...]]:
    """The phrases of ``texts`` whose words' first letters are ``initials``, as stemmed term tuples
    ("cfg" → ``[("classifi", "free", "guidanc")]`` where a text says "classifier-free guidance"; words
    normalized, a hyphenated word giving its parts): the usual way an acronym is formed. One word inside
    the phrase may be passed over, as acronyms skip words ("loc" → ``("line", "of", "code")`` in "7,700+
    lines of Go codes"; the rule of Schwartz & Hearst, PSB 2003, that an acronym's letters match words
    of its long form in order, its first letter the first word's, kept to word initials)."""
    n = len(initials)
    found: set[tuple[str, ...]] = set()
    for text in texts:
        words = _alpha_words(text)
        for i in range(len(words) - n + 1):
            runs = [words[i : i + n]]
            if i + n < len(words):  # the same with one inner word passed over
                window = words[i : i + n + 1]
                runs += [window[:j] + window[j + 1 :] for j in range(1, n)]
            for run in runs:
                if all(w[0] == c for w, c in zip(run, initials, strict=True)) and (
                    terms := tuple(lexical_terms(" ".join(run)))
                ):
                    found.add(terms)
    return sorted(found)


def read_against(
    keys: list[Key],
    have: AbstractSet[str],
    in_notes: Callable[[str], bool],
    texts: Sequence[str] = (),
) -> list[Key]:
    """``keys`` with each lower-case word of two to :data:`MAX_SHORTHAND` letters that no chunk of the
    notes uses read also as the terms of ``have`` (the stemmed terms of the passages a question names)
    it is a shorthand of (:func:`shorthand_of`): "droidspeak tput gains" — "tput" is ``throughput``
    when DroidSpeak's notes say throughput. Without the passage such a word has too many readings
    ("hw": hardware, however, …), which is why :class:`Vocabulary` reads none under four letters; the
    named paper's own notes leave few. Such a word of :data:`MIN_INITIALS` letters or more is also read
    as a phrase of those passages (their ``texts``) it is the initials of (:func:`spelled_out`): "what
    cfg weight" is "classifier-free guidance weight" when the notes spell it out. So is such a word of
    three letters or more, no common English word, that other notes write but the passages lack: "hived
    how many loc" is "lines of code" when HiveD's notes say "7,700+ lines of Go codes".

    A word that is no common English word and that the passages lack is also read as the words of
    ``have`` it truncates, whether or not other notes use it: "params" is ``paramet`` when GPT-3's
    notes say "175 billion parameter" (the BERT notes' table may say "Params"), "acc" is ``accuraci``. A
    common English word is meant as typed ("lines" is no truncation of "linearizable")."""
    out = []
    for k in keys:
        w = k.word
        if 2 <= len(w) <= MAX_SHORTHAND and w.isalpha() and w.isascii() and not any(map(in_notes, k.terms)):
            found = sorted(t for t in have if t.isalpha() and shorthand_of(w, t))
            spelled = spelled_out(w, texts) if len(w) >= MIN_INITIALS else []
            if found or spelled:
                k = Key(w, k.alternatives + tuple((t,) for t in found) + tuple(spelled))
        elif MIN_INITIALS <= len(w) <= MAX_SHORTHAND and w.isalpha() and not english_word(w) and not k.covered(have):
            # an acronym other notes write ("loc") that the named papers' notes spell out ("lines of code")
            if spelled := spelled_out(w, texts):
                k = Key(w, k.alternatives + tuple(spelled))
        elif w.isalpha() and not english_word(w) and not k.covered(have):
            cut = [t for t in k.terms if len(t) >= MIN_TRUNCATION]
            found = sorted(t for t in have if any(len(t) >= len(c) + 2 and t.startswith(c) for c in cut))
            if found:
                k = Key(w, k.alternatives + tuple((t,) for t in found))
        out.append(k)
    return out
