"""What a question asks, read once and shared by retrieval, answerability and answer composition.

A :class:`Question` holds the question's content terms (normalized, stemmed, framing words and venue
mentions removed), the venue filter it names, the papers it names (resolved through the catalog by
:class:`~papernotes.retrieval.entities.PaperIndex`), the terms that ask something *about* those
papers (``asked``: content terms minus the names), and its form: a list question (several papers
wanted), a comparison (two or more named papers) or a question about one thing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache

from rapidfuzz.distance import DamerauLevenshtein

from papernotes.corpus.lexicon import is_comparative
from papernotes.corpus.normalize import CJK_CHARS, normalize, tokens, word_parts
from papernotes.corpus.venues import VenueMention
from papernotes.retrieval.abbreviations import Abbreviations, spelling_key
from papernotes.retrieval.entities import PaperIndex, PaperMention, without_links
from papernotes.retrieval.filters import Filters, detect_filters, venue_mentions
from papernotes.retrieval.guesses import Guess, typed_guess
from papernotes.retrieval.terms import (
    AUXILIARIES,
    CHAT_WORDS,
    CLASSIFIER_NOUNS,
    COMPARING,
    GENERAL_NOUNS,
    GENERIC_AMOUNT,
    INTERROGATIVES,
    MEASURE_NOUNS,
    QUANTITY_HEADS,
    Key,
    capitalizes_nouns,
    clipped,
    english_word,
    foreign_stop_words,
    is_year,
    lexical_terms,
    question_terms,
    question_words,
    stem_term,
    stop_words,
    strip_foreign_framing,
)
from papernotes.retrieval.title_words import title_mentions

#: Words that ask for several papers: a list verb, or a plural noun for papers asked about with a
#: quantifier or interrogative ("which HPCA 2026 papers …", "any ones on …", "all the talks") or
#: ending the question ("meta's osdi 24 papers?"); closed-class English words.
LIST_VERBS = frozenset({"list", "enumerate"})
LIST_NOUNS = frozenset(
    {
        "papers",
        "works",
        "work",
        "systems",
        "ones",
        "talks",
        "studies",
        "publications",
        "pubs",
        "entries",
        "projects",
        "winners",  # "osdi'24 best paper winners"
        "finalists",
    }
)
QUANTIFIERS = frozenset({"which", "what", "any", "all", "every", "some", "other", "list", "many"})
#: Nouns that ask for several papers only quantified right before them ("which notes", "any notes on …",
#: "which of my notes …"): "what do my notes say", "attention is all you need notes" ask for one.
QUANTIFIED_LIST_NOUNS = frozenset({"notes"})
_NOTE_QUANTIFIERS = frozenset({"which", "any", "all", "every"})
# Of the English interrogatives (terms.INTERROGATIVES), "which"/"what" quantify the question's list noun
# only when the question opens with them, not inside a clause another interrogative governs ("how does X
# pick *which* KV entries to load" asks how, not for entries).
#: The list words in Chinese, which has no spaces: "which (ones)", "list", "enumerate".
LIST_PHRASES_CJK = ("哪些", "列出", "列举")


def asks_for_list(
    text: str, venues: Sequence[VenueMention] = (), variant: Callable[[str], str | None] | None = None
) -> bool:
    """True when the question asks for several papers (see :data:`LIST_NOUNS`), also right before or
    after a named venue ("sosp24 papers on …", "OSDI papers", "the megascale papers at eurosys 26") or
    opening the noun phrase it heads ("nsdi 2026 fault tolerance papers for llm training"):
    "file systems" in "the paper on LLM-generated
    file systems" does not. "paper(s)" is the plural; ``variant(word)`` reads a
    misspelt word as the notes' word ("pappers", :meth:`~papernotes.retrieval.spelling.Vocabulary.variant`)."""
    words = tokens(normalize(re.sub(r"\(s\)", "s", text)), compounds=False)
    if variant is not None:
        words = [variant(w) or w for w in words]
    if set(words) & LIST_VERBS:
        return True
    venue_words = {t for m in venues for t in tokens(normalize(text[m.span[0] : m.span[1]]), compounds=False)}
    if any(p in text for p in LIST_PHRASES_CJK):
        return True
    filler = stop_words() | CHAT_WORDS
    opening = next((w for w in words if w in INTERROGATIVES), None)
    for i, w in enumerate(words):
        before = set(words[max(0, i - 4) : i])
        # an embedded "which"/"what" under another interrogative does not quantify: "how does X pick which …"
        before -= {q for q in ("which", "what") if opening is not None and opening != q}
        at_end = i == len(words) - 1 and w.endswith("s")  # "meta's osdi 24 papers?", not "how does X work?"
        # the head of the question's opening noun phrase: "papers that focus on memory at hpca 2026"
        heads = w.endswith("s") and all(x in filler for x in words[:i])
        if w in LIST_NOUNS and words[max(0, i - 2) : i] == ["how", "many"]:
            continue  # "how many papers did X accept?" asks for a count
        # a named venue right before or after: "sosp24 papers on …", "the megascale papers at eurosys 26"
        beside = set(words[max(0, i - 2) : i]) | set(words[i + 1 : i + 3])
        # … or opening the noun phrase the list noun heads: "nsdi 2026 fault tolerance papers for …"
        last = max((j for j in range(max(0, i - 5), i) if words[j] in venue_words), default=None)
        headed = (
            last is not None
            and not any(x in INTERROGATIVES for x in words[:i])
            and not any(x in filler for x in words[last + 1 : i])
        )
        if w in LIST_NOUNS and (at_end or heads or headed or before & QUANTIFIERS or beside & venue_words):
            return True
        quantifier = words[i - 1] if i else ""
        if i >= 3 and words[i - 2 : i] in (["of", "my"], ["of", "our"]):
            quantifier = words[i - 3]  # "which of my notes"
        if w in QUANTIFIED_LIST_NOUNS and quantifier in _NOTE_QUANTIFIERS:
            return True
    return False


#: A count asked for (English closed-class words and the nouns of a tally; a list answer states the count
#: first): "how many papers …", "the number of papers from nsdi 2026", "count of osdi papers on serving",
#: "count the hpca 2026 papers".
COUNT_RE = re.compile(r"\bhow\s+many\b|\b(?:number|count|tally|total)\s+(?:number\s+)?of\b|^\W*count\b", re.IGNORECASE)


#: The count's noun right after the count ("how many papers", "number of papers"): the notes' papers.
_COUNTED_PAPERS_RE = re.compile(r"\b(?:how\s+many|(?:number|count|tally)\s+of)\s+papers\b", re.IGNORECASE)
#: Words scoping a count (English closed-class words): "how many papers *in total* / *overall*".
_COUNT_SCOPE_RE = re.compile(r"\b(?:in\s+)?(?:total|overall|altogether)\b", re.IGNORECASE)
#: A question ending in "do I have" ("how many rdma papers do i have?").
_HAVE_END_RE = re.compile(r"\b(?:do|did)\s+(?:i|we)\s+have\s*[?.!]*\s*$", re.IGNORECASE)


#: What separates the alternatives of a topic: "or", and a slash written between spaces ("reasoning
#: models / test-time scaling"; "I/O" is one word).
ALTERNATIVE_RE = re.compile(r"\s+(?:or|and/or)\s+|\s+/\s+")


def topic_alternatives(text: str, keys: Sequence[Key]) -> list[list[Key]]:
    """The topic ``keys`` of ``text`` as alternatives, any one of which is the topic: "papers that
    target wafer-scale chips or wafer-scale GPUs" → ``[[target, wafer-scale, chips], [target,
    wafer-scale, gpus]]``. The parts after the first are alternatives as written; the first part's
    alternative is its last keys, as many as the longest later one has ("wafer-scale chips"); its
    earlier keys ("target") and the keys written in several parts apply to every alternative. Without
    "or" (or a spaced slash): ``[keys]``."""
    parts = ALTERNATIVE_RE.split(normalize(text))
    if len(parts) < 2:
        return [list(keys)]
    words = [set(tokens(p)) for p in parts]
    where = {k: [i for i, w in enumerate(words) if set(tokens(k.word)) <= w] for k in keys}
    own = [[k for k in keys if where[k] == [i]] for i in range(len(parts))]
    width = max(len(o) for o in own[1:])
    if not width:
        return [list(keys)]
    own[0] = own[0][-width:]  # keys keep question order
    shared = [k for k in keys if not any(k in o for o in own)]
    return [shared + o for o in own if o] or [list(keys)]


