"""Abbreviations the notes define — "Large Language Models (LLMs)", "Mixture of Experts (MoE)" — so that
a question's short form also matches notes that write the long form and the other way round ("LLM
serving" / "serving large language models").

Definitions are found by the Schwartz–Hearst algorithm (A. Schwartz and M. Hearst, "A simple algorithm
for identifying abbreviation definitions in biomedical text", PSB 2003), as implemented by the
``abbreviations`` package: a parenthesized short form whose letters occur in order in the words just
before it. Only what a collection itself defines is used: no list of abbreviations is built in.

Abbreviations of paper titles (:func:`abbreviates`) — "DDPM" for "Denoising Diffusion Probabilistic
Models", which no note need define, "batchnorm" for "Batch Normalization" — follow the same idea, more
strictly (see that function). A word typed to describe a paper by its title, shortened ("spec decoding",
"moe training"), is read by :func:`shortens`.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from types import ModuleType

from papernotes.corpus.normalize import normalize
from papernotes.retrieval.terms import lexical_terms, stem_term

#: Longest long form (in terms) looked up in a question.
MAX_LONG_FORM_TERMS = 6


@dataclass(frozen=True)
class Abbreviations:
    """The notes' abbreviations as index terms: ``long_of`` maps a short form's term to its long form's
    terms (``"llm"`` → ``("larg", "languag", "model")``), ``short_of`` the reverse."""

    long_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    short_of: Mapping[tuple[str, ...], str] = field(default_factory=dict)
    #: each long form of ``short_of`` by its :func:`spelling_key` ("parameterefficientfinetun" for
    #: "parameter-efficient fine-tuning"), so that it is found however its compounds are typed
    by_spelling: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @cached_property
    def longest(self) -> int:
        """Terms of the longest long form (0 when there is none); computed once (read for every word of
        every question)."""
        return max((len(k) for k in self.short_of), default=0)


@lru_cache(maxsize=1)
def _schwartz_hearst() -> ModuleType:
    """The package's algorithm module. Importing it calls ``logging.basicConfig(level=INFO)``, which
    would print every library's INFO records on stderr: the root logger is restored as it was."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        from abbreviations import schwartz_hearst
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return schwartz_hearst


def find_abbreviations(texts: Iterable[str]) -> Abbreviations:
    """The abbreviations defined in ``texts`` (chunk texts); a short form defined several ways keeps its
    most frequent long form (the package's ``most_common_definition``). A definition is kept when the
    short form is one index term, the long form two to :data:`MAX_LONG_FORM_TERMS` terms without it,
    and no other short form claims the same long form. Only lines holding " (" are read (the algorithm
    looks at nothing else), which keeps this to a fraction of a second on a few thousand chunks.
    Abbreviations the notes use without defining them are added from :func:`written_both_ways`."""
    texts = list(texts)
    lines = [ln for t in texts if " (" in t for ln in t.split("\n") if " (" in ln]
    pairs: dict[str, str] = {}
    if lines:
        found = _schwartz_hearst().extract_abbreviation_definition_pairs(
            doc_text="\n".join(lines), most_common_definition=True
        )
        pairs = {str(k): str(v) for k, v in found.items()}
    for short, long in written_both_ways(texts).items():
        pairs.setdefault(short, long)
    if not pairs:
        return Abbreviations()
    long_of: dict[str, tuple[str, ...]] = {}
    claimed: dict[tuple[str, ...], set[str]] = {}
    spelled: dict[tuple[str, ...], str] = {}
    for short, long in pairs.items():
        s, lf = lexical_terms(short), tuple(lexical_terms(long))
        if len(s) != 1 or not 2 <= len(lf) <= MAX_LONG_FORM_TERMS or s[0] in lf:
            continue
        long_of.setdefault(s[0], lf)
        claimed.setdefault(long_of[s[0]], set()).add(s[0])
        spelled.setdefault(lf, spelling_key(long))
    short_of = {lf: next(iter(s)) for lf, s in claimed.items() if len(s) == 1}
    return Abbreviations(long_of, short_of, {spelled[lf]: lf for lf in short_of if spelled.get(lf)})


