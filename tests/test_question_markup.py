"""A question is read as the notes are (retrieval/answer.markup_stripped): Markdown and HTML around or
inside it render to their visible text, so "<b>what is quokka</b>" is the question "what is quokka";
the content of a script or style element is no text, in questions and in notes alike."""

from __future__ import annotations

import pytest
from conftest import make_settings

from papernotes.corpus.errors import BadInputError
from papernotes.corpus.markdown import html_text
from papernotes.retrieval.answer import check_question


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("<b>what is quokka</b>", "what is quokka"),
        ("what is quokka <br>", "what is quokka"),
        ("<script>alert(1)</script> what is quokka", "what is quokka"),
        ("<div>what is <i>quokka</i></div>", "what is quokka"),
        ("**what** is `Quokka`?", "what is Quokka?"),
        ("![x](http://example.invalid/x.png) what is quokka", "what is quokka"),
        ("[Quokka](https://example.invalid/q) paper?", "Quokka paper?"),
        # no markup: unchanged, comparison signs and products included
        ("what is 2*3 and x_1 < 5?", "what is 2*3 and x_1 < 5?"),
        ("KV <= 1 GB?", "KV <= 1 GB?"),
    ],
)
def test_markup_around_a_question_is_read_as_its_text(typed, read):
    assert check_question(typed) == read


@pytest.mark.parametrize("typed", ["<br>", "<script>alert(1)</script>", "![](x.png)", "<img src=x onerror=alert(1)>"])
def test_markup_with_no_words_is_no_question(typed):
    """Not "empty": the message says the question was only markup."""
    with pytest.raises(BadInputError, match="only markup"):
        check_question(typed)


def test_script_and_style_content_is_no_text():
    html = "<h1>Orbweaver</h1><script>alert(1)</script><style>p{color:red}</style><p>Orbweaver schedules 5 jobs.</p>"
    assert html_text(html) == "Orbweaver Orbweaver schedules 5 jobs."


def test_a_question_in_markup_is_answered_like_the_plain_one(fixture_index):
    from papernotes.retrieval.service import Notes

    notes = Notes(make_settings(fixture_index.data_dir))
    plain = notes.ask("what is quokka", use_llm=False)
    marked = notes.ask("<b>what is quokka</b>", use_llm=False)
    assert not plain.refused and marked.answer == plain.answer
