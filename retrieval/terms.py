"""Lexical terms shared by the BM25 index, the paper-name index, answerability and the extractive
answerer: the normalized tokens of :mod:`papernotes.corpus.normalize`, English stop words removed
(NLTK's list, as shipped by bm25s), Snowball-stemmed (PyStemmer). Applied identically at ingest and at
query time; a change here changes :data:`TERMS_VERSION`, which makes the next ingest rebuild the sparse
index."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from papernotes.corpus.lexicon import readings
from papernotes.corpus.normalize import CJK_CHARS, normalize, tokens

#: Version of the term rules stored with the BM25 index; bump it whenever :func:`lexical_terms` changes
#: its output, so that an index built by the old rules is detected and rebuilt.
TERMS_VERSION = 10

#: A one-word name found in more than this share of all chunks (and in more than
#: :data:`FIELD_TERM_MIN_CHUNKS`, for small collections) is a term of the field ("LLMs", "PyTorch"), not a
#: paper's name, whatever its casing.
FIELD_TERM_SHARE = 0.02
FIELD_TERM_MIN_CHUNKS = 10


def field_term_chunks(chunks: int) -> float:
    """The number of chunks (of ``chunks`` in all) a word must be found in, more than, to be a term of
    the field (:data:`FIELD_TERM_SHARE`, at least :data:`FIELD_TERM_MIN_CHUNKS`)."""
    return max(FIELD_TERM_SHARE * chunks, FIELD_TERM_MIN_CHUNKS)


#: The courtesy words and shorthand of the chat register ("pls", "btw", "w/o"); they carry no topic.
CHAT_TEXT = (
    "hey hi hello please pls plz thanks thx ty tysm btw iirc afaik imo tbh idk fyi ngl lol lmao haha ok okay so w/o"
)
#: Words that frame a question about notes ("which paper in the notes …") beyond the stop words, and the
#: chat words (:data:`CHAT_TEXT`); they carry no topic.
QUESTION_TEXT = (
    "paper papers notes note work works system systems study studies approach method describe "
    "summarize summarise summary tldr tell give show find mention mentioned propose proposed present "
    "presented introduce introduced use used using much many report reported reading listed list "
    "anything something everything ones em whats hows whose " + CHAT_TEXT
)
#: The chat words as normalized, unstemmed tokens.
CHAT_WORDS = frozenset(tokens(CHAT_TEXT, compounds=False))


@lru_cache(maxsize=1)
def _stop_and_stem():
    import Stemmer  # PyStemmer: the Snowball English stemmer
    from bm25s.stopwords import STOPWORDS_EN_PLUS  # NLTK's English stop words, as shipped by bm25s

    return frozenset(STOPWORDS_EN_PLUS), Stemmer.Stemmer("english")


#: The English interrogatives and auxiliary verbs (closed-class words): what makes a fragment ask.
INTERROGATIVES = frozenset({"what", "which", "who", "whom", "whose", "where", "when", "why", "how"})
AUXILIARIES = tuple("is are was were do does did has have had can could will would should may might".split())
#: General and shell nouns (closed classes): nouns whose content the passage gives, not the word itself —
#: Halliday & Hasan's general nouns (*Cohesion in English*, 1976, §6.4: "thing", "stuff", "matter",
#: "idea") and the commonest of Schmid's shell nouns (*English Abstract Nouns as Conceptual Shells*,
#: 2000: "the *trick* is to…", "the *point* is that…"). As a question's focus ("what *tricks* does it
#: use") they name no kind of answer, so notes that never write them can still answer.
GENERAL_NOUNS = frozenset(
    "thing things stuff matter matters business affair affairs idea ideas notion point points way ways "
    "part parts aspect aspects fact facts reason reasons trick tricks gist deal catch move moves".split()
)
#: Measure nouns (closed class): "what *fraction*", "what *share*" ask for a number, which the notes
#: state without the word ("15%", "one in five"); of a compound only the measure word ("batch *size*").
MEASURE_NOUNS = (
    "share",
    "fraction",
    "percentage",
    "percent",
    "proportion",
    "ratio",
    "size",
    "number",
    "count",
    "amount",
)
#: Words that ask for an amount without naming what it measures ("X speedup numbers?", "the exact
#: number"): in a question asking for an amount, no part of what is asked.
GENERIC_AMOUNT = frozenset({"number", "numbers"})
#: Nouns that head the name of a quantity ("compression *ratio*", "hit *rate*", "batch *size*"): the
#: measure nouns, and "rate", which the notes write beside the value ("a 92% hit rate"), so unlike them
#: it stays part of a question's focus ("what *learning rate*").
QUANTITY_HEADS = (*MEASURE_NOUNS, "rate")
#: Classifier nouns of "what kind of X" (closed class): the question's focus is X, not the classifier
#: (Moldovan et al., ACL 2000).
CLASSIFIER_NOUNS = ("kind", "kinds", "type", "types", "sort", "sorts")

#: Words that make a question about two named papers a comparison ("X vs Y", "how does X differ from
#: Y"): they ask for the two papers side by side, nothing more specific; closed-class English words.
COMPARING = frozenset(
    {"differ", "differs", "difference", "differences", "different", "diff", "compare", "compared", "comparison"}
    | {"vs", "vs.", "versus", "same", "contrast", "distinguish", "between"}
)
#: German interrogatives (closed class).
GERMAN_INTERROGATIVES = "wer wen wem wessen wann warum wieso weshalb woher wohin"
#: The interrogatives of those languages that bm25s's stop-word lists lack ("wer", "quién", "comment",
#: "qu'est-ce"), closed-class words; those that are also English words ("come", "dove") left out.
FOREIGN_INTERROGATIVES = (
    GERMAN_INTERROGATIVES + " "
    "quoi quel quelle quels quelles comment où pourquoi quand combien qu'est-ce "
    "quién quiénes cómo cuál cuáles dónde cuándo cuánto cuántos cuánta cuántas "
    "perché quale quali quanto quanti quem onde qual quais quantos"
)


@lru_cache(maxsize=1)
def foreign_stop_words() -> tuple[frozenset[str], tuple[str, ...]]:
    """Stop words of the other languages questions are asked in (bm25s's lists): Spanish, French,
    German, Portuguese, Italian, Russian and Korean as words; Chinese as phrases, longest first (CJK has no spaces)."""
    from bm25s import stopwords as sw

    words = frozenset().union(
        sw.STOPWORDS_SPANISH,
        sw.STOPWORDS_FRENCH,
        sw.STOPWORDS_GERMAN,
        sw.STOPWORDS_PORTUGUESE,
        sw.STOPWORDS_ITALIAN,
        sw.STOPWORDS_RUSSIAN,
        sw.STOPWORDS_KOREAN,
        FOREIGN_INTERROGATIVES.split(),
    )
    return frozenset(normalize(w) for w in words), tuple(sorted(sw.STOPWORDS_CHINESE, key=len, reverse=True))


@lru_cache(maxsize=1)
def _german_only_words() -> frozenset[str]:
    """German stop words (bm25s's list and the German interrogatives) that are neither English stop words
    nor stop words of the other languages of :func:`foreign_stop_words`."""
    from bm25s import stopwords as sw

    others = frozenset().union(sw.STOPWORDS_SPANISH, sw.STOPWORDS_FRENCH, sw.STOPWORDS_PORTUGUESE, sw.STOPWORDS_ITALIAN)
    german = {*sw.STOPWORDS_GERMAN, *GERMAN_INTERROGATIVES.split()}
    return frozenset(normalize(w) for w in german if w not in others) - stop_words()


def capitalizes_nouns(question: str) -> bool:
    """True for a question asked in German, which writes every noun with a capital ("Was ist die *Idee*
    von Mooncake?"): two or more of its words are German stop words of no other language
    (:func:`_german_only_words`). In such a question a capital marks no name."""
    words = normalize(question).split()
    return sum(w.strip("?!.,;:") in _german_only_words() for w in words) >= 2


def lexical_terms(text: str) -> list[str]:
    """Stemmed, stop-word-free terms of ``text`` in order, compounds and CJK bigrams included
    (``"Schedulers' KV-caching"`` → ``["schedul", "kv", "cach", "kvcach"]``). A fresh list each call;
    the terms of recent texts are cached (answers read the same chunks' terms again and again)."""
    return list(_lexical_terms(text))


def lexical_terms_once(text: str) -> tuple[str, ...]:
    """:func:`lexical_terms` without its cache, for a text whose terms the caller keeps (a chunk's body):
    such texts would push the questions' phrases, looked up again and again, out of the cache."""
    stop, stemmer = _stop_and_stem()
    words = [t for t in tokens(text) if t not in stop]
    stems = [_plural_acronym(w) or s for w, s in zip(words, stemmer.stemWords(words), strict=True)]
    return tuple(s for s in stems if s not in stop)


_lexical_terms = lru_cache(maxsize=8192)(lexical_terms_once)


def _plural_acronym(word: str) -> str | None:
    """The singular of a lower-case plural the stemmer keeps because a vowel stands just before its "s"
    ("gpus", "slos", "tpus": Snowball step 1a deletes an "s" only after a vowel further back), when the
    word is no common English word ("bus", "plus", "status" stay); None otherwise. (Capitalized and
    vowel-less plurals are singular already: :func:`papernotes.corpus.normalize.normalize`.)"""
    if len(word) >= 4 and word[-1] == "s" and word[-2] in "aeiou" and word.isalpha() and not english_word(word):
        return word[:-1]
    return None


@lru_cache(maxsize=1)
def question_words() -> frozenset[str]:
    """The stemmed :data:`QUESTION_TEXT` words."""
    return frozenset(lexical_terms(QUESTION_TEXT))


def strip_foreign_framing(question: str) -> str:
    """``question`` (normalized) without the stop words of other languages (:func:`foreign_stop_words`),
    Chinese ones removed as phrases since CJK text has no spaces (it becomes bigrams)."""
    words, phrases = foreign_stop_words()
    q = normalize(question)
    if re.search(f"[{CJK_CHARS}]", q):
        for p in phrases:
            q = q.replace(p, " ")
    return " ".join(w for w in q.split() if w.strip("¿?¡!.,;:'\"") not in words)


def question_terms(question: str) -> list[str]:
    """Terms of a question without the words (English, other languages, Chinese phrases) that only
    frame it; years stay."""
    return list(_question_terms(question))


@lru_cache(maxsize=8192)
def _question_terms(question: str) -> tuple[str, ...]:
    """:func:`question_terms`, kept per text: reading a question asks it of each of its words and
    phrases, which recur from question to question."""
    qw = question_words()
    return tuple(t for t in lexical_terms(strip_foreign_framing(question)) if t not in qw)


def stop_words() -> frozenset[str]:
    """The English stop words (lower-case)."""
    return _stop_and_stem()[0]


def stem(word: str) -> str:
    """Snowball English stem of one lower-cased word."""
    return _stop_and_stem()[1].stemWord(word)


def is_year(term: str) -> bool:
    """True for a four-digit year term (1900–2099)."""
    return re.fullmatch(r"(19|20)\d\d", term) is not None


#: A common English word found in fewer than this share of the chunks (and in at most
#: :data:`RARE_IN_NOTES_MIN` chunks, for small collections) frames a question ("who *made* X", "X's main
#: *idea*") rather than naming a topic the notes discuss.
RARE_IN_NOTES = 0.03
RARE_IN_NOTES_MIN = 3


@lru_cache(maxsize=1)
def _english_stems() -> frozenset[str]:
    """Snowball stems of the embedder's WordPiece vocabulary words
    (:func:`papernotes.retrieval.tokens.wordpiece_vocabulary`)."""
    from papernotes.retrieval.tokens import wordpiece_vocabulary

    stemmer = _stop_and_stem()[1]
    return frozenset(stemmer.stemWords(list(wordpiece_vocabulary())))


#: How many letters a clipped word drops at least ("infra" for "infrastructure", "perf" for
#: "performance"): an inflection adds one or two ("orca" → "orcas"), a clipping drops a syllable or more.
CLIPPED_LETTERS = 3


@lru_cache(maxsize=1)
def _english_words() -> tuple[str, ...]:
    """The whole words of the embedder's WordPiece vocabulary, letters only, sorted."""
    from papernotes.retrieval.tokens import wordpiece_vocabulary

    return tuple(sorted(w for w in wordpiece_vocabulary() if w.isalpha()))


def clipped(word: str) -> bool:
    """True for a word of four or more letters that begins a longer English word of the embedder's
    WordPiece vocabulary (by :data:`CLIPPED_LETTERS` or more): a clipping, as chat shortens words
    ("infra", "impl", "config"), not a name ("phantora", "mixtral")."""
    w = word.lower()
    if len(w) < 4 or not w.isalpha():
        return False
    words = _english_words()
    i = bisect.bisect_left(words, w)
    while i < len(words) and words[i].startswith(w):
        if len(words[i]) >= len(w) + CLIPPED_LETTERS:
            return True
        i += 1
    return False


def names_a_thing(word: str) -> bool:
    """False for a word that lemminflect's English lexicon (built from the SPECIALIST Lexicon and AGID)
    knows only as an adjective, adverb or verb ("bad", "different", "typical", "made"): it says how or
    what kind, it names nothing; True for a word with a noun reading ("batch", "license") and for one
    the lexicon lacks (a name, jargon: "cfg", "vllm")."""
    known = readings(word)
    return not known or "NOUN" in known or "PROPN" in known


def english_word(word: str) -> bool:
    """True for a common English word: its Snowball stem is the stem of a whole word of the embedder's
    WordPiece vocabulary ("differ" shares ``differ`` with "different"), a general English lexicon that
    ships with the embedder."""
    w = word.lower()
    return w.isalpha() and stem(w) in _english_stems()


def stem_term(word: str) -> str:
    """The index term of one normalized word, as :func:`lexical_terms` would give it, without splitting
    it further (the joined form of "DeepSeek-V3.2" is ``deepseekv32``)."""
    return stem(word)


def conversational(word: str, df: int, n_chunks: int) -> bool:
    """True when ``word`` (a surface word of a question) is a common English word that the notes rarely
    use (in ``df`` of ``n_chunks`` chunks: under :data:`RARE_IN_NOTES` of them, or at most
    :data:`RARE_IN_NOTES_MIN`): it asks *how* ("made", "idea", "built"), not *about what*; a word the
    notes use often, or one that is not common English (a name, jargon), is specific."""
    rare = df < RARE_IN_NOTES * n_chunks or df <= RARE_IN_NOTES_MIN
    return rare and english_word(word)


@dataclass(frozen=True)
class Key:
    """One word (or a word pair the notes write joined) of a question, for measuring coverage: its
    normalized surface ``word`` and the ``alternatives`` that match it — stemmed term tuples, any one
    of which being present covers the key ("KV-cache": ``("kvcach",)`` or ``("kv", "cach")``)."""

    word: str
    alternatives: tuple[tuple[str, ...], ...]

    @property
    def terms(self) -> set[str]:
        return {t for alt in self.alternatives for t in alt}

    def covered(self, have: AbstractSet[str]) -> bool:
        """True when every term of one alternative is in ``have``, itself or as a derivational relative
        (:func:`has_term`)."""
        return any(all(has_term(t, have) for t in alt) for alt in self.alternatives)


#: Shortest stem matched through a derivational relative (:func:`relatives`).
RELATIVE_MIN = 5


def has_term(term: str, have: AbstractSet[str]) -> bool:
    """True when ``term`` (stemmed) or one of its derivational :func:`relatives` is in ``have``."""
    return term in have or any(r in have for r in relatives(term))


@lru_cache(maxsize=65536)
def relatives(term: str) -> tuple[str, ...]:
    """Stems that the Snowball stemmer leaves apart although they come from one word: the stem cut by
    one or two final letters, or lengthened by one, as long as the shorter has :data:`RELATIVE_MIN` or
    more letters ("reduction" → ``reduct``, "reduces" → ``reduc``; "consumption" → ``consumpt``,
    "consume" → ``consum``). Snowball strips inflectional and most derivational suffixes, but the
    Latin "-duce/-duction", "-sume/-sumption" pairs keep a stem one or two letters longer; a prefix
    relation between two stems of five or more letters is that case. Empty for shorter or non-letter
    terms, and for a term that is no stem of an English word (:func:`english_word`): a name has no
    derivational relatives ("tensorrt" is no relative of "tensor")."""
    if len(term) < RELATIVE_MIN or not term.isalpha() or not term.isascii() or term not in _english_stems():
        return ()
    cut = tuple(term[:i] for i in range(max(RELATIVE_MIN, len(term) - 2), len(term)))
    return cut + tuple(term + c for c in "abcdefghijklmnopqrstuvwxyz")


def key_weight(key: Key, idf: Callable[[str], float]) -> float:
    """A key's weight in :func:`coverage`: the idf of its rarest term."""
    return max((idf(t) for t in key.terms), default=0.0)


def coverage(keys: Sequence[Key | str], have: AbstractSet[str], idf: Callable[[str], float]) -> float:
    """idf-weighted share (0–1) of ``keys`` covered by the term set ``have``; a key weighs the idf of
    its rarest term (:func:`key_weight`); plain strings are one-term keys. 1.0 when there are no keys."""
    total = covered = 0.0
    for k in dict.fromkeys(keys):
        key = k if isinstance(k, Key) else Key(k, ((k,),))
        w = key_weight(key, idf)
        total += w
        if key.covered(have):
            covered += w
    return covered / total if total else 1.0