def spelling_key(text: str) -> str:
    """A phrase's letters and digits run together, lower-cased, its end stemmed: the same for the ways
    people type a compound — "fine-tuning", "fine tuning", "finetuning" (and "large language models" /
    "large-language-model") — as the stemmer strips only a word's end (Porter's algorithm); "" for
    text without letters."""
    letters = re.sub(r"[\W_]+", "", normalize(text).casefold())
    return stem_term(letters) if letters else ""


#: A hyphenated compound of two to four words ("key-value", "mixture-of-experts").
_COMPOUND_RE = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+){1,3}\b")
#: A word of two to six letters and digits written with two capitals or more ("KV", "MoE", "TTFT").
_CAPITALS_RE = re.compile(r"\b[A-Za-z][A-Za-z0-9]{1,5}\b")
#: Chunks that must write a compound and the acronym of its initials together for the acronym to be
#: read as the compound: two (one chunk may pair them by chance).
BOTH_WAYS_MIN_CHUNKS = 2


def written_both_ways(texts: Iterable[str]) -> dict[str, str]:
    """Abbreviations the notes use without defining them: an acronym ("KV", "MoE", "JIT") → the
    hyphenated compound whose initials it spells ("key-value", "mixture-of-experts", function words'
    initials optional: "just-in-time"), when at least :data:`BOTH_WAYS_MIN_CHUNKS` chunks of ``texts``
    write both. Two-letter acronyms stand for many compounds in a collection ("UC" Berkeley beside
    "user-controlled"), so writing them together, not the initials alone, is the evidence; the compound
    most often written with its acronym wins. Returns acronym as written → compound (lower case)."""
    together: Counter[tuple[str, str]] = Counter()
    written: dict[str, str] = {}
    for text in texts:
        compounds = {m.group(0).lower() for m in _COMPOUND_RE.finditer(text)}
        if not compounds:
            continue
        capitals: dict[str, str] = {}
        for m in _CAPITALS_RE.finditer(text):
            w = m.group(0)
            if sum(ch.isupper() for ch in w) >= 2:
                capitals.setdefault(w.lower(), w)
        for c in compounds:
            parts = c.split("-")
            for initials in {"".join(p[0] for p in parts), "".join(p[0] for p in parts if p not in FUNCTION_WORDS)}:
                if len(initials) >= 2 and initials in capitals:
                    together[(initials, c)] += 1
                    written.setdefault(initials, capitals[initials])
    best: dict[str, tuple[int, str]] = {}
    for (initials, c), n in together.items():
        if n >= BOTH_WAYS_MIN_CHUNKS and n > best.get(initials, (0, ""))[0]:
            best[initials] = (n, c)
    return {written[i]: c for i, (_, c) in best.items()}


def definitions(text: str) -> dict[str, str]:
    """The abbreviation definitions written in ``text`` (one note's opening), as written: short form →
    long form ("ELMo" → "Embeddings from Language Models", "DQN" → "deep Q-network"), by the
    Schwartz–Hearst algorithm (module docstring); ``{}`` when there is none."""
    lines = [ln for ln in text.split("\n") if " (" in ln]
    if not lines:
        return {}
    # the short form before its long form, "ELMo (Embeddings from Language Models)", read as Schwartz and
    # Hearst do (a parenthesis of more than two words is the long form): as "Embeddings … (ELMo)"
    lines += [f"{m.group(2)} ({m.group(1)})" for ln in lines for m in _SHORT_FIRST_RE.finditer(ln)]
    pairs = _schwartz_hearst().extract_abbreviation_definition_pairs(doc_text="\n".join(lines))
    return {str(k): str(v) for k, v in pairs.items()}


