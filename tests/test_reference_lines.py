"""A note's reference line (corpus/reference_lines.py): the formatted citation of its paper under the title
gives its link and venue; a line citing another paper is none (tests/fixtures/families/reference_lines)."""

from __future__ import annotations

import pytest

from papernotes.corpus.reference_lines import reference_of

TITLE = "Accelerating DNNs Inference with Predictive Layer Fusion"


@pytest.mark.parametrize(
    ("lines", "link", "venue", "year"),
    [
        # ACM: the acronym's number is an edition ("MICRO ’52"), the venue takes the reference's year
        (
            [
                "Olyaiy, Ng, and Lis. 2021. Accelerating DNNs inference with predictive layer fusion. In Proceedings "
                "of the ACM International Conference on Supercomputing (ICS '21). ACM, 291–303. "
                "DOI:https://doi.org/10.1145/3447818.3460378"
            ],
            "https://doi.org/10.1145/3447818.3460378",
            "ICS 2021",
            2021,
        ),
        # IEEE with a "Reference:" label and the DOI on the next line
        (
            [
                'Reference: M. Olyaiy et al., "Accelerating DNNs Inference with Predictive Layer Fusion," 2021 IEEE '
                "International Symposium on Microarchitecture (MICRO-54), 2021, pp. 1-12.",
                "doi: 10.1109/MICRO.2021.00001",
            ],
            "https://doi.org/10.1109/MICRO.2021.00001",
            "MICRO 2021",
            2021,
        ),
        # MLA with an arXiv identifier
        (
            [
                'Olyaiy, M., et al. "Accelerating DNNs inference with predictive layer fusion." arXiv preprint '
                "arXiv:2105.01234 (2021)."
            ],
            "https://arxiv.org/abs/2105.01234",
            "arXiv 2021",
            2021,
        ),
        # a bare DOI at the end of a reference
        (
            ["Olyaiy, M. (2021). Accelerating DNNs Inference with Predictive Layer Fusion. ACM TOCS. 10.1145/3309987."],
            "https://doi.org/10.1145/3309987",
            None,
            2021,
        ),
    ],
)
def test_a_reference_gives_link_venue_and_year(lines, link, venue, year):
    ref = reference_of(TITLE, lines)
    assert ref is not None
    assert (ref.link, ref.venue, ref.year) == (link, venue, year)


@pytest.mark.parametrize(
    "lines",
    [
        # another paper's reference: the note's title is not in it
        ['Han, Song, et al. "Learning both weights and connections." Advances in NeurIPS 28 (2015).'],
        # the title alone, or no year
        ["Accelerating DNNs Inference with Predictive Layer Fusion"],
        ["Olyaiy, Ng, and Lis. Accelerating DNNs inference with predictive layer fusion. In Proceedings of ICS."],
        # past the first lines of the opening
        [
            "Some notes.",
            "More notes.",
            "Even more.",
            "Olyaiy et al. 2021. Accelerating DNNs Inference with Predictive Layer Fusion. ICS.",
        ],
    ],
)
def test_no_reference(lines):
    assert reference_of(TITLE, lines) is None
