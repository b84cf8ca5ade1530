"""Abbreviations the notes define — "Large Language Models (LLMs)", "Mixture of Experts (MoE)" — so that
a question's short form also matches notes that write the long form and the other way round ("LLM
serving" / "serving large language models").

Definitions are found by the Schwartz–Hearst algorithm (A. Schwartz and M. Hearst, "A simple algorithm
for identifying abbreviation definitions in biomedical text", PSB 2003), as implemented by the
``abbreviations`` package: a parenthesized short form whose letters occur in order in the words just
before it. Only what a collection itself defines is used: no list of abbreviations is built in.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from types import ModuleType

from papernotes.retrieval.terms import lexical_terms

#: Longest long form (in terms) looked up in a question.
MAX_LONG_FORM_TERMS = 6


@dataclass(frozen=True)
class Abbreviations:
    """The notes' abbreviations as index terms: ``long_of`` maps a short form's term to its long form's
    terms (``"llm"`` → ``("larg", "languag", "model")``), ``short_of`` the reverse."""

    long_of: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    short_of: Mapping[tuple[str, ...], str] = field(default_factory=dict)

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
    looks at nothing else), which keeps this to a fraction of a second on a few thousand chunks."""
    lines = [ln for t in texts if " (" in t for ln in t.split("\n") if " (" in ln]
    if not lines:
        return Abbreviations()
    pairs = _schwartz_hearst().extract_abbreviation_definition_pairs(
        doc_text="\n".join(lines), most_common_definition=True
    )
    long_of: dict[str, tuple[str, ...]] = {}
    claimed: dict[tuple[str, ...], set[str]] = {}
    for short, long in pairs.items():
        s, lf = lexical_terms(short), tuple(lexical_terms(long))
        if len(s) != 1 or not 2 <= len(lf) <= MAX_LONG_FORM_TERMS or s[0] in lf:
            continue
        long_of.setdefault(s[0], lf)
        claimed.setdefault(long_of[s[0]], set()).add(s[0])
    short_of = {lf: next(iter(s)) for lf, s in claimed.items() if len(s) == 1}
    return Abbreviations(long_of, short_of)
