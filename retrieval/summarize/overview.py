"""The offline overview of a conference summary: built from the data (counts, the largest groups,
recurring terms of the papers' titles and summaries, frequent affiliations), no model needed."""

from __future__ import annotations

import re
from collections import Counter

from papernotes.retrieval.summarize.results import ConferenceSummary, PaperItem, plural
from papernotes.retrieval.summarize.topics import Topic

#: Words that say nothing about a paper's subject in the notes' one-liners (verbs of the "Propose X, a
#: system that …" pattern and generic qualities); excluded from the offline overview's recurring terms.
GENERIC_WORDS = frozenset(
    """propose proposes proposed present presents introduce introduces design designs
designed develop enable enables achieve achieves improve improves reduce reduces reducing leverage leverages
leveraging exploit exploits exploiting demonstrate identify identifies study first new novel system systems
framework frameworks approach approaches method efficient efficiently efficiency high higher low lower fast
faster scalable scale large-scale large small performance better based via using use uses without while across
towards toward minimal practical unified holistic general flexible effective effectively cost time aware
optimizing optimize optimizes optimization optimizations accelerating accelerate accelerates acceleration
model models paper work support supports supporting end-to-end axis""".split()
)
# ("axis": the topic pages prefix some one-liners with "Axis: <what the paper varies>")


def _terms(text: str) -> list[list[str]]:
    """Word runs of ``text`` split at punctuation: ``[["KV", "cache", …], …]``."""
    return [re.findall(r"[A-Za-z][A-Za-z0-9+]*(?:-[A-Za-z0-9+]+)*", seg) for seg in re.split(r"[.,;:()\[\]!?]", text)]


def _display(words: list[str]) -> str:
    """Lower-case a phrase for display, keeping acronyms and mixed-case names ("KV cache", "MoE")."""
    return " ".join(w if any(c.isupper() for c in w[1:]) or w.isupper() else w.lower() for w in words)


def recurring_terms(
    papers: list[PaperItem], skip: set[str], phrases: int = 4, words: int = 3
) -> list[tuple[str, list[int]]]:
    """Terms that occur in at least two papers' titles and summaries: up to ``phrases`` two-word
    phrases, then up to ``words`` single words not part of a chosen phrase, each most frequent first,
    as ``[(display form, [marker numbers])]``. Words are compared by their Snowball stem; stop words
    (bm25s' English list), :data:`GENERIC_WORDS` and ``skip`` are ignored."""
    from papernotes.retrieval.terms import stem, stop_words

    stop = stop_words()
    docs: dict[tuple[str, ...], list[int]] = {}
    surface: dict[tuple[str, ...], str] = {}
    order: dict[tuple[str, ...], int] = {}

    def ok(w: str) -> bool:
        lw = w.lower()
        return len(w) > 1 and lw not in stop and lw not in GENERIC_WORDS and lw not in skip

    for p in papers:
        seen: set[tuple[str, ...]] = set()
        for run in _terms(f"{p.title}. {p.summary}"):
            for j, w in enumerate(run):
                if not ok(w):
                    continue
                keys: list[tuple[tuple[str, ...], list[str]]] = [((stem(w.lower()),), [w])]
                if j + 1 < len(run) and ok(run[j + 1]):
                    keys.append(((stem(w.lower()), stem(run[j + 1].lower())), [w, run[j + 1]]))
                for k, form in keys:
                    surface.setdefault(k, _display(form))
                    order.setdefault(k, len(order))
                    if k not in seen:
                        seen.add(k)
                        docs.setdefault(k, []).append(p.n)

    def ranked(size: int) -> list[tuple[str, ...]]:
        ks = [k for k, ns in docs.items() if len(k) == size and len(ns) >= 2]
        return sorted(ks, key=lambda k: (-len(docs[k]), order[k]))

    chosen = ranked(2)[:phrases]
    inside = {s for k in chosen for s in k}
    chosen += [k for k in ranked(1) if k[0] not in inside][:words]
    return [(surface[k], docs[k]) for k in chosen]


def extractive_overview(s: ConferenceSummary, topic: Topic) -> str:
    """An overview built from the data only: counts, the largest groups, recurring terms (with example
    markers) and the most frequent affiliations; it says it was built without a model."""
    papers = s.papers
    n_groups = len(s.groups)
    parts = [
        f"Built from the notes without a model. The notes list {plural(len(papers), 'paper')} on "
        f"{topic.label} at {s.venue} (of {plural(s.total_papers, 'paper')} of {s.venue} in the notes) "
        f"in {plural(n_groups, 'group')}."
    ]
    biggest = sorted(s.groups, key=lambda g: -len(g.papers))[:4]
    if n_groups > 1:
        parts.append("Largest groups: " + "; ".join(f"{g.name} ({len(g.papers)})" for g in biggest) + ".")
    # the topic's own words and the affiliations' words ("UC Berkeley") are not recurring *terms*
    skip = {w.lower() for w in re.findall(r"[A-Za-z]+", f"{topic.key} {topic.label}")}
    skip |= {w.lower() for p in papers for a in p.affiliations for w in re.findall(r"[A-Za-z]+", a)}
    terms = recurring_terms(papers, skip)
    if terms:
        parts.append(
            "Recurring terms: "
            + "; ".join(f"{t} ({len(ns)} papers, e.g. {''.join(f'[{n}]' for n in ns[:3])})" for t, ns in terms)
            + "."
        )
    affs = Counter(a for p in papers for a in dict.fromkeys(p.affiliations))
    common = [(a, c) for a, c in affs.most_common(6) if c >= 2]
    if common:
        parts.append("Most frequent affiliations: " + ", ".join(f"{a} ({c})" for a, c in common) + ".")
    return " ".join(parts)