#: A word followed by a parenthesis of three words or more: a short form before its long form.
_SHORT_FIRST_RE = re.compile(r"(?<![\w-])([A-Za-z][\w-]{1,11}) \(((?:[^()\s]+\s+){2,}[^()\s]+)\)")


def coined(long_form: str) -> bool:
    """True for a long form written as a name, its words capitalized but for function words
    ("Embeddings from Language Models"), not as a term of the field ("deep Q-network")."""
    words = [w for w in _TITLE_WORD_RE.findall(long_form) if w.lower() not in FUNCTION_WORDS]
    return len(words) >= 2 and all(w[0].isupper() for w in words)


# Abbreviations of paper titles.
#: Shortest and longest abbreviation looked for (letters and digits).
MIN_LENGTH = 3
MAX_LENGTH = 10
#: Longest piece taken from one title word: "sim" of "Simple" (SimCLR), but "evalute" is a misspelt word,
#: not "evalu" + "te" of "Evaluation of Text-to-Video …".
MAX_PIECE = 3
#: Function words a title may skip between an abbreviation's pieces without counting as skipped
#: (the "of" of "Chain of Thought" may also give a piece: CoT).
FUNCTION_WORDS = frozenset(
    "a an the of for in on at to from with by via and or is are as your you all its into over under "
    "towards toward".split()
)
_ARTICLES = frozenset({"a", "an", "the"})
_TITLE_WORD_RE = re.compile(r"[^\W_]+")


@lru_cache(maxsize=8192)
def _long_forms(title: str) -> tuple[tuple[str, ...], ...]:
    """Word sequences an abbreviation may stand for: the whole title or, when it has a colon, the part
    before it, the name a title so written gives its paper (the subtitle after it is no name, and an
    abbreviation does not run across the colon: "BERT" is no b|e|r|t of "ByteDance Jakiro: Enabling
    RDMA and TCP over VPC"); words are normalized and split at hyphens ("Chain-of-Thought" → chain, of,
    thought), and once more where a lower-case letter meets a capital ("FlashAttention-4" → flash,
    attention, 4: "fa4")."""
    camel = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", title)
    return tuple(dict.fromkeys([*_plain_forms(title), *_plain_forms(camel)]))


@lru_cache(maxsize=8192)
def _plain_forms(title: str) -> tuple[tuple[str, ...], ...]:
    """:func:`_long_forms` without the camel-case split: the words as the title separates them, the
    only ones a contraction runs together (:func:`_contracts`: "gpipe" is no g|pipe of "GraphPipe: …")."""
    text = normalize(title)
    side = text.split(":", 1)[0] if ":" in text else text
    words = tuple(_TITLE_WORD_RE.findall(side))
    while words and words[0] in _ARTICLES:  # "A Simple Framework …" starts at "simple"
        words = words[1:]
    return (words,) if len(words) >= 2 else ()


def _pieces(short: str, words: tuple[str, ...], start: int, pieces: int, skipped: int, exact: bool = False) -> bool:
    """True when ``short`` can be cut into starts of ``words[start:]`` in order (see :func:`abbreviates`);
    ``exact``: with no word skipped but function words ("dlfm" for "Denoising Latent Flow Models", not
    "elmo" for "Enabling Tensor Language Model …")."""
    if not short:
        return pieces >= 2 and (skipped == 0 if exact else 2 * skipped <= pieces)
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
            if _pieces(short[n:], words, i + 1, pieces + 1, skipped, exact):
                return True
        if word not in FUNCTION_WORDS:
            skipped += 1
            if skipped > pieces + len(short):  # more skips than pieces could ever make up for
                return False
    return False


