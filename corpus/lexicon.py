"""The English lexicon of lemmas by part of speech that reading words relies on: lemminflect's, built
from the SPECIALIST Lexicon and AGID. It tells a noun from a verb ("nodes" from "predicts") and a known
word from jargon ("gpus")."""

from __future__ import annotations

from functools import lru_cache

#: The words an English "'s" ("is", "has", "us") contracts onto that people type without the apostrophe
#: ("whats", "hows", "wheres", "thats", "lets"): the wh-words, the demonstratives and "let", a closed
#: class. The lexicon reads some as plural nouns ("the hows and wheres"), which typed so they never are.
CLITIC_HOSTS = frozenset({"what", "how", "where", "when", "who", "why", "that", "there", "here", "it", "let"})


@lru_cache(maxsize=1)
def _lemmas():
    import lemminflect  # imported on first use: loading its tables takes a moment

    return lemminflect.getAllLemmas


def readings(word: str) -> dict[str, tuple[str, ...]]:
    """The parts of speech the lexicon knows ``word`` as (lower-cased), each with its lemmas:
    ``{"NOUN": ("node",)}`` for "nodes", ``{}`` for a word it lacks (a name, jargon: "gpus", "vllm")."""
    return dict(_lemmas()(word.lower()))


@lru_cache(maxsize=1)
def _inflection():
    import lemminflect

    return lemminflect.getInflection


@lru_cache(maxsize=1024)
def is_comparative(word: str) -> bool:
    """True when the lexicon reads ``word`` (lower-cased) as the comparative of an adjective or adverb
    (Penn tags JJR/RBR): "slower", "cheaper", "better", "fewer", "more"; not "layer" or "paper"."""
    w = word.lower()
    lemmas = _lemmas()
    inflect = _inflection()
    return any(
        w in inflect(lemma, tag=tag)
        for upos, tag in (("ADJ", "JJR"), ("ADV", "RBR"))
        for lemma in lemmas(w, upos=upos).get(upos, ())
    )
