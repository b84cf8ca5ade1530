"""Citation markers (retrieval/citations.py): one parser, used by answers (renumbering) and by conference
summaries (fixed numbering)."""

from __future__ import annotations

import pytest

from papernotes.retrieval.citations import clean_markers, marker_numbers, rewrite_markers, validate_citations

# --------------------------------------------------------------------------------------------------
# answers: validate_citations
# --------------------------------------------------------------------------------------------------


def test_out_of_range_and_malformed_markers_are_removed_and_counted():
    text, order, dropped = validate_citations("A is fast [1]. B is big [4]. C [0]. D is new [1a]. E [2].", 3)
    assert text == "A is fast [1]. B is big. C. D is new. E [2]."
    assert order == [1, 2]
    assert dropped == 3


def test_markers_are_renumbered_in_order_of_first_use():
    text, order, dropped = validate_citations("X [3]. Y [1][3]. Z [2, 3]. W [3-3].", 3)
    assert text == "X [1]. Y [2][1]. Z [3][1]. W [1]."
    assert order == [3, 1, 2]
    assert dropped == 0


def test_marker_lists_keep_valid_numbers_and_links_are_not_markers():
    text, order, dropped = validate_citations("See [the paper](https://x.org/1) and [2, 7] or [^2].", 2)
    assert text == "See [the paper](https://x.org/1) and [1] or [1]."
    assert (order, dropped) == ([2], 1)


# --------------------------------------------------------------------------------------------------
# summaries: clean_markers
# --------------------------------------------------------------------------------------------------


def test_clean_markers_drops_numbers_of_no_paper():
    text, dropped = clean_markers("A [1] and B [99]. C [2, 77] D [3-4] E [0] F [123456].", {1, 2, 3})
    assert text == "A [1] and B. C [2] D [3] E F."
    assert dropped == 5
    assert clean_markers("see [link](http://x) and [1]", {1}) == ("see [link](http://x) and [1]", 0)


def test_clean_markers_keeps_numbers_unrenumbered():
    assert clean_markers("Late paper [7] before early [2].", {2, 7}) == ("Late paper [7] before early [2].", 0)


# --------------------------------------------------------------------------------------------------
# the one parser behind both
# --------------------------------------------------------------------------------------------------

#: marker as a model writes it → the numbers it names (None: malformed)
MARKER_FORMS = {
    "[2]": [2],
    "[1, 2]": [1, 2],
    "[1; 3]": [1, 3],
    "[2-3]": [2, 3],
    "[2–4]": [2, 3, 4],
    "[^2]": [2],
    "[Source 2]": [2],
    "[sources 1, 3]": [1, 3],
    "[2a]": None,
    "[3-1]": None,
    "[1-40]": None,
}


@pytest.mark.parametrize("marker", list(MARKER_FORMS))
def test_every_marker_form_is_parsed_the_same_for_answers_and_summaries(marker):
    expected = MARKER_FORMS[marker]
    seen: list[int] = []

    def identity(n: int) -> int:
        seen.append(n)
        return n

    text, dropped = rewrite_markers(f"Claim {marker}.", identity)
    assert seen == (expected or [])
    # answers: numbers renumbered in order of first use; summaries: numbers kept as they are
    answer, order, answer_dropped = validate_citations(f"Claim {marker}.", 5)
    summary, summary_dropped = clean_markers(f"Claim {marker}.", {1, 2, 3, 4, 5})
    if expected is None:
        assert text == answer == summary == "Claim."
        assert dropped == answer_dropped == summary_dropped == 1
    else:
        assert order == expected
        assert answer == "Claim " + "".join(f"[{i}]" for i in range(1, len(expected) + 1)) + "."
        assert summary == text == "Claim " + "".join(f"[{n}]" for n in expected) + "."
        assert dropped == answer_dropped == summary_dropped == 0


@pytest.mark.parametrize("text", ["[2](https://x.org)", "[see 2]", "[x]", "[]", "a[2b c"])
def test_non_markers_are_left_alone_by_both(text):
    assert validate_citations(text, 5) == (text, [], 0)
    assert clean_markers(text, {2}) == (text, 0)


def test_marker_numbers_expands_lists_and_ranges():
    assert marker_numbers("1, 3-5; 7") == [1, 3, 4, 5, 7]
    assert marker_numbers("12345") is None  # more than 4 digits: not a source number


def test_removed_markers_leave_no_stray_spaces():
    text, dropped = clean_markers("Fast [9], small [8] and new [9] [8]\nnext line [1]", {1})
    assert text == "Fast, small and new\nnext line [1]"
    assert dropped == 4