def abbreviates(short: str, title: str) -> bool:
    """True when the typed word ``short`` abbreviates the paper title ``title``.

    People name papers by abbreviations the title never spells out: DDPM, PPO, MoCo ("Momentum Contrast
    for …"), SimCLR ("A Simple Framework for Contrastive Learning of Visual Representations"), DPO, CoT.
    As in Schwartz & Hearst (2003), the short form's characters are found in order in the long form, the
    first at the start of a word. It is stricter than theirs because the long form is a whole title and
    the short form a word typed in a question, not a parenthesis after its definition: the short form is
    cut into pieces of one to three letters, each a proper *start* of a title word ("ddpm" is d|d|p|m,
    "simclr" sim|c|l|r); the first piece starts the title (or its part before a colon); there are at
    least two pieces; and the title words skipped between pieces are at most half as many as the pieces
    (function words not counted): "Apple" is no abbreviation of "Ansor: Generating High-Performance
    Tensor Programs for Deep Learning" (a|p|p|le skips four words for four pieces). A long form of two
    or three words may also be run together whole, a start of every word however long
    (:func:`_contracts`: "batchnorm" for "Batch Normalization").

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
    forms, plain = _long_forms(title), _plain_forms(title)
    return any(_abbreviates_forms(key, forms, plain=plain) for key in abbreviation_keys(short))


#: Fewest letters of a typed start of one title word read as that word ("spec" for "Speculative").
MIN_START_LETTERS = 3


@lru_cache(maxsize=8192)
def _title_words(title: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The title's words (normalized, split at hyphens) and its stemmed terms."""
    text = normalize(title)
    return tuple(_TITLE_WORD_RE.findall(text)), frozenset(lexical_terms(text))


def shortens(word: str, title: str) -> bool:
    """True when the typed word ``word`` (one normalized word part) stands for words of ``title``
    anywhere in it, as people shorten a title when they describe its paper ("dfvg spec decoding",
    "mixnet moe training", "hotline recsys training"): a word of the title (stemmed: "clusters",
    "speculative" for "speculation"), a start of one of at least :data:`MIN_START_LETTERS` letters
    ("spec", "async"), or starts of consecutive title words run together as :func:`abbreviates` reads
    them, skipping no word but function words ("moe" for "Mixture-of-Experts", "recsys" for
    "Recommendation System", "ml" for "Machine Learning"). A stop word stands only for itself.

    >>> shortens("spec", "DFVG: A Heterogeneous Architecture for Speculative Decoding")
    True
    >>> shortens("recsys", "Heterogeneous Acceleration Pipeline for Recommendation System Training")
    True
    >>> shortens("drafts", "ParvaGPU: Efficient Spatial GPU Sharing")
    False
    """
    key = "".join(_TITLE_WORD_RE.findall(normalize(word)))
    if not key:
        return False
    words, terms = _title_words(title)
    stems = set(lexical_terms(key))
    if key in words or (stems and stems <= terms):
        return True
    if not stems:  # a stop word stands only for itself ("to" is no t|o of "Training on …")
        return False
    if len(key) >= MIN_START_LETTERS and any(len(w) > len(key) and w.startswith(key) for w in words):
        return True
    return len(key) >= 2 and any(
        w[0] == key[0] and _pieces(key, words, i, 0, 0, exact=True) for i, w in enumerate(words)
    )


def _abbreviates_forms(
    key: str, forms: tuple[tuple[str, ...], ...], exact: bool = False, plain: tuple[tuple[str, ...], ...] = ()
) -> bool:
    """:func:`abbreviates` for a read ``key`` (:func:`abbreviation_key`) and a title's long forms
    (``plain``: those of them a contraction may run together, :func:`_plain_forms`)."""
    if any(key in words for words in forms):
        return False
    return any(_pieces(key, words, 0, 0, 0, exact) for words in forms) or any(_contracts(key, w) for w in plain)


#: Most words of a long form read as contracted into one word (:func:`_contracts`).
MAX_CONTRACTED_WORDS = 3


