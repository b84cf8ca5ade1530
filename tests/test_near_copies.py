"""The near-copy test of the hybrid retriever's collapse: the prefix filter before the intersection
decides every pair as the overlap coefficient does, and collapse keeps the better-ranked copy."""

from __future__ import annotations

import random

import pytest

from papernotes.retrieval.search import NEAR_DUPLICATE_OVERLAP, Hit, _near_copy, _overlap, _shared_needed, collapse


def test_shared_needed_is_the_least_count_reaching_the_threshold():
    for m in range(1, 500):
        x = _shared_needed(m)
        assert x / m >= NEAR_DUPLICATE_OVERLAP and (x == 0 or (x - 1) / m < NEAR_DUPLICATE_OVERLAP), m


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prefix_filter_decides_as_the_overlap(seed):
    rng = random.Random(seed)
    near = 0
    for _ in range(20000):
        u = rng.randint(6, 120)
        a = set(rng.sample(range(2 * u), rng.randint(0, u)))
        if rng.random() < 0.7:  # a copy with terms dropped and a few added: near the threshold
            b = set(rng.sample(sorted(a), rng.randint(0, len(a)))) | set(
                rng.sample(range(2 * u, 3 * u), rng.randint(0, 6))
            )
        else:
            b = set(rng.sample(range(2 * u), rng.randint(0, u)))
        sa, sb = {f"t{t}" for t in a}, {f"t{t}" for t in b}
        want = sa == sb or _overlap(sa, sb) >= NEAR_DUPLICATE_OVERLAP
        near += want
        assert _near_copy(sa, sb) == want == _near_copy(sb, sa)
    assert 1000 < near < 19000  # both answers are exercised


def test_collapse_keeps_the_better_ranked_copy():
    body = " ".join(f"word{i}" for i in range(20))
    hits = [
        Hit("a", f"Title › s\n{body}", {"source": "a.md"}, 3.0, group="page:a"),
        Hit("b", f"Other › s\n{body} extra", {"source": "b.md"}, 2.0, group="page:b"),
        Hit("c", "Third › s\n" + " ".join(f"other{i}" for i in range(20)), {"source": "c.md"}, 1.0, group="page:c"),
    ]
    kept, pool = collapse(hits, 5, 1)
    assert [h.id for h in pool] == ["a", "c"] and kept[0].also == ["b.md"]
