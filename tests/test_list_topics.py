"""A list topic of several words written together is one thing (a compound: "bayesian optimization",
"optimal transport", "llm serving"): a paper is listed for it when its text states the compound, or
means it in other words, not when it has one of its words ("Bayesian" statistics beside a
"near-optimal" solver, a network "transport", "LLM" training) — retrieval/topic_phrases.py and
retrieval/lists.py ``require_whole_topic``. Fixture: tests/fixtures/families/list_topics/notes (seven
papers written for the test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import notes_of

from papernotes.retrieval.terms import Key
from papernotes.retrieval.topic_phrases import phrases

NOTES = Path(__file__).resolve().parent / "fixtures" / "families" / "list_topics" / "notes"


@pytest.fixture(scope="module")
def notes(tmp_path_factory, models_cache):
    return notes_of(NOTES, tmp_path_factory.mktemp("list-topics-index"), models_cache)


def listed(notes, question: str) -> set[str]:
    """The system names of a list answer's members."""
    an = notes.analyze(question)
    assert an.question.is_list, question
    return {m.paper.title.split(":")[0] for m in an.members}


@pytest.mark.parametrize(
    ("question", "members", "not_members"),
    [
        ("any papers on bayesian optimization?", {"Tanager"}, {"Quillon"}),
        ("which papers are about bayesian optimization", {"Tanager"}, {"Quillon"}),
        ("bayesian optimization papers?", {"Tanager"}, {"Quillon"}),
        ("any papers on optimal transport?", {"Wendell"}, {"Corvid"}),
        ("which papers are about optimal transport", {"Wendell"}, {"Corvid"}),
        ("papers at nsdi 2025 on llm serving", {"Larkspur"}, {"Brambling", "Ptarmigan"}),
        ("nsdi25 llm serving papers?", {"Larkspur"}, {"Brambling", "Ptarmigan"}),
        ("nsdi 2025 papers on llm training", {"Brambling", "Ptarmigan"}, {"Larkspur"}),
    ],
)
def test_members_are_about_the_whole_topic(notes, question, members, not_members):
    got = listed(notes, question)
    assert members <= got, (question, got)
    assert not (not_members & got), (question, got)


def _key(word: str) -> Key:
    return Key(word, ((word,),))


@pytest.mark.parametrize(
    ("question", "words", "runs"),
    [
        ("any papers on bayesian optimization?", ["bayesian", "optimization"], [["bayesian", "optimization"]]),
        ("which papers do rl for scheduling", ["rl", "scheduling"], [["rl", "scheduling"]]),  # one preposition
        ("kv cache papers for llm serving", ["kv", "cache", "llm", "serving"], [["kv", "cache"], ["llm", "serving"]]),
        (
            "papers that rely on bayesian optimization",
            ["rely", "bayesian", "optimization"],
            [["bayesian", "optimization"], ["rely"]],
        ),  # a verb frames the topic
        ("won a best paper award", ["won", "best", "award"], [["best"], ["award"], ["won"]]),
        ("intel amx (advanced matrix extensions)", ["amx", "advanced"], [["amx"], ["advanced"]]),  # an aside
    ],
)
def test_phrases_are_the_runs_the_question_writes(question, words, runs):
    got = phrases(question, [_key(w) for w in words])
    assert [[k.word for k in run] for run in got] == runs