def _contracts(key: str, words: tuple[str, ...]) -> bool:
    """True when ``key`` runs together a start of every word of a short long form, in order ("batchnorm"
    for "Batch Normalization", "layernorm" for "Layer Normalization"): the pieces may be longer than
    :data:`MAX_PIECE` letters because no word is left out."""
    if not 2 <= len(words) <= MAX_CONTRACTED_WORDS or "".join(words) == key:
        return False

    def rest(k: str, i: int) -> bool:
        if i == len(words):
            return not k
        w = words[i]
        return any(k.startswith(w[:n]) and rest(k[n:], i + 1) for n in range(min(len(w), len(k)), 0, -1))

    return rest(key, 0)


def _in_order(key: str, text: str) -> bool:
    """True when the characters of ``key`` occur in ``text`` in order (a subsequence)."""
    rest = iter(text)
    return all(ch in rest for ch in key)


def abbreviation_keys(short: str) -> list[str]:
    """The readings of ``short`` :func:`abbreviates` tries: :func:`abbreviation_key`, and — when the one
    normalization took a final "s" as an acronym's plural ("gfs" → "gf", as "gpus" → "gpu") — the word
    with its "s" (GFS is the Google File System); none when it cannot be an abbreviation."""
    keys = [k for k in (abbreviation_key(short), _letters_key(short)) if k is not None]
    return list(dict.fromkeys(keys))


def _letters_key(short: str) -> str | None:
    """``short``'s letters and digits, case-folded, without the acronym-plural reading."""
    key = "".join(_TITLE_WORD_RE.findall(short.casefold()))
    if not (MIN_LENGTH <= len(key) <= MAX_LENGTH) or sum(ch.isalpha() for ch in key) < 2 or not key.isascii():
        return None
    return key


def abbreviation_key(short: str) -> str | None:
    """``short`` normalized as :func:`abbreviates` reads it (letters and digits, lower case), or None
    when it cannot be an abbreviation (too short or long, fewer than two letters)."""
    key = "".join(_TITLE_WORD_RE.findall(normalize(short)))
    if not (MIN_LENGTH <= len(key) <= MAX_LENGTH) or sum(ch.isalpha() for ch in key) < 2:
        return None
    return key


class TitleAbbreviations:
    """The paper titles a typed word abbreviates (:func:`abbreviates`), looked up in titles read once.

    Built once per catalog (``titles`` in catalog order): each title's long forms and the letters of
    its words, and the titles by the first letter their abbreviations can start with (that of a long
    form). A word is tried only against the titles of its first letter whose letters
    hold its own, in order — the Schwartz & Hearst condition every abbreviation meets, which
    :func:`abbreviates` then checks piece by piece. The answers are those of :func:`abbreviates` over
    every title; reading the titles again for each word of each question cost 13 ms of CPU per question
    at 6k titles.
    """

    def __init__(self, titles: Iterable[str]):
        titles = list(titles)
        self._forms = [_long_forms(t) for t in titles]
        self._plain = [_plain_forms(t) for t in titles]
        # the whole title's words (the first form) hold the part before its colon (the second)
        self._letters = ["".join(forms[0]) if forms else "" for forms in self._forms]
        self._letter_sets = [frozenset(text) for text in self._letters]
        self._by_initial: dict[str, list[int]] = {}
        for i, forms in enumerate(self._forms):
            for initial in dict.fromkeys(words[0][0] for words in forms):
                self._by_initial.setdefault(initial, []).append(i)

    def abbreviated(self, short: str, exact: bool = False) -> list[int]:
        """Positions of the titles ``short`` abbreviates (in any of its :func:`abbreviation_keys`
        readings), ascending; ``exact``: skipping no word but function words (:func:`_pieces`)."""
        found: set[int] = set()
        for key in abbreviation_keys(short):
            chars = frozenset(key)
            found.update(
                i
                for i in self._by_initial.get(key[0], ())
                if chars <= self._letter_sets[i]
                and _in_order(key, self._letters[i])
                and _abbreviates_forms(key, self._forms[i], exact, self._plain[i])
            )
        return sorted(found)