#: Questions about the collection itself ("do I have notes on X?", "what have I read about X?", "have I
#: read anything on X?", "which OSDI papers have I written notes on?", "what sosp papers have i got",
#: "papers I've read on X", "osdi papers we read", "… in my notes", "… in my log", "which of my notes",
#: "papers I have"): unless they name a paper, they ask for every paper of the
#: notes on a topic, and their words frame the question, they are not its topic; closed-class English
#: phrasings.
MY_NOTES_RE = re.compile(
    r"\b(?:do|did)\s+(?:i|we)\s+have\s+(?:any\s+)?(?:notes?|papers?|anything|something)\b"
    r"|\bwhat\s+(?:have|did)\s+(?:i|we)\s+(?:read|noted|written)\b"
    r"|\bhave\s+(?:i|we)\s+(?:(?:read|noted|written|got|gotten|saved|covered|taken)\b"
    r"(?:\s+(?:notes?|anything|any|something)\b)?)"
    r"|\b(?:i|we)(?:'ve|’ve|\s+have)?\s+(?:read|noted|written|saved|covered)\b"
    r"(?:\s+(?:notes?\s+)?(?=on|about|from|at|in)\b|\s*[?.!]*$)"
    r"|\b(?:in|from|among|of)\s+(?:my|our)\s+(?:own\s+)?(?:reading\s+list|[^\W\d_]+)\b"
    r"|\b(?:papers?|notes?)\s+(?:that\s+)?(?:i|we)\s+(?:have|keep|saved|got)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=1)
def comparing_terms() -> frozenset[str]:
    """The stemmed :data:`COMPARING` words."""
    return frozenset(t for w in COMPARING for t in lexical_terms(w))


#: Pronouns that refer back to something named earlier ("How was *it* evaluated?"); closed-class
#: English words.
REFERRING = frozenset(
    {"it", "its", "they", "their", "them", "this", "that", "these", "those", "he", "she", "his", "her"}
)
#: A question that opens by continuing another ("and the latency?", "what about throughput?", "also
#: the baselines?"; English closed-class words): it leans on an earlier turn as a pronoun does.
CONTINUING_RE = re.compile(r"^\W*(?:and|also|but|plus|what about|how about)\b", re.IGNORECASE)


def refers_and_compares(text: str) -> bool:
    """``text`` holds a referring pronoun (:data:`REFERRING`) and a comparing word (:data:`COMPARING`):
    "how does *it* *compare* to vLLM?"."""
    words = set(tokens(normalize(text), compounds=False))
    return bool(words & REFERRING) and bool(words & COMPARING)


#: Interrogatives that ask for an amount (English closed-class words): the answer needs a number.
_AUX = "|".join(AUXILIARIES)
#: English prepositions (closed class) that end a noun phrase.
_PREPOSITIONS = (
    "of|in|for|on|at|to|by|with|from|than|per|across|about|into|under|over|between|behind|via|during|"
    "within|without|through|against|among"
)
#: An interrogative determiner and the noun phrase it asks for, up to four words ending before an
#: auxiliary, a preposition, a conjunction or slash joining another ("what batch size / lr") or the
#: question's end: the question's focus, the thing its answer names (the "question focus" of
#: open-domain QA, Moldovan et al., ACL 2000). English closed-class words only.
FOCUS_RE = re.compile(
    rf"\b(?:what|which|whose|how\s+(?:many|much))\s+(?:(?<=what\s)(?:the|a|an)\s+)?"  # "what's the license": "what the …"
    rf"(?:(?:{'|'.join(CLASSIFIER_NOUNS)})\s+of\s+(?:an?\s+)?)?"  # "what kind of bugs": the focus is "bugs"
    rf"(?!(?:{_AUX}|the|a|an|it|its|they|this|that|of|about)\b)"
    r"((?:[^\W_][\w'.+-]*\s+){0,3}?[^\W_][\w'.+-]*?)"
    rf"(?=\s+(?:{_AUX}|{_PREPOSITIONS}|when|and|or)\b|\s*[?.!,;:/&]|\s*$)",
    re.IGNORECASE,
)


#: The Chinese interrogatives that ask for a thing ("什么" what, "哪" which, "多少" how many/much; closed
#: class) and the words in Latin script after them: the focus of "集群用的是什么 *cpu*", "每秒多少
#: *token*". A focus written in Chinese is not one: notes in English, most of them, write it in
#: other words, which no lexical match finds.
CJK_FOCUS_RE = re.compile(r"(?:什么|哪[个些家种款]?|多少)\s*(?:的\s*)?([A-Za-z][\w'.+-]*(?:\s+[A-Za-z][\w'.+-]*){0,2})")
#: A question asked as a noun phrase, without an interrogative ("batch size in the chinchilla paper",
#: "llama tokenizer vocab size", "ddpm fid on lsun bedroom?"): its opening phrase, up to six words ending
#: as :data:`FOCUS_RE`'s do; when it names an amount, it names what is asked for, as an interrogative's
#: phrase does (the names of papers in it are no asked words, so no part of the focus). English
#: closed-class words only.
PHRASE_RE = re.compile(
    r"^\W*((?:[^\W_][\w'.+-]*\s+){0,5}?[^\W_][\w'.+-]*?)"
    rf"(?=\s+(?:{_AUX}|{_PREPOSITIONS}|when|and|or|vs)\b|\s*[?.!,;:/&]|\s+[-—–]\s|\s*$)",
    re.IGNORECASE,
)


#: A phrase ending with a quantity noun (:data:`~papernotes.retrieval.terms.QUANTITY_HEADS`, plural too)
#: that measures what the phrase names: "llama tokenizer vocab *size*", "orca parameter *count*"; not
#: "number(s)", which asks for an amount without naming what it measures ("ditron perf *numbers*",
#: :data:`~papernotes.retrieval.terms.GENERIC_AMOUNT`).
_QUANTITY_HEAD_END_RE = re.compile(
    rf"\s(?:{'|'.join(h for h in QUANTITY_HEADS if h not in GENERIC_AMOUNT)})s?$", re.IGNORECASE
)


#: The end of a clause before an interrogative that opens one of its own: "X — which venue", "who built
#: X and what venue", "X? what venue".
_CLAUSE_END_RE = re.compile(r"(?:[?.!,;:()\[\]/&-]|\b(?:and|or|also|then|but|so))\s*$")


def _opens_a_question(before: str) -> bool:
    """True when an interrogative after ``before`` (normalized text) opens a question: no interrogative
    comes before it, or a clause ends right before it (:data:`_CLAUSE_END_RE`)."""
    return not (set(tokens(before, compounds=False)) & INTERROGATIVES) or _CLAUSE_END_RE.search(before) is not None


def focus_terms(text: str) -> frozenset[str]:
    """The stemmed terms of the noun phrase the question's interrogative asks for (:data:`FOCUS_RE`,
    :data:`CJK_FOCUS_RE`, as :func:`question_focus` finds it: "what *autoencoder* does stable diffusion
    use", "用的是什么 *autoencoder*？"); none when the phrase says it is a paper ("which capsules
    *paper*": it names one) or there is no such phrase."""
    t = normalize(text)
    m = FOCUS_RE.search(t)
    if m is None:
        m = CJK_FOCUS_RE.search(t)
    elif not _opens_a_question(t[: m.start()]):
        return frozenset()
    if m is None or {"paper", "papers"} & set(m.group(1).casefold().split()):
        return frozenset()
    return frozenset(lexical_terms(m.group(1)))


def phrases(text: str, keys: Sequence[Key]) -> list[list[Key]]:
    """``keys`` grouped into the runs of words they stand in, next to each other, in ``text`` ("lora
    *learning rate* used for gpt-3" → ``[[learning, rate]]``; "*batch size* and *gpus*" → two runs): the
    words of one phrase name one thing together. A key not found as typed is a run of its own; runs
    keep the keys' order."""
    words = tokens(normalize(text), compounds=False)
    spans: list[tuple[int, int, Key]] = []
    for k in keys:
        w = tokens(normalize(k.word), compounds=False)
        start = next((i for i in range(len(words) - len(w) + 1) if w and words[i : i + len(w)] == w), None)
        spans.append((start, start + len(w), k) if start is not None else (-1, -1, k))
    runs: list[list[Key]] = []
    end = None
    for start, stop, k in sorted(spans, key=lambda x: x[0]):
        if start >= 0 and runs and end == start:
            runs[-1].append(k)
        else:
            runs.append([k])
        end = stop if start >= 0 else None
    return runs


def asked_parts(text: str, asked: Sequence[Key]) -> list[list[Key]]:
    """What a question asks, part by part: the ``asked`` keys of each clause an interrogative opens
    (the first word, or one after a clause end: "how much memory do they waste, *and what* throughput
    gain?" → two parts; "orca: *what* batch size *and how many* gpus" → two, "orca" being context), in
    order; all of them as one part when no interrogative opens a second clause. A key whose words are in
    no one clause (spread over two) is in none; parts without a key are left out."""
    t = normalize(text)
    starts = [
        m.start()
        for m in re.finditer(r"\b\w+\b", t)
        if m.start() > 0 and m.group(0) in INTERROGATIVES and _CLAUSE_END_RE.search(t[: m.start()].rstrip() + " ")
    ]
    if not starts:
        return [list(asked)] if asked else []
    # (words before the first interrogative, when it does not open the question, are its context: "orca:
    # what batch size and how many gpus")
    first = re.match(r"\W*(\w+)", t)
    opened = first is not None and first.group(1) in INTERROGATIVES
    bounds = [0, *starts, len(t)] if opened else [*starts, len(t)]
    parts = []
    for a, b in itertools.pairwise(bounds):
        words = set(tokens(t[a:b], compounds=False))
        part = [k for k in asked if (w := tokens(normalize(k.word), compounds=False)) and set(w) <= words]
        if part:
            parts.append(part)
    return parts


def question_focus(text: str, asked: Sequence[Key]) -> list[Key]:
    """The asked keys of the noun phrase :data:`FOCUS_RE` finds ("what *batch size* …" → both words:
    a compound's head alone, "size", says little; "what kind of *bugs*"); ``[]`` when there is no such
    phrase, when its head is a general noun (:data:`~papernotes.retrieval.terms.GENERAL_NOUNS`: "what's
    the main *idea*", "what *tricks*" name no kind of answer) or when none of its words is asked; a
    measure noun (:data:`~papernotes.retrieval.terms.MEASURE_NOUNS`: "what *fraction*", "batch *size*")
    is no part of it: it asks for a number. A "which"/"what" inside a clause another interrogative
    governs gives no focus ("how does X pick *which* KV entries to load" asks how, not for entries);
    one opening the question, or a clause of its own after a comma, dash or "and", does."""
    text = normalize(text)
    m = FOCUS_RE.search(text)
    if m is None:
        m = CJK_FOCUS_RE.search(text)  # "集群用的是什么 *cpu*"
    if m is None and not set(tokens(text, compounds=False)) & INTERROGATIVES:
        # a question asked as a noun phrase naming an amount ("batch size in the chinchilla paper"): the
        # phrase names what is measured (not "ditron e2e gains": the notes state a gain as "2.3x faster")
        m = PHRASE_RE.match(text)
        if m is not None and not _QUANTITY_HEAD_END_RE.search(m.group(1)):
            return []
    elif m is not None and not _opens_a_question(text[: m.start()]):
        return []
    if m is None:
        return []
    phrase = tokens(m.group(1), compounds=False)
    if not phrase or phrase[-1] in GENERAL_NOUNS:  # "what's the main *idea*": the phrase names no kind of answer
        return []
    # a key read on past the phrase's end ("how many *lines* of code": the key "lines of code") is its noun
    return [
        k
        for k in asked
        if (w := tokens(normalize(k.word), compounds=False))
        and (set(w) <= set(phrase) or w[0] == phrase[-1])
        and not set(w) <= set(MEASURE_NOUNS)
    ]


def _versioned_name(word: str) -> bool:
    """Letters and a version number in one word ("gpt-3", "llama3", "t5", "deepseek-r1", "gpt-4o"): a
    name, never an ordinary word (a year or a plain number is none)."""
    return bool(re.fullmatch(r"(?:[^\W\d_]+[-.])*[^\W\d_]+[-.]?\d+\w*(?:[.-]\w+)*", word))


def _name_parts(word: str) -> bool:
    """Letters only, in one word or in parts joined by hyphens or dots ("sglang", "deepspeed-ulysses",
    "megatron-lm"), and not all of them common English words: a name, not an ordinary word."""
    parts = [p for p in re.split(r"[-.]", word) if p]
    return bool(parts) and all(p.isalpha() for p in parts) and not all(english_word(p) for p in parts)


def written_name(k: Key, casings: Callable[[str], AbstractSet[str]]) -> bool:
    """True when the question word of ``k`` is a name as the notes write names: letters and a version
    number ("gpt-3", :func:`_versioned_name`), or letters, not all English (:func:`_name_parts`), that the
    notes write (``casings(word)``: the forms they write it in) with a capital and never in lower case
    ("Mixtral", "Phantora", "MassiveText"), and not a clipped English word that titles capitalize ("AI
    Infra": "infra", :func:`~papernotes.retrieval.terms.clipped`)."""
    if _versioned_name(k.word):
        return True
    if not _name_parts(k.word) or clipped(k.word):
        return False
    written = casings(k.word)
    return bool(written) and not any(w.islower() for w in written)


def _written_as_name(word: str, writes: Callable[[str], bool]) -> bool:
    """The notes write ``word`` capitalized or in capitals and never in lower case ("Mamba", "Orca")."""
    low = word.lower()
    return not writes(low) and (writes(low.capitalize()) or writes(low.upper()))


#: A word typed right before "paper": the name of the paper, as the notes themselves write "the GPT-3
#: paper", "the Chinchilla paper" (:mod:`papernotes.corpus.short_names`).
_BEFORE_PAPER_RE = re.compile(r"\b([^\W_][\w'.+-]*)\s+papers?\b")


def names_a_paper(text: str, writes: Callable[[str], bool]) -> bool:
    """A word right before "paper" that is no function word and that the notes never write in lower
    case ("*bert* paper what venue was it", "the roberta paper"; not "the first paper", "this survey
    paper"): the question names its subject, present in the notes or not."""
    filler = stop_words() | CHAT_WORDS
    return any((w := m.group(1)) not in filler and not writes(w) for m in _BEFORE_PAPER_RE.finditer(normalize(text)))


#: A speedup: the factor the answer states ("36.9x throughput"), a word the notes need not write.
_SPEEDUP = r"\bspeed-?ups?\b"
_QUANTITY_RE = re.compile(
    r"\bhow (?:many|much|big|large|long|fast|small|often|far|high|low)\b|"
    rf"\bwhat (?:{'|'.join(MEASURE_NOUNS)})\b|\bby how much\b|"
    rf"{_SPEEDUP}|\bacceptance rate\b|"
    # the same in Chinese, closed-class: "how many/much", "how big/long/fast/high/far", "how many (of)"
    r"多少|多[大长久快高远]|几(?!乎)|"
    # and in Spanish, Portuguese, Italian, French and German (closed class)
    r"\bcu[aá]nt[oa]s?\b|\bquant[oaie]s?\b|\bcombien\b|\bwie viele?\b|"
    # a percentage or a sum of money asked for ("what %?", "cost in $")
    r"[%$€£¥]",
    re.IGNORECASE,
)
#: A quantity noun (:data:`~papernotes.retrieval.terms.QUANTITY_HEADS`, plural too) heading a compound
#: noun and ending its phrase ("compression *ratio*?", "batch *size* / lr", "TTFT reduction *numbers*";
#: not "batch size scheme"): the question asks for that amount. The word before it must be a content
#: word (:func:`asks_quantity`: "they share" asks none).
_MEASURE_HEAD_RE = re.compile(
    # (all in a lookahead, so that matches overlap: "hit rate number?")
    rf"(?=\b([^\W\d_][\w-]*)\s+(?:{'|'.join(QUANTITY_HEADS)})s?(?=\s*[?.!,;:/&()]|\s*$|\s+(\S+)))",
    re.IGNORECASE,
)

#: "what is the …": the subject after the copula is what is asked for ("what is the batch size of X").
_WHAT_IS_RE = re.compile(r"\bwhat(?:'s|\s+(?:is|are|was|were))\s+(?:(?:the|its|their)\s+)?(.+)", re.IGNORECASE)


def asks_quantity(text: str) -> bool:
    """True when ``text`` asks for an amount: an amount interrogative ("how many", "what fraction",
    "by how much", "speedup", Chinese 多少 and the Romance and German "how many"), a percent or currency
    sign ("what %?", "cost in $"), or a noun naming a quantity
    (:data:`~papernotes.retrieval.terms.QUANTITY_HEADS`) heading the compound noun that is asked for: in
    a question without an interrogative, one ending a phrase ("zipserv compression ratio?", "hydraserve
    cold start reduction numbers?"; a compound's head names what it is, Downing 1977, "On the creation and use of English compound nouns"), else the
    interrogative's focus (:data:`FOCUS_RE`: "what max batch size did orca use"; not "which scheduler
    tunes batch sizes") or what "what is" asks for ("what is the batch size of orca")."""
    if _QUANTITY_RE.search(text):
        return True
    text = normalize(text)
    stop = stop_words()
    if set(tokens(text, compounds=False)) & INTERROGATIVES:
        focus = FOCUS_RE.search(text) or _WHAT_IS_RE.search(text)
        if focus is None:
            return False
        text = focus.group(1)
    return any(
        m.group(1).casefold() not in stop and (m.group(2) is None or m.group(2).casefold() in stop)
        for m in _MEASURE_HEAD_RE.finditer(text)
    )


@dataclass
class Question:
    """One question, understood.

    Attributes
    ----------
    text : the question as asked.
    terms : content terms (stemmed; framing words, venue names and a named venue's year removed), with
        every word's parts and joined form, for keyword retrieval.
    keys : the same terms once per word, for measuring what evidence covers: a word with inner
        boundaries counts as its joined form when the notes use that ("KV-cache" → ``kvcach``), else as
        its parts (:func:`match_keys`).
    filters : the venue / series / year the question names (empty when none or several).
    venues : every venue mention (a comparison of two venues names two).
    papers : the papers the question names, resolved through the catalog.
    name_terms : the content terms that belong to those names.
    asked : keys that are not names: what is asked about the papers (or the topic).
    is_list : the question wants several papers.
    asks_quantity : the question asks for an amount ("how many", "what share", "speedup").
    counts : the question asks for a count (:data:`COUNT_RE`): a list answer states it first.
    numbers : the numbers the question itself states (a sentence repeating them states no new amount);
        not the version glued to a name ("FlashAttention-2").
    unread : words of a question in another language than the notes that no note uses: they could not
        be matched, so they count neither for nor against an answer, and the answer says so.
    unknown_names : words written as names (a capital letter, past the first word; no common English
        word) that no note uses: names the notes lack ("What is Moonfake's KV cache design?").
    """

    text: str
    terms: list[str]
    keys: list[Key] = field(default_factory=list)
    filters: Filters = field(default_factory=Filters)
    venues: list[VenueMention] = field(default_factory=list)
    papers: list[PaperMention] = field(default_factory=list)
    name_terms: set[str] = field(default_factory=set)
    asked: list[Key] = field(default_factory=list)
    is_list: bool = False
    asks_quantity: bool = False
    counts: bool = False
    numbers: set[str] = field(default_factory=set)
    unread: list[str] = field(default_factory=list)
    unknown_names: list[str] = field(default_factory=list)
    #: a word of the question that names something: letters and a version number ("gpt-3"), or letters
    #: only, not English, that the notes hardly use (:meth:`PaperIndex.rare`: "phantora", "ebpf") or write
    #: only as a name, capitalized, never in lower case ("mamba" → "Mamba", "orca"); not an ordinary word
    #: of the notes ("datasets", "latency"); read only for a question that leans on an earlier turn
    rare_word: bool = False
    #: the stemmed terms of a person or group the question names in full as whose papers it asks for
    #: ("what did microsoft publish"; set by :func:`~papernotes.retrieval.lists.topic_list`): the list is
    #: of the papers they are from, by their authors, affiliations and listing pages
    group: frozenset[str] = frozenset()
    #: the question's focus: the asked words of the noun phrase of its interrogative ("what *learning
    #: rate* did …", "which *CXL memory vendor*", "how many *experts*"), the thing an answer must name
    #: (:data:`FOCUS_RE`); empty when the interrogative has none ("what is X", "who built X")
    focus: list[Key] = field(default_factory=list)
    #: the values the question offers as its answer after asking ("which gpus? h100 or a100?",
    #: :mod:`~papernotes.retrieval.guesses`), when it names a paper before them; None otherwise
    guess: Guess | None = None

    @property
    def dangling(self) -> bool:
        """The question refers back to something it does not name ("How was it evaluated?", "and the
        latency?"): a referring pronoun or a continuing opening (:data:`CONTINUING_RE`), no paper, no venue, and at most two content words of its own — none when it
        asks for a list, whose pronoun refers to the papers it describes ("anything built on openfaas?
        list em") — none of them a word the notes hardly use, which names something ("phantora - which
        paper is that from?": "that" is what it names; "what datasets did they use?" names nothing)."""
        words = set(tokens(normalize(self.text), compounds=False))
        own_words = len(self.keys) <= (0 if self.is_list else 2)
        leans = bool(words & REFERRING) or bool(CONTINUING_RE.match(self.text))
        return (
            leans
            and not self.papers
            and not self.venues
            and own_words
            and not self.rare_word
            and not self.unknown_names
        )

    @property
    def counted(self) -> list[str]:
        """The nouns the question asks to count: the word after each "how many" ("how many *GPUs*", "how
        many *masks*"), not a comparative or "times", which ask for a factor ("how many *more* requests",
        "how many *times* fewer parameters"). A count is not stated by a percentage or a factor
        (:func:`~papernotes.retrieval.evidence.has_number` with ``count``)."""
        return [
            m.group(1)
            for m in _HOW_MANY_RE.finditer(self.text)
            if m.group(1).casefold() != "times" and not is_comparative(m.group(1))
        ]

    @property
    def asks_factor(self) -> bool:
        """The amount asked is a factor: a speedup ("X speedup?") or "how much" or "how many times" and a
        comparative ("how much faster"), which "one" never states (:func:`amount_interrogatives`)."""
        return any(
            "speed" in (said := self.text[a:b].casefold()) or any(map(is_comparative, said.split()))
            for a, b in amount_interrogatives(self.text)
        )

    @property
    def records(self) -> list[int]:
        """Catalog positions of every named paper, in question order, without repeats."""
        return list(dict.fromkeys(r for m in self.papers for r in m.records))

    @property
    def compares_with_earlier(self) -> bool:
        """One paper named, a comparing word and a referring pronoun: "how does it compare to vLLM?",
        "what does it do differently from Orca?" — the pronoun is the paper of an earlier turn, the
        named one what it is compared with."""
        return len(self.records) == 1 and refers_and_compares(self.text)

    @property
    def is_comparison(self) -> bool:
        """Two or more distinct papers are named ("How does X differ from Y?"), or one name that two
        papers of the notes share ("the two FlexPipe papers")."""
        return len(self.records) >= 2

    @property
    def kind(self) -> str:
        """``list`` | ``comparison`` | ``lookup`` (a named paper and nothing more specific asked) |
        ``fact``."""
        if self.is_list:
            return "list"
        if self.is_comparison:
            return "comparison"
        if self.papers and not self.asked and not self.asks_quantity:  # "X speedup?" asks an amount
            return "lookup"
        return "fact"


#: Longest phrase whose initials are looked up as an acronym ("lines of code" → LoC); acronyms have at
#: least three letters (two-letter initials match too many short tokens by chance).
MAX_ACRONYM_WORDS = 3


def _acronym(
    words: list[tuple[str, list[str]]],
    in_notes: Callable[[str], bool],
    acronyms: AbstractSet[str],
    writes: Callable[[str], bool] | None = None,
) -> str | None:
    """The stemmed acronym of a phrase when the notes write it as one (``acronyms``: case-folded words
    the notes spell with two or more capitals): the initials of its plain words ("lines of code" →
    ``loc``, "mixture of experts" → ``moe``), content words joined by a function word — whose letter the
    notes write in lower case, as acronyms write one ("LoC", "MoE", "CoT"; ``writes(word)``: the notes
    write it so cased): "publish about llm" is no "PAL". None otherwise ("how long is embedding
    extraction" has no "LIE", "scheduler long-running applications" no "SLA")."""
    if any(not parts or not _PLAIN_WORD.fullmatch(w) for w, parts in words):
        return None
    initials = "".join(parts[0][0] for _, parts in words)
    content = [w for w, parts in words if question_terms(" ".join(parts))]
    if len(initials) < 3 or len(content) < 2 or not (content[0] == words[0][0] and content[-1] == words[-1][0]):
        return None
    if len(content) == len(words):
        return None  # the "X of Y" form only: three content words in a row are read as themselves
    if initials not in acronyms:
        return None
    if writes is not None:
        cased = "".join(
            parts[0][0].upper() if question_terms(" ".join(parts)) else parts[0][0].lower() for _, parts in words
        )
        if not writes(cased):
            return None
    stemmed = lexical_terms(initials)
    return stemmed[0] if len(stemmed) == 1 and in_notes(stemmed[0]) else None


#: A word that can stand in an acronym's expansion: letters (and inner hyphens), nothing else.
_PLAIN_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


#: A slash between two words of two or more letters joins alternatives or a list ("venue/award",
#: "who/where"): each word is read on its own. Single letters stay joined ("I/O", "w/o").
_SLASH_RE = re.compile(r"(?<=[^\W\d_]{2})/(?=[^\W\d_]{2})")


def _without_wise(parts: list[str]) -> list[str]:
    """A word's parts without the English viewpoint suffix "-wise" ("hardware-wise", "cost-wise": with
    regard to hardware, to cost), which says how the word is used, not what it names."""
    return parts[:-1] if len(parts) > 1 and parts[-1] == "wise" else parts


def match_keys(
    text: str,
    in_notes: Callable[[str], bool] | None,
    acronyms: AbstractSet[str] = frozenset(),
    variant: Callable[[str], str | None] | None = None,
    abbreviations: Abbreviations | None = None,
    writes: Callable[[str], bool] | None = None,
) -> list[Key]:
    """The :class:`~papernotes.retrieval.terms.Key` of each word of ``text`` (stop words skipped): a
    word with several parts matches its joined form or its parts; two adjacent words whose joined form
    the notes use (``in_notes``: "KV cache" / "KVCache") are one key, and so is a phrase of two to
    :data:`MAX_ACRONYM_WORDS` words whose acronym the notes write (``acronyms``: "lines of code" /
    "LoC"); a word the notes lack also matches the notes' word it misspells or abbreviates
    (``variant``, see :mod:`papernotes.retrieval.spelling`: "databse" / "database"); an abbreviation the
    notes define (``abbreviations``) matches its long form, and the long form its abbreviation ("LLM" /
    "large language model"). Words joined by a slash are read one by one (:data:`_SLASH_RE`); a word's
    "-wise" suffix is dropped (:func:`_without_wise`: "hardware-wise" is "hardware")."""
    parsed = [
        (w, _without_wise(word_parts(normalize(w)))) for raw in re.findall(r"\S+", text) for w in _SLASH_RE.split(raw)
    ]
    out: list[Key] = []
    i = 0
    while i < len(parsed):
        size, long = _long_form_at(parsed, i, abbreviations) if abbreviations is not None else (0, ())
        if size and abbreviations is not None:
            words = " ".join(w for w, _ in parsed[i : i + size])
            out.append(Key(_bare(words), ((abbreviations.short_of[long],), _unjoined(long))))
            i += size
            continue
        if in_notes is not None:
            for size in range(min(MAX_ACRONYM_WORDS, len(parsed) - i), 1, -1):
                acro = _acronym(parsed[i : i + size], in_notes, acronyms, writes)
                if acro:
                    phrase = parsed[i : i + size]
                    split = tuple(lexical_terms(" ".join(p for _, parts in phrase for p in parts)))
                    out.append(Key(_bare(" ".join(w for w, _ in phrase)), ((acro,), split)))
                    i += size
                    break
            else:
                acro = None
            if acro:
                continue
        w, parts = parsed[i]
        if _version_after_name(parsed, i):
            # "flashattention 3" is "FlashAttention-3" (the notes' words split where letters meet digits),
            # not FlashAttention and any "3"
            w, parts = f"{w}-{parsed[i + 1][0]}", parts + parsed[i + 1][1]
            parsed[i + 1] = (w, parts)
            i += 1
        if i + 1 < len(parsed) and parts and parsed[i + 1][1] and in_notes is not None:
            # the pair as typed, or with a misspelt word read as the notes' word ("kv cahce" / "KVCache")
            typed = parts + parsed[i + 1][1]
            read = _as_read(parts, in_notes, variant) + _as_read(parsed[i + 1][1], in_notes, variant)
            pair = _joined_pair(typed, in_notes) or _joined_pair(read, in_notes)
            if pair:
                out.append(Key(_bare(f"{w} {parsed[i + 1][0]}"), _with_long_forms(pair, abbreviations)))
                i += 2
                continue
        alts: list[tuple[str, ...]] = []
        if len(parts) > 1:
            alts.append((stem_term("".join(parts)),))
        split = tuple(lexical_terms(" ".join(parts)))
        if split:
            alts.append(split)
        if len(parts) > 1 and in_notes is not None and not in_notes(stem_term("".join(parts))):
            # a compound typed with a hyphen, a part misspelt or shortened, read as the two words typed
            # apart are ("flash-attn" as "flash attn": FlashAttention, when the notes write it joined)
            read = [p for part in parts for p in _as_read([part], in_notes, variant)]
            if read != parts and (pair := _joined_pair(read, in_notes)):
                alts += pair
        if abbreviations is not None and len(split) == 1 and split[0] in abbreviations.long_of:
            alts.append(abbreviations.long_of[split[0]])
        if in_notes is not None and len(split) == 1:
            # a compound the notes write as two words ("codesize") before a misspelling of one word; a
            # word the notes use is read only as the term of the field it is short for ("perf")
            compound = _compound_parts(parts[0], in_notes) if not in_notes(split[0]) else []
            meant = variant(parts[0]) if variant is not None and not compound else None
            if meant and lexical_terms(meant):
                alts.append(tuple(lexical_terms(meant)))
            alts += compound
        if alts:
            out.append(Key(_bare(w), tuple(dict.fromkeys(alts))))
        i += 1
    return out


#: The version number a paper's name ends with ("FlashAttention-2", "Llama 3.1", "Qwen2.5").
_NAME_VERSION_RE = re.compile(r"[^\W\d_][\s-]?v?(\d{1,2}(?:\.\d)?)$")
#: A version typed alone, by the usual "v" prefix ("v2", "v3.1"): the paper of that version.
_VERSION_WORD_RE = re.compile(r"v(\d{1,2}(?:\.\d)?)")

#: A version number typed after a name ("llama 3", "flashattention 2", "qwen 2.5").
_VERSION_RE = re.compile(r"\d{1,2}(?:\.\d)?")


def _version_after_name(parsed: list[tuple[str, list[str]]], i: int) -> bool:
    """True when ``parsed[i]`` is a name (letters, no common English word: "flashattention", "qwen") and
    the next word a version number of one or two digits."""
    if i + 1 >= len(parsed):
        return False
    parts, nxt = parsed[i][1], parsed[i + 1][0]
    return (
        len(parts) == 1
        and parts[0].isalpha()
        and len(parts[0]) >= 3
        and not english_word(parts[0])
        and _VERSION_RE.fullmatch(nxt.strip("?,.!")) is not None
    )


def _with_long_forms(
    alternatives: tuple[tuple[str, ...], ...], abbreviations: Abbreviations | None
) -> tuple[tuple[str, ...], ...]:
    """``alternatives`` (of a key of several words) and, for each of several terms holding an
    abbreviation the notes define or use (``abbreviations``), the same with its long form ("kv cache" is
    also "key-value cache")."""
    if abbreviations is None or not abbreviations.long_of:
        return alternatives
    longer = [
        tuple(t for term in alt for t in abbreviations.long_of.get(term, (term,)))
        for alt in alternatives
        if len(alt) > 1 and any(term in abbreviations.long_of for term in alt)
    ]
    return tuple(dict.fromkeys([*alternatives, *longer]))


def _long_form_at(
    parsed: list[tuple[str, list[str]]], i: int, abbreviations: Abbreviations
) -> tuple[int, tuple[str, ...]]:
    """``(number of words, terms)`` of the longest run of two or more words from ``parsed[i]`` on that
    spells a long form the notes abbreviate; ``(0, ())`` when none does."""
    if not abbreviations.short_of or not lexical_terms(parsed[i][0]):
        return 0, ()
    for size in range(min(len(parsed) - i, 2 * abbreviations.longest), 1, -1):
        if not lexical_terms(parsed[i + size - 1][0]):
            continue
        long = tuple(lexical_terms(" ".join(p for _, parts in parsed[i : i + size] for p in parts)))
        if long in abbreviations.short_of:
            return size, long
        # typed with its compounds joined or split otherwise: "parameter efficient finetuning", and
        # "long-running applications" for the notes' own "long-running applications (LRAs)" (whose terms
        # hold the joined "longrun" that a typed phrase's split parts lack)
        spelled = abbreviations.by_spelling.get(spelling_key(" ".join(w for w, _ in parsed[i : i + size])))
        if spelled is not None:
            return size, spelled
    return 0, ()


def _unjoined(terms: tuple[str, ...]) -> tuple[str, ...]:
    """``terms`` without those that only join two terms next to them (``longrun`` of ``long``, ``run``
    for "long-running"): a long form matches its words however its compounds are written."""
    return tuple(t for t in terms if not any(a + b == t for a, b in zip(terms, terms[1:], strict=False)))


#: Fewest letters of each word a typed compound is split into.
COMPOUND_PART_MIN = 3


def _compound_parts(word: str, in_notes: Callable[[str], bool]) -> list[tuple[str, ...]]:
    """A compound the notes write as two words ("realtime" → ``(real, time)``, "codesize" → ``(code,
    size)``): ``[terms]`` of the most even split of ``word`` into two common English words (each at least
    :data:`COMPOUND_PART_MIN` letters) that the notes both use; ``[]`` when none. A name is never split
    ("paxosdb": "paxos" is no English word)."""
    best: tuple[str, ...] = ()
    best_even = 0
    for cut in range(COMPOUND_PART_MIN, len(word) - COMPOUND_PART_MIN + 1):
        a, b = word[:cut], word[cut:]
        even = min(len(a), len(b))
        if even > best_even and english_word(a) and english_word(b):
            terms = (stem_term(a), stem_term(b))
            if all(map(in_notes, terms)):
                best, best_even = terms, even
    return [best] if best and word.isalpha() else []


def _joined_pair(both: list[str], in_notes: Callable[[str], bool]) -> tuple[tuple[str, ...], ...] | None:
    """The alternatives of two words the notes write joined (their joined form, their parts), or None."""
    joined = stem_term("".join(both))
    split = tuple(lexical_terms(" ".join(both)))
    return ((joined,), split) if len(split) >= 2 and in_notes(joined) else None


def _as_read(
    parts: list[str], in_notes: Callable[[str], bool], variant: Callable[[str], str | None] | None
) -> list[str]:
    """One word's parts, a single part the notes lack read as the notes' word it misspells (``variant``)."""
    if variant is not None and len(parts) == 1 and not in_notes(stem_term(parts[0])):
        meant = variant(parts[0])
        if meant:
            return word_parts(normalize(meant))
    return parts


#: A number the question states: not the version or model number glued to a name ("flashattention-2",
#: "gpt-3", "h100", "llama3"), which a sentence stating "2x" or "3 layers" does not repeat. (A version
#: typed apart, "llama 3", stays: a sentence writing "Llama 3 405B" repeats it, and :func:`~papernotes.
#: retrieval.evidence.has_number` reads no glued one as an amount either.)
_AMOUNT_RE = re.compile(r"(?<![\w.])(?<![^\W\d_][-.])\d+(?:\.\d+)?")

#: Punctuation typed around a question's words.
_PUNCTUATION = "?!.,;:()[]{}\"'“”"


def _bare(words: str) -> str:
    """Normalized words without the punctuation around them ("cold start," → "cold start")."""
    return " ".join(w.strip(_PUNCTUATION) for w in normalize(words).split()).strip()


def _keep(keys: list[Key], wanted: Callable[[str], bool]) -> list[Key]:
    """Keys with the unwanted terms taken out of each alternative (keys left empty dropped, and keys one
    reading of which is wholly unwanted: "pappers" read as "papers")."""
    out = []
    for k in keys:
        if any(alt and not any(wanted(t) for t in alt) for alt in k.alternatives):
            continue
        alts = tuple(dict.fromkeys(a for a in (tuple(t for t in alt if wanted(t)) for alt in k.alternatives) if a))
        if alts:
            out.append(Key(k.word, alts))
    return list(dict.fromkeys(out))


#: Letters of scripts the (English) notes do not use for words: Cyrillic, Hebrew, Arabic, Devanagari, Thai.
OTHER_SCRIPTS = "\u0400-\u04ff\u0590-\u05ff\u0600-\u06ff\u0900-\u097f\u0e00-\u0e7f"


#: "et al" citing a paper by its authors: "vaswani et al", "Kaplan et al.".
_ET_AL_RE = re.compile(r"\bet\s+al\b\.?", re.IGNORECASE)


def foreign_language(text: str, in_notes: Callable[[str], bool] | None = None) -> bool:
    """True for a question in CJK script, or with more stop words of another language than English stop
    words: two or more ("Combien de soumissions NeurIPS a-t-il reçues ?"), or, with ``in_notes`` (whether
    the notes use a term), one beside a word typed in lower case that is no English word and that the
    notes never use ("Wer hat Splitwise *gebaut*?", "¿Quién *creó* DistServe?")."""
    if re.search(f"[{CJK_CHARS}{OTHER_SCRIPTS}]", text):
        return True
    foreign, _ = foreign_stop_words()
    english = stop_words()
    # "et al", the Latin of a citation ("the vaswani et al paper"), is no French or Spanish
    text = _ET_AL_RE.sub(" ", text)
    words = re.findall(r"[^\W\d_]+", normalize(text))
    n_foreign = sum(1 for w in words if w in foreign and w not in english)
    if n_foreign <= sum(1 for w in words if w in english):
        return False
    if n_foreign >= 2:
        return True
    typed = [w for w in re.findall(r"[^\W\d_]+", text) if w.islower()]
    return (
        n_foreign == 1
        and in_notes is not None
        and any(
            not english_word(w) and normalize(w) not in foreign and not any(map(in_notes, lexical_terms(w)))
            for w in typed
        )
    )


#: The adjectives of measure an amount interrogative asks with ("how fast", "how big").
_MEASURES = ("big", "large", "long", "fast", "small", "often", "far", "high", "low", "old", "wide", "deep")
#: "how many" and the word after it, which names what is counted unless a comparative or "times" asks a
#: factor (:attr:`Question.counted`).
_HOW_MANY_RE = re.compile(r"\bhow\s+many\s+([^\W\d_][\w-]*)", re.IGNORECASE)
#: An amount interrogative; "how much" and "how many times" with the word after it, which is part of it
#: when a comparative: "how much *slower*", "how many times *faster*" ask a factor, which the notes state
#: as "44% longer" or "4x to 15x higher throughput", not with the word (:func:`amount_interrogatives`).
_HOW_AMOUNT_RE = re.compile(
    rf"\b(how)\s+(?:(?:much|many\s+times)(?:\s+([^\W\d_]+))?|many|{'|'.join(_MEASURES)})\b|{_SPEEDUP}",
    re.IGNORECASE,
)


def amount_interrogatives(text: str) -> list[tuple[int, int]]:
    """Spans of ``text``'s amount interrogatives: "how many", "how much" and "how much" or "how many
    times" followed by a comparative (the lexicon's, :func:`~papernotes.corpus.lexicon.is_comparative`:
    "how much slower", "how many times cheaper"; not "how much memory"), "how long" and the other
    adjectives of measure, "speedup"."""
    spans = []
    for m in _HOW_AMOUNT_RE.finditer(text):
        word = m.group(2)
        spans.append(m.span() if not word or is_comparative(word) else (m.start(), m.start(2)))
    return spans


def _unknown_names(
    text: str,
    spans: Sequence[tuple[int, int]],
    in_notes: Callable[[str], bool],
    writes: Callable[[str], bool] | None = None,
) -> list[str]:
    """Words of ``text`` past its first that are written as names (a capital letter, not a common
    English word) and of which no term occurs in the notes; words inside a venue mention's span skipped.
    A common word cased as a name, with a capital after a lower-case letter ("ZeRO"), is a name too:
    unknown when the notes never write it so cased (``writes``, case-sensitive: they may write "Zero
    Bubble"); so is one in capitals, in a question otherwise in lower case, that the notes never use
    ("EAGLE"). So are two or more capitalized common words in a row that the notes never use, in
    any casing ("the Moon Landing conference").
    """
    out = []
    stop = stop_words() | INTERROGATIVES
    run: list[str] = []  # capitalized common words in a row that the notes never use ("Moon Landing")

    def end_run() -> None:
        if len(run) >= 2:
            out.append(" ".join(run))
        run.clear()

    words = list(re.finditer(r"\S+", text))
    # the first word is capitalized as the sentence's start, no name; in capitals it is one ("EAGLE …")
    head = words[0].group().strip(_PUNCTUATION) if words else ""
    first = words[:1] if head.isalpha() and head.isupper() and re.search(r"[a-z]", text) else []
    for m in first + words[1:]:
        if any(a <= m.start() < b for a, b in spans):
            end_run()
            continue
        w = m.group().strip(_PUNCTUATION)
        parts = word_parts(normalize(w))
        if not re.search(r"[A-Z]", w) or not parts:
            end_run()
            continue
        if all(english_word(p) for p in parts if p.isalpha()):
            # cased as a name: a capital after a lower-case letter ("ZeRO"), or all capitals ("EAGLE") in a
            # question typed in lower case otherwise, for a word the notes never use (in capitals, a word
            # they use is emphasis: "the BEST paper")
            capitals = len(w) >= 3 and w.isalpha() and w.isupper() and re.search(r"[a-z]", text) is not None
            cased = re.search(r"[a-z][A-Z]", w) or (capitals and not any(map(in_notes, lexical_terms(w))))
            if writes is not None and cased and w.lower() not in stop and not writes(w):
                out.append(w)
            elif w[:1].isupper() and w[1:].islower() and not any(map(in_notes, lexical_terms(w))):
                run.append(w)
                if m.group() != w:  # punctuation ends the name
                    end_run()
                continue
            end_run()
            continue
        end_run()
        terms = lexical_terms(w)
        if terms and not any(in_notes(t) for t in terms) and not in_notes(stem_term("".join(parts))):
            out.append(w)
    end_run()
    return out


#: Where a word of a spaced script (Latin letters, digits) meets Chinese, Japanese or Korean text typed
#: without a space ("vLLMとは何ですか", "Mooncake的KV缓存"): CJK text puts no space between words.
_SCRIPT_CHANGE_RE = re.compile(rf"(?<=[^\W_{CJK_CHARS}])(?=[{CJK_CHARS}])|(?<=[{CJK_CHARS}])(?=[^\W_{CJK_CHARS}])")


def _scripts_apart(text: str) -> str:
    """``text`` with a space where a Latin word meets CJK text, so a name typed against the text of another
    script is a word of its own ("vLLMとは何ですか" → "vLLM とは何ですか"), as the notes' tokens already
    split them (:func:`~papernotes.corpus.normalize.tokens`)."""
    return _SCRIPT_CHANGE_RE.sub(" ", text)


def _as_typed(text: str, words: list[str]) -> list[str]:
    """``words`` as the question typed them: a CJK fragment (stop phrases cut CJK runs apart, "文长度")
    becomes the whole run of the question it comes from ("的上下文长度是多少"), without repeats."""
    runs = re.findall(f"[{CJK_CHARS}]+", normalize(text))
    out = [next((r for r in runs if w in r), w) if re.search(f"[{CJK_CHARS}]", w) else w for w in words]
    return list(dict.fromkeys(out))


def _framing_masked(text: str, venues: Sequence[VenueMention]) -> str:
    """``text`` with each venue mention and each amount interrogative ("how long", "speedup") replaced by
    a comma, so no key is formed from them or across them."""
    spans = [m.span for m in venues] + amount_interrogatives(text)
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " , " + text[end:]
    return text


_OPENING_WORD_RE = re.compile(r"^(\W*)([a-z]{2,5})\b(?=\s+\S)")


def opening_interrogative(text: str, in_notes: Callable[[str], bool]) -> str:
    """``text`` with its first word read as the interrogative it misspells ("wat is dpo", "hw does X
    work", "wen was X published"): a word typed in lower case that the notes never use, one edit
    (Damerau–Levenshtein: insertion, deletion, substitution, transposition) from exactly one of
    :data:`INTERROGATIVES`; ``text`` unchanged otherwise (a name, a word the notes use, or a typo of two
    interrogatives: "wht" is "what" or "who")."""
    m = _OPENING_WORD_RE.match(text)
    if not m or m.group(2) in INTERROGATIVES or any(map(in_notes, lexical_terms(m.group(2)))):
        return text
    near = [w for w in sorted(INTERROGATIVES) if DamerauLevenshtein.distance(m.group(2), w) == 1]
    if len(near) != 1:
        return text
    return m.group(1) + near[0] + text[m.end(2) :]


def _comparative_dropped(k: Key, keys_of: Callable[[str], list[Key]]) -> list[Key]:
    """``[k]``, or the keys of its words after the first (``keys_of``) when ``k`` is a phrase opening with
    a comparative (the lexicon's, :func:`~papernotes.corpus.lexicon.is_comparative`: "lower overhead" →
    "overhead", "higher throughput" → "throughput")."""
    first, _, rest = k.word.partition(" ")
    if rest and is_comparative(first):
        return keys_of(rest) or [k]
    return [k]


def understand(
    text: str,
    papers: PaperIndex | None = None,
    known_venues: list[str] | None = None,
    any_case: set[str] | None = None,
    in_notes: Callable[[str], bool] | None = None,
    acronyms: AbstractSet[str] = frozenset(),
    variant: Callable[[str], str | None] | None = None,
    abbreviations: Abbreviations | None = None,
    writes: Callable[[str], bool] | None = None,
) -> Question:
    """Read a question: its terms, venue filter, named papers and form (see :class:`Question`).

    ``known_venues`` are the index's venues (their series are recognised too); ``any_case`` the series
    that count in any casing (:func:`papernotes.corpus.venues.find_venue_mentions`); ``in_notes(term)``
    tells whether the notes use a term; ``acronyms`` are the words the notes write as acronyms;
    ``variant(word)`` is the notes' word that a word typed in lower case misspells or abbreviates
    (:meth:`papernotes.retrieval.spelling.Vocabulary.variant`), matched and searched beside it;
    ``abbreviations`` are those the notes define (:mod:`papernotes.retrieval.abbreviations`);
    ``writes(word)`` tells whether the notes write a word so cased (:meth:`~papernotes.retrieval.bm25.BM25Index.writes`). Venue
    mentions and the adjective of a "how many / how long / how big …" interrogative (it asks for an
    amount, see ``asks_quantity``) are not keys. A question asked in another language than the notes keeps,
    of the terms the notes lack, only the names (written with a capital or a digit): its other words
    cannot be matched against the notes, so they count neither for nor against an answer.
    """
    text = papers.read_links(text) if papers is not None else without_links(text)  # a paper's link is its name
    text = _scripts_apart(text)
    if in_notes is not None:
        text = opening_interrogative(text, in_notes)
    known = known_venues or []
    found = venue_mentions(text, {v.rsplit(" ", 1)[0] for v in known}, any_case or ())
    filters = detect_filters(text, known, any_case or ())
    # venue words and a named venue's year are filters, not topic terms
    venue_terms: set[str] = set()
    for m in found:
        venue_terms |= set(lexical_terms(text[m.span[0] : m.span[1]]))
        venue_terms |= set(lexical_terms(m.series))
        if m.year:
            venue_terms |= {str(m.year), str(m.year)[2:]}
    qw = question_words()

    def wanted(t: str) -> bool:
        return t not in venue_terms and t not in qw and not (found and is_year(t))

    # the text is case-folded before keys are formed: only words typed in lower case may be read as a
    # misspelling or abbreviation, a capitalized one is a name
    lower = {normalize(w) for w in re.findall(r"[^\W\d_]+", text) if w.islower()}
    meant = (lambda w: variant(w) if w in lower else None) if variant is not None else None
    keys = _keep(
        match_keys(
            strip_foreign_framing(_framing_masked(text, found)), in_notes, acronyms, meant, abbreviations, writes
        ),
        wanted,
    )
    unread: list[str] = []
    # keyword retrieval also looks for the joined forms, acronyms and spellings the keys found in the notes
    terms = [t for t in question_terms(text) if wanted(t)]
    terms += [
        t for t in dict.fromkeys(alt[0] for k in keys for alt in k.alternatives if len(alt) == 1) if t not in terms
    ]
    if in_notes is not None and foreign_language(text, in_notes):
        # a capital marks a name, but not the capital every German noun has ("die *Idee* von X"): there a
        # name is written with a digit or a capital inside ("GPT-4", "KVCache", "AEGIS"), and a compound
        # of the notes' words keeps its capital ("Serverless-Papers")
        named = r"\S*[0-9-]\S*|\S*\w[A-Z]\S*" if capitalizes_nouns(text) else r"\S*[A-Z0-9]\S*"
        capitalized = {t for w in re.findall(named, text) for t in lexical_terms(w)}
        if re.search(f"[{CJK_CHARS}]", text):
            # a question in Chinese, Japanese or Korean types the field's terms in Latin letters ("集群用的是什么
            # cpu"): words of the notes' language, read as an English question's words are, found or not
            capitalized |= {t for w in re.findall(r"[A-Za-z][\w.+-]*", text) for t in lexical_terms(w)}
        terms = [t for t in terms if in_notes(t) or t in capitalized]
        readable = _keep(keys, lambda t: in_notes(t) or t in capitalized)
        unread = _as_typed(text, [k.word for k in keys if k.word not in {r.word for r in readable}])
        keys = readable
    spans = [m.span for m in found]
    mentions = papers.resolve(text, found, meant, variant) if papers is not None else []
    typed = set(tokens(normalize(text), compounds=False))
    anything_words = bool({"anything", "any"} & typed)
    listing = asks_for_list(text, found, meant) or MY_NOTES_RE.search(text) or (found and anything_words)
    if papers is not None and not listing:
        # a name that is also a term of the field ("who wrote llama"; beside another name only in a
        # comparison: "llama vs llama 2"), else a title's distinctive words ("the capsules paper")
        compared = bool(COMPARING & typed)
        if not mentions or compared:
            taken = {j for m in mentions for j in range(*m.words)}
            weak = [m for m in papers.field_mentions(text, found) if not taken & set(range(*m.words))]
            mentions = sorted([*mentions, *weak], key=lambda m: m.words)
        focus = focus_terms(text)
        if not mentions:
            mentions = title_mentions(papers, text, found, meant, focus=focus)
        elif compared:  # the other side named by its title's words ("ddpm vs latent diffusion")
            also = title_mentions(papers, text, found, meant, mentions, focus=focus)
            mentions = sorted([*mentions, *also], key=lambda m: m.words)
    # a guess after the question ("flashps - which diffusion models? sdxl or flux?") offers values of
    # what is asked about the papers named before it: its names are no papers the question is about
    guess = typed_guess(text) if not listing else None
    if guess is not None:
        before = [m for m in mentions if not guess.covers(m.words)]
        mentions, guess = (before, guess) if before else (mentions, None)
    names: set[str] = set()
    if papers is not None:
        mentions = papers.within_longer_names(mentions, text, spans)
        mentions = papers.along_title(papers.at_named_venues(mentions, found), text, spans)
        for pm in mentions:
            parts = papers.name_terms([pm], text, spans)
            names |= set(lexical_terms(" ".join(parts))) | set(lexical_terms("".join(parts)))
            names |= set(lexical_terms(pm.name))  # the name as the notes spell it ("kernelevovle")
    # "v2" for a named paper whose name has that version ("flashattention vs flashattention-2 how much
    # faster is v2") refers to it by its number: part of its name, not what is asked
    versions = {v.group(1) for pm in mentions if (v := _NAME_VERSION_RE.search(normalize(pm.name)))}
    names |= {t for k in keys if (v := _VERSION_WORD_RE.fullmatch(k.word)) and v.group(1) in versions for t in k.terms}
    # a name of a paper the question names is read, whatever the notes' text spells ("resnet 是什么" for
    # the note aliased ResNet)
    unread = [w for w in unread if not (set(lexical_terms(w)) and set(lexical_terms(w)) <= names)]
    # "how does X differ from Y?", "X vs Y": the comparison is the question's form, not what it asks about
    # a comparing word read through any of its readings is the question's form too ("diffrence")
    asked = [k for k in keys if not (k.terms <= names or k.covered(names) or k.covered(comparing_terms()))]
    if len({r for m in mentions for r in m.records}) >= 2:
        # in a comparison, a comparative beside what is compared ("which has *lower* overhead", "does X have
        # *lower* latency than Y") is the comparison's form: each side's overhead is asked, whether it is
        # lower or not (a comparative alone is what is asked: "which is faster")
        asked = [
            a
            for k in asked
            for a in _comparative_dropped(k, lambda t: match_keys(t, in_notes, acronyms, meant, abbreviations, writes))
        ]
        compared_words = [k for k in asked if " " not in k.word and is_comparative(k.word)]
        if len(compared_words) < len(asked):
            asked = [k for k in asked if k not in compared_words]
    amount = asks_quantity(text)
    # "how many papers do i have": a count of what the notes hold
    # … or, naming no venue, "how many papers total": a count of the notes' own papers
    counts = COUNT_RE.search(normalize(text)) is not None
    counted_in_notes = counts and (
        _HAVE_END_RE.search(text) is not None or (not found and _COUNTED_PAPERS_RE.search(text) is not None)
    )
    about_notes = (MY_NOTES_RE.search(text) is not None or counted_in_notes) and not mentions
    if about_notes:  # "have I written notes on" frames the question
        framing = {t for m in MY_NOTES_RE.finditer(text) for t in lexical_terms(m.group(0))}
        asked = [k for k in asked if not k.terms <= framing]
    # naming a venue and no paper, "anything"/"any" asks for its papers ("hpca 2026 - anything on reasoning?")
    anything = bool(found) and not mentions and anything_words
    wants_list = (asks_for_list(text, found, meant) or about_notes or anything) and len(mentions) < 2
    # "kernelevolve baselines list?", "list the datasets splitwise uses": a list of what the named paper
    # has, not of papers (a list noun asks for papers: "list papers like splitwise")
    if (
        wants_list
        and mentions
        and not about_notes
        and not (set(tokens(normalize(text), compounds=False)) & (LIST_NOUNS | QUANTIFIED_LIST_NOUNS))
    ):
        wants_list = False
    if wants_list:  # "number of papers from nsdi 2026": the count is the question's form, not its topic
        counting = {
            t
            for r in (COUNT_RE, _COUNT_SCOPE_RE)
            for m in r.finditer(normalize(text))
            for t in lexical_terms(m.group(0))
        }
        asked = [k for k in asked if not (counting and k.terms <= counting)]
    elif amount:  # "rollpacker speedup numbers?": "numbers" says only that an amount is asked
        asked = [k for k in asked if k.word.casefold() not in GENERIC_AMOUNT]
    unknown = (
        _unknown_names(text, spans, in_notes, writes)
        if in_notes is not None and not foreign_language(text, in_notes)
        else []
    )
    # only a question that leans on an earlier turn is read for it (:attr:`Question.dangling`): the notes'
    # casing of a word is looked up in their chunks
    leans = bool(typed & REFERRING) or bool(CONTINUING_RE.match(text))
    rare_word = (
        papers is not None
        and leans
        and (
            any(
                _versioned_name(k.word)
                or (
                    _name_parts(k.word)
                    # a compound's joined form ("deepspeedulysses") or, of one word, its term
                    and (
                        all(map(papers.rare, k.alternatives[0]))
                        or (writes is not None and _written_as_name(k.word, writes))
                    )
                )
                for k in keys
            )
            or (writes is not None and names_a_paper(text, writes))
        )
    )
    return Question(
        focus=question_focus(text, asked),
        guess=guess,
        rare_word=rare_word,
        unknown_names=unknown,
        unread=unread,
        text=text,
        terms=terms,
        keys=keys,
        filters=filters,
        venues=found,
        papers=mentions,
        name_terms=names & (set(terms) | {t for k in keys for t in k.terms}),
        asked=asked,
        is_list=wants_list,
        asks_quantity=amount,
        counts=counts,
        numbers=set(_AMOUNT_RE.findall(normalize(text))),
    )
