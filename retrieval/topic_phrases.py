"""A list topic's phrases, and which of its words a paper's text leaves out when read as phrases.

A topic of several words written together ("bayesian optimization", "optimal transport", "llm
serving") is a noun compound: it names one thing, which a paper is about only when its text writes
the words together, not when it writes "Bayesian" in one place and "near-optimal" in another, or
"LLM" beside "training". :func:`phrases` groups a topic's keys into the runs the question writes
word after word; :func:`read_compounds` gives the keys of a compound a paper's passages state only in
part — outside the best part of it that one passage states within a few words. Whether the paper
still means those words in other words ("serverless inference" for "llm serving") is for the embedder
to say (:func:`papernotes.retrieval.lists.require_whole_topic`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from papernotes.corpus.normalize import normalize, tokens
from papernotes.retrieval.terms import Key, only_a_verb, relatives

#: What ends a phrase in a question besides a word that is no key: punctuation that closes a clause or
#: opens an aside ("Intel AMX (Advanced Matrix Extensions) on the CPU side"), a spaced dash or slash.
_PHRASE_BREAK_RE = re.compile(r"[()\[\]{},;:?!.\"“”]|\s[-–—/]\s")
#: Prepositions that join a noun to its post-modifier within one compound ("RL *for* scheduling",
#: "fault tolerance *in* model training"); closed-class English words. Any other word between two keys
#: ("built *on the* …", "won *a* best paper …") ends the run.
JOINING = frozenset({"for", "of", "in", "with", "via"})
#: Terms a passage may hold between (or around) a phrase's words and still state the phrase ("serving
#: *large language* models" for "llm serving", "Bayesian *online* optimization"); a hyphenated word
#: counts its joined form too ("large-scale" → ``larg scale largescal``).
PHRASE_GAP = 5


def _as_key(k: Key | str) -> Key:
    return k if isinstance(k, Key) else Key(k, ((k,),))


def nominal(word: str) -> bool:
    """Whether ``word`` (a key's surface word) can be part of a noun compound: not a number ("26", left
    of a venue) and not a verb — a word the English lexicon (lemminflect) knows only as a verb, unless it
    is a gerund naming an activity ("scheduling", "reasoning"): "papers that *rely* on Bayesian
    optimization", "*built* on OpenFaaS" frame the topic, they are no part of it."""
    if word.isdigit():
        return False
    return not only_a_verb(word) or word.endswith("ing")


def _span(words: list[str], part: list[str]) -> tuple[int, int] | None:
    """``(start, end)`` of the first run of ``words`` equal to ``part`` (token lists), or None."""
    n = len(part)
    for i in range(len(words) - n + 1):
        if n and words[i : i + n] == part:
            return i, i + n
    return None


def phrases(text: str, keys: Sequence[Key | str]) -> list[list[Key | str]]:
    """``keys`` (a topic's, in question order) grouped into the runs ``text`` writes word after word
    within one clause, or joined by one preposition of :data:`JOINING`: "any papers on bayesian
    optimization?" → ``[[bayesian, optimization]]``; "RL for scheduling" → ``[[rl, scheduling]]`` (one
    thing: scheduling by RL); "kv cache *papers* for llm serving" → ``[[kv cache], [llm, serving]]``
    (another word between ends a run). A key not found as written, and one that is no part of a noun compound (:func:`nominal`),
    is a phrase of its own."""
    clauses = [tokens(c, compounds=False) for c in _PHRASE_BREAK_RE.split(normalize(text))]
    placed: list[tuple[int, int, int, Key | str]] = []
    alone: list[list[Key | str]] = []
    for k in keys:
        part = tokens(_as_key(k).word, compounds=False)
        if not nominal(_as_key(k).word):
            alone.append([k])
            continue
        at = next(((c, s) for c, words in enumerate(clauses) if (s := _span(words, part)) is not None), None)
        if at is None:
            alone.append([k])
        else:
            placed.append((at[0], at[1][0], at[1][1], k))
    runs: list[list[Key | str]] = []
    end = (-1, -1)
    for clause, start, finish, k in sorted(placed, key=lambda p: (p[0], p[1])):
        between = clauses[clause][end[1] : start] if clause == end[0] else None
        if runs and between is not None and (not between or (len(between) == 1 and between[0] in JOINING)):
            runs[-1].append(k)
        else:
            runs.append([k])
        end = (clause, finish)
    return runs + alone


def _stated(phrase: Sequence[Key], terms: Sequence[str], idf: Callable[[str], float]) -> tuple[float, set[Key]]:
    """``(weight, keys)`` of the heaviest part of ``phrase`` one window of ``terms`` (a passage's stemmed
    terms, in order) states: the keys covered by the terms from one of theirs on, over the phrase's own
    length plus :data:`PHRASE_GAP`. Weights are the keys' idf, as in
    :func:`~papernotes.retrieval.terms.coverage`."""
    width = sum(max(len(a) for a in k.alternatives) for k in phrase) + PHRASE_GAP
    anchors = {r for k in phrase for t in k.terms for r in (t, *relatives(t))}
    best: tuple[float, set[Key]] = (0.0, set())
    for j, t in enumerate(terms):
        if t not in anchors:
            continue
        have = set(terms[j : j + width])
        keys = {k for k in phrase if k.covered(have)}
        w = sum(_weight(k, idf) for k in keys)
        if w > best[0]:
            best = (w, keys)
    return best


def _weight(k: Key, idf: Callable[[str], float]) -> float:
    return max((idf(t) for t in k.terms), default=0.0)


def read_compounds(
    topic_phrases: Sequence[Sequence[Key | str]], passages: Sequence[Sequence[str]], idf: Callable[[str], float]
) -> list[frozenset[Key] | None]:
    """How ``passages`` (stemmed terms of each of a paper's texts: title, one-liner, headings, chunks)
    state each of a topic's :func:`phrases`: for a compound (two or more keys), the heaviest part of it
    one passage states within a window (:func:`_stated`; all its keys when stated whole, none when not
    at all); None for a one-word phrase (left to the membership model)."""
    out: list[frozenset[Key] | None] = []
    for phrase in topic_phrases:
        if len(phrase) < 2:
            out.append(None)
            continue
        keys = [_as_key(k) for k in phrase]
        best: tuple[float, set[Key]] = (0.0, set())
        for terms in passages:
            got = _stated(keys, terms, idf)
            if got[0] > best[0]:
                best = got
            if len(best[1]) == len(keys):
                break
        out.append(frozenset(best[1]))
    return out
