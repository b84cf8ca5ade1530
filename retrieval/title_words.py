"""Papers named by a few distinctive words of their title.

Most people's notes title a paper as the paper does — "Dynamic Routing Between Capsules", "Bag of Tricks
for Efficient Text Classification" — without a system name before a colon, and people ask about it by
the words that single it out: "the capsules paper", "bag of tricks one, link", "learned index structures
- summarize". :meth:`~papernotes.retrieval.entities.PaperIndex.resolve` takes only whole names (a system
name, a title prefix, the full title); this module takes such a run of question words as naming a paper
when

- its content words (stemmed; stop, question and chat words aside) are a phrase of that paper's title
  (together and in order: "learned index structures", not "high-throughput LLM inference" for
  "High-Throughput Non-Uniformly Quantized 3-bit LLM Inference", which describes rather than names it)
  and, together, of no other paper's title (the run singles out one title), and
- the notes hold those words together in at most
  :data:`~papernotes.retrieval.entities.COMMON_NAME_CHUNKS` chunks that are not about that paper (the
  run is not an ordinary phrase of the notes: "neural networks" is in one title and everywhere else).

Only a paper whose title gives it no name is named this way: one with a system name or a title prefix
before a colon ("Tarn: Tiered KV Cache Storage …") is asked about by that name, and "storage" names
nothing. A one-word run needs :data:`MIN_WORD_LETTERS` letters and may occur in at most
:data:`SINGLE_WORD_ELSEWHERE` chunk about another paper. It is the same test the resolver applies to a
one-word system name (:data:`~papernotes.retrieval.entities.COMMON_NAME_CHUNKS`), applied to title words.
A question that asks for a list is about a topic, not a paper, and is not read this way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from papernotes.corpus.normalize import normalize
from papernotes.corpus.venues import VenueMention
from papernotes.retrieval.entities import COMMON_NAME_CHUNKS, PaperIndex, PaperMention, words_of
from papernotes.retrieval.terms import CHAT_WORDS, lexical_terms, question_words, stop_words

#: Longest run of question words read as title words.
MAX_RUN_WORDS = 4
#: Fewest letters of a one-word run ("capsules", not "gan").
MIN_WORD_LETTERS = 5
#: Chunks about other papers that may hold a one-word run: one (a note citing the paper by that word).
SINGLE_WORD_ELSEWHERE = 1


def title_mentions(
    index: PaperIndex,
    question: str,
    venues: Sequence[VenueMention] = (),
    variant: Callable[[str], str | None] | None = None,
    named: Sequence[PaperMention] = (),
    focus: AbstractSet[str] = frozenset(),
) -> list[PaperMention]:
    """The papers ``question`` names by distinctive title words (see the module docstring), longest runs
    first, without overlaps, in question order; ``[]`` when none. The words of the papers already
    ``named`` (another side of a comparison: "ddpm vs latent diffusion") are no title words, nor are the
    ``focus`` terms (stemmed), those of the noun phrase the question's interrogative asks for: "what
    *autoencoder* does stable diffusion use" asks which autoencoder, it names no paper titled "Masked
    Autoencoders …" (:func:`~papernotes.retrieval.question.focus_terms`). ``variant(word)`` reads a word that no
    title holds as the notes' word it misspells (:meth:`~papernotes.retrieval.spelling.Vocabulary.variant`:
    "segement anything" names "Segment Anything"), as :meth:`PaperIndex.resolve` reads names.

    >>> # "capsules loss fn has which two parts" → [PaperMention(records=[<Dynamic Routing Between
    >>> # Capsules>], name="capsules", words=(0, 1))]
    """
    words = words_of(question, [m.span for m in venues])
    skip = question_words() | stop_words() | CHAT_WORDS
    by_term = index.title_terms
    terms = [[t for p in parts for t in lexical_terms(p) if t not in skip] for _, parts in words]
    read = [w for w, _ in words]  # each word as read: typed, or the title word it misspells
    if variant is not None:
        for j, word in enumerate(read):
            if (
                terms[j]
                and not all(t in by_term for t in terms[j])
                and (meant := variant(normalize(word)))
                and (meant_terms := [t for t in lexical_terms(meant) if t not in skip])
            ):
                terms[j], read[j] = meant_terms, meant
    taken = [any(m.words[0] <= j < m.words[1] for m in named) for j in range(len(words))]
    found: list[PaperMention] = []
    for size in range(min(MAX_RUN_WORDS, len(words)), 0, -1):
        for i in range(len(words) - size + 1):
            run = terms[i : i + size]
            if any(taken[i : i + size]) or not run[0] or not run[-1]:
                continue
            if focus and {t for ts in run for t in ts} <= focus:
                continue  # what is asked for, not what it is asked about
            wanted = list(dict.fromkeys(t for ts in run for t in ts))
            if size == 1 and (len(wanted) != 1 or len(wanted[0]) < MIN_WORD_LETTERS - 1 or not wanted[0].isalpha()):
                continue
            if size == 1 and len(words[i][0]) < MIN_WORD_LETTERS:
                continue
            holders = set.intersection(*(by_term.get(t, set()) for t in wanted))
            if len(holders) != 1:
                continue
            (rec,) = holders
            if index.records[rec].system or ":" in index.records[rec].title:
                continue  # a paper with a name is asked about by that name
            if not _in_order(lexical_terms(" ".join(read[i : i + size])), index.records[rec].title):
                continue  # words of the title, not a phrase of it: a description ("high-throughput LLM inference")
            if _elsewhere(index, wanted, rec) > (COMMON_NAME_CHUNKS if size > 1 else SINGLE_WORD_ELSEWHERE):
                continue
            found.append(PaperMention([rec], " ".join(read[i : i + size]), (i, i + size)))
            for j in range(i, i + size):
                taken[j] = True
    return sorted(found, key=lambda m: m.words)


def _in_order(run: list[str], title: str) -> bool:
    """True when the run's terms (stop words aside) stand together, in order, in the title's terms."""
    have = lexical_terms(title)
    return any(have[j : j + len(run)] == run for j in range(len(have) - len(run) + 1))


def _elsewhere(index: PaperIndex, terms: list[str], rec: int) -> int:
    """Chunks holding all of ``terms`` that are not about paper ``rec``."""
    return sum(1 for pos in index.bm25.holding(terms) if index.chunk_record[int(pos)] != rec)
